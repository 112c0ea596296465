// llmjson: the bodies of json_text.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/json_text.hpp>

namespace llmjson {

namespace detail {

/// The escape of a raw LF, CR or tab in a string (`n`, `r`, `t`), or 0 for any other byte.
constexpr char raw_control_escape(char c) noexcept {
  return c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\0';
}

/// Whether a string copies `c` as it is (a byte of a plain run): not `"`, `\`, LF, CR or tab.
constexpr bool is_plain(char c) noexcept {
  return c != '"' && c != '\\' && raw_control_escape(c) == '\0';
}

/// The bytes of the little-endian word `x` that end a string's plain run (`"`, `\`, LF, CR,
/// tab), each flagged by its high bit; exact up to the lowest flagged byte (the test's false
/// positives only ever lie above a true match).
constexpr std::uint64_t plain_stops(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101U, highs = 0x8080808080808080U;
  constexpr auto zero_byte = [](std::uint64_t v) noexcept { return (v - ones) & ~v & highs; };
  return zero_byte(x ^ (ones * '"')) | zero_byte(x ^ (ones * '\\')) | zero_byte(x ^ (ones * '\n')) |
         zero_byte(x ^ (ones * '\r')) | zero_byte(x ^ (ones * '\t'));
}

/// The length of the run of bytes at `p` (up to `end`) that a string copies as they are: none
/// is `"`, `\`, LF, CR or tab. Eight bytes at a time where the machine is little-endian, then
/// a byte at a time.
inline std::size_t plain_run(const char* p, const char* end) noexcept {
  const char* q = p;
  if constexpr (std::endian::native == std::endian::little) {
    while (end - q >= 8) {
      std::uint64_t x = 0;
      std::memcpy(&x, q, 8);
      if (const std::uint64_t found = plain_stops(x))
        return static_cast<std::size_t>(q - p) +
               static_cast<std::size_t>(std::countr_zero(found)) / 8;
      q += 8;
    }
  }
  while (q < end && is_plain(*q)) ++q;
  return static_cast<std::size_t>(q - p);
}

/// Copies the plain run at `p` (as `plain_run` measures it) to `w`, moving both past it. Each
/// word is stored before it is looked at, so `w` must have room for 8 bytes wherever `p` has 8
/// bytes left before `end`.
inline void copy_plain_run(const char*& p, const char* end, char*& w) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8) {
      std::uint64_t x = 0;
      std::memcpy(&x, p, 8);
      std::memcpy(w, &x, 8);
      if (const std::uint64_t found = plain_stops(x)) {
        const auto k = static_cast<std::size_t>(std::countr_zero(found)) / 8;
        p += k;
        w += k;
        return;
      }
      p += 8;
      w += 8;
    }
  }
  while (p < end && is_plain(*p)) *w++ = *p++;
}

/// Copies the string token that starts at `json[i]` (a `"`) into `out`, escapes as written (a
/// raw LF, CR or tab escaped), and returns the index after its closing quote (or `json.size()`
/// when it never closes).
inline std::size_t copy_string_token(std::string_view json, std::size_t i, std::string& out) {
  out += json[i++];
  while (i < json.size() && json[i] != '"') {
    const std::size_t run = plain_run(json.data() + i, json.data() + json.size());
    out.append(json.data() + i, run);  // up to the next quote, backslash or raw LF, CR or tab
    i += run;
    if (i == json.size() || json[i] == '"') break;
    if (json[i] == '\\') {
      out += json.substr(i, 2);  // a text that ends in a lone backslash keeps it
      i += 2;
    } else {
      out += '\\';
      out += raw_control_escape(json[i]);
      ++i;
    }
  }
  if (i < json.size()) out += json[i++];  // the closing quote
  return std::min(i, json.size());
}

}  // namespace detail

LLMJSON_INLINE std::string one_line(std::string_view text) { return detail::one_line(text); }

LLMJSON_INLINE std::string minify(std::string_view json) {
  // Written in place through a pointer (the result is never longer), cut to size at the end:
  // the tool minifies every answer of a batch.
  std::string out(json.size(), '\0');
  char* w = out.data();
  const char* p = json.data();
  const char* const end = p + json.size();
  bool grown = false;  // room for every byte left to double (raw controls escaped)
  while (p < end) {
    const char c = *p++;
    if (c == '"') {
      *w++ = c;
      while (p < end && *p != '"') {
        // The run up to the next quote, backslash or raw LF, CR or tab, copied a word at a time:
        // most of an answer's strings (`w` never passes `p`, or the room was made for every
        // byte to double: a word stored at `w` has room either way).
        detail::copy_plain_run(p, end, w);
        if (p == end || *p == '"') break;
        if (*p == '\\' && p + 1 < end) *w++ = *p++;
        if (const char e = detail::raw_control_escape(*p)) {
          if (!grown) {  // a raw LF, CR or tab in a string: rare, so room is made once
            const auto at = static_cast<std::size_t>(w - out.data());
            out.resize(at + 2 * static_cast<std::size_t>(end - p) + 1);
            w = out.data() + at;
            grown = true;
          }
          *w++ = '\\';
          *w++ = e;
          ++p;
          continue;
        }
        *w++ = *p++;
      }
      if (p < end) *w++ = *p++;  // the closing quote
    } else if (!detail::is_json_ws(c)) {
      *w++ = c;
    }
  }
  out.resize(static_cast<std::size_t>(w - out.data()));
  return out;
}

LLMJSON_INLINE std::string pretty(std::string_view json, std::size_t indent) {
  std::string out;
  out.reserve(json.size() + json.size() / 2);
  std::size_t depth = 0;
  const auto new_line = [&] {
    out += '\n';
    out.append(depth * indent, ' ');
  };
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {
      i = detail::copy_string_token(json, i, out);
      continue;
    }
    ++i;
    if (detail::is_json_ws(c)) continue;
    if (c == '{' || c == '[') {
      // An empty container stays whole: `{}`, `[]`, as nlohmann's dump writes them.
      std::size_t next = i;
      while (next < json.size() && detail::is_json_ws(json[next])) ++next;
      const char close = c == '{' ? '}' : ']';
      out += c;
      if (next < json.size() && json[next] == close) {
        out += close;
        i = next + 1;
      } else {
        ++depth;
        new_line();
      }
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;  // a text that closes more than it opened is not JSON: keep going
      new_line();
      out += c;
    } else if (c == ',') {
      out += c;
      new_line();
    } else if (c == ':') {
      out += ": ";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED
