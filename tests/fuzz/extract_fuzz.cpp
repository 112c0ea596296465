// llmjson: fuzz target: candidates() and extract() on any bytes, with properties checked
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void require(bool ok, const char* property) {
  if (!ok) {
    std::fprintf(stderr, "llmjson property violated: %s\n", property);
    std::abort();
  }
}

}  // namespace

// Properties, for any input: no crash, hang or sanitizer report; every candidate's view is the
// slice at its offset; candidates come in document order and never overlap; a valid candidate's
// text parses (nlohmann) to its value; the whole-output validator agrees with nlohmann except
// where llmjson is stricter on purpose (duplicate keys, depth, NUL bytes) or nlohmann cannot hold
// a number; extract() returns a valid candidate or an error of a known kind.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const llmjson::scan_result scan = llmjson::candidates(text);
  std::size_t end = 0;
  for (const llmjson::candidate& c : scan.candidates) {
    require(c.text.data() == text.data() + c.offset,
            "a candidate's view is the slice at its offset");
    require(c.offset >= end, "candidates are in document order and do not overlap");
    end = c.offset + c.text.size();
    require(end <= size, "a candidate lies inside the text");
    require(c.line >= 1 && c.column >= 1, "positions are 1-based");
    if (c.valid) {
      const auto parsed = nlohmann::json::parse(c.text.begin(), c.text.end(), nullptr, false);
      require(!parsed.is_discarded(), "nlohmann parses a valid candidate");
      require(parsed == c.value, "a valid candidate's value is its text parsed");
    } else {
      require(!c.problem.empty(), "an invalid candidate says why");
      // The reason is found again by validating the span alone; it must fail there too.
      require(c.problem.find("not valid JSON") == std::string::npos,
              "a malformed span fails on its own as it did in the scan");
    }
  }
  if (scan.truncation) require(scan.truncation->offset <= size, "the cut lies inside the text");

  const std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  llmjson::detail::validator v;
  std::size_t vb = 0, ve = 0;
  const bool ours = llmjson::detail::shape_of(v, text, start, size, 512, vb, ve, /*quiet=*/false) ==
                    llmjson::detail::value_shape::complete;
  const bool has_nul = text.find('\0') != std::string_view::npos;  // nlohmann stops at NUL
  const bool theirs = !has_nul && nlohmann::json::accept(text.begin(), text.end());
  if (ours && !has_nul) {
    // Only a number nlohmann cannot hold (1e400) may make it refuse what llmjson accepts.
    if (!theirs) {
      try {
        const auto parsed = nlohmann::json::parse(text.begin(), text.end());
        require(parsed.is_discarded(), "unreachable: parse throws here");
        require(false, "nlohmann refuses what llmjson accepts");
      } catch (const nlohmann::json::out_of_range&) {
      } catch (const nlohmann::json::exception&) {
        require(false, "nlohmann refuses what llmjson accepts");
      }
    }
  }
  if (theirs && !ours) {
    const std::string& why = v.reason();
    require(why.find("duplicate key") != std::string::npos ||
                why.find("nesting deeper") != std::string::npos,
            "llmjson refuses what nlohmann accepts, for a reason other than its own rules");
  }

  const auto r = llmjson::extract(text, llmjson::any_key({"a", "orders"}));
  if (r) {
    require(r->chosen().valid, "the answer is a valid candidate");
    require(r->fallback || r->chosen().qualifies, "the answer qualifies or is flagged a fallback");
  } else {
    require(!r.error().message.empty(), "an error has a message");
  }
  return 0;
}
