// llmjson: the AVX2 kernel, 32 bytes a load (x86-64 with GCC or Clang, chosen at run time)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KERNELS_AVX2_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KERNELS_AVX2_HPP_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <llmjson/detail/scan/classify.hpp>

// The functions carry target("avx2"), so the program needs no -mavx2: they run only where the
// CPU has AVX2 (kernels/dispatch.hpp asks).
#if !defined(LLMJSON_NO_SIMD) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LLMJSON_KERNEL_AVX2 1
#ifndef LLMJSON_TARGET_AVX2
#define LLMJSON_TARGET_AVX2 __attribute__((target("avx2")))
#endif

namespace llmjson::detail::kernels::avx2 {

/// The 32 bits of a byte comparison, widened.
LLMJSON_TARGET_AVX2 inline uint64_t bits(__m256i v) noexcept {
  return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(v)));
}

/// The 16 bits of a byte comparison, widened.
LLMJSON_TARGET_AVX2 inline uint64_t bits(__m128i v) noexcept {
  return static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(v)));
}

/// The bytes of `x` equal to `c`, as 32 bits.
LLMJSON_TARGET_AVX2 inline uint64_t eq(__m256i x, char c) noexcept {
  return bits(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(c)));
}

/// Adds the classes of the 32 bytes `x` to `m` at bit `at`.
LLMJSON_TARGET_AVX2 inline void classify32(__m256i x, block_masks& m, unsigned at) noexcept {
  const __m256i below = _mm256_set1_epi8(0x1F);
  // max(x, 0x1F) == 0x1F exactly for the bytes 0x00-0x1F (unsigned).
  const uint64_t low = bits(_mm256_cmpeq_epi8(_mm256_max_epu8(x, below), below));
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
LLMJSON_TARGET_AVX2 inline block_masks classify(const char* p, size_t n) noexcept {
  alignas(32) char padded[64] = {};
  const char* q = p;
  if (n < 64) {  // never read past p + n: a short block is copied, padded with zeros
    __builtin_memcpy(padded, p, n);
    q = padded;
  }
  block_masks m;
  classify32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)), m, 0);
  classify32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32)), m, 32);
  return n < 64 ? cut_to(m, n) : m;
}

/// The bytes of the 32 at `p` equal to one of `needles`, as a comparison. (A helper, not a
/// lambda: GCC gives a lambda the default target, where AVX2 intrinsics do not inline.)
template <size_t N>
LLMJSON_TARGET_AVX2 inline __m256i hits32(const __m256i* needles, const char* p) noexcept {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i a = _mm256_cmpeq_epi8(x, needles[0]);
  for (size_t k = 1; k < N; ++k) a = _mm256_or_si256(a, _mm256_cmpeq_epi8(x, needles[k]));
  return a;
}

/// `find_any` for sets of `N` bytes (the set's first `count`, the rest repeating its first), on
/// at least 16 bytes.
template <size_t N>
LLMJSON_TARGET_AVX2 size_t find_n(const char* p, size_t from, size_t end, const char* set,
                                  size_t count) noexcept {
  // Near hits (`<think>` repeated) take one 16-byte load before the wide ones are set up.
  __m128i narrow[N];
  for (size_t k = 0; k < N; ++k) narrow[k] = _mm_set1_epi8(set[k < count ? k : 0]);
  const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + from));
  __m128i h = _mm_cmpeq_epi8(head, narrow[0]);
  for (size_t k = 1; k < N; ++k) h = _mm_or_si128(h, _mm_cmpeq_epi8(head, narrow[k]));
  if (const uint64_t mask = bits(h)) return from + static_cast<size_t>(__builtin_ctzll(mask));
  size_t i = from + 16;
  if (i >= end) return end;

  __m256i needles[N];
  for (size_t k = 0; k < N; ++k) needles[k] = _mm256_set1_epi8(set[k < count ? k : 0]);
  for (; end - i >= 64; i += 64) {
    const __m256i a = hits32<N>(needles, p + i), b = hits32<N>(needles, p + i + 32);
    const __m256i any = _mm256_or_si256(a, b);
    if (_mm256_testz_si256(any, any)) continue;
    return i + static_cast<size_t>(__builtin_ctzll(bits(a) | bits(b) << 32));
  }
  for (; end - i >= 32; i += 32)
    if (const uint64_t mask = bits(hits32<N>(needles, p + i)))
      return i + static_cast<size_t>(__builtin_ctzll(mask));
  if (i == end) return end;
  // The last partial block: the bytes that end at `end`, whose first ones were searched.
  if (end - from >= 32) {
    if (const uint64_t mask = bits(hits32<N>(needles, p + end - 32)))
      return end - 32 + static_cast<size_t>(__builtin_ctzll(mask));
    return end;
  }
  const __m128i tail = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + end - 16));
  h = _mm_cmpeq_epi8(tail, narrow[0]);
  for (size_t k = 1; k < N; ++k) h = _mm_or_si128(h, _mm_cmpeq_epi8(tail, narrow[k]));
  if (const uint64_t mask = bits(h)) return end - 16 + static_cast<size_t>(__builtin_ctzll(mask));
  return end;
}

/// The first `i` in `[from, end)` with `text[i]` one of the `count` (1 to 8) bytes at `set`, or
/// `end`.
LLMJSON_TARGET_AVX2 inline size_t find_any(const char* text, size_t from, size_t end,
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
LLMJSON_TARGET_AVX2 inline uint64_t string_stops16(const char* p, bool non_ascii) noexcept {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i below = _mm_set1_epi8(0x1F);
  __m128i hits = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  uint64_t mask = bits(hits);
  if (non_ascii) mask |= bits(x);  // the high bit
  return mask;
}

/// The bytes of the 32 at `p` that stop a string's scan, as 32 bits.
LLMJSON_TARGET_AVX2 inline uint64_t string_stops32(const char* p, bool non_ascii) noexcept {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i below = _mm256_set1_epi8(0x1F);
  __m256i hits = _mm256_cmpeq_epi8(_mm256_max_epu8(x, below), below);
  hits = _mm256_or_si256(hits, _mm256_cmpeq_epi8(x, _mm256_set1_epi8('"')));
  hits = _mm256_or_si256(hits, _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\\')));
  uint64_t mask = bits(hits);
  if (non_ascii) mask |= bits(x);  // the high bit
  return mask;
}

/// The first `i` in `[from, end)` with `text[i]` a quote, a backslash, a control byte, or with
/// `non_ascii` a byte from 0x80; or `end`.
LLMJSON_TARGET_AVX2 inline size_t next_in_string(const char* text, size_t from, size_t end,
                                                 bool non_ascii) noexcept {
  if (from >= end || end - from < 16) {
    for (size_t i = from; i < end; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80)) return i;
    }
    return end;
  }
  // Most strings are short: their end is in the first 16 bytes.
  if (const uint64_t mask = string_stops16(text + from, non_ascii))
    return from + static_cast<size_t>(__builtin_ctzll(mask));
  size_t i = from + 16;
  for (; end - i >= 32; i += 32)
    if (const uint64_t mask = string_stops32(text + i, non_ascii))
      return i + static_cast<size_t>(__builtin_ctzll(mask));
  if (i == end) return end;
  if (end - from >= 32) {
    if (const uint64_t mask = string_stops32(text + end - 32, non_ascii))
      return end - 32 + static_cast<size_t>(__builtin_ctzll(mask));
    return end;
  }
  if (const uint64_t mask = string_stops16(text + end - 16, non_ascii))
    return end - 16 + static_cast<size_t>(__builtin_ctzll(mask));
  return end;
}

}  // namespace llmjson::detail::kernels::avx2

#endif
#endif  // LLMJSON_DETAIL_SCAN_KERNELS_AVX2_HPP_INCLUDED
