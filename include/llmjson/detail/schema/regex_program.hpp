// llmjson: a compiled schema pattern: the instructions of its Pike VM, its classes, its limits
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_PROGRAM_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_PROGRAM_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

namespace llmjson::detail {

/// The most instructions a compiled pattern may have, lookaround bodies included; larger patterns
/// are a compile error. Counted repetition expands (`a{3}` is three copies of `a`), so
/// `(x{100}){100}` is rejected.
inline constexpr std::size_t regex_max_program = 4096;
static_assert(100 * 100 > regex_max_program, "(x{100}){100}, the example above, must be rejected");
/// The deepest group nesting a pattern may have (a lookaround is a group).
inline constexpr std::size_t regex_max_nesting = 64;
/// The most lookarounds a pattern may have: a search keeps a bit per code point of the text for
/// each, so this bounds that memory at 8 bytes per code point.
inline constexpr std::size_t regex_max_lookarounds = 64;

/// A class of code points, as the program tests one: sorted, merged ranges, or all code points
/// outside them (`negated`).
struct regex_char_class {
  std::vector<std::pair<char32_t, char32_t>> ranges;
  bool negated = false;
  [[nodiscard]] bool contains(char32_t c) const noexcept {
    auto it = std::upper_bound(
        ranges.begin(), ranges.end(), c,
        [](char32_t v, const std::pair<char32_t, char32_t>& r) { return v < r.first; });
    bool in = it != ranges.begin() && c <= std::prev(it)->second;
    return in != negated;
  }
};

/// What `regex_emitter` builds from a pattern and `regex` runs: the bodies of the lookarounds,
/// each ending with `match`, then the main program from `start`.
struct regex_program {
  enum class op : std::uint8_t { cls, any, split, jmp, bol, eol, word, not_word, look, match };
  struct inst {
    op code = op::match;
    std::uint32_t x = 0;  // cls: class index; split/jmp: first target; look: lookaround index
    std::uint32_t y = 0;  // split: second target
  };
  /// A lookaround: its body's program starts at `start` in `code` and ends with `match`; it is
  /// reversed (and run backwards) for a lookahead.
  struct lookaround {
    std::uint32_t start = 0;
    bool behind = false;
    bool negated = false;
  };

  std::vector<inst> code;
  std::vector<regex_char_class> classes;
  std::vector<lookaround> looks;  // in table order: a body reads only the tables before its own
  std::uint32_t start = 0;        // the main program's first instruction, after the bodies
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_PROGRAM_HPP_INCLUDED
