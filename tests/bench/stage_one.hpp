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
/// found, and the brackets outside strings and the line feeds counted. What a scan that takes
/// its structure from such an index spends before its frames read a single bracket: the
/// benchmark's `index/NAME` and instructions.py's `--measure index`.
inline std::size_t structural_index(std::string_view text) {
  std::uint64_t escaped = 0, in_string = 0;
  std::size_t found = 0;
  for (std::size_t i = 0; i < text.size(); i += 64) {
    const std::size_t n = text.size() - i < 64 ? text.size() - i : 64;
    const llmjson::detail::block_masks m = classify_block(text.data() + i, n);
    const std::uint64_t quotes = llmjson::detail::unescaped_quotes(m.quote, m.backslash, escaped);
    const std::uint64_t inside = llmjson::detail::string_mask(quotes, in_string);
    const std::uint64_t brackets = m.lbrace | m.rbrace | m.lbracket | m.rbracket;
    found += static_cast<std::size_t>(std::popcount(brackets & ~inside)) +
             static_cast<std::size_t>(std::popcount(m.lf));
  }
  return found;
}

}  // namespace llmjson_bench

#endif  // LLMJSON_BENCH_STAGE_ONE_HPP_INCLUDED
