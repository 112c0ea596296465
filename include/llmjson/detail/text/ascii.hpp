// llmjson: the byte classes the rules name, written once: BOM, white space, words, case, hex
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_ASCII_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_ASCII_HPP_INCLUDED

#include <cstddef>
#include <string_view>

namespace llmjson::detail {

/// The UTF-8 byte order mark. One at the start of an output is no part of it (§1 Valid JSON).
inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

/// Returns 3 when `text` starts with a BOM, else 0: where the output's first line starts.
constexpr std::size_t bom_length(std::string_view text) noexcept {
  return text.substr(0, utf8_bom.size()) == utf8_bom ? utf8_bom.size() : 0;
}

/// JSON's white space (RFC 8259): space, tab, LF, CR. Not FF, VT or NBSP.
constexpr bool is_json_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// An ASCII letter or `_`: a byte that starts a word (`True`, `{name:`, `analysis`).
constexpr bool is_word_start(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// An ASCII letter, digit or `_`: a byte of a word (a harmony channel name, an unquoted key).
constexpr bool is_word_byte(char c) noexcept { return is_word_start(c) || (c >= '0' && c <= '9'); }

/// ASCII case folding, byte by byte: markers match ASCII letters case-insensitively
/// (§2 Reasoning regions); other bytes stay as they are.
constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr char ascii_upper(char c) noexcept {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

/// Whether a backslash and `c` make one of JSON's two-byte escapes (`\"`, `\\`, `\/`, `\b`,
/// `\f`, `\n`, `\r`, `\t`; `\u` takes four hex digits more).
constexpr bool is_short_escape(char c) noexcept {
  return c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
         c == 't';
}

/// The value of a hex digit (`0`-`9`, `a`-`f`, `A`-`F`), or -1 for any other byte.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The hex digit of `v` (0 to 15): upper case (`0x1F` in a message) or lower (`\u001f`).
constexpr char hex_digit(unsigned v, bool upper = true) noexcept {
  return (upper ? "0123456789ABCDEF" : "0123456789abcdef")[v & 15];
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_TEXT_ASCII_HPP_INCLUDED
