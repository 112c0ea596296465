// llmjson: finding the next byte of a small set, 16 bytes at a time
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define LLMJSON_HAVE_SSE2 1
#endif

// AVX2, chosen at run time (x86-64 with GCC or Clang; `LLMJSON_NO_AVX2` turns it off, and
// the tests build that path too).
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD) && !defined(LLMJSON_NO_AVX2) && \
    defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LLMJSON_HAVE_AVX2 1
#define LLMJSON_TARGET_AVX2 __attribute__((target("avx2")))
#endif

namespace llmjson::detail {

#if defined(LLMJSON_HAVE_AVX2)
/// Whether this CPU runs AVX2 (asked once).
inline bool cpu_has_avx2() noexcept {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return yes;
}
#endif

/// Finds the next byte of a set in a text: 32 bytes at a time with AVX2 where the CPU has it,
/// else 16 with SSE2 (every x86-64 has it), for sets of at most 8 bytes; a byte at a time through a
/// table otherwise, elsewhere, or when `LLMJSON_NO_SIMD` is defined (the tests build that path
/// too). Each call reads the bytes from `from` up to the first match, so a left-to-right pass reads
/// every byte once. Does not allocate or throw.
class byte_finder {
 public:
  static constexpr std::size_t max_bytes = 8;

  /// `bytes`: the set; duplicates are fine.
  constexpr explicit byte_finder(std::string_view bytes) noexcept {
    for (char b : bytes) {
      const auto u = static_cast<unsigned char>(b);
      if (table_[u]) continue;
      table_[u] = true;
      if (count_ < max_bytes) bytes_[count_] = b;
      ++count_;
    }
  }

  /// Whether `c` is in the set.
  [[nodiscard]] constexpr bool contains(char c) const noexcept {
    return table_[static_cast<unsigned char>(c)];
  }

  /// Returns the first `i` in `[from, end)` with `text[i]` in the set, or `end` (at most
  /// `text.size()`).
  [[nodiscard]] std::size_t next(std::string_view text, std::size_t from,
                                 std::size_t end) const noexcept {
    if (end > text.size()) end = text.size();
    std::size_t i = from;
    // Dense hits (`[[[[`) are found without setting up a 16-byte search.
    if (i < end && table_[static_cast<unsigned char>(text[i])]) return i;
    if (count_ == 0) return end;
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
    if (count_ <= max_bytes) {
#if defined(LLMJSON_HAVE_AVX2)
      // Near hits (`<think>` repeated) take one 16-byte block, far ones wide loads.
      if (end - i >= 80 && cpu_has_avx2()) {
        const std::size_t j = sse2_any(text, i, i + 16);
        if (j < i + 16) return j;
        i = avx2_any(text, j, end);
        if (i < end && table_[static_cast<unsigned char>(text[i])]) return i;
      }
#endif
      if (end - i >= 16) i = sse2_any(text, i, end);
    }
#endif
    for (; i < end; ++i)
      if (table_[static_cast<unsigned char>(text[i])]) return i;
    return end;
  }

 private:
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  /// `sse2<N>` for this set's size (1 to `max_bytes` bytes).
  [[nodiscard]] std::size_t sse2_any(std::string_view text, std::size_t i,
                                     std::size_t end) const noexcept {
    switch (count_) {
      case 1: return sse2<1>(text, i, end);
      case 2: return sse2<2>(text, i, end);
      case 3: return sse2<3>(text, i, end);
      case 4: return sse2<4>(text, i, end);
      default: return sse2<max_bytes>(text, i, end);
    }
  }
#endif
#if defined(LLMJSON_HAVE_AVX2)
  /// `avx2<N>` for this set's size (1 to `max_bytes` bytes).
  [[nodiscard]] std::size_t avx2_any(std::string_view text, std::size_t i,
                                     std::size_t end) const noexcept {
    switch (count_) {
      case 1: return avx2<1>(text, i, end);
      case 2: return avx2<2>(text, i, end);
      case 3: return avx2<3>(text, i, end);
      case 4: return avx2<4>(text, i, end);
      default: return avx2<max_bytes>(text, i, end);
    }
  }
#endif
#if defined(LLMJSON_HAVE_AVX2)
  /// As `sse2`, 32 bytes a load: the first match, or where fewer than 32 bytes are left.
  template <std::size_t N>
  [[nodiscard]] LLMJSON_TARGET_AVX2 std::size_t avx2(std::string_view text, std::size_t i,
                                                     std::size_t end) const noexcept {
    __m256i needles[N];
    for (std::size_t k = 0; k < N; ++k) needles[k] = _mm256_set1_epi8(bytes_[k < count_ ? k : 0]);
    const char* p = text.data();
    for (; end - i >= 64; i += 64) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
      __m256i a = _mm256_cmpeq_epi8(x, needles[0]), b = _mm256_cmpeq_epi8(y, needles[0]);
      for (std::size_t k = 1; k < N; ++k) {
        a = _mm256_or_si256(a, _mm256_cmpeq_epi8(x, needles[k]));
        b = _mm256_or_si256(b, _mm256_cmpeq_epi8(y, needles[k]));
      }
      if (_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_or_si256(a, b))) continue;
      const std::uint64_t mask =
          static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(a))) |
          static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(b))) << 32;
      return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
    for (; end - i >= 32; i += 32) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
      __m256i a = _mm256_cmpeq_epi8(x, needles[0]);
      for (std::size_t k = 1; k < N; ++k) a = _mm256_or_si256(a, _mm256_cmpeq_epi8(x, needles[k]));
      if (const auto mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(a)))
        return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
    return i;
  }
#endif
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  /// Skips 16 bytes at a time while none is in the set (the first `N` set bytes, the rest
  /// repeating the first). Returns the first match, or the start of the last partial block.
  template <std::size_t N>
  [[nodiscard]] std::size_t sse2(std::string_view text, std::size_t i,
                                 std::size_t end) const noexcept {
    __m128i needles[N];
    for (std::size_t k = 0; k < N; ++k) needles[k] = _mm_set1_epi8(bytes_[k < count_ ? k : 0]);
    auto hits_at = [&](std::size_t at) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
      __m128i hits = _mm_cmpeq_epi8(chunk, needles[0]);
      for (std::size_t k = 1; k < N; ++k)
        hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, needles[k]));
      return hits;
    };
    // 64 bytes a step while nothing matches (one test for four blocks), then 16.
    for (; end - i >= 64; i += 64) {
      const __m128i a = hits_at(i), b = hits_at(i + 16), c = hits_at(i + 32), d = hits_at(i + 48);
      if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
      const std::uint64_t mask =
          static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(a))) |
          static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(b))) << 16 |
          static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(c))) << 32 |
          static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(d))) << 48;
      return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
    for (; end - i >= 16; i += 16) {
      if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits_at(i))))
        return i + static_cast<std::size_t>(std::countr_zero(mask));
    }
    return i;
  }
#endif

  std::array<bool, 256> table_{};
  std::array<char, max_bytes> bytes_{};
  std::size_t count_ = 0;  // distinct bytes in the set
};

/// Returns the first `i` in `[from, end)` where a JSON string's scan must look: `"`, `\\`, a
/// control byte (below 0x20), and with `non_ascii` a byte from 0x80 (UTF-8 to validate); or
/// `end`. Everything else in a string is plain text.
inline std::size_t next_in_string(std::string_view text, std::size_t from, std::size_t end,
                                  bool non_ascii) noexcept {
  if (end > text.size()) end = text.size();
  std::size_t i = from;
  auto special = [&](unsigned char c) {
    return c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80);
  };
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i below = _mm_set1_epi8(0x1F);
  for (; i < end && end - i >= 16; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    // max(x, 0x1F) == 0x1F exactly for the bytes 0x00-0x1F (unsigned).
    __m128i hits = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
    hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, quote));
    hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, backslash));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits));
    if (non_ascii) mask |= static_cast<unsigned>(_mm_movemask_epi8(x));  // the high bit
    if (mask) return i + static_cast<std::size_t>(std::countr_zero(mask));
  }
#endif
  for (; i < end; ++i)
    if (special(static_cast<unsigned char>(text[i]))) return i;
  return end;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED
