// llmjson: finding the next byte of a small set, and a string's next special byte, with the
// kernel in use (kernels/dispatch.hpp)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <llmjson/detail/scan/kernels/dispatch.hpp>

// SSE2 for positions.hpp, which counts lines 16 bytes at a time (every x86-64 has it).
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define LLMJSON_HAVE_SSE2 1
#endif

// positions.hpp's AVX2 line count runs when the AVX2 kernel is the one in use.
#if defined(LLMJSON_KERNEL_AVX2)
#define LLMJSON_HAVE_AVX2 1
#endif

namespace llmjson::detail {

#if defined(LLMJSON_HAVE_AVX2)
/// Whether positions.hpp may use AVX2: the AVX2 kernel is in use (so forcing another kernel
/// also keeps the line count off AVX2).
inline bool cpu_has_avx2() noexcept { return kernels::active() == kernels::id::avx2; }
#endif

/// Finds the next byte of a set in a text: with the kernel in use (AVX2, SSE4.2, NEON) for sets
/// of at most 8 bytes and at least 16 bytes to search, else a byte at a time through a table.
/// Each call reads the bytes from `from` up to the first match (a SIMD kernel may read a block
/// that ends at `end` again), so a left-to-right pass reads every byte about once. Does not
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
    if (i >= end) return end;
    // Dense hits (`[[[[`) are found without a kernel's setup, and near ones (fewer than 16
    // bytes left) through the table.
    if (table_[static_cast<unsigned char>(text[i])]) return i;
    ++i;
    if (count_ == 0) return end;
    if (count_ <= max_bytes && end - i >= 16) {
      switch (kernels::active()) {  // the same answer every call: predicted
#if defined(LLMJSON_KERNEL_AVX2)
        case kernels::id::avx2:
          // Near hits (`<think>` repeated) are found by one inlined 16-byte probe: the kernel's
          // functions carry a target attribute, so each is a call.
          if (const std::size_t j = probe16(text.data() + i)) return i + j - 1;
          return kernels::avx2::find_any(text.data(), i + 16, end, bytes_.data(), count_);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
        case kernels::id::sse42:
          if (const std::size_t j = probe16(text.data() + i)) return i + j - 1;
          return kernels::sse42::find_any(text.data(), i + 16, end, bytes_.data(), count_);
#endif
#if defined(LLMJSON_KERNEL_NEON)
        case kernels::id::neon:
          return kernels::neon::find_any(text.data(), i, end, bytes_.data(), count_);
#endif
        default: break;  // scalar: the table below is its find_any
      }
    }
    for (; i < end; ++i)
      if (table_[static_cast<unsigned char>(text[i])]) return i;
    return end;
  }

 private:
#if defined(LLMJSON_KERNEL_SSE42) || defined(LLMJSON_KERNEL_AVX2)
  /// 1 + the first of the 16 bytes at `p` in the set, or 0: SSE2, which every x86-64 has, so
  /// inlined here where the kernels cannot be.
  [[nodiscard, gnu::always_inline]] std::size_t probe16(const char* p) const noexcept {
    switch (count_) {
      case 1: return probe16<1>(p);
      case 2: return probe16<2>(p);
      case 3: return probe16<3>(p);
      case 4: return probe16<4>(p);
      default: return probe16<max_bytes>(p);
    }
  }
  template <std::size_t N>
  [[nodiscard, gnu::always_inline]] std::size_t probe16(const char* p) const noexcept {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hits = _mm_cmpeq_epi8(chunk, _mm_set1_epi8(bytes_[0]));
    for (std::size_t k = 1; k < N; ++k)
      hits = _mm_or_si128(hits, _mm_cmpeq_epi8(chunk, _mm_set1_epi8(bytes_[k < count_ ? k : 0])));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits));
    return mask ? static_cast<std::size_t>(std::countr_zero(mask)) + 1 : 0;
  }
#endif
  std::array<bool, 256> table_{};
  std::array<char, max_bytes> bytes_{};
  std::size_t count_ = 0;  // distinct bytes in the set
};

#if defined(LLMJSON_KERNEL_SSE42) || defined(LLMJSON_KERNEL_AVX2)
/// 1 + the first of the 16 bytes at `p` where a string's scan must look, or 0 (SSE2: inlined).
inline std::size_t string_probe16(const char* p, bool non_ascii) noexcept {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i below = _mm_set1_epi8(0x1F);
  // max(x, 0x1F) == 0x1F exactly for the bytes 0x00-0x1F (unsigned).
  __m128i hits = _mm_cmpeq_epi8(_mm_max_epu8(x, below), below);
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
  hits = _mm_or_si128(hits, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
  auto mask = static_cast<unsigned>(_mm_movemask_epi8(hits));
  if (non_ascii) mask |= static_cast<unsigned>(_mm_movemask_epi8(x));  // the high bit
  return mask ? static_cast<std::size_t>(std::countr_zero(mask)) + 1 : 0;
}
#endif

/// Returns the first `i` in `[from, end)` where a JSON string's scan must look: `"`, `\\`, a
/// control byte (below 0x20), and with `non_ascii` a byte from 0x80 (UTF-8 to validate); or
/// `end`. Everything else in a string is plain text. This one is always inlined (the whole-value
/// reader's strings, most of them settled by the first 16-byte probe, where the call cost as
/// much); `next_in_string` is left to the compiler (inlined in the frame scan, it made the
/// scan of prose with braces 3% dearer).
#if defined(__GNUC__) || defined(__clang__)
[[gnu::always_inline]]
#endif
inline std::size_t
next_in_string_inlined(std::string_view text, std::size_t from, std::size_t end,
                       bool non_ascii) noexcept {
  if (end > text.size()) end = text.size();
  if (from < end && end - from >= 16) {
    switch (kernels::active()) {
#if defined(LLMJSON_KERNEL_AVX2)
      case kernels::id::avx2:
        // Most strings end in their first 16 bytes: one inlined SSE2 probe before the call.
        if (const std::size_t j = string_probe16(text.data() + from, non_ascii))
          return from + j - 1;
        return kernels::avx2::next_in_string(text.data(), from + 16, end, non_ascii);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
      case kernels::id::sse42:
        if (const std::size_t j = string_probe16(text.data() + from, non_ascii))
          return from + j - 1;
        return kernels::sse42::next_in_string(text.data(), from + 16, end, non_ascii);
#endif
#if defined(LLMJSON_KERNEL_NEON)
      case kernels::id::neon:
        return kernels::neon::next_in_string(text.data(), from, end, non_ascii);
#endif
      default: break;
    }
  }
  return kernels::scalar::next_in_string(text.data(), from, end, non_ascii);
}

/// `next_in_string_inlined`, left to the compiler to inline or call.
inline std::size_t next_in_string(std::string_view text, std::size_t from, std::size_t end,
                                  bool non_ascii) noexcept {
  return next_in_string_inlined(text, from, end, non_ascii);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_FIND_HPP_INCLUDED
