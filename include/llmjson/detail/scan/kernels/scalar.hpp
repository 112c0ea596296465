// llmjson: the scalar kernel, a byte at a time: the reference every other kernel must equal
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KERNELS_SCALAR_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KERNELS_SCALAR_HPP_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include <llmjson/detail/scan/classify.hpp>

namespace llmjson::detail::kernels::scalar {

/// The class masks of the `n` bytes at `p` (`n` at most 64).
inline block_masks classify(const char* p, size_t n) noexcept {
  block_masks m;
  for (size_t i = 0; i < n && i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    const auto c = static_cast<unsigned char>(p[i]);
    switch (c) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': m.lbrace |= bit; break;
      case '}': m.rbrace |= bit; break;
      case '[': m.lbracket |= bit; break;
      case ']': m.rbracket |= bit; break;
      case ':': m.colon |= bit; break;
      case ',': m.comma |= bit; break;
      case '<': m.lt |= bit; break;
      case '|': m.pipe |= bit; break;
      case '`': m.backtick |= bit; break;
      case '~': m.tilde |= bit; break;
      case '\n': m.lf |= bit; break;
      case '\r': m.cr |= bit; break;
      default:
        if (c < 0x20) m.control |= bit;
        if (c >= 0x80) m.non_ascii |= bit;
        break;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') m.ws |= bit;
  }
  return m;
}

/// The first `i` in `[from, end)` with `text[i]` one of the `count` bytes at `set`, or `end`.
inline size_t find_any(const char* text, size_t from, size_t end, const char* set,
                       size_t count) noexcept {
  for (size_t i = from; i < end; ++i)
    for (size_t k = 0; k < count; ++k)
      if (text[i] == set[k]) return i;
  return end;
}

/// The first `i` in `[from, end)` with `text[i]` a quote, a backslash, a control byte, or with
/// `non_ascii` a byte from 0x80; or `end`.
inline size_t next_in_string(const char* text, size_t from, size_t end, bool non_ascii) noexcept {
  for (size_t i = from; i < end; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80)) return i;
  }
  return end;
}

}  // namespace llmjson::detail::kernels::scalar

#endif  // LLMJSON_DETAIL_SCAN_KERNELS_SCALAR_HPP_INCLUDED
