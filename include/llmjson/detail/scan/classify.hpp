// llmjson: a block of up to 64 bytes as one bit mask per byte class (the bit tricks that find
// the quotes a backslash does not escape and the bytes inside strings: text/quote_bits.hpp)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_CLASSIFY_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_CLASSIFY_HPP_INCLUDED

// The C headers, and `uint64_t` unqualified: the NEON kernel includes this file, and it must
// parse for aarch64 on an x86 machine with the compiler's own freestanding headers alone (the
// ctest kernel_neon_syntax), where no C++ standard library for that target is installed.
#include <stddef.h>
#include <stdint.h>

#include <llmjson/detail/text/quote_bits.hpp>

namespace llmjson::detail {

/// One mask per byte class of a block of at most 64 bytes: bit `i` is byte `i`; bits at and past
/// the block's length are 0. Every kernel's `classify` returns the same masks.
struct block_masks {
  uint64_t quote = 0;      ///< `"`
  uint64_t backslash = 0;  ///< `\`
  uint64_t lbrace = 0;     ///< `{`
  uint64_t rbrace = 0;     ///< `}`
  uint64_t lbracket = 0;   ///< `[`
  uint64_t rbracket = 0;   ///< `]`
  uint64_t colon = 0;      ///< `:`
  uint64_t comma = 0;      ///< `,`
  uint64_t lt = 0;         ///< `<`
  uint64_t pipe = 0;       ///< `|`
  uint64_t backtick = 0;   ///< `` ` ``
  uint64_t tilde = 0;      ///< `~`
  uint64_t lf = 0;         ///< LF
  uint64_t cr = 0;         ///< CR
  uint64_t control = 0;    ///< 0x00-0x1F but LF and CR
  uint64_t non_ascii = 0;  ///< 0x80-0xFF
  uint64_t ws = 0;         ///< space, tab, LF, CR

  bool operator==(const block_masks&) const = default;
};

/// The mask of the first `n` bits (`n` at most 64).
constexpr uint64_t low_bits(size_t n) noexcept {
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

/// Every mask of `m` cut to its first `n` bits: a kernel classifies a short block padded with
/// zero bytes, which are control bytes that are not there.
constexpr block_masks cut_to(block_masks m, size_t n) noexcept {
  const uint64_t keep = low_bits(n);
  m.quote &= keep;
  m.backslash &= keep;
  m.lbrace &= keep;
  m.rbrace &= keep;
  m.lbracket &= keep;
  m.rbracket &= keep;
  m.colon &= keep;
  m.comma &= keep;
  m.lt &= keep;
  m.pipe &= keep;
  m.backtick &= keep;
  m.tilde &= keep;
  m.lf &= keep;
  m.cr &= keep;
  m.control &= keep;
  m.non_ascii &= keep;
  m.ws &= keep;
  return m;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_CLASSIFY_HPP_INCLUDED
