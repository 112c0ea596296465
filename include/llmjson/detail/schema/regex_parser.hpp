// llmjson: reads a schema pattern into its syntax tree: alternatives, terms, groups, lookarounds
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_PARSER_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_PARSER_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/schema/regex_classes.hpp>
#include <llmjson/detail/schema/regex_cursor.hpp>
#include <llmjson/detail/schema/regex_escapes.hpp>
#include <llmjson/detail/schema/regex_program.hpp>
#include <llmjson/detail/schema/regex_quantifiers.hpp>
#include <llmjson/detail/schema/regex_syntax.hpp>
#include <llmjson/detail/schema/unicode.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// Reads a pattern, as ECMA-262 does with the u flag, into its syntax tree. The escapes, the
/// bracketed classes and the quantifiers have readers of their own; this one reads what holds them
/// together.
class regex_parser {
 public:
  explicit regex_parser(std::string_view pattern) : in_(pattern) {}

  /// Reads the pattern into `tree()`; false, with the reason in `error`, when it is invalid.
  bool run(std::string& error) {
    if (!parse_disjunction(tree_.root, 0)) {
      error = std::move(in_.error);
      return false;
    }
    if (!in_.at_end()) {  // a stray ')'
      error = "unmatched ')'";
      return false;
    }
    return true;
  }
  [[nodiscard]] regex_tree& tree() noexcept { return tree_; }

 private:
  using kind = regex_node::kind;
  using range_list = unicode::range_list;

  regex_cursor in_;
  regex_escape_reader escapes_{in_};
  regex_tree tree_;
  std::size_t lookarounds_ = 0;
  std::vector<std::string> names_;  // the group names so far, which must be unique
  // Class escapes outside classes (`\p{L}`, `\d`) by their text: the class each made.
  std::map<std::u32string_view, std::uint32_t> escape_classes_;

  // Alternatives separated by `|`, up to a ')' or the end; `depth` groups deep.
  bool parse_disjunction(std::size_t& out, std::size_t depth) {
    if (depth > regex_max_nesting) return in_.fail("groups nested too deeply");
    std::vector<std::size_t> alts;
    for (;;) {
      std::size_t alt = 0;
      if (!parse_alternative(alt, depth)) return false;
      alts.push_back(alt);
      if (in_.peek() != U'|') break;
      ++in_.pos;
    }
    if (alts.size() == 1) {
      out = alts[0];
    } else {
      regex_node n;
      n.k = kind::alt;
      n.kids = std::move(alts);
      out = tree_.add(std::move(n));
    }
    return true;
  }

  // A sequence of terms, each an atom or an assertion with its quantifier.
  bool parse_alternative(std::size_t& out, std::size_t depth) {
    regex_node seq;
    seq.k = kind::concat;
    while (!in_.at_end() && in_.peek() != U'|' && in_.peek() != U')') {
      std::size_t atom = 0;
      bool assertion = false;  // not quantifiable with the u flag
      if (!parse_atom(atom, assertion, depth)) return false;
      std::optional<regex_quantity> q;
      if (!read_quantifier(in_, assertion, q)) return false;
      if (q) {
        regex_node rep;
        rep.k = kind::repeat;
        rep.kids = {atom};
        rep.min = q->min;
        rep.max = q->max;
        atom = tree_.add(std::move(rep));
      }
      seq.kids.push_back(atom);
    }
    out = tree_.add(std::move(seq));
    return true;
  }

  // An atom or an assertion (`assertion` set: ^ $ \b \B and lookarounds).
  bool parse_atom(std::size_t& atom, bool& assertion, std::size_t depth) {
    const char32_t c = in_.peek();
    switch (c) {
      case U'^':
      case U'$':
        ++in_.pos;
        atom = tree_.add(c == U'^' ? kind::bol : kind::eol);
        assertion = true;
        return true;
      case U'.':
        ++in_.pos;
        atom = tree_.add(kind::any);
        return true;
      case U'[': {
        range_list r;
        bool negated = false;
        if (!regex_class_reader(in_, escapes_).read(r, negated)) return false;
        atom = tree_.add_class(std::move(r), negated);
        return true;
      }
      case U'(': return parse_group(atom, assertion, depth);
      case U'\\': return parse_atom_escape(atom, assertion);
      case U'*':
      case U'+':
      case U'?':
      case U'{': return fail_quantifier_without_atom(in_);
      case U'}': return in_.fail("lone '}' (write \\} for the character)");
      case U']': return in_.fail("lone ']' (write \\] for the character)");
      default:
        ++in_.pos;
        atom = tree_.add_class({{c, c}}, false);
        return true;
    }
  }

  // A group from its '(' past its ')': (...), (?:...), (?<name>...) or a lookaround.
  bool parse_group(std::size_t& atom, bool& assertion, std::size_t depth) {
    ++in_.pos;        // '('
    regex_node look;  // stays kind::empty unless the group is a lookaround
    if (!parse_group_opening(look)) return false;
    if (!parse_disjunction(atom, depth + 1)) return false;
    if (in_.peek() != U')') return in_.fail("missing ')'");
    ++in_.pos;
    if (look.k != kind::look) return true;
    if (++lookarounds_ > regex_max_lookarounds) {
      return in_.fail("too many lookarounds (over " + std::to_string(regex_max_lookarounds) + ")");
    }
    look.kids = {atom};
    assertion = true;
    atom = tree_.add(std::move(look));
    return true;
  }

  // What follows a '(' up to the group's body: `?:`, `?=`, `?!`, `?<=`, `?<!`, `?<name>` or
  // nothing. A lookaround sets `look`.
  bool parse_group_opening(regex_node& look) {
    if (in_.peek() != U'?') return true;
    const char32_t c = in_.peek(1);
    if (c == U':') {
      in_.pos += 2;
    } else if (c == U'=' || c == U'!') {
      look.k = kind::look;
      look.negated = c == U'!';
      in_.pos += 2;
    } else if (c == U'<' && (in_.peek(2) == U'=' || in_.peek(2) == U'!')) {
      look.k = kind::look;
      look.behind = true;
      look.negated = in_.peek(2) == U'!';
      in_.pos += 3;
    } else if (c == U'<') {
      in_.pos += 2;
      std::string name;
      if (!parse_group_name(name)) return false;
      if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
        return in_.fail("duplicate group name <" + name + ">");
      }
      names_.push_back(std::move(name));
    } else {
      return in_.fail("invalid group (?" +
                      (in_.pos + 1 < in_.cps.size() ? regex_cursor::show(c) : "") +
                      ": only (?: (?= (?! (?<= (?<! and (?<name> are groups; modifiers such as "
                      "(?i:...) are not supported");
    }
    return true;
  }

  // Reads a group name after "(?<" up to and including '>': ECMA-262's RegExpIdentifierName
  // (ID_Start, $ or _, then ID_Continue, $, ZWNJ or ZWJ; \u escapes allowed).
  bool parse_group_name(std::string& name) {
    static const auto id_start = unicode::find_name(unicode::binary_names, "ID_Start");
    static const auto id_continue = unicode::find_name(unicode::binary_names, "ID_Continue");
    for (bool first = true;; first = false) {
      if (in_.at_end()) return in_.fail("unterminated group name");
      char32_t c = in_.peek();
      ++in_.pos;
      if (c == U'>' && !first) return true;
      if (c == U'\\') {
        if (in_.peek() != U'u') return in_.fail("invalid group name");
        ++in_.pos;
        if (!escapes_.read_unicode(c)) return false;
      }
      const bool ok =
          c == U'$' || c == U'_' ||
          (first ? unicode::has_binary(*id_start, c)
                 : (c == 0x200C || c == 0x200D || unicode::has_binary(*id_continue, c)));
      if (!ok) return in_.fail("invalid group name");
      append_utf8(name, c);
    }
  }

  // An escape outside a class (the backslash at the position): \b or \B (an assertion), else
  // one code point or a class escape, as a class.
  bool parse_atom_escape(std::size_t& atom, bool& assertion) {
    ++in_.pos;  // '\'
    if (in_.peek() == U'b' || in_.peek() == U'B') {
      atom = tree_.add(in_.peek() == U'b' ? kind::word : kind::not_word);
      ++in_.pos;
      assertion = true;
      return true;
    }
    // A class escape written again (`\p{L}` a thousand times) reuses its class: its ranges are
    // not looked up, copied, sorted or compared again.
    const std::u32string_view written = escapes_.class_escape_at(in_.pos);
    if (const auto known = escape_classes_.find(written);
        !written.empty() && known != escape_classes_.end()) {
      in_.pos += written.size();
      atom = tree_.add_class_node(known->second);
      return true;
    }
    std::optional<char32_t> single;
    std::optional<range_list> set;
    if (!escapes_.read(false, single, set)) return false;
    atom = set ? tree_.add_class(std::move(*set), false)
               : tree_.add_class({{*single, *single}}, false);
    if (set && !written.empty()) escape_classes_.emplace(written, tree_.nodes[atom].index);
    return true;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_PARSER_HPP_INCLUDED
