// llmjson: finding the next byte of a small set, 16 bytes at a time
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_FIND_HPP_INCLUDED
#define LLMJSON_DETAIL_FIND_HPP_INCLUDED

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <string_view>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define LLMJSON_HAVE_SSE2 1
#endif

namespace llmjson::detail {

/// Finds the next byte of a set in a text: 16 bytes at a time with SSE2 (every x86-64 has
/// it) for sets of at most 8 bytes, a byte at a time through a table otherwise, elsewhere, or
/// when `LLMJSON_NO_SIMD` is defined (the tests build that path too). Each call reads the bytes
/// from `from` up to the first match, so a left-to-right pass reads every byte once. Does not
/// allocate or throw.
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
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
    if (i < end && end - i >= 16) {
      switch (count_) {
        case 0: return end;
        case 1: i = sse2<1>(text, i, end); break;
        case 2: i = sse2<2>(text, i, end); break;
        case 3: i = sse2<3>(text, i, end); break;
        case 4: i = sse2<4>(text, i, end); break;
        default:
          if (count_ <= max_bytes) i = sse2<max_bytes>(text, i, end);
          break;
      }
    }
#endif
    for (; i < end; ++i)
      if (table_[static_cast<unsigned char>(text[i])]) return i;
    return end;
  }

 private:
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  /// Skips 16 bytes at a time while none is in the set (the first `N` set bytes, the rest
  /// repeating the first). Returns the first match, or the start of the last partial block.
  template <std::size_t N>
  [[nodiscard]] std::size_t sse2(std::string_view text, std::size_t i,
                                 std::size_t end) const noexcept {
    __m128i needles[N];
    for (std::size_t k = 0; k < N; ++k) needles[k] = _mm_set1_epi8(bytes_[k < count_ ? k : 0]);
    for (; end - i >= 16; i += 16) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      __m128i hits = _mm_cmpeq_epi8(chunk, needles[0]);
      for (std::size_t k = 1; k < N; ++k)
        hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, needles[k]));
      if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits)))
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

#endif  // LLMJSON_DETAIL_FIND_HPP_INCLUDED
