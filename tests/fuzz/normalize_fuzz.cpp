// llmjson: fuzz target: the tool's --normalize writer (examples/cli/normal_form.hpp) against
// nlohmann's parse and dump, on any bytes
// SPDX-License-Identifier: MIT
#include "../../examples/cli/normal_form.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

// Properties, on every input:
// - the writer never reads past the text (the sanitizers), and appends nothing when it refuses;
// - a text that nlohmann reads as one value with unique keys (what the library calls valid) is
//   written, as nlohmann's compact dump of that value writes it, byte for byte;
// - a text it writes that nlohmann does not read is not a property (the writer checks no more
//   than it must: the tool hands it valid answers alone); a text with a key twice is refused;
//   a text with a NUL byte, or that starts with a byte order mark, is not compared (nlohmann
//   reads NUL as the end of its input, and skips the mark).
// Texts nested deeper than `deepest` levels are skipped: the writer, like nlohmann's dump,
// recurses a level a call, and the library lets no answer deeper than max_depth_limit through.

namespace {

constexpr std::size_t deepest = 600;

void require(bool ok, const char* property, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "llmjson normalize property violated: %s\n  %.*s\n", property,
               static_cast<int>(text.size() < 2000 ? text.size() : 2000), text.data());
  std::abort();
}

// Whether the brackets outside strings nest deeper than `deepest` (a string's end is where
// nlohmann's would be; on text that is not JSON, an estimate that only skips more).
bool too_deep(std::string_view t) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// nlohmann's SAX reading, noting whether some object has a key twice (its DOM keeps the last).
class duplicate_keys : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool found = false;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!keys_.back().insert(k).second) found = true;
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (too_deep(text)) return 0;
  std::string out = "kept";
  const bool written = llmjson_cli::append_normalized(text, out);
  require(written || out == "kept", "a refused text appended something", text);
  // Where nlohmann reads more than JSON, no candidate's text goes: it reads a NUL byte as the
  // input's end (`123\0` is 123), and skips a UTF-8 byte order mark before the value.
  if (text.find('\0') != std::string_view::npos || text.starts_with("\xEF\xBB\xBF")) return 0;
  const nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
  if (v.is_discarded()) return 0;
  duplicate_keys sax;
  nlohmann::json::sax_parse(text, &sax);
  if (sax.found) {
    require(!written, "a text with a key twice was written", text);
    return 0;
  }
  require(written, "a valid text was refused", text);
  require(out == "kept" + v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
          "the normal form is not nlohmann's dump", text);
  return 0;
}
