// llmjson tool: the few byte-level helpers the tool needs, its own copies (llmjson::detail is
// not API: the tool uses only what a program outside the library could)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_CLI_TEXT_HPP_INCLUDED
#define LLMJSON_CLI_TEXT_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/json_text.hpp>

namespace llmjson_cli {

/// JSON's white space (RFC 8259): space, tab, LF, CR.
constexpr bool is_json_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// The value of a hex digit, or -1.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The length of the well-formed UTF-8 sequence at `s[i]` (RFC 3629: no overlong form, no
/// surrogate, nothing above U+10FFFF), or 0 when it is ill-formed.
constexpr std::size_t utf8_sequence_at(std::string_view s, std::size_t i) noexcept {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    lo = b == 0xE0 ? 0xA0 : 0x80;
    hi = b == 0xED ? 0x9F : 0xBF;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    lo = b == 0xF0 ? 0x90 : 0x80;
    hi = b == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < lo || second > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (c < 0x80 || c > 0xBF) return 0;
  }
  return n;
}

/// Writes the UTF-8 encoding of the code point `cp` (at most U+10FFFF) at `w`; returns its end.
inline char* put_utf8(char* w, char32_t cp) noexcept {
  auto put = [&](char32_t v) { *w++ = static_cast<char>(v); };
  if (cp < 0x80) {
    put(cp);
  } else if (cp < 0x800) {
    put(0xC0 | (cp >> 6));
    put(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    put(0xE0 | (cp >> 12));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  } else {
    put(0xF0 | (cp >> 18));
    put(0x80 | ((cp >> 12) & 0x3F));
    put(0x80 | ((cp >> 6) & 0x3F));
    put(0x80 | (cp & 0x3F));
  }
  return w;
}

/// Appends the UTF-8 encoding of the code point `cp` (at most U+10FFFF) to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
  char bytes[4];
  out.append(bytes, static_cast<std::size_t>(put_utf8(bytes, cp) - bytes));
}

/// The library's: messages show the model's text the same way everywhere.
using llmjson::one_line;

}  // namespace llmjson_cli

#endif  // LLMJSON_CLI_TEXT_HPP_INCLUDED
