// llmjson: the bit tricks that find, in a block of 64 bytes, the quotes a backslash does not
// escape and the bytes inside strings, block after block (the scan's classify, minify)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_QUOTE_BITS_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_QUOTE_BITS_HPP_INCLUDED

// The C header, and `uint64_t` unqualified: the NEON kernel includes this file through
// scan/classify.hpp, and it must parse for aarch64 with the compiler's freestanding headers alone.
#include <stdint.h>

namespace llmjson::detail {

/// Bit `i` of the result is the XOR of bits 0 to `i` of `x`: with `x` the quotes, 1 from an
/// opening quote up to the byte before its closing quote. Six shifts, on any CPU.
constexpr uint64_t prefix_xor(uint64_t x) noexcept {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/// The quotes of one block that no backslash escapes. `escaped_in` is 1 when the block's first
/// byte is escaped (the block before ended with an odd run of backslashes), else 0; it becomes
/// that for the next block.
///
/// Why it works: a run of backslashes escapes the byte after it when its length is odd, and the
/// length is odd exactly when its start and the byte after it lie on bits of opposite parity.
/// Adding a run's start bit to the backslash mask carries through the run and sets the bit after
/// it, so one addition for the runs that start on even bits, one for those on odd bits, gives
/// every run's end with its start's parity known. A first byte escaped from the block before is
/// not a backslash of a run (`\\` then `\`: the third starts a run of its own).
constexpr uint64_t unescaped_quotes(uint64_t quote, uint64_t backslash,
                                    uint64_t& escaped_in) noexcept {
  constexpr uint64_t even = 0x5555555555555555u;
  const uint64_t first_escaped = escaped_in & 1;
  const uint64_t runs = backslash & ~first_escaped;
  const uint64_t starts = runs & ~(runs << 1);
  const uint64_t from_even = runs + (starts & even);
  const uint64_t odd_starts = starts & ~even;
  const uint64_t from_odd = runs + odd_starts;
  // A run that reaches bit 63 carries out of the addition; from an odd start its length is odd,
  // so the next block's first byte is escaped. From an even start its length is even.
  escaped_in = from_odd < runs ? 1 : 0;
  const uint64_t escaped = (from_even & ~runs & ~even) | (from_odd & ~runs & even) | first_escaped;
  return quote & ~escaped;
}

/// The bytes of one block inside strings, given its unescaped quotes: each opening quote and
/// the bytes up to its closing quote (not included). `in_string` is 1 when the block starts
/// inside a string, else 0; it becomes that for the next block.
constexpr uint64_t string_mask(uint64_t quotes, uint64_t& in_string) noexcept {
  const uint64_t inside = prefix_xor(quotes) ^ (uint64_t{0} - (in_string & 1));
  in_string = inside >> 63;
  return inside;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_TEXT_QUOTE_BITS_HPP_INCLUDED
