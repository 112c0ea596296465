// llmjson: the NEON kernel, 16 bytes a load (aarch64 with GCC or Clang: NEON is in every
// aarch64 CPU, so nothing is asked at run time)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KERNELS_NEON_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KERNELS_NEON_HPP_INCLUDED

// Only the C headers and <arm_neon.h>: the ctest kernel_neon_syntax parses this file for aarch64
// on an x86 machine, where no C++ standard library for aarch64 is installed.
#include <stddef.h>
#include <stdint.h>

#include <llmjson/detail/scan/classify.hpp>

#if !defined(LLMJSON_NO_SIMD) && defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#include <arm_neon.h>
#define LLMJSON_KERNEL_NEON 1

namespace llmjson::detail::kernels::neon {

/// The 16 bytes of a comparison (0xFF or 0) as 16 bits, bit `i` for byte `i`: NEON has no
/// movemask, so each byte keeps its own bit of a byte and the halves are summed.
inline uint64_t bits(uint8x16_t v) noexcept {
  const uint8x16_t weights = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t t = vandq_u8(v, weights);
  return static_cast<uint64_t>(vaddv_u8(vget_low_u8(t))) |
         static_cast<uint64_t>(vaddv_u8(vget_high_u8(t))) << 8;
}

/// The bytes of `x` equal to `c`, as 16 bits.
inline uint64_t eq(uint8x16_t x, unsigned char c) noexcept {
  return bits(vceqq_u8(x, vdupq_n_u8(c)));
}

/// Adds the classes of the 16 bytes `x` to `m` at bit `at`.
inline void classify16(uint8x16_t x, block_masks& m, unsigned at) noexcept {
  const uint64_t low = bits(vcltq_u8(x, vdupq_n_u8(0x20)));
  const uint64_t lf = eq(x, '\n'), cr = eq(x, '\r');
  m.quote |= eq(x, '"') << at;
  m.backslash |= eq(x, '\\') << at;
  m.lbrace |= eq(x, '{') << at;
  m.rbrace |= eq(x, '}') << at;
  m.lbracket |= eq(x, '[') << at;
  m.rbracket |= eq(x, ']') << at;
  m.colon |= eq(x, ':') << at;
  m.comma |= eq(x, ',') << at;
  m.lt |= eq(x, '<') << at;
  m.pipe |= eq(x, '|') << at;
  m.backtick |= eq(x, '`') << at;
  m.tilde |= eq(x, '~') << at;
  m.lf |= lf << at;
  m.cr |= cr << at;
  m.control |= (low & ~lf & ~cr) << at;
  m.non_ascii |= bits(vcgeq_u8(x, vdupq_n_u8(0x80))) << at;
  m.ws |= (eq(x, ' ') | eq(x, '\t') | lf | cr) << at;
}

inline uint8x16_t load(const char* p) noexcept {
  return vld1q_u8(reinterpret_cast<const uint8_t*>(p));
}

/// The class masks of the `n` bytes at `p` (`n` at most 64).
inline block_masks classify(const char* p, size_t n) noexcept {
  alignas(16) char padded[64] = {};
  const char* q = p;
  if (n < 64) {  // never read past p + n: a short block is copied, padded with zeros
    __builtin_memcpy(padded, p, n);
    q = padded;
  }
  block_masks m;
  for (unsigned k = 0; k < 4; ++k) classify16(load(q + 16 * k), m, 16 * k);
  return n < 64 ? cut_to(m, n) : m;
}

/// The bytes of the 16 at `p` equal to one of the `count` bytes at `set`, as 16 bits.
inline uint64_t hits16(const char* p, const char* set, size_t count) noexcept {
  const uint8x16_t x = load(p);
  uint8x16_t h = vceqq_u8(x, vdupq_n_u8(static_cast<uint8_t>(set[0])));
  for (size_t k = 1; k < count; ++k)
    h = vorrq_u8(h, vceqq_u8(x, vdupq_n_u8(static_cast<uint8_t>(set[k]))));
  return bits(h);
}

/// The first `i` in `[from, end)` with `text[i]` one of the `count` (1 to 8) bytes at `set`, or
/// `end`.
inline size_t find_any(const char* text, size_t from, size_t end, const char* set,
                       size_t count) noexcept {
  if (count == 0) return end;
  if (from >= end || end - from < 16) {  // too short for a load: a byte at a time
    for (size_t i = from; i < end; ++i)
      for (size_t k = 0; k < count; ++k)
        if (text[i] == set[k]) return i;
    return end;
  }
  size_t i = from;
  for (; end - i >= 16; i += 16)
    if (const uint64_t mask = hits16(text + i, set, count))
      return i + static_cast<size_t>(__builtin_ctzll(mask));
  // The last partial block: the 16 bytes that end at `end`, whose first ones were searched.
  if (i < end)
    if (const uint64_t mask = hits16(text + end - 16, set, count))
      return end - 16 + static_cast<size_t>(__builtin_ctzll(mask));
  return end;
}

/// The bytes of the 16 at `p` that stop a string's scan, as 16 bits.
inline uint64_t string_stops(const char* p, bool non_ascii) noexcept {
  const uint8x16_t x = load(p);
  uint8x16_t h = vcltq_u8(x, vdupq_n_u8(0x20));
  h = vorrq_u8(h, vceqq_u8(x, vdupq_n_u8('"')));
  h = vorrq_u8(h, vceqq_u8(x, vdupq_n_u8('\\')));
  if (non_ascii) h = vorrq_u8(h, vcgeq_u8(x, vdupq_n_u8(0x80)));
  return bits(h);
}

/// The first `i` in `[from, end)` with `text[i]` a quote, a backslash, a control byte, or with
/// `non_ascii` a byte from 0x80; or `end`.
inline size_t next_in_string(const char* text, size_t from, size_t end, bool non_ascii) noexcept {
  if (from >= end || end - from < 16) {
    for (size_t i = from; i < end; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80)) return i;
    }
    return end;
  }
  size_t i = from;
  for (; end - i >= 16; i += 16)
    if (const uint64_t mask = string_stops(text + i, non_ascii))
      return i + static_cast<size_t>(__builtin_ctzll(mask));
  if (i < end)
    if (const uint64_t mask = string_stops(text + end - 16, non_ascii))
      return end - 16 + static_cast<size_t>(__builtin_ctzll(mask));
  return end;
}

}  // namespace llmjson::detail::kernels::neon

#endif
#endif  // LLMJSON_DETAIL_SCAN_KERNELS_NEON_HPP_INCLUDED
