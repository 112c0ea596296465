// llmjson: the SSE4.2 kernel, 16 bytes a load (x86-64 with GCC or Clang, chosen at run time)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KERNELS_SSE42_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KERNELS_SSE42_HPP_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <llmjson/detail/scan/classify.hpp>

// The functions carry target("sse4.2"), so the program needs no -msse4.2: they run only where
// the CPU has it (kernels/dispatch.hpp asks). The byte comparisons are SSE2's; what SSE4.2 adds
// over the x86-64 baseline is the flag that says the CPU is of the generation the kernel is
// tuned for (a 64-byte step with four loads in flight).
#if !defined(LLMJSON_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LLMJSON_KERNEL_SSE42 1
#define LLMJSON_TARGET_SSE42 __attribute__((target("sse4.2")))

namespace llmjson::detail::kernels::sse42 {

/// The 16 bits of a byte comparison, widened.
LLMJSON_TARGET_SSE42 inline uint64_t bits(__m128i v) noexcept {
  return static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(v)));
}

/// The bytes of `x` equal to `c`, as 16 bits.
LLMJSON_TARGET_SSE42 inline uint64_t eq(__m128i x, char c) noexcept {
  return bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)));
}

/// Adds the classes of the 16 bytes `x` to `m` at bit `at`.
LLMJSON_TARGET_SSE42 inline void classify16(__m128i x, block_masks& m, unsigned at) noexcept {
  const __m128i below = _mm_set1_epi8(0x1F);
  // max(x, 0x1F) == 0x1F exactly for the bytes 0x00-0x1F (unsigned).
  const uint64_t low = bits(_mm_cmpeq_epi8(_mm_max_epu8(x, below), below));
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
  m.non_ascii |= bits(x) << at;
  m.ws |= (eq(x, ' ') | eq(x, '\t') | lf | cr) << at;
}

/// The class masks of the `n` bytes at `p` (`n` at most 64).
LLMJSON_TARGET_SSE42 inline block_masks classify(const char* p, size_t n) noexcept {
  alignas(16) char padded[64] = {};
  const char* q = p;
  if (n < 64) {  // never read past p + n: a short block is copied, padded with zeros
    __builtin_memcpy(padded, p, n);
    q = padded;
  }
  block_masks m;
  for (unsigned k = 0; k < 4; ++k)
    classify16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 16 * k)), m, 16 * k);
  return n < 64 ? cut_to(m, n) : m;
}

/// `find_any` for sets of `N` bytes (the set's first `count`, the rest repeating its first).
template <size_t N>
LLMJSON_TARGET_SSE42 size_t find_n(const char* p, size_t from, size_t end, const char* set,
                                   size_t count) noexcept {
  __m128i needles[N];
  for (size_t k = 0; k < N; ++k) needles[k] = _mm_set1_epi8(set[k < count ? k : 0]);
  auto hits_at = [&](size_t at) {  // SSE2, the x86-64 baseline: no target needed
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at));
    __m128i hits = _mm_cmpeq_epi8(chunk, needles[0]);
    for (size_t k = 1; k < N; ++k) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, needles[k]));
    return hits;
  };
  size_t i = from;
  // 64 bytes a step while nothing matches (one test for four loads), then 16.
  for (; end - i >= 64; i += 64) {
    const __m128i a = hits_at(i), b = hits_at(i + 16), c = hits_at(i + 32), d = hits_at(i + 48);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
    const uint64_t mask = bits(a) | bits(b) << 16 | bits(c) << 32 | bits(d) << 48;
    return i + static_cast<size_t>(__builtin_ctzll(mask));
  }
  for (; end - i >= 16; i += 16)
    if (const uint64_t mask = bits(hits_at(i)))
      return i + static_cast<size_t>(__builtin_ctzll(mask));
  // The last partial block: the 16 bytes that end at `end`, whose first ones were searched.
  if (i < end)
    if (const uint64_t mask = bits(hits_at(end - 16)))
      return end - 16 + static_cast<size_t>(__builtin_ctzll(mask));
  return end;
}

/// The first `i` in `[from, end)` with `text[i]` one of the `count` (1 to 8) bytes at `set`, or
/// `end`.
LLMJSON_TARGET_SSE42 inline size_t find_any(const char* text, size_t from, size_t end,
                                            const char* set, size_t count) noexcept {
  if (from >= end || end - from < 16) {  // too short for a load: a byte at a time
    for (size_t i = from; i < end; ++i)
      for (size_t k = 0; k < count; ++k)
        if (text[i] == set[k]) return i;
    return end;
  }
  switch (count) {
    case 0: return end;
    case 1: return find_n<1>(text, from, end, set, count);
    case 2: return find_n<2>(text, from, end, set, count);
    case 3: return find_n<3>(text, from, end, set, count);
    case 4: return find_n<4>(text, from, end, set, count);
    default: return find_n<8>(text, from, end, set, count);
  }
}

/// The bytes of the 16 at `p` that stop a string's scan, as 16 bits.
LLMJSON_TARGET_SSE42 inline uint64_t string_stops(const char* p, bool non_ascii) noexcept {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i below = _mm_set1_epi8(0x1F);
  __m128i hits = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  uint64_t mask = bits(hits);
  if (non_ascii) mask |= bits(x);  // the high bit
  return mask;
}

/// The first `i` in `[from, end)` with `text[i]` a quote, a backslash, a control byte, or with
/// `non_ascii` a byte from 0x80; or `end`.
LLMJSON_TARGET_SSE42 inline size_t next_in_string(const char* text, size_t from, size_t end,
                                                  bool non_ascii) noexcept {
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

}  // namespace llmjson::detail::kernels::sse42

#endif
#endif  // LLMJSON_DETAIL_SCAN_KERNELS_SSE42_HPP_INCLUDED
