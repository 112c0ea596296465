// llmjson: UTF-8 helpers shared by the scan, the schema and the retry wings
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_UTF8_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_UTF8_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// What a UTF-8 lead byte asks of the bytes after it: `length` bytes in all (0: not a lead
/// byte), the second in [`lo`, `hi`] (which rules out overlong forms, surrogates and code
/// points past U+10FFFF), the others in [0x80, 0xBF]. Does not throw and does not allocate.
struct utf8_lead {
  std::size_t length = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
};

constexpr utf8_lead utf8_lead_of(unsigned char b) noexcept {
  utf8_lead l;
  if (b < 0x80) {
    l.length = 1;
  } else if (b >= 0xC2 && b <= 0xDF) {
    l.length = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    l.length = 3;
    if (b == 0xE0) l.lo = 0xA0;
    if (b == 0xED) l.hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    l.length = 4;
    if (b == 0xF0) l.lo = 0x90;
    if (b == 0xF4) l.hi = 0x8F;
  }
  return l;
}

/// Returns the length of the well-formed UTF-8 sequence at `s[i]`, or 0 when it is ill-formed.
constexpr std::size_t utf8_sequence_at(std::string_view s, std::size_t i) noexcept {
  const utf8_lead lead = utf8_lead_of(static_cast<unsigned char>(s[i]));
  if (lead.length == 0 || i + lead.length > s.size()) return 0;
  if (lead.length == 1) return 1;
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < lead.lo || second > lead.hi) return 0;
  for (std::size_t k = 2; k < lead.length; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < 0x80 || b > 0xBF) return 0;
  }
  return lead.length;
}

/// Decodes one code point of UTF-8 at `i` and advances `i`. Each byte of an ill-formed sequence
/// (overlong, a surrogate, cut short, a stray continuation byte) decodes to U+FFFD, as
/// `utf8_sequence_at` checks it. Does not throw and does not allocate.
constexpr char32_t utf8_next(std::string_view s, std::size_t& i) noexcept {
  const std::size_t n = utf8_sequence_at(s, i);
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (n == 0) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1FU) : n == 3 ? (b0 & 0x0FU) : (b0 & 0x07U);
  for (std::size_t k = 1; k < n; ++k)
    cp = (cp << 6U) | (static_cast<unsigned char>(s[i + k]) & 0x3FU);
  i += n;
  return cp;
}

/// Returns the number of code points in UTF-8 text, counting each byte of an ill-formed
/// sequence as one (as `utf8_next` decodes it). Does not throw and does not allocate.
constexpr std::size_t utf8_length(std::string_view s) noexcept {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.size(); ++count) {
    const std::size_t n = utf8_sequence_at(s, i);
    i += n == 0 ? 1 : n;
  }
  return count;
}

/// Appends the UTF-8 encoding of the code point `cp` to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// Returns `s` fit for one line of a log or a terminal: valid UTF-8 (U+FFFD for each byte of
/// an ill-formed sequence), control characters written as \n, \t, \r or \xHH. Messages built
/// from the model's text and the caller's words go through it.
inline std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7F) {
      if (b == '\n') {
        out += "\\n";
      } else if (b == '\t') {
        out += "\\t";
      } else if (b == '\r') {
        out += "\\r";
      } else {
        out += "\\x";
        out += hex_digit(b >> 4, /*upper=*/false);
        out += hex_digit(b, /*upper=*/false);
      }
      ++i;
    } else if (const std::size_t n = utf8_sequence_at(s, i); n != 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    }
  }
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_TEXT_UTF8_HPP_INCLUDED
