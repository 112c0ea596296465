// llmjson: a span that is one JSON value, checked and built in two quick passes
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// Whether nlohmann can hold every number of a span the validator accepted, without building
/// its value: exactly when `build_value` would succeed. nlohmann refuses only a number beyond a
/// double (`1e400`, or 309 digits and more), and a number token alone is refused as it is in
/// its span; so only the numbers with an exponent (but those `surely_fits` lets through) or 300
/// digits and more are handed to it, one token at a time. The strings are skipped 16 or 32 bytes
/// at a time. Does not allocate (a token's parse aside). Called only for a span whose validator
/// flagged such a number (`validator::last_big_number`): the others need no walk at all.
inline bool numbers_fit(std::string_view span) {
  static constexpr byte_finder string_stops{"\"\\"};
  const std::size_t n = span.size();
  std::size_t i = 0;
  while (i < n) {
    const char c = span[i];
    if (c == '"') {  // a string: to its closing quote, past escapes
      for (i = string_stops.next(span, i + 1, n); i < n && span[i] == '\\';)
        i = string_stops.next(span, i + 2, n);
      ++i;
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) {
      ++i;
      continue;
    }
    const std::size_t b = i;
    bool exponent = false;
    for (; i < n; ++i) {
      const char d = span[i];
      if (d == 'e' || d == 'E') {
        exponent = true;
      } else if ((d < '0' || d > '9') && d != '-' && d != '+' && d != '.') {
        break;
      }
    }
    if (!exponent && i - b < 300) continue;  // below 1e300: a double holds it
    const std::string_view token = span.substr(b, i - b);
    if (exponent && surely_fits(token)) continue;  // `2.5e-3`, `1E+5`: no parse
    if (nlohmann::json::parse(token.begin(), token.end(), nullptr, false).is_discarded())
      return false;
  }
  return true;
}

/// Whether `text[b, e)` is one valid JSON value under the rules (JSON white space around it
/// allowed) that nlohmann can hold, built into `*out` unless `out` is null: the rules' own
/// reading tells it (a repeated key, nesting deeper than `max_depth`: `whole_value_reader`, or
/// the validator where that reader leaves it), then `value_builder` builds it without checking
/// again (together several times faster than nlohmann's parse alone), or its numbers are checked
/// (none with an exponent or 300 bytes long: nothing to check). A `false` decides nothing: the
/// caller reads the text the slow way, which tells a prefix, an invalid text, or a value
/// nlohmann cannot hold (`1e400`).
inline bool parse_whole(std::string_view text, std::size_t b, std::size_t e, std::size_t max_depth,
                        nlohmann::json* out) {
  // An object or array that is plainly valid is read in one pass (`whole_value_reader`: the
  // validator's answer, or none); the rest by the validator.
  std::size_t vb = b, ve = e;
  while (vb < ve && is_json_ws(text[vb])) ++vb;
  while (ve > vb && is_json_ws(text[ve - 1])) --ve;
  whole_value_reader::value read = whole_value_reader::of_thread().read(text, vb, ve, max_depth);
  if (read.end != 0 && read.end != ve) return false;  // more than white space after the value
  if (read.end == 0) {
    validator v;
    if (shape_of(v, text, b, e, max_depth, vb, ve) != value_shape::complete) return false;
    read.big = v.last_big_number() != validator::no_raw;
  }
  const std::string_view span = text.substr(vb, ve - vb);
  if (out) return build_json(span, *out);
  return !read.big || numbers_fit(span);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
