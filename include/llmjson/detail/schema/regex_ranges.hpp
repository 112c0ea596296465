// llmjson: the code point sets of schema patterns' classes: merging, complement, \d \w \s
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_RANGES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_RANGES_HPP_INCLUDED

#include <algorithm>
#include <utility>

#include <llmjson/detail/schema/unicode.hpp>

namespace llmjson::detail {

/// Sorts `r` and merges its overlapping and adjacent ranges.
inline void normalize_ranges(unicode::range_list& r) {
  std::sort(r.begin(), r.end());
  unicode::range_list merged;
  for (const auto& p : r) {
    if (!merged.empty() && p.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, p.second);
    } else {
      merged.push_back(p);
    }
  }
  r = std::move(merged);
}

/// The code points (up to U+10FFFF) outside `r`, as sorted ranges.
[[nodiscard]] inline unicode::range_list complement_ranges(unicode::range_list r) {
  normalize_ranges(r);
  unicode::range_list out;
  char32_t next = 0;
  for (const auto& p : r) {
    if (p.first > next) out.emplace_back(next, p.first - 1);
    next = p.second + 1;
  }
  if (next <= unicode::max_code_point) out.emplace_back(next, unicode::max_code_point);
  return out;
}

/// `\d`: [0-9].
[[nodiscard]] inline unicode::range_list digit_ranges() { return {{U'0', U'9'}}; }
/// `\w`: [A-Za-z0-9_] (with the u flag and no i flag).
[[nodiscard]] inline unicode::range_list word_ranges() {
  return {{U'0', U'9'}, {U'A', U'Z'}, {U'_', U'_'}, {U'a', U'z'}};
}
/// `\s`: ECMA-262's WhiteSpace and LineTerminator.
[[nodiscard]] inline unicode::range_list space_ranges() {
  return {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680}, {0x2000, 0x200A},
          {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
}
/// Whether `c` is in `\w`, as `\b` and `\B` read the code points on either side.
[[nodiscard]] inline bool is_word_char(char32_t c) noexcept {
  return (c >= U'0' && c <= U'9') || (c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z') ||
         c == U'_';
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_RANGES_HPP_INCLUDED
