// llmjson benchmark: issue 31's stage 1 alone, the floor of a scan driven by a structural index
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_BENCH_STAGE_ONE_HPP_INCLUDED
#define LLMJSON_BENCH_STAGE_ONE_HPP_INCLUDED

#include <llmjson/detail/scan/classify.hpp>
#include <llmjson/detail/scan/kernels/dispatch.hpp>
#include <llmjson/detail/text/quote_bits.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace llmjson_bench {

/// The class masks of the block at `p` (`n` bytes, at most 64) from the kernel that runs.
inline llmjson::detail::block_masks classify_block(const char* p, std::size_t n) {
  namespace k = llmjson::detail::kernels;
  switch (k::active()) {
#if defined(LLMJSON_KERNEL_AVX2)
    case k::id::avx2: return k::avx2::classify(p, n);
#endif
#if defined(LLMJSON_KERNEL_SSE42)
    case k::id::sse42: return k::sse42::classify(p, n);
#endif
#if defined(LLMJSON_KERNEL_NEON)
    case k::id::neon: return k::neon::classify(p, n);
#endif
    default: return k::scalar::classify(p, n);
  }
}

/// Stage 1 of issue 31 over the whole text and nothing after it: every 64-byte block classified
/// by the kernel that runs (its 17 masks), its unescaped quotes and the bytes inside strings
/// found, and the brackets outside strings counted. What a scan that takes its structure from
/// such an index spends before its frames read a single bracket: the benchmark's `index/NAME`
/// and instructions.py's `--measure index`.
inline std::size_t structural_index(std::string_view text) {
  std::uint64_t escaped = 0, in_string = 0;
  std::size_t found = 0;
  for (std::size_t i = 0; i < text.size(); i += 64) {
    const std::size_t n = text.size() - i < 64 ? text.size() - i : 64;
    const llmjson::detail::block_masks m = classify_block(text.data() + i, n);
    const std::uint64_t quotes = llmjson::detail::unescaped_quotes(m.quote, m.backslash, escaped);
    const std::uint64_t inside = llmjson::detail::string_mask(quotes, in_string);
    const std::uint64_t brackets = m.lbrace | m.rbrace | m.lbracket | m.rbracket;
    found += static_cast<std::size_t>(std::popcount(brackets & ~inside));
  }
  return found;
}

#if defined(LLMJSON_KERNEL_AVX2)
/// The bytes of the 64 at `p` equal to `c`. (Helpers, not lambdas: GCC gives a lambda the
/// default target, where AVX2 intrinsics do not inline.)
LLMJSON_TARGET_AVX2 inline std::uint64_t equal64(__m256i x, __m256i y, char c) noexcept {
  using llmjson::detail::kernels::avx2::bits;
  const __m256i v = _mm256_set1_epi8(c);
  return bits(_mm256_cmpeq_epi8(x, v)) | bits(_mm256_cmpeq_epi8(y, v)) << 32;
}

/// The brackets of the 32 bytes `x`, `{`, `}`, `[` and `]`: four comparisons.
LLMJSON_TARGET_AVX2 inline std::uint64_t brackets32(__m256i x) noexcept {
  const __m256i a = _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('{')),
                                    _mm256_cmpeq_epi8(x, _mm256_set1_epi8('}')));
  const __m256i b = _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('[')),
                                    _mm256_cmpeq_epi8(x, _mm256_set1_epi8(']')));
  return llmjson::detail::kernels::avx2::bits(_mm256_or_si256(a, b));
}

/// The six masks of the structure alone (quote, backslash, the four brackets as one) of the 64
/// bytes at `p`, with AVX2: what a leaner stage 1 would classify.
LLMJSON_TARGET_AVX2 inline void lean_masks(const char* p, std::uint64_t& quote,
                                           std::uint64_t& backslash,
                                           std::uint64_t& brackets) noexcept {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  quote = equal64(x, y, '"');
  backslash = equal64(x, y, '\\');
  brackets = brackets32(x) | brackets32(y) << 32;
}

/// `structural_index` with `lean_masks` for every whole block (the last, short one as before):
/// the benchmark's `index-lean/NAME` and instructions.py's `--measure index-lean`. The kernel
/// that runs must be AVX2 (whose CPUs have POPCNT, which this function's target adds).
__attribute__((target("avx2,popcnt"))) inline std::size_t lean_structural_index(
    std::string_view text) {
  std::uint64_t escaped = 0, in_string = 0;
  std::size_t found = 0, i = 0;
  for (; text.size() - i >= 64; i += 64) {
    std::uint64_t quote = 0, backslash = 0, brackets = 0;
    lean_masks(text.data() + i, quote, backslash, brackets);
    const std::uint64_t quotes = llmjson::detail::unescaped_quotes(quote, backslash, escaped);
    const std::uint64_t inside = llmjson::detail::string_mask(quotes, in_string);
    found += static_cast<std::size_t>(__builtin_popcountll(brackets & ~inside));
  }
  if (i < text.size()) {
    const llmjson::detail::block_masks m = classify_block(text.data() + i, text.size() - i);
    const std::uint64_t quotes = llmjson::detail::unescaped_quotes(m.quote, m.backslash, escaped);
    const std::uint64_t inside = llmjson::detail::string_mask(quotes, in_string);
    found += static_cast<std::size_t>(
        std::popcount((m.lbrace | m.rbrace | m.lbracket | m.rbracket) & ~inside));
  }
  return found;
}
#endif

}  // namespace llmjson_bench

#endif  // LLMJSON_BENCH_STAGE_ONE_HPP_INCLUDED
