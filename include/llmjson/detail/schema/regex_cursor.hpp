// llmjson: a schema pattern read code point by code point, with the first error found in it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_CURSOR_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_CURSOR_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// The state every part of the pattern parser shares (escapes, classes, quantifiers, groups): the
/// pattern as code points, the position in it, and why it is invalid once a part found out.
struct regex_cursor {
  std::vector<char32_t> cps;
  std::size_t pos = 0;
  std::string error;

  explicit regex_cursor(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size();) cps.push_back(utf8_next(pattern, i));
  }

  /// Records why the pattern is invalid; returns false, for `return in.fail(...)`.
  bool fail(std::string why) {
    error = std::move(why);
    return false;
  }
  [[nodiscard]] bool at_end() const noexcept { return pos >= cps.size(); }
  /// The code point `ahead` of the position, or 0xFFFFFFFF (no code point) past the end.
  [[nodiscard]] char32_t peek(std::size_t ahead = 0) const noexcept {
    return pos + ahead < cps.size() ? cps[pos + ahead] : char32_t{0xFFFFFFFF};
  }
  /// The pattern's code points from `from` to the position, as written.
  [[nodiscard]] std::u32string_view since(std::size_t from) const noexcept {
    return {cps.data() + from, pos - from};
  }

  /// Reads `digits` hex digits into `out`. Returns false when fewer are there, past the ones it
  /// read (the callers fail, or go back).
  bool read_hex(std::size_t digits, char32_t& out) {
    char32_t v = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const int h = hex(peek());
      if (h < 0) return false;
      v = v * 16 + static_cast<char32_t>(h);
      ++pos;
    }
    out = v;
    return true;
  }
  [[nodiscard]] static int hex(char32_t c) noexcept {
    return c < 0x80 ? detail::hex_value(static_cast<char>(c)) : -1;
  }
  /// `c` as UTF-8, for a message.
  [[nodiscard]] static std::string show(char32_t c) {
    std::string s;
    append_utf8(s, c);
    return s;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_CURSOR_HPP_INCLUDED
