// llmjson: a small ECMAScript-subset regex run by a Pike VM, for JSON Schema's pattern keywords
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

/// The most instructions a compiled pattern may have; larger patterns are a compile error.
/// Counted repetition expands (`a{3}` is three copies of `a`), so `(x{100}){100}` is rejected.
inline constexpr std::size_t regex_max_program = 4096;
static_assert(100 * 100 > regex_max_program, "(x{100}){100}, the example above, must be rejected");
/// The deepest group nesting a pattern may have.
inline constexpr std::size_t regex_max_nesting = 64;

/// A compiled pattern. `search` reports whether the pattern matches anywhere in the text.
class regex {
 public:
  /// Compiles an ECMAScript pattern (the subset below). Returns `std::nullopt` and sets `error`
  /// when the pattern is malformed, uses an unsupported construct, or is too large.
  ///
  /// Supported: literals, `.`, `[...]` with ranges and `^`, `\d \w \s \D \W \S`, `\b \B`,
  /// `\t \n \v \f \r \0 \xHH \uHHHH \cX`, escaped punctuation, `^ $`, `( )`, `(?: )`, `(?<name> )`,
  /// `|`, `* + ? {n} {n,} {n,m}` (greedy or lazy, the same for a yes/no search). Not supported
  /// (an error): backreferences, lookahead, lookbehind, `\p{..}`, other letter escapes (`\Z`).
  [[nodiscard]] static std::optional<regex> compile(std::string_view pattern, std::string& error);

  /// Returns whether the pattern matches a substring of `text` (UTF-8, matched by code point).
  /// Cost: O(code points × program size); allocates two state lists.
  [[nodiscard]] bool search(std::string_view text) const;

  [[nodiscard]] std::size_t program_size() const noexcept { return code_.size(); }

 private:
  enum class op : std::uint8_t { cls, any, split, jmp, bol, eol, word, not_word, match };
  struct inst {
    op code = op::match;
    std::uint32_t x = 0;  // cls: class index; split/jmp: first target
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
  std::vector<inst> code_;
  std::vector<char_class> classes_;

  friend class regex_parser;
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/regex-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_HPP_INCLUDED
