// llmjson: the bracketed classes of schema patterns ([a-z\d], [^...]), read into their code points
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_CLASSES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_CLASSES_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <set>
#include <string_view>

#include <llmjson/detail/schema/regex_cursor.hpp>
#include <llmjson/detail/schema/regex_escapes.hpp>
#include <llmjson/detail/schema/regex_ranges.hpp>
#include <llmjson/detail/schema/unicode.hpp>

namespace llmjson::detail {

/// Reads one bracketed class. Memory stays in proportion to the distinct code points named,
/// whatever the class: a class escape written again adds nothing, and the ranges are merged
/// whenever they doubled.
class regex_class_reader {
 public:
  using range_list = unicode::range_list;

  regex_class_reader(regex_cursor& in, regex_escape_reader& escapes) : in_(in), escapes_(escapes) {}

  /// Reads the class at the position ('[') up to and past its ']': its code points into `out`
  /// (unsorted, overlapping), and whether it is negated (`[^`).
  bool read(range_list& out, bool& negated) {
    ++in_.pos;  // '['
    negated = in_.peek() == U'^';
    if (negated) ++in_.pos;
    for (;;) {
      if (in_.at_end()) return in_.fail("unterminated character class");
      if (in_.peek() == U']') {
        ++in_.pos;
        return true;
      }
      // A class escape written again in this class adds nothing: it is skipped unread.
      if (const std::size_t again = repeated_escape_here(); again != 0) {
        in_.pos += again;
        if (range_follows()) return fail_escape_starts_range();
        continue;
      }
      if (!read_item(out)) return false;
    }
  }

 private:
  regex_cursor& in_;
  regex_escape_reader& escapes_;
  std::set<std::u32string_view> written_;  // the class escapes added, as written
  std::size_t merged_ = 0;                 // how many ranges the last merge left

  // The length of a class escape at the position that this class already added (backslash
  // included), or 0.
  [[nodiscard]] std::size_t repeated_escape_here() const {
    if (in_.peek() != U'\\') return 0;
    const std::u32string_view written = escapes_.class_escape_at(in_.pos + 1);
    return !written.empty() && written_.count(written) != 0 ? written.size() + 1 : 0;
  }
  // Whether a '-' at the position makes a range (rather than being the class's last character).
  [[nodiscard]] bool range_follows() const noexcept {
    return in_.peek() == U'-' && in_.peek(1) != U']' && in_.pos + 1 < in_.cps.size();
  }
  bool fail_escape_starts_range() {
    return in_.fail("a class escape cannot start a range (as in [\\w-z])");
  }

  // One class atom: a code point (`c`), or an escape that stands for a set (`set`).
  bool read_atom(std::optional<char32_t>& c, std::optional<range_list>& set) {
    if (in_.peek() != U'\\') {
      c = in_.peek();
      ++in_.pos;
      return true;
    }
    ++in_.pos;
    return escapes_.read(true, c, set);
  }

  // An atom, a class escape, or a range `a-z`, added to `out`.
  bool read_item(range_list& out) {
    const std::size_t from = in_.pos + 1;  // after the backslash, when an escape comes
    std::optional<char32_t> lo;
    std::optional<range_list> set;
    if (!read_atom(lo, set)) return false;
    const bool range = range_follows();
    if (range && set) return fail_escape_starts_range();
    if (set) {
      written_.insert(in_.since(from));
      out.insert(out.end(), set->begin(), set->end());
      if (out.size() > 2 * merged_ + 4096) {
        normalize_ranges(out);
        merged_ = out.size();
      }
      return true;
    }
    if (!range) {
      out.emplace_back(*lo, *lo);
      return true;
    }
    ++in_.pos;  // '-'
    std::optional<char32_t> hi;
    std::optional<range_list> hiset;
    if (!read_atom(hi, hiset)) return false;
    if (hiset) return in_.fail("a class escape cannot end a range (as in [a-\\w])");
    if (*hi < *lo) return in_.fail("range out of order in character class");
    out.emplace_back(*lo, *hi);
    return true;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_CLASSES_HPP_INCLUDED
