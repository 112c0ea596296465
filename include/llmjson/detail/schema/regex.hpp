// llmjson: ECMA-262 regexes with the u flag, run by a Pike VM, for JSON Schema's pattern keywords
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmjson::detail {

// Why not std::regex: libstdc++'s matcher backtracks recursively, so `(a*)*b` against a long run
// of `a`s takes exponential time or overflows the stack. This one compiles the pattern to a
// Thompson NFA and simulates it breadth-first (a Pike VM without captures): a search costs at
// most O(code points of the text × instructions of the program), never recurses on the text, and
// the program is capped at `regex_max_program` instructions when compiled.
//
// Lookaround keeps that bound (Barrière & Pit-Claudel, "Linear Matching of JavaScript Regular
// Expressions", PLDI 2024; without captures, as a search only answers yes or no). Each
// lookaround's body is compiled to a program of its own, and before the main match a search fills
// one table per lookaround, one bit per position of the text, innermost lookarounds first:
// - `(?<=R)` holds at j iff R matches some text[i..j): one forward run of R's program, a new
//   thread at every position, records every position where a thread accepts;
// - `(?=R)` holds at i iff R matches some text[i..j): R's program is compiled reversed (a
//   sequence's parts in the opposite order) and run backwards from the end of the text, a new
//   thread at every position, recording every position where a thread accepts;
// - `(?!R)` and `(?<!R)` negate the table.
// In the main program and in bodies, a lookaround is a zero-width instruction that reads its
// table at the current position; `^ $ \b \B` test positions, so they are the same in both
// directions. Every run visits each instruction of its program at most once per position, so a
// search costs O((code points + 1) × program size) in all, plus a bit per position per lookaround.

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

/// A compiled pattern. `search` reports whether the pattern matches anywhere in the text.
class regex {
 public:
  /// Compiles a pattern as ECMA-262 (15th edition, 2024) reads it with the `u` flag and no other
  /// flag. Returns `std::nullopt` and sets `error` when the pattern is no valid u-mode pattern,
  /// holds a backreference, or is too large.
  ///
  /// The pattern and the text are sequences of code points: `.`, a class, `\D \S \W` and
  /// `\P{..}` match one code point; `\u{1F600}` and a `\uD83D\uDE00` pair are one. `\d` is
  /// [0-9], `\w` [A-Za-z0-9_] (as for `\b \B`), `\s` ECMA-262's white space and line
  /// terminators, `.` any code point but LF, CR, U+2028 and U+2029; `^ $` hold only at the ends of
  /// the text. `\p{..}` and `\P{..}` take General_Category, Script and Script_Extensions values
  /// and ECMA-262's binary properties by their Unicode names and aliases, spelled exactly, from
  /// Unicode 15.0.0's data (unicode.hpp). Also: `[...]` with ranges and `^` (`[]` matches nothing,
  /// `[^]` any code point), `\t \n \v \f \r \0 \xHH \cX`, escaped syntax characters and `/`,
  /// `( )`, `(?: )`, `(?<name> )` (names unique), `|`, `* + ? {n} {n,} {n,m}` (greedy or lazy, the
  /// same for a yes/no search), lookahead `(?= )` `(?! )` and lookbehind `(?<= )` `(?<! )`, nested
  /// and with bodies of any length. Annex B's leniencies are syntax errors: a lone `{ } ]`, an
  /// identity escape of anything else (`\a`), a class escape at a range's end (`[\w-z]`), legacy
  /// octal escapes, an incomplete `\x \u \c \p`, a quantified assertion (`(?=a)*`). Not supported
  /// (an error naming it): backreferences (`\1`, `\k<name>`), more than `regex_max_lookarounds`
  /// lookarounds.
  [[nodiscard]] static std::optional<regex> compile(std::string_view pattern, std::string& error);

  /// Returns whether the pattern matches a substring of `text` (UTF-8, matched by code point).
  /// Cost: O((code points + 1) × program size); allocates the code points, two state lists and
  /// a bit per position per lookaround.
  [[nodiscard]] bool search(std::string_view text) const {
    std::size_t work = 0;
    return search(text, work);
  }
  /// As `search(text)`, and adds to `work` the instructions the search visited: never more than
  /// (code points + 1) × `program_size()` (for tests of that bound).
  [[nodiscard]] bool search(std::string_view text, std::size_t& work) const;

  [[nodiscard]] std::size_t program_size() const noexcept { return code_.size(); }

 private:
  enum class op : std::uint8_t { cls, any, split, jmp, bol, eol, word, not_word, look, match };
  struct inst {
    op code = op::match;
    std::uint32_t x = 0;  // cls: class index; split/jmp: first target; look: lookaround index
    std::uint32_t y = 0;  // split: second target
  };
  struct char_class {
    std::vector<std::pair<char32_t, char32_t>> ranges;  // sorted, merged
    bool negated = false;
    [[nodiscard]] bool contains(char32_t c) const noexcept {
      auto it = std::upper_bound(
          ranges.begin(), ranges.end(), c,
          [](char32_t v, const std::pair<char32_t, char32_t>& r) { return v < r.first; });
      bool in = it != ranges.begin() && c <= std::prev(it)->second;
      return in != negated;
    }
  };
  /// A lookaround: its body's program starts at `start` in `code_` and ends with `match`; it is
  /// reversed (and run backwards) for a lookahead.
  struct lookaround {
    std::uint32_t start = 0;
    bool behind = false;
    bool negated = false;
  };
  struct scratch;

  /// Runs the program at `start` over `cps` with a new thread at every position, forwards or
  /// (`backwards`) from the end. `record` < looks_.size(): sets that table's bit at every position
  /// where a thread accepts, reading only earlier tables, and returns false. Otherwise returns at
  /// the first acceptance (true) or the end (false). Cost: O((cps + 1) × that program's size).
  bool run(const std::vector<char32_t>& cps, std::uint32_t start, bool backwards,
           std::vector<bool>& tables, std::size_t record, scratch& s) const;

  std::vector<inst> code_;
  std::vector<char_class> classes_;
  std::vector<lookaround> looks_;  // in table order: a body reads only the tables before its own
  std::uint32_t start_ = 0;        // the main program's first instruction, after the bodies

  friend class regex_parser;
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/regex-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED
