// llmjson: ECMA-262 regexes with the u flag, run by a Pike VM, for JSON Schema's pattern keywords
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/schema/regex_program.hpp>

namespace llmjson::detail {

// Why not std::regex: libstdc++'s matcher backtracks recursively, so `(a*)*b` against a long run
// of `a`s takes exponential time or overflows the stack. This one compiles the pattern to a
// Thompson NFA and simulates it breadth-first (a Pike VM without captures): a search costs at
// most O(code points of the text × instructions of the program), never recurses on the text, and
// the program is capped at `regex_max_program` instructions when compiled.
//
// The files, one job each: regex_parser.hpp reads the pattern (through regex_cursor.hpp) into a
// syntax tree (regex_syntax.hpp), handing escapes to regex_escapes.hpp, bracketed classes to
// regex_classes.hpp and quantifiers to regex_quantifiers.hpp, with the code point sets of
// regex_ranges.hpp; regex_emitter.hpp turns the tree into a program (regex_program.hpp), which
// regex-inl.hpp runs.
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

  [[nodiscard]] std::size_t program_size() const noexcept { return program_.code.size(); }

 private:
  using op = regex_program::op;
  using inst = regex_program::inst;
  struct search_state;

  /// Runs the program at `start` over the text of `s` with a new thread at every position,
  /// forwards or (`backwards`) from the end. `record` < program_.looks.size(): sets that table's
  /// bit at every position where a thread accepts, reading only earlier tables, and returns false.
  /// Otherwise returns at the first acceptance (true) or the end (false). Cost: O((code points
  /// + 1) × that program's size).
  bool run(std::uint32_t start, bool backwards, std::size_t record, search_state& s) const;
  /// Adds the threads `from` leads to at text position `at` without reading a code point (its
  /// epsilon closure) to `list`: the `cls` and `any` instructions reached. Returns true on an
  /// acceptance when not recording; when recording `record`, sets its bit at `at` and goes on, as
  /// other threads may accept later. Inline in every build (only `run` calls it, in
  /// regex-inl.hpp): it runs once per thread per position, where a call cost 5% of a search.
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::always_inline]]
#endif
  inline bool
  close(std::vector<std::uint32_t>& list, std::uint32_t from, std::size_t at, std::size_t record,
        search_state& s) const;

  explicit regex(regex_program program) : program_(std::move(program)) {}

  regex_program program_;
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/regex-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED
