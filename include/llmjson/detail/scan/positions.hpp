// llmjson: byte offsets to lines and columns, 16 or 32 bytes at a time
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_POSITIONS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_POSITIONS_HPP_INCLUDED

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// What a stretch of text holds, for positions: line ends (LF, and CR not followed by LF), the
/// bytes that take a column (all but UTF-8 continuation bytes and CR), and where the last line
/// end is. Does not allocate or throw.
struct line_counts {
  std::size_t lines = 0;    ///< line ends
  std::size_t columns = 0;  ///< bytes that take a column, after the last line end
  bool ended = false;       ///< a line end is in the stretch
};

/// Whether `text[i]` ends a line: a LF, or a CR not followed by LF.
inline bool ends_line(std::string_view text, std::size_t i) noexcept {
  const char c = text[i];
  return c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'));
}

/// The last `i` in `[b, e)` with `text[i]` a LF or a CR (16 bytes at a time, backwards), or
/// `b` when there is none. Used only where there is one.
inline std::size_t last_line_byte(std::string_view text, std::size_t b, std::size_t e) noexcept {
  std::size_t i = e;
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; i - b >= 16; i -= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i - 16));
    const auto m = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, cr))));
    if (m) return i - 16 + static_cast<std::size_t>(31 - std::countl_zero(m));
  }
#endif
  while (i > b) {
    --i;
    if (text[i] == '\n' || text[i] == '\r') return i;
  }
  return b;
}

/// How many bytes of `text[b, e)` take a column: all but UTF-8 continuation bytes and CR.
inline std::size_t count_columns(std::string_view text, std::size_t b, std::size_t e) noexcept {
  std::size_t n = 0, i = b;
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  const __m128i cont = _mm_set1_epi8(-64), cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
  std::size_t skipped = 0;
  while (e - i >= 16) {
    __m128i sums = zero;
    for (int blocks = 0; blocks < 255 && e - i >= 16; ++blocks, i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      // 0x80-0xBF are the bytes below -64 as signed chars: UTF-8 continuation bytes.
      sums = _mm_sub_epi8(sums, _mm_or_si128(_mm_cmplt_epi8(x, cont), _mm_cmpeq_epi8(x, cr)));
    }
    const __m128i total = _mm_sad_epu8(sums, zero);
    skipped += static_cast<std::size_t>(_mm_cvtsi128_si32(total)) +
               static_cast<std::size_t>(_mm_extract_epi16(total, 4));
  }
  // The last bytes in one block when the text goes on past them (the bytes past `e` masked
  // out): a position is asked for every candidate, so every stretch has such a tail.
  if (i < e && text.size() - i >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const auto m = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, cont), _mm_cmpeq_epi8(x, cr))));
    skipped += static_cast<std::size_t>(std::popcount(m & ((1U << (e - i)) - 1)));
    i = e;
  }
  n = (i - b) - skipped;
#endif
  for (; i < e; ++i) {
    const char c = text[i];
    if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

/// The line ends in `text[from, to)`, exactly (LF, and CR not followed by LF, the byte after `to`
/// looked at for a CR at `to - 1`), 16 bytes at a time: `count_lines` for a stretch with a CR.
inline std::size_t count_line_ends(std::string_view text, std::size_t from,
                                   std::size_t to) noexcept {
  std::size_t lines = 0, i = from;
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
  // Blocks whose next byte is in the text too (a CR's follower is read from the next load).
  while (i + 16 < text.size() && to - i >= 16) {
    __m128i sums = zero;
    for (int blocks = 0; blocks < 255 && i + 16 < text.size() && to - i >= 16; ++blocks, i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 1));
      const __m128i cr_alone = _mm_andnot_si128(_mm_cmpeq_epi8(next, lf), _mm_cmpeq_epi8(x, cr));
      // Each match is 0xFF, that is -1: subtracting counts it.
      sums = _mm_sub_epi8(sums, _mm_or_si128(_mm_cmpeq_epi8(x, lf), cr_alone));
    }
    const __m128i total = _mm_sad_epu8(sums, zero);
    lines += static_cast<std::size_t>(_mm_cvtsi128_si32(total)) +
             static_cast<std::size_t>(_mm_extract_epi16(total, 4));
  }
  // The last bytes in one block, as in count_columns, when the text goes on past them.
  if (i < to && to - i < 16 && i + 16 < text.size()) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 1));
    const __m128i cr_alone = _mm_andnot_si128(_mm_cmpeq_epi8(next, lf), _mm_cmpeq_epi8(x, cr));
    const auto m =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lf), cr_alone)));
    lines += static_cast<std::size_t>(std::popcount(m & ((1U << (to - i)) - 1)));
    i = to;
  }
#endif
  for (; i < to; ++i) lines += ends_line(text, i) ? 1U : 0U;
  return lines;
}

#if defined(LLMJSON_HAVE_AVX2)
// count_lines_avx2's parts: a block's line ends and columns in one pass.

/// Counts the byte at `i` into `c`: a line end starts a new line; every other byte but CR and
/// UTF-8 continuation bytes takes a column.
inline void count_byte(std::string_view text, std::size_t i, line_counts& c) noexcept {
  if (ends_line(text, i)) {
    ++c.lines;
    c.columns = 0;
    c.ended = true;
  } else if (text[i] != '\r' && (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
    ++c.columns;
  }
}

/// Counts into `c` a block of `width` bytes (at most 64) without a CR, given as masks of its
/// bytes, the first in the lowest bit: its LFs, and the bytes that take no column (UTF-8
/// continuation bytes). Bits at or past `width` are clear. Inlined where it is used, so that
/// its popcounts are the instruction where the caller's target has it (the AVX2 count).
[[gnu::always_inline]] inline void count_block(std::uint64_t lf, std::uint64_t no_column,
                                               unsigned width, line_counts& c) noexcept {
  if (lf == 0) {
    c.columns += width - static_cast<std::size_t>(std::popcount(no_column));
    return;
  }
  c.lines += static_cast<std::size_t>(std::popcount(lf));
  c.ended = true;
  // The bytes after the last LF, within the block (none when it is the block's last bit).
  const unsigned last = 63U - static_cast<unsigned>(std::countl_zero(lf));
  const std::uint64_t within = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  const std::uint64_t after = within & ~((std::uint64_t{2} << last) - 1);
  c.columns = static_cast<std::size_t>(std::popcount(after & ~no_column));
}

/// `count_lines`' blocks of 16 bytes from `i` while they lie before `e`, and the last bytes
/// before `e` as one block when the text goes on past them (every position asked for but the
/// text's end has such a tail); returns where it stopped. A block with a CR is counted a byte at
/// a time (a CR's line end depends on the byte after it). Inlined, as `count_block`.
[[gnu::always_inline]] inline std::size_t count_blocks16(std::string_view text, std::size_t i,
                                                         std::size_t e, line_counts& c) noexcept {
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), cont = _mm_set1_epi8(-64);
  for (;;) {
    unsigned width = 16;
    if (e - i < 16) {
      if (i == e || text.size() - i < 16) return i;
      width = static_cast<unsigned>(e - i);
    }
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const unsigned within = (1U << width) - 1;
    if (static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, cr))) & within) {
      for (std::size_t k = i; k < i + width; ++k) count_byte(text, k, c);
    } else {
      // 0x80-0xBF, the continuation bytes, are the bytes below -64 as signed chars.
      count_block(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, lf))) & within,
                  static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(x, cont))) & within, width,
                  c);
    }
    i += width;
  }
}

/// The last LF in `text[b, e)`, or `e` when there is none; 32 bytes a step, backwards.
LLMJSON_TARGET_AVX2 inline std::size_t last_lf_avx2(std::string_view text, std::size_t b,
                                                    std::size_t e) noexcept {
  const __m256i lf = _mm256_set1_epi8('\n');
  std::size_t i = e;
  for (; i - b >= 32; i -= 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i - 32));
    const auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, lf)));
    if (m) return i - 32 + static_cast<std::size_t>(31 - std::countl_zero(m));
  }
  while (i > b)
    if (text[--i] == '\n') return i;
  return e;
}

/// The LFs in `steps` (at most 127) blocks of 64 bytes from `p`, counted in byte lanes (two at
/// most a step in each), and whether a CR is among the bytes (then the count is not used).
LLMJSON_TARGET_AVX2 inline std::size_t count_lfs_avx2(const char* p, std::size_t steps,
                                                      bool& cr_seen) noexcept {
  const __m256i lf = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
  __m256i sums = _mm256_setzero_si256(), crs = _mm256_setzero_si256();
  for (std::size_t s = 0; s < steps; ++s, p += 64) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    // Each match is 0xFF, that is -1: subtracting counts it.
    sums = _mm256_sub_epi8(sums, _mm256_cmpeq_epi8(x, lf));
    sums = _mm256_sub_epi8(sums, _mm256_cmpeq_epi8(y, lf));
    crs = _mm256_or_si256(crs, _mm256_or_si256(_mm256_cmpeq_epi8(x, cr), _mm256_cmpeq_epi8(y, cr)));
  }
  cr_seen = !_mm256_testz_si256(crs, crs);
  const __m256i total = _mm256_sad_epu8(sums, _mm256_setzero_si256());
  return static_cast<std::size_t>(_mm256_extract_epi64(total, 0)) +
         static_cast<std::size_t>(_mm256_extract_epi64(total, 1)) +
         static_cast<std::size_t>(_mm256_extract_epi64(total, 2)) +
         static_cast<std::size_t>(_mm256_extract_epi64(total, 3));
}

/// `count_lines` with AVX2 and POPCNT (the AVX2 kernel's CPUs have both): blocks of 64 bytes,
/// then of 16, then what is left a byte at a time, each block's line ends and columns counted
/// together (a block with a CR a byte at a time). A long stretch (a position far past the last
/// one asked for: the answer after long prose) first counts the LFs alone in the blocks before
/// the one holding its last LF, which resets the columns: those blocks need no column count.
__attribute__((target("avx2,popcnt"))) inline line_counts count_lines_avx2(std::string_view text,
                                                                           std::size_t i,
                                                                           std::size_t e) noexcept {
  line_counts c;
  if (e - i >= 1024) {
    const std::size_t last = last_lf_avx2(text, i, e);
    for (std::size_t steps = last == e ? 0 : (last - i) / 64; steps > 0;) {
      const std::size_t n = std::min<std::size_t>(steps, 127);
      bool cr_seen = false;
      const std::size_t lfs = count_lfs_avx2(text.data() + i, n, cr_seen);
      if (cr_seen) break;  // these blocks and the rest are counted exactly below
      c.lines += lfs;
      c.ended = c.lines > 0;
      i += 64 * n;
      steps -= n;
    }
  }
  const __m256i lf = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
  const __m256i cont = _mm256_set1_epi8(-64);
  for (; e - i >= 64; i += 64) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + 32));
    const __m256i crs = _mm256_or_si256(_mm256_cmpeq_epi8(x, cr), _mm256_cmpeq_epi8(y, cr));
    if (!_mm256_testz_si256(crs, crs)) {
      for (std::size_t k = i; k < i + 64; ++k) count_byte(text, k, c);
      continue;
    }
    using kernels::avx2::bits;  // a comparison's 32 bits: two make a block's mask
    count_block(bits(_mm256_cmpeq_epi8(x, lf)) | bits(_mm256_cmpeq_epi8(y, lf)) << 32,
                bits(_mm256_cmpgt_epi8(cont, x)) | bits(_mm256_cmpgt_epi8(cont, y)) << 32, 64, c);
  }
  for (i = count_blocks16(text, i, e, c); i < e; ++i) count_byte(text, i, c);
  return c;
}
#endif

/// `count_lines` without AVX2: line ends counted 64 bytes a step (SSE2, else a byte at a time; a
/// stretch without a CR counts its LFs alone, one with a CR is counted again exactly, 16 bytes at
/// a time), columns only after the last line end, found from the end. Without POPCNT, which a
/// CPU without AVX2 may lack, `count_lines_avx2`'s way, a block at a time, cost more (the SSE4.2
/// kernel: 5.4 instructions a byte on the clean trace against 2.3).
inline line_counts count_lines_without_avx2(std::string_view text, std::size_t b,
                                            std::size_t e) noexcept {
  line_counts out;
  std::size_t i = b;
#if defined(LLMJSON_HAVE_SSE2) && !defined(LLMJSON_NO_SIMD)
  // Most texts have no CR: 64 bytes a step count the LFs alone, and a stretch that holds a CR
  // is counted again exactly.
  {
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
    while (e - i >= 64) {
      const std::size_t start = i;
      __m128i sums = zero, crs = zero;
      // At most 4 per step in each byte counter: 63 steps stay below 256.
      for (int steps = 0; steps < 63 && e - i >= 64; ++steps, i += 64) {
        for (std::size_t k = 0; k < 64; k += 16) {
          const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + k));
          sums = _mm_sub_epi8(sums, _mm_cmpeq_epi8(x, lf));
          crs = _mm_or_si128(crs, _mm_cmpeq_epi8(x, cr));
        }
      }
      if (_mm_movemask_epi8(crs) != 0) {
        out.lines += count_line_ends(text, start, i);
        continue;
      }
      const __m128i total = _mm_sad_epu8(sums, zero);
      out.lines += static_cast<std::size_t>(_mm_cvtsi128_si32(total)) +
                   static_cast<std::size_t>(_mm_extract_epi16(total, 4));
    }
  }
#endif
  out.lines += count_line_ends(text, i, e);
  out.ended = out.lines > 0;
  // Columns: the bytes after the last line end (or from `b`) that start a code point.
  std::size_t from = b;
  if (out.ended) {
    for (std::size_t before = e;;) {
      const std::size_t p = last_line_byte(text, b, before);
      if (ends_line(text, p)) {
        from = p + 1;
        break;
      }
      before = p;  // a CR whose LF lies past `e`: the line end is earlier
    }
  }
  out.columns = count_columns(text, from, e);
  return out;
}

/// Counts `text[b, e)`: its line ends (a CR at `e - 1` ends a line unless `text[e]` is LF, or
/// the text ends there), and the bytes that take a column after the last one (from `b` if there
/// is none). In one pass of 64-byte blocks with AVX2 (while the AVX2 kernel is in use), else
/// with SSE2 as `count_lines_without_avx2` says, else a byte at a time.
inline line_counts count_lines(std::string_view text, std::size_t b, std::size_t e) noexcept {
#if defined(LLMJSON_HAVE_AVX2)
  if (cpu_has_avx2()) return count_lines_avx2(text, b, e);
#endif
  return count_lines_without_avx2(text, b, e);
}

/// Sorts `v`, made of runs already in order: the offsets a scan reports, gathered source after
/// source (records, near misses, the cut), each in document order or nearly (a record's problem
/// lies within it, before the next record unless records nest). Adjacent runs are merged, pairs
/// at a time: linear for the few runs of a real text, O(n log n) at worst, and no order is
/// assumed.
inline void sort_runs(std::vector<std::size_t>& v) {
  // Most often one run: found so without allocating (a scan's every call sorts).
  std::size_t first_break = 1;
  while (first_break < v.size() && v[first_break] >= v[first_break - 1]) ++first_break;
  if (first_break >= v.size()) return;
  std::vector<std::size_t> bounds{0, first_break};  // where each run starts, then the last's end
  for (std::size_t i = first_break + 1; i < v.size(); ++i)
    if (v[i] < v[i - 1]) bounds.push_back(i);
  bounds.push_back(v.size());
  std::vector<std::size_t> into(v.size()), merged;
  while (bounds.size() > 2) {
    merged.assign(1, 0);
    std::size_t k = 0;
    for (; k + 2 < bounds.size(); k += 2) {
      const auto b = v.begin();
      std::merge(b + static_cast<std::ptrdiff_t>(bounds[k]),
                 b + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 b + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 b + static_cast<std::ptrdiff_t>(bounds[k + 2]),
                 into.begin() + static_cast<std::ptrdiff_t>(bounds[k]));
      merged.push_back(bounds[k + 2]);
    }
    if (k + 1 < bounds.size()) {  // an odd run out: as it is
      std::copy(v.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                into.begin() + static_cast<std::ptrdiff_t>(bounds[k]));
      merged.push_back(bounds[k + 1]);
    }
    v.swap(into);
    bounds.swap(merged);
  }
  assert(std::is_sorted(v.begin(), v.end()));
}

/// Turns byte offsets into 1-based lines and code-point columns, walking the text once for
/// offsets in non-decreasing order. LF, CR and CRLF end lines; a leading BOM takes no column.
class position_finder {
 public:
  explicit position_finder(std::string_view text) : text_(text) { counted_to_ = bom_length(text_); }
  /// Points at the same text, moved or grown (a stream's buffer).
  void rebind(std::string_view text) noexcept { text_ = text; }

  /// Returns {line, column} of `offset`; offsets must come in non-decreasing order, and the
  /// byte after `offset` must be there when the one at `offset - 1` is a CR.
  std::pair<std::size_t, std::size_t> at(std::size_t offset) noexcept {
    offset = std::min(offset, text_.size());
    if (offset > counted_to_) {
      const line_counts c = count_lines(text_, counted_to_, offset);
      line_ += c.lines;
      column_ = c.ended ? 1 + c.columns : column_ + c.columns;
      counted_to_ = offset;
    }
    return {line_, column_};
  }

 private:
  std::string_view text_;
  std::size_t counted_to_ = 0;
  std::size_t line_ = 1;
  std::size_t column_ = 1;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_POSITIONS_HPP_INCLUDED
