// llmjson: the tool's JSON strings: a byte search for what a string cannot pass over, sixteen or
// eight bytes at a time, and the decoding of a string's escapes, checked or not
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_JSON_STRING_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_JSON_STRING_HPP_INCLUDED

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "text.hpp"

// SSE2 is in every x86-64 CPU (and what the library's own byte searches fall back to); elsewhere,
// and with LLMJSON_CLI_PORTABLE defined (the tests build the tool so once), eight bytes at a time
// in a 64-bit word.
#if defined(__SSE2__) && !defined(LLMJSON_CLI_PORTABLE)
#include <emmintrin.h>
#define LLMJSON_CLI_SSE2 1
#endif

namespace llmjson_cli {

/// Eight bytes at `s`, the first in the lowest byte (a little-endian load; the search below is
/// only used where the machine is little-endian).
inline std::uint64_t load8(const char* s) noexcept {
  std::uint64_t x;
  std::memcpy(&x, s, 8);
  return x;
}

/// A mask with the high bit of each byte of `x` that is zero set, exact up to the lowest such byte
/// (a borrow can only mark bytes above a true one).
constexpr std::uint64_t zero_bytes(std::uint64_t x) noexcept {
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/// The high bit of each byte of `x` that a JSON string cannot pass over as it is: `"`, `\`, a
/// control character, or a byte of a multi-byte UTF-8 sequence; exact up to the lowest such byte.
constexpr std::uint64_t special_bytes8(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ull;
  return (zero_bytes(x ^ (ones * '"')) | zero_bytes(x ^ (ones * '\\')) | ((x - ones * 0x20) & ~x) |
          x) &
         0x8080808080808080ull;
}

/// Whether a JSON string cannot pass over `c` as it is (`special_bytes8`, one byte).
constexpr bool is_special(char c) noexcept {
  const auto b = static_cast<unsigned char>(c);
  return b < 0x20 || b == '"' || b == '\\' || b >= 0x80;
}

#if defined(LLMJSON_CLI_SSE2)
/// The bytes of `x` that a JSON string cannot pass over as they are, one bit each, the first in
/// the lowest. Compared as signed bytes, those from 0x80 are below the space, as the controls are.
inline unsigned special_bytes16(__m128i x) noexcept {
  const __m128i hit = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
      _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(hit));
}
#endif

/// The index of the first byte at or after `at`, before `n`, that a JSON string cannot pass over
/// as it is (`special_bytes8`). Sixteen bytes at a time with SSE2, else eight.
inline std::size_t next_special(const char* s, std::size_t at, std::size_t n) noexcept {
#if defined(LLMJSON_CLI_SSE2)
  for (; n - at >= 16; at += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    if (const unsigned m = special_bytes16(x))
      return at + static_cast<std::size_t>(std::countr_zero(m));
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; n - at >= 8; at += 8)
      if (const std::uint64_t hit = special_bytes8(load8(s + at)))
        return at + static_cast<std::size_t>(std::countr_zero(hit) >> 3);
  }
  while (at < n && !is_special(s[at])) ++at;
  return at;
}

/// Copies the bytes of `s[at, n)` before the first one a JSON string cannot pass over as it is
/// to `w`, and moves both past them. Whole blocks are stored before they are looked at, so `w`
/// must have room for `n - at` bytes, whatever the copy's length.
inline void copy_plain(const char* s, std::size_t& at, std::size_t n, char*& w) noexcept {
#if defined(LLMJSON_CLI_SSE2)
  for (; n - at >= 16; at += 16, w += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(w), x);
    if (const unsigned m = special_bytes16(x)) {
      const auto k = static_cast<std::size_t>(std::countr_zero(m));
      at += k;
      w += k;
      return;
    }
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; n - at >= 8; at += 8, w += 8) {
      const std::uint64_t x = load8(s + at);
      std::memcpy(w, &x, 8);
      if (const std::uint64_t hit = special_bytes8(x)) {
        const auto k = static_cast<std::size_t>(std::countr_zero(hit) >> 3);
        at += k;
        w += k;
        return;
      }
    }
  }
  while (at < n && !is_special(s[at])) *w++ = s[at++];
}

/// The value of the four hex digits of a `\u` escape at `s[at]` (its backslash), or -1.
inline long hex4(std::string_view s, std::size_t at) noexcept {
  if (s.size() - at < 6) return -1;
  long v = 0;
  for (std::size_t k = at + 2; k < at + 6; ++k) {
    const int h = hex_value(s[k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/// short_escape's answers, by byte: a table, not a switch (a batch's line has an escape every
/// twenty bytes or so).
inline constexpr auto short_escapes = [] {
  std::array<char, 256> t{};
  t['"'] = '"';
  t['\\'] = '\\';
  t['/'] = '/';
  t['b'] = '\b';
  t['f'] = '\f';
  t['n'] = '\n';
  t['r'] = '\r';
  t['t'] = '\t';
  return t;
}();

/// What the two-byte escape `\e` stands for, or 0 when `e` makes none (`u` included).
constexpr char short_escape(char e) noexcept {
  return short_escapes[static_cast<unsigned char>(e)];
}

/// (at most as many bytes as the escape's), moving both past it; false when it is invalid.
inline bool escape_checked(std::string_view s, std::size_t& at, char*& w) noexcept {
  if (s.size() - at < 2) return false;
  if (const char d = short_escape(s[at + 1])) {
    *w++ = d;
    at += 2;
    return true;
  }
  if (s[at + 1] != 'u') return false;
  const long v = hex4(s, at);
  if (v < 0 || (v >= 0xDC00 && v <= 0xDFFF)) return false;
  auto cp = static_cast<char32_t>(v);
  if (v >= 0xD800 && v <= 0xDBFF) {
    const long low = s.substr(at + 6, 2) == "\\u" ? hex4(s, at + 6) : -1;
    if (low < 0xDC00 || low > 0xDFFF) return false;
    cp = 0x10000 + ((cp - 0xD800) << 10) + static_cast<char32_t>(low - 0xDC00);
    at += 6;
  }
  at += 6;
  w = put_utf8(w, cp);
  return true;
}

#if defined(LLMJSON_CLI_SSE2)
/// special_bytes16 of the 64 bytes at `p`, in one mask (bit i: `p[i]`).
inline std::uint64_t special_bytes64(const char* p) noexcept {
  const auto at = [p](int k) {
    return std::uint64_t{special_bytes16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k)))};
  };
  return at(0) | at(16) << 16U | at(32) << 32U | at(48) << 48U;
}

/// Copies `len` bytes from `from` to `to` in 16-byte pieces, at least two: up to 32 bytes more are
/// read after `from + len` and written after `to + len` (the caller has the room).
inline void copy_pieces(const char* from, char* to, std::size_t len) noexcept {
  const auto piece = [&](std::size_t k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + k)));
  };
  // The usual run between two specials is short: two pieces whatever its length, without a
  // test (half the runs are shorter than 16 bytes: the branch predictor missed that test as
  // often as not).
  piece(0);
  piece(16);
  for (std::size_t k = 32; k < len; k += 16) piece(k);
}

/// read_string_line's usual bytes, 64 at a time while 96 remain: the specials of a block found
/// at once, the plain runs between them copied in 16-byte pieces, two-byte escapes and
/// well-formed UTF-8 sequences decoded in place (a model's output written as a JSON string has
/// a special byte every twenty or so: each would otherwise start the search again). Stops at
/// any other special byte (a quote, a control, a `\u` or bad escape, a bad sequence), which the
/// caller reads, and near the end. `w` must have room for `line.size() - at` bytes, and never
/// gets ahead of `at` (read_string_line's buffer, written in place).
inline void copy_usual(std::string_view line, std::size_t& at_ref, char*& w_ref) noexcept {
  // Locals, written back at the end: a store through a `char*` may alias the references.
  const char* const s = line.data();
  const std::size_t n = line.size();
  std::size_t at = at_ref;
  char* w = w_ref;
  const auto leave = [&] {
    at_ref = at;
    w_ref = w;
  };
  while (n - at >= 96) {
    const std::size_t base = at;
    std::uint64_t m = special_bytes64(s + base);
    for (;;) {
      if (m == 0) {  // plain to the block's end
        copy_pieces(s + at, w, base + 64 - at);
        w += base + 64 - at;
        at = base + 64;
        break;
      }
      const std::size_t k = base + static_cast<std::size_t>(std::countr_zero(m));
      copy_pieces(s + at, w, k - at);  // reads and writes stay below base + 96
      w += k - at;
      at = k;
      const auto c = static_cast<unsigned char>(s[at]);
      if (c == '\\') {
        const char d = short_escape(s[at + 1]);  // at + 1 <= base + 64 < n
        if (d == 0) return leave();
        *w++ = d;
        at += 2;
      } else if (c >= 0x80) {
        const std::size_t len = utf8_sequence_at(line, at);
        if (len == 0) return leave();
        std::memcpy(w, s + at, len);
        w += len;
        at += len;
      } else {
        return leave();  // a quote or a control
      }
      const std::size_t done = at - base;  // the escape's or sequence's bytes are no specials
      if (done >= 64) break;
      m &= ~std::uint64_t{0} << done;
    }
  }
  leave();
}
#endif

/// Reads `line` when it is one JSON string, white space around it allowed, and writes its
/// characters (escapes decoded, as UTF-8) to the start of `buffer`, checking it as
/// json_line_reader does in the same pass: `--jsonl`'s usual line read once, not checked and then
/// decoded. Returns how many bytes the characters take (`buffer`'s first ones), or nothing when
/// the line is anything else or not JSON (json_line_reader then says what it is). `buffer` only
/// grows, to the longest line's size: a line's bytes are written over the last one's, not over
/// zeros filled first.
inline std::optional<std::size_t> read_string_line(std::string_view line, std::string& buffer) {
  const std::size_t n = line.size();
  const char* const s = line.data();
  std::size_t at = 0;
  while (at < n && is_json_ws(s[at])) ++at;
  if (at == n || s[at] != '"') return std::nullopt;
  ++at;
  // The characters take at most the bytes of their escapes: write in place, cut at the end.
  // `w` stays behind `s + at` (less the quote), so copy_plain's block stores stay in `buffer`.
  if (buffer.size() < n - at) buffer.resize(n - at);
  char* const begin = buffer.data();
  char* w = begin;
  for (;;) {
#if defined(LLMJSON_CLI_SSE2)
    copy_usual(line, at, w);
#endif
    copy_plain(s, at, n, w);
    if (at == n) break;
    const auto c = static_cast<unsigned char>(s[at]);
    if (c == '"') {
      ++at;
      while (at < n && is_json_ws(s[at])) ++at;
      if (at != n) break;
      return static_cast<std::size_t>(w - begin);
    }
    if (c >= 0x80) {
      const std::size_t len = utf8_sequence_at(line, at);
      if (len == 0) break;
      std::memcpy(w, s + at, len);
      w += len;
      at += len;
      continue;
    }
    if (c < 0x20) break;
    // One byte in twenty is a backslash in a model's output written as a JSON string (its
    // own JSON's quotes, its line breaks): the two-byte escapes are decoded here, inline.
    if (at + 1 < n) {
      if (const char d = short_escape(s[at + 1])) {
        *w++ = d;
        at += 2;
        continue;
      }
    }
    if (!escape_checked(line, at, w)) break;
  }
  return std::nullopt;
}

/// Appends to `out` the characters of `token`, a JSON string (its quotes included) that
/// json_line_reader accepted: escapes decoded, as UTF-8.
inline void decode_string(std::string_view token, std::string& out) {
  const std::string_view body = token.substr(1, token.size() - 2);
  // The characters take at most the bytes of their escapes: write in place, cut at the end.
  const std::size_t had = out.size();
  out.resize(had + body.size());
  char* const begin = out.data() + had;
  char* w = begin;
  const char* s = body.data();
  const std::size_t n = body.size();
  for (std::size_t at = 0; at < n;) {
    copy_plain(s, at, n, w);  // `w` never passes `s + at`: its block stores stay in `out`
    if (at == n) break;
    if (s[at] != '\\') {  // a byte of a UTF-8 sequence, checked by json_line_reader
      *w++ = s[at++];
      continue;
    }
    escape_checked(body, at, w);  // json_line_reader checked it: never false
  }
  out.resize(had + static_cast<std::size_t>(w - begin));
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_JSON_STRING_HPP_INCLUDED
