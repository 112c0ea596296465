// llmjson: the syntax tree of a schema pattern, between the parser and the program's emitter
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_SYNTAX_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_SYNTAX_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include <llmjson/detail/schema/regex_program.hpp>
#include <llmjson/detail/schema/regex_ranges.hpp>
#include <llmjson/detail/schema/unicode.hpp>

namespace llmjson::detail {

/// The `max` of a repeat without a maximum (`*`, `+`, `{n,}`).
inline constexpr unsigned regex_unbounded = std::numeric_limits<unsigned>::max();

/// One node of a pattern's syntax tree; its children are indices into `regex_tree::nodes`.
struct regex_node {
  enum class kind : std::uint8_t {
    empty,
    cls,
    any,
    bol,
    eol,
    word,
    not_word,
    concat,
    alt,
    repeat,
    look
  };
  kind k = kind::empty;
  std::uint32_t index = 0;  // cls: the class; look: the table (set by the emitter)
  std::vector<std::size_t> kids;
  unsigned min = 0;      // repeat: the least copies
  unsigned max = 0;      // repeat: the most, or regex_unbounded
  bool behind = false;   // look: a lookbehind
  bool negated = false;  // look: (?! or (?<!
};

/// A parsed pattern: its nodes, the classes its `cls` nodes name, and its root.
struct regex_tree {
  std::vector<regex_node> nodes;
  // Equal classes share one entry, so that a pattern of many `\p{L}` (some 1,800 ranges each)
  // keeps one copy of them; `class_index` finds a class by its content.
  std::vector<regex_char_class> classes;
  std::map<std::pair<bool, unicode::range_list>, std::uint32_t> class_index;
  std::size_t root = 0;

  std::size_t add(regex_node n) {
    nodes.push_back(std::move(n));
    return nodes.size() - 1;
  }
  std::size_t add(regex_node::kind k) {
    regex_node n;
    n.k = k;
    return add(std::move(n));
  }
  /// Adds a `cls` node for class `index` of `classes`.
  std::size_t add_class_node(std::uint32_t index) {
    regex_node n;
    n.k = regex_node::kind::cls;
    n.index = index;
    return add(std::move(n));
  }
  /// Adds a `cls` node for the code points of `r` (any order, overlaps allowed), or all others.
  std::size_t add_class(unicode::range_list r, bool negated) {
    normalize_ranges(r);
    auto key = std::make_pair(negated, std::move(r));
    auto it = class_index.find(key);
    if (it == class_index.end()) {
      classes.push_back(regex_char_class{key.second, negated});
      it =
          class_index.emplace(std::move(key), static_cast<std::uint32_t>(classes.size() - 1)).first;
    }
    return add_class_node(it->second);
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_SYNTAX_HPP_INCLUDED
