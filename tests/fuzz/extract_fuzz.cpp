// llmjson: fuzz target: candidates() and extract() on any bytes, with properties checked
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/feedback.hpp>
#include <llmjson/json_text.hpp>

#include "../minify_reference.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void require(bool ok, const char* property) {
  if (!ok) {
    std::fprintf(stderr, "llmjson property violated: %s\n", property);
    std::abort();
  }
}

// Whether `s` is well-formed UTF-8 on one line: no control character (C0 or DEL).
bool one_valid_line(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7F) return false;
    const std::size_t n = llmjson::detail::utf8_sequence_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace

// Properties, for any input: no crash, hang or sanitizer report; every candidate's view is the
// slice at its offset; candidates come in document order and never overlap; a valid candidate's
// text parses (nlohmann) to its value (in reasoning: it has none, but its text still parses), and
// one refused for a number beyond a double is refused by nlohmann too; the whole-output validator
// agrees with nlohmann except where llmjson is stricter on purpose (duplicate keys, depth, NUL
// bytes) or nlohmann cannot hold a number; extract() returns a valid candidate or an error of a
// known kind. Reasoning: a candidate in a region never qualifies and is never the answer; with
// regions switched off no candidate is in one; and on a text whose only part is all of it (no
// marker, no leading `analysis` that stripped harmony could make reasoning, no leading phrase
// that opens a phrase pair), switching regions
// off changes nothing. Every extraction error has an instruction for the model (feedback), bounded
// and on one line. The whole-value reader settles a value only as the validator reads it.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const llmjson::scan_result scan = llmjson::candidates(text);
  llmjson::options off;
  off.reasoning_regions = false;
  const llmjson::scan_result plain = llmjson::candidates(text, off);
  for (const llmjson::candidate& c : plain.candidates)
    require(!c.in_reasoning, "with regions off, no candidate is in reasoning");
  require(!plain.truncation || !plain.truncation->reasoning, "with regions off, no reasoning cut");
  const std::size_t first = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  const llmjson::options defaults;
  // Stripped harmony (a leading `analysis`, then `assistantfinal`) is read from the text and
  // not from the marker table: a text that begins with the word may be that.
  std::size_t word = first;
  while (word < size && llmjson::detail::is_json_ws(text[word])) ++word;
  // Likewise an opening phrase (rules v4: Granite's, Apriel's, Ollama's) where the text begins.
  const llmjson::detail::marker_set markers(defaults);
  const bool no_marker =
      markers.next(text, first, size).kind == llmjson::detail::marker_kind::none &&
      !llmjson::detail::marker_at(text, word, "analysis") &&
      markers.phrase_at(text, word, true).kind == llmjson::detail::marker_kind::none;
  if (no_marker) {
    require(plain.candidates.size() == scan.candidates.size(),
            "without markers, regions off finds the same candidates");
    for (std::size_t k = 0; k < scan.candidates.size(); ++k) {
      const llmjson::candidate &a = scan.candidates[k], &b = plain.candidates[k];
      require(a.offset == b.offset && a.text.size() == b.text.size() && a.valid == b.valid &&
                  a.source == b.source && !a.in_reasoning,
              "without markers, regions off finds the same candidates");
    }
    require(scan.truncation.has_value() == plain.truncation.has_value() &&
                (!scan.truncation || scan.truncation->offset == plain.truncation->offset),
            "without markers, regions off finds the same cut");
  }
  std::size_t end = 0;
  for (const llmjson::candidate& c : scan.candidates) {
    require(c.text.data() == text.data() + c.offset,
            "a candidate's view is the slice at its offset");
    require(c.offset >= end, "candidates are in document order and do not overlap");
    end = c.offset + c.text.size();
    require(end <= size, "a candidate lies inside the text");
    require(c.line >= 1 && c.column >= 1, "positions are 1-based");
    if (c.valid) {
      // In reasoning too: validity there is decided without building the value, and must be
      // what building it would decide.
      // Valid with raw controls (rules v4 §3): not JSON as written, JSON once `minify` escapes
      // its raw LF, CR and tabs.
      const auto strict = nlohmann::json::parse(c.text.begin(), c.text.end(), nullptr, false);
      require(c.raw_controls == strict.is_discarded(),
              "raw_controls says exactly when the text as written is not JSON");
      const std::string escaped = llmjson::minify(c.text);
      const auto parsed = nlohmann::json::parse(escaped, nullptr, false);
      require(!parsed.is_discarded(), "nlohmann parses a valid candidate (raw controls escaped)");
      if (c.in_reasoning) {
        require(c.json == nullptr, "a candidate in reasoning has no value");
      } else {
        require(c.json != nullptr, "a valid candidate outside reasoning has a value");
        require(parsed == *c.json, "a valid candidate's value is its text parsed");
        // What selection reads from the text alone: the type, and the top-level keys.
        require(std::string_view(llmjson::detail::type_name_of(c.text)) == c.json->type_name(),
                "a candidate's type read from its text is its value's");
        if (c.json->is_object()) {
          std::size_t keys = 0;
          const bool all_found =
              !llmjson::detail::any_top_level_key(c.text, [&](std::string_view k) {
                ++keys;
                return !c.json->contains(k);
              });
          require(all_found && keys == c.json->size(),
                  "a candidate's top-level keys read from its text are its value's");
        }
      }
    } else {
      require(c.json == nullptr, "an invalid candidate has no value");
      require(!c.raw_controls, "an invalid candidate is not valid with raw controls");
      require(!c.message.empty(), "an invalid candidate says why");
      // The reason is found again by validating the span alone; it must fail there too.
      require(c.message.find("not valid JSON") == std::string::npos,
              "a malformed span fails on its own as it did in the scan");
      // Refused for a number beyond a double (in reasoning: found without building the
      // value): nlohmann refuses the span too.
      if (c.message.find("a number is out of range for a double") != std::string::npos)
        require(nlohmann::json::parse(c.text.begin(), c.text.end(), nullptr, false).is_discarded(),
                "a span refused for its number is one nlohmann refuses");
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
  if (ours && theirs) {
    // The builder makes what nlohmann's parse makes, type for type (dump tells 1 from 1.0).
    nlohmann::json built;
    require(llmjson::detail::build_json(text.substr(vb, ve - vb), built),
            "the builder builds what nlohmann parses");
    const auto parsed = nlohmann::json::parse(text.begin(), text.end());
    require(built == parsed && built.dump() == parsed.dump(),
            "the builder's value is nlohmann's, type for type");
  }
  if (theirs && !ours) {
    const std::string& why = v.reason();
    require(why.find("duplicate key") != std::string::npos ||
                why.find("nesting deeper") != std::string::npos,
            "llmjson refuses what nlohmann accepts, for a reason other than its own rules");
  }

  for (const llmjson::policy pol :
       {llmjson::policy::first, llmjson::policy::unique, llmjson::policy::last}) {
    const auto r =
        llmjson::extract(text, llmjson::any_key({"a", "orders"}), llmjson::options{.policy = pol});
    const std::vector<llmjson::candidate>& cs = r ? r->candidates : r.error().candidates;
    for (const llmjson::candidate& c : cs)
      require(!(c.in_reasoning && c.qualifies), "a candidate in reasoning never qualifies");
    // options::answer_value off: the same result, but no value the key set and the policy do
    // not read (none, but under unique, which compares the qualifying ones: the same as with).
    const auto t = llmjson::extract(text, llmjson::any_key({"a", "orders"}),
                                    llmjson::options{.policy = pol, .answer_value = false});
    require(r.has_value() == t.has_value(), "answer_value off: the same answer or error");
    const std::vector<llmjson::candidate>& ts = t ? t->candidates : t.error().candidates;
    require(ts.size() == cs.size(), "answer_value off: the same candidates");
    for (std::size_t k = 0; k < ts.size(); ++k) {
      const llmjson::candidate &a = cs[k], &b = ts[k];
      require(a.offset == b.offset && a.text.size() == b.text.size() && a.valid == b.valid &&
                  a.qualifies == b.qualifies && a.message == b.message,
              "answer_value off: the same candidates");
      require(pol == llmjson::policy::unique
                  ? (a.json == nullptr) == (b.json == nullptr) && (!a.json || *a.json == *b.json)
                  : b.json == nullptr,
              "answer_value off: values only where the policy compares them");
    }
    require(r ? r->index == t->index && r->fallback == t->fallback
              : r.error().kind == t.error().kind && r.error().message == t.error().message,
            "answer_value off: the same choice");
    if (r) {
      require(r->chosen().valid, "the answer is a valid candidate");
      require(!r->chosen().in_reasoning, "the answer is never in reasoning");
      require(r->fallback || r->chosen().qualifies,
              "the answer qualifies or is flagged a fallback");
    } else {
      require(!r.error().message.empty(), "an error has a message");
      require(r.error().near_misses.empty() || r.error().kind == llmjson::error_kind::no_json ||
                  r.error().kind == llmjson::error_kind::no_match,
              "near misses are named in no_json and no_match errors only");
      const llmjson::instruction said = llmjson::feedback(r.error());
      require(!said.text.empty(), "every extraction error has an instruction for the model");
      require(said.text.size() <= llmjson::max_feedback_bytes,
              "an instruction is at most max_feedback_bytes, whatever the reply");
      require(one_valid_line(said.text), "an instruction is valid UTF-8 on one line");
    }
  }
  // minify on any bytes (its 64-byte steps, where they hand over, its byte loop) is the plainest
  // byte loop's, alone or appended; and, for inputs up to 4 KB (the rest would slow the target
  // more than it adds), from each of the first 63 bytes on (every place of a block).
  const std::string minified = llmjson_test::minify_bytewise(text);
  require(llmjson::minify(text) == minified, "minify is the byte loop's");
  std::string appended = "x";
  llmjson::minify(text, appended);
  require(appended.size() == minified.size() + 1 &&
              appended.compare(1, std::string::npos, minified) == 0,
          "minify appends what it returns");
  for (std::size_t shift = 1; shift < 64 && shift < size && size <= 4096; ++shift)
    require(
        llmjson::minify(text.substr(shift)) == llmjson_test::minify_bytewise(text.substr(shift)),
        "minify is the byte loop's from every place of a block");
  // The whole-value reader gives the validator's answer or none: from each of the first 16
  // openers, to the end and under a few depth limits, a value it settles is the one the strict
  // validator reads complete there, ending at the same byte, with the same flagged numbers.
  std::size_t openers = 0;
  for (std::size_t b = 0; b < size && openers < 16; ++b) {
    if (text[b] != '{' && text[b] != '[') continue;
    ++openers;
    for (const std::size_t depth : {std::size_t{2}, std::size_t{64}, std::size_t{512}}) {
      const auto got = llmjson::detail::whole_value_reader::of_thread().read(text, b, size, depth);
      if (got.end == 0) continue;
      llmjson::detail::validator strict;
      strict.reset(text, depth, /*quiet=*/true);
      require(strict.run_value(b, size) == got.end && strict.complete(),
              "a value the whole-value reader settles ends where the validator's does");
      require(got.big == (strict.last_big_number() != llmjson::detail::validator::no_raw),
              "the whole-value reader flags a number exactly when the validator does");
    }
  }
  return 0;
}
