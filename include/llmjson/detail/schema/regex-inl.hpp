// llmjson: the bodies of detail/schema/regex.hpp: the pattern parser and the Pike VM
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/unicode.hpp>

namespace llmjson::detail {

/// Reads a pattern into the program of a `regex` (one node tree, then Thompson construction);
/// `run` returns it, or `std::nullopt` with the reason. Each lookaround's body becomes a program
/// of its own (reversed for a lookahead), emitted before the main one.
class regex_parser {
 public:
  explicit regex_parser(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size();) cps_.push_back(utf8_next(pattern, i));
  }

  std::optional<regex> run(std::string& error) {
    std::size_t root = 0;
    if (!parse_disjunction(root, 0)) {
      error = error_;
      return std::nullopt;
    }
    if (pos_ < cps_.size()) {  // a stray ')'
      error = "unmatched ')'";
      return std::nullopt;
    }
    if (!emit_bodies(root)) {
      error = error_;
      return std::nullopt;
    }
    out_.start_ = here();
    if (!emit(root, false) || !push({regex::op::match, 0, 0})) {
      error = error_;
      return std::nullopt;
    }
    return std::move(out_);
  }

 private:
  using range_list = unicode::range_list;
  static constexpr unsigned unbounded = std::numeric_limits<unsigned>::max();

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
  struct node {
    kind k = kind::empty;
    std::uint32_t index = 0;  // cls: the class; look: the table (set by emit_bodies)
    std::vector<std::size_t> kids;
    unsigned min = 0;
    unsigned max = 0;
    bool behind = false;   // look: a lookbehind
    bool negated = false;  // look: (?! or (?<!
  };

  std::vector<char32_t> cps_;
  std::size_t pos_ = 0;
  std::vector<node> nodes_;
  std::size_t lookarounds_ = 0;
  std::vector<std::string> names_;  // the group names so far, which must be unique
  std::map<std::pair<bool, range_list>, std::uint32_t> class_index_;  // classes_ by content
  // \p{...} and \P{...} by their text (`p` or `P`, then the name): each is computed once.
  std::map<std::string, range_list> properties_;
  // Class escapes outside classes (`\p{L}`, `\d`) by their text: the class each made.
  std::map<std::u32string_view, std::uint32_t> escape_classes_;
  regex out_;
  std::string error_;

  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  [[nodiscard]] bool at_end() const noexcept { return pos_ >= cps_.size(); }
  [[nodiscard]] char32_t peek(std::size_t ahead = 0) const noexcept {
    return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : char32_t{0xFFFFFFFF};
  }
  /// The class escape after a backslash at `pos_` as written (`d`, `W`, `p{L}`, `P{sc=Greek}`),
  /// or an empty view when none is there (its syntax is checked when it is parsed).
  [[nodiscard]] std::u32string_view class_escape_here() const noexcept {
    const char32_t c = peek();
    std::size_t end = 0;
    if (c == U'd' || c == U'D' || c == U'w' || c == U'W' || c == U's' || c == U'S') {
      end = pos_ + 1;
    } else if ((c == U'p' || c == U'P') && peek(1) == U'{') {
      for (std::size_t k = pos_ + 2; k < cps_.size() && end == 0; ++k)
        if (cps_[k] == U'}') end = k + 1;
    }
    return end == 0 ? std::u32string_view() : std::u32string_view(cps_.data() + pos_, end - pos_);
  }
  std::size_t add(node n) {
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }
  std::size_t add(kind k) {
    node n;
    n.k = k;
    return add(std::move(n));
  }

  static void normalize(range_list& r) {
    std::sort(r.begin(), r.end());
    range_list merged;
    for (const auto& p : r) {
      if (!merged.empty() && p.first <= merged.back().second + 1) {
        merged.back().second = std::max(merged.back().second, p.second);
      } else {
        merged.push_back(p);
      }
    }
    r = std::move(merged);
  }
  static range_list complement(range_list r) {
    normalize(r);
    range_list out;
    char32_t next = 0;
    for (const auto& p : r) {
      if (p.first > next) out.emplace_back(next, p.first - 1);
      next = p.second + 1;
    }
    if (next <= 0x10FFFF) out.emplace_back(next, 0x10FFFF);
    return out;
  }
  static range_list digit_ranges() { return {{U'0', U'9'}}; }
  static range_list word_ranges() {
    return {{U'0', U'9'}, {U'A', U'Z'}, {U'_', U'_'}, {U'a', U'z'}};
  }
  static range_list space_ranges() {
    return {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680},
            {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
            {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
  }
  static bool is_word(char32_t c) noexcept {
    return (c >= U'0' && c <= U'9') || (c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z') ||
           c == U'_';
  }
  friend class regex;

  // Adds a class node; equal classes share one entry of `classes_`, so that a pattern of many
  // `\p{L}` (some 1,800 ranges each) keeps one copy of them.
  std::size_t add_class(range_list r, bool negated) {
    normalize(r);
    auto key = std::make_pair(negated, std::move(r));
    auto it = class_index_.find(key);
    if (it == class_index_.end()) {
      out_.classes_.push_back(regex::char_class{key.second, negated});
      it =
          class_index_.emplace(std::move(key), static_cast<std::uint32_t>(out_.classes_.size() - 1))
              .first;
    }
    node n;
    n.k = kind::cls;
    n.index = it->second;
    return add(std::move(n));
  }

  static std::string show(char32_t c) {
    std::string s;
    append_utf8(s, c);
    return s;
  }

  bool read_hex(std::size_t digits, char32_t& out) {
    char32_t v = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const int h = hex(peek());
      if (h < 0) return false;
      v = v * 16 + static_cast<char32_t>(h);
      ++pos_;
    }
    out = v;
    return true;
  }
  static int hex(char32_t c) noexcept {
    return c < 0x80 ? detail::hex_value(static_cast<char>(c)) : -1;
  }
  // ECMA-262's SyntaxCharacter: what an identity escape may escape with the u flag (and '/').
  static bool is_syntax(char32_t c) noexcept {
    return c < 0x80 &&
           std::string_view("^$\\.*+?()[]{}|").find(static_cast<char>(c)) != std::string_view::npos;
  }

  // The rest of a \u escape (the 'u' consumed): \uHHHH, a \uHHHH\uHHHH surrogate pair (one code
  // point), or \u{H...} up to 10FFFF. A lone surrogate escape stands for that surrogate, which no
  // UTF-8 text holds.
  bool parse_unicode_escape(char32_t& out) {
    if (peek() == U'{') {
      ++pos_;
      char32_t v = 0;
      std::size_t digits = 0;
      for (; hex(peek()) >= 0; ++pos_, ++digits) {
        v = v * 16 + static_cast<char32_t>(hex(peek()));
        if (v > 0x10FFFF) return fail("\\u{...} beyond U+10FFFF");
      }
      if (digits == 0 || peek() != U'}') return fail("incomplete \\u{...} escape");
      ++pos_;
      out = v;
      return true;
    }
    char32_t v = 0;
    if (!read_hex(4, v)) {
      return fail("incomplete \\u escape (\\u and four hex digits, or \\u{...})");
    }
    if (v >= 0xD800 && v <= 0xDBFF && peek() == U'\\' && peek(1) == U'u') {
      const std::size_t save = pos_;
      pos_ += 2;
      char32_t lo = 0;
      if (read_hex(4, lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
      } else {
        pos_ = save;
      }
    }
    out = v;
    return true;
  }

  // The rest of \p{...} or \P{...} (the letter consumed): the property's code points.
  bool parse_property(bool complemented, range_list& out) {
    const std::string_view letter = complemented ? "\\P" : "\\p";
    if (peek() != U'{')
      return fail("incomplete " + std::string(letter) + " escape (" + std::string(letter) +
                  "{...} names a property)");
    ++pos_;
    std::string text;
    for (; !at_end() && peek() != U'}'; ++pos_) append_utf8(text, peek());
    if (peek() != U'}') {
      return fail("incomplete " + std::string(letter) + "{" + text + " escape (no closing '}')");
    }
    ++pos_;
    // A pattern may name one property thousands of times: its ranges are computed once.
    const std::string key = (complemented ? "P" : "p") + text;
    if (const auto known = properties_.find(key); known != properties_.end()) {
      out = known->second;
      return true;
    }
    if (!unicode::property_ranges(text, out)) {
      std::string why =
          "unknown Unicode property " + std::string(letter) + "{" + text + "}" +
          " (names are the Unicode Character Database's, spelled exactly: \\p{L}, \\p{Letter}, "
          "\\p{sc=Greek}, \\p{Alphabetic})";
      if (unicode::find_name(unicode::script_names, text)) {
        why = "unknown Unicode property " + std::string(letter) + "{" + text + "}" +
              ": a script needs sc= or scx=, as in " + std::string(letter) + "{sc=" + text + "}";
      }
      return fail(std::move(why));
    }
    if (complemented) out = complement(std::move(out));
    properties_.emplace(key, out);
    return true;
  }

  static std::string backreference_help(const std::string& what) {
    return "backreference " + what +
           " is not supported (a rule such as \"no character three times in a row\", "
           "(?!.*(.)\\1\\1), is written without one: (?!.*(?:a{3}|b{3}|...)) over the "
           "characters allowed)";
  }

  // Parses the escape after a backslash (already consumed), as ECMA-262 does with the u flag.
  // Sets either `single` (one code point) or `set` (a class escape such as \d). `in_class` turns
  // \b into backspace and allows \-. \b and \B outside a class are the caller's.
  bool parse_escape(bool in_class, std::optional<char32_t>& single,
                    std::optional<range_list>& set) {
    if (at_end()) return fail("pattern ends with a backslash");
    const char32_t c = peek();
    ++pos_;
    switch (c) {
      case U'd': set = digit_ranges(); return true;
      case U'D': set = complement(digit_ranges()); return true;
      case U'w': set = word_ranges(); return true;
      case U'W': set = complement(word_ranges()); return true;
      case U's': set = space_ranges(); return true;
      case U'S': set = complement(space_ranges()); return true;
      case U'p':
      case U'P': {
        range_list r;
        if (!parse_property(c == U'P', r)) return false;
        set = std::move(r);
        return true;
      }
      case U't': single = 0x09; return true;
      case U'n': single = 0x0A; return true;
      case U'v': single = 0x0B; return true;
      case U'f': single = 0x0C; return true;
      case U'r': single = 0x0D; return true;
      case U'b':
        if (in_class) {
          single = 0x08;
          return true;
        }
        break;
      case U'-':
        if (in_class) {
          single = U'-';
          return true;
        }
        return fail("\\- outside a class is an invalid escape with the u flag (write -)");
      case U'0':
        if (peek() >= U'0' && peek() <= U'9') {
          return fail(
              "\\0 before a digit is a legacy octal escape, a syntax error with the u flag");
        }
        single = 0;
        return true;
      case U'x': {
        char32_t v = 0;
        if (!read_hex(2, v)) return fail("incomplete \\x escape (\\x and two hex digits)");
        single = v;
        return true;
      }
      case U'u': {
        char32_t v = 0;
        if (!parse_unicode_escape(v)) return false;
        single = v;
        return true;
      }
      case U'c': {
        const char32_t l = peek();
        if ((l >= U'a' && l <= U'z') || (l >= U'A' && l <= U'Z')) {
          ++pos_;
          single = l % 32;
          return true;
        }
        return fail("\\c must be followed by an ASCII letter");
      }
      case U'k':
        if (!in_class && peek() == U'<') {
          std::string name;
          for (std::size_t p = pos_ + 1; p < cps_.size() && cps_[p] != U'>'; ++p) {
            append_utf8(name, cps_[p]);
          }
          return fail(backreference_help("\\k<" + name + ">"));
        }
        return fail("\\k is an invalid escape with the u flag (\\k<name> is a backreference)");
      default: break;
    }
    if (c >= U'1' && c <= U'9') {
      if (in_class) {
        return fail("\\" + show(c) +
                    " in a class is a legacy octal escape, a syntax error with the u flag");
      }
      std::string digits = show(c);
      for (std::size_t p = pos_; p < cps_.size() && cps_[p] >= U'0' && cps_[p] <= U'9'; ++p) {
        digits += show(cps_[p]);
      }
      return fail(backreference_help("\\" + digits));
    }
    if (is_syntax(c) || c == U'/') {
      single = c;
      return true;
    }
    return fail("invalid escape \\" + show(c) +
                " (with the u flag only ^ $ \\ . * + ? ( ) [ ] { } | / may be escaped, and - in a "
                "class)");
  }

  bool parse_class(std::size_t& out) {
    ++pos_;  // '['
    bool negated = false;
    if (peek() == U'^') {
      negated = true;
      ++pos_;
    }
    // One class atom: a code point (`c`), or an escape that stands for a set (`set`).
    auto atom = [&](std::optional<char32_t>& c, std::optional<range_list>& set) {
      if (peek() != U'\\') {
        c = peek();
        ++pos_;
        return true;
      }
      ++pos_;
      return parse_escape(true, c, set);
    };
    range_list r;
    // Memory stays in proportion to the distinct code points named, whatever the pattern: a
    // class escape written again adds nothing, and the ranges are merged whenever they doubled.
    std::set<std::u32string_view> escapes;  // the class escapes added, as written
    std::size_t merged = 0;
    for (;;) {
      if (at_end()) return fail("unterminated character class");
      if (peek() == U']') {
        ++pos_;
        break;
      }
      // A class escape written again in this class adds nothing: it is skipped unread.
      if (peek() == U'\\') {
        ++pos_;
        const std::u32string_view written = class_escape_here();
        if (!written.empty() && escapes.count(written) != 0) {
          pos_ += written.size();
          if (peek() == U'-' && peek(1) != U']' && pos_ + 1 < cps_.size())
            return fail("a class escape cannot start a range (as in [\\w-z])");
          continue;
        }
        --pos_;
      }
      const std::size_t from = pos_ + 1;  // after the backslash, when an escape comes
      std::optional<char32_t> lo;
      std::optional<range_list> set;
      if (!atom(lo, set)) return false;
      const bool range = peek() == U'-' && peek(1) != U']' && pos_ + 1 < cps_.size();
      if (range && set) return fail("a class escape cannot start a range (as in [\\w-z])");
      if (set) {
        const std::u32string_view written(cps_.data() + from, pos_ - from);
        escapes.insert(written);
        r.insert(r.end(), set->begin(), set->end());
        if (r.size() > 2 * merged + 4096) {
          normalize(r);
          merged = r.size();
        }
        continue;
      }
      if (range) {
        ++pos_;  // '-'
        std::optional<char32_t> hi;
        std::optional<range_list> hiset;
        if (!atom(hi, hiset)) return false;
        if (hiset) return fail("a class escape cannot end a range (as in [a-\\w])");
        if (*hi < *lo) return fail("range out of order in character class");
        r.emplace_back(*lo, *hi);
      } else {
        r.emplace_back(*lo, *lo);
      }
    }
    out = add_class(std::move(r), negated);
    return true;
  }

  // Reads a group name after "(?<" or in "\k<" up to and including '>': ECMA-262's
  // RegExpIdentifierName (ID_Start, $ or _, then ID_Continue, $, ZWNJ or ZWJ; \u escapes allowed).
  bool parse_group_name(std::string& name) {
    static const auto id_start = unicode::find_name(unicode::binary_names, "ID_Start");
    static const auto id_continue = unicode::find_name(unicode::binary_names, "ID_Continue");
    for (bool first = true;; first = false) {
      if (at_end()) return fail("unterminated group name");
      char32_t c = peek();
      ++pos_;
      if (c == U'>' && !first) return true;
      if (c == U'\\') {
        if (peek() != U'u') return fail("invalid group name");
        ++pos_;
        if (!parse_unicode_escape(c)) return false;
      }
      const bool ok =
          c == U'$' || c == U'_' ||
          (first ? unicode::has_binary(*id_start, c)
                 : (c == 0x200C || c == 0x200D || unicode::has_binary(*id_continue, c)));
      if (!ok) return fail("invalid group name");
      append_utf8(name, c);
    }
  }

  // Reads {n}, {n,}, {n,m} at pos_ (which is '{'). Returns false without error if it is not a
  // quantifier (then the '{' is a lone '{', a syntax error with the u flag).
  bool try_braces(unsigned& mn, unsigned& mx) {
    std::size_t p = pos_ + 1;
    auto number = [&](unsigned& v) {
      const std::size_t start = p;
      unsigned long long acc = 0;
      while (p < cps_.size() && cps_[p] >= U'0' && cps_[p] <= U'9') {
        acc = std::min<unsigned long long>(acc * 10 + (cps_[p] - U'0'), 1000000ULL);
        ++p;
      }
      v = static_cast<unsigned>(acc);
      return p > start;
    };
    unsigned a = 0;
    unsigned b = 0;
    if (!number(a)) return false;
    if (p < cps_.size() && cps_[p] == U'}') {
      mn = mx = a;
      pos_ = p + 1;
      return true;
    }
    if (p >= cps_.size() || cps_[p] != U',') return false;
    ++p;
    if (p < cps_.size() && cps_[p] == U'}') {
      mn = a;
      mx = unbounded;
      pos_ = p + 1;
      return true;
    }
    if (!number(b)) return false;
    if (p >= cps_.size() || cps_[p] != U'}') return false;
    mn = a;
    mx = b;
    pos_ = p + 1;
    return true;
  }

  bool parse_disjunction(std::size_t& out, std::size_t depth) {
    if (depth > regex_max_nesting) return fail("groups nested too deeply");
    std::vector<std::size_t> alts;
    for (;;) {
      std::size_t alt = 0;
      if (!parse_alternative(alt, depth)) return false;
      alts.push_back(alt);
      if (peek() != U'|') break;
      ++pos_;
    }
    if (alts.size() == 1) {
      out = alts[0];
    } else {
      node n;
      n.k = kind::alt;
      n.kids = std::move(alts);
      out = add(std::move(n));
    }
    return true;
  }

  bool parse_alternative(std::size_t& out, std::size_t depth) {
    node seq;
    seq.k = kind::concat;
    while (!at_end() && peek() != U'|' && peek() != U')') {
      const char32_t c = peek();
      std::size_t atom = 0;
      bool assertion = false;  // not quantifiable with the u flag
      switch (c) {
        case U'^':
          ++pos_;
          atom = add(kind::bol);
          assertion = true;
          break;
        case U'$':
          ++pos_;
          atom = add(kind::eol);
          assertion = true;
          break;
        case U'.':
          ++pos_;
          atom = add(kind::any);
          break;
        case U'[':
          if (!parse_class(atom)) return false;
          break;
        case U'(': {
          ++pos_;
          node look;  // stays kind::empty unless the group is a lookaround
          if (peek() == U'?') {
            if (peek(1) == U':') {
              pos_ += 2;
            } else if (peek(1) == U'=' || peek(1) == U'!') {
              look.k = kind::look;
              look.negated = peek(1) == U'!';
              pos_ += 2;
            } else if (peek(1) == U'<' && (peek(2) == U'=' || peek(2) == U'!')) {
              look.k = kind::look;
              look.behind = true;
              look.negated = peek(2) == U'!';
              pos_ += 3;
            } else if (peek(1) == U'<') {
              pos_ += 2;
              std::string name;
              if (!parse_group_name(name)) return false;
              if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
                return fail("duplicate group name <" + name + ">");
              }
              names_.push_back(std::move(name));
            } else {
              return fail("invalid group (?" + (pos_ + 1 < cps_.size() ? show(peek(1)) : "") +
                          ": only (?: (?= (?! (?<= (?<! and (?<name> are groups; modifiers "
                          "such as (?i:...) are not supported");
            }
          }
          if (!parse_disjunction(atom, depth + 1)) return false;
          if (peek() != U')') return fail("missing ')'");
          ++pos_;
          if (look.k == kind::look) {
            if (++lookarounds_ > regex_max_lookarounds) {
              return fail("too many lookarounds (over " + std::to_string(regex_max_lookarounds) +
                          ")");
            }
            look.kids = {atom};
            assertion = true;
            atom = add(std::move(look));
          }
          break;
        }
        case U'\\': {
          ++pos_;
          if (peek() == U'b' || peek() == U'B') {
            atom = add(peek() == U'b' ? kind::word : kind::not_word);
            ++pos_;
            assertion = true;
            break;
          }
          // A class escape written again (`\p{L}` a thousand times) reuses its class: its
          // ranges are not looked up, copied, sorted or compared again.
          const std::u32string_view written = class_escape_here();
          if (const auto known = escape_classes_.find(written);
              !written.empty() && known != escape_classes_.end()) {
            pos_ += written.size();
            node n;
            n.k = kind::cls;
            n.index = known->second;
            atom = add(std::move(n));
            break;
          }
          std::optional<char32_t> single;
          std::optional<range_list> set;
          if (!parse_escape(false, single, set)) return false;
          atom = set ? add_class(std::move(*set), false) : add_class({{*single, *single}}, false);
          if (set && !written.empty()) escape_classes_.emplace(written, nodes_[atom].index);
          break;
        }
        case U'*':
        case U'+':
        case U'?': return fail("nothing to repeat");
        case U'{': {
          unsigned a = 0;
          unsigned b = 0;
          if (try_braces(a, b)) return fail("nothing to repeat");
          return fail("lone '{' (write \\{ for the character; a quantifier is {n}, {n,} or {n,m})");
        }
        case U'}': return fail("lone '}' (write \\} for the character)");
        case U']': return fail("lone ']' (write \\] for the character)");
        default:
          ++pos_;
          atom = add_class({{c, c}}, false);
          break;
      }
      // quantifier
      unsigned mn = 1;
      unsigned mx = 1;
      bool quantified = false;
      const std::size_t quantifier_at = pos_;
      if (peek() == U'*') {
        mn = 0, mx = unbounded, quantified = true, ++pos_;
      } else if (peek() == U'+') {
        mn = 1, mx = unbounded, quantified = true, ++pos_;
      } else if (peek() == U'?') {
        mn = 0, mx = 1, quantified = true, ++pos_;
      } else if (peek() == U'{') {
        quantified = try_braces(mn, mx);
        if (quantified && mx < mn) return fail("numbers out of order in {} quantifier");
      }
      if (quantified) {
        if (assertion) {
          pos_ = quantifier_at;
          return fail("an assertion (^ $ \\b \\B or a lookaround) cannot be quantified");
        }
        if (peek() == U'?') ++pos_;  // lazy: same answer for a yes/no search
        if (peek() == U'*' || peek() == U'+' || peek() == U'?') return fail("nothing to repeat");
        if (peek() == U'{') {
          unsigned a = 0;
          unsigned b = 0;
          const std::size_t save = pos_;
          if (try_braces(a, b)) {
            pos_ = save;
            return fail("nothing to repeat");
          }
        }
        node rep;
        rep.k = kind::repeat;
        rep.kids = {atom};
        rep.min = mn;
        rep.max = mx;
        atom = add(std::move(rep));
      }
      seq.kids.push_back(atom);
    }
    out = add(std::move(seq));
    return true;
  }

  bool push(regex::inst i) {
    if (out_.code_.size() >= regex_max_program) {
      return fail("pattern too large (over " + std::to_string(regex_max_program) +
                  " instructions)");
    }
    out_.code_.push_back(i);
    return true;
  }
  [[nodiscard]] std::uint32_t here() const noexcept {
    return static_cast<std::uint32_t>(out_.code_.size());
  }

  // Emits the program of every lookaround's body under node `id`, innermost first (post-order), so
  // a body only reads tables computed before its own: each body is `emit(body, reversed for a
  // lookahead)` then `match`, and its node's `index` becomes its place in `looks_`.
  // A lookaround under a repeat is emitted once, as its table is the same for every copy.
  // Recursion follows the syntax tree, as in `emit`. Errors: the program cap.
  bool emit_bodies(std::size_t id) {
    for (const std::size_t k : nodes_[id].kids) {
      if (!emit_bodies(k)) return false;
    }
    node& n = nodes_[id];
    if (n.k != kind::look) return true;
    n.index = static_cast<std::uint32_t>(out_.looks_.size());
    out_.looks_.push_back({here(), n.behind, n.negated});
    return emit(n.kids[0], !n.behind) && push({regex::op::match, 0, 0});
  }

  // Emits the program of node `id`: forwards, or `reversed` (for a lookahead's body, run from
  // right to left: a sequence's parts in the opposite order, everything else as it is). A
  // lookaround is one `look` instruction (its body was emitted by `emit_bodies`).
  // Recursion here follows the pattern's syntax tree, whose depth is bounded by
  // regex_max_nesting groups (each group adds at most three levels). Errors: the program cap.
  bool emit(std::size_t id, bool reversed) {
    const node& n = nodes_[id];
    switch (n.k) {
      case kind::empty: return true;
      case kind::cls: return push({regex::op::cls, n.index, 0});
      case kind::any: return push({regex::op::any, 0, 0});
      case kind::bol: return push({regex::op::bol, 0, 0});
      case kind::eol: return push({regex::op::eol, 0, 0});
      case kind::word: return push({regex::op::word, 0, 0});
      case kind::not_word: return push({regex::op::not_word, 0, 0});
      case kind::look: return push({regex::op::look, n.index, 0});
      case kind::concat:
        if (reversed) {
          for (auto k = n.kids.rbegin(); k != n.kids.rend(); ++k) {
            if (!emit(*k, true)) return false;
          }
          return true;
        }
        for (const std::size_t k : n.kids) {
          if (!emit(k, false)) return false;
        }
        return true;
      case kind::alt: {
        // split L1, next; L1: a; jmp end; next: split L2, next2; ... last alternative
        std::vector<std::uint32_t> jumps;
        for (std::size_t i = 0; i < n.kids.size(); ++i) {
          if (i + 1 < n.kids.size()) {
            const std::uint32_t s = here();
            if (!push({regex::op::split, s + 1, 0})) return false;
            if (!emit(n.kids[i], reversed)) return false;
            jumps.push_back(here());
            if (!push({regex::op::jmp, 0, 0})) return false;
            out_.code_[s].y = here();
          } else if (!emit(n.kids[i], reversed)) {
            return false;
          }
        }
        for (const std::uint32_t j : jumps) out_.code_[j].x = here();
        return true;
      }
      case kind::repeat: {
        const std::size_t kid = n.kids[0];
        const unsigned mn = n.min;
        const unsigned mx = n.max;
        for (unsigned i = 0; i < mn; ++i) {
          const std::uint32_t before = here();
          if (!emit(kid, reversed)) return false;
          if (here() == before) break;  // an empty kid (`(?:){1000000}`): its copies are nothing
        }
        if (mx == unbounded) {
          const std::uint32_t loop = here();
          if (!push({regex::op::split, loop + 1, 0})) return false;
          if (!emit(kid, reversed)) return false;
          if (!push({regex::op::jmp, loop, 0})) return false;
          out_.code_[loop].y = here();
          return true;
        }
        std::vector<std::uint32_t> splits;
        for (unsigned i = mn; i < mx; ++i) {
          splits.push_back(here());
          if (!push({regex::op::split, here() + 1, 0})) return false;
          if (!emit(kid, reversed)) return false;
        }
        for (const std::uint32_t s : splits) out_.code_[s].y = here();
        return true;
      }
    }
    return true;
  }
};

LLMJSON_INLINE std::optional<regex> regex::compile(std::string_view pattern, std::string& error) {
  regex_parser p(pattern);
  return p.run(error);
}

/// The state lists of `regex::run`, shared by the runs of one search. `mark[pc] == gen` means
/// pc is already in the list being built for the current position; `gen` only grows, so a new
/// run or position needs no clearing.
struct regex::scratch {
  std::vector<std::uint32_t> cur;
  std::vector<std::uint32_t> next;
  std::vector<std::uint32_t> stack;
  std::vector<std::size_t> mark;
  std::size_t gen = 0;
  std::size_t work = 0;  // instructions visited
};

LLMJSON_INLINE bool regex::run(const std::vector<char32_t>& cps, std::uint32_t start,
                               bool backwards, std::vector<bool>& tables, std::size_t record,
                               scratch& s) const {
  const std::size_t n = cps.size();
  const bool recording = record < looks_.size();
  const std::size_t row = record * (n + 1);  // the recorded table's first bit

  // Adds the epsilon closure of `from` at text position `at` to `list`. Returns true on an
  // acceptance when not recording; when recording, marks the position and goes on, as other
  // threads of the closure may accept later.
  auto add = [&](std::vector<std::uint32_t>& list, std::uint32_t from, std::size_t at) {
    s.stack.push_back(from);
    while (!s.stack.empty()) {
      const std::uint32_t pc = s.stack.back();
      s.stack.pop_back();
      if (s.mark[pc] == s.gen) continue;
      s.mark[pc] = s.gen;
      ++s.work;
      const inst& in = code_[pc];
      switch (in.code) {
        case op::jmp: s.stack.push_back(in.x); break;
        case op::split:
          s.stack.push_back(in.y);
          s.stack.push_back(in.x);
          break;
        case op::bol:
          if (at == 0) s.stack.push_back(pc + 1);
          break;
        case op::eol:
          if (at == n) s.stack.push_back(pc + 1);
          break;
        case op::word:
        case op::not_word: {
          const bool before = at > 0 && regex_parser::is_word(cps[at - 1]);
          const bool after = at < n && regex_parser::is_word(cps[at]);
          if ((before != after) == (in.code == op::word)) s.stack.push_back(pc + 1);
          break;
        }
        case op::look:
          if (tables[in.x * (n + 1) + at]) s.stack.push_back(pc + 1);
          break;
        case op::match:
          if (!recording) {
            s.stack.clear();
            return true;
          }
          tables[row + at] = true;
          break;
        case op::cls:
        case op::any: list.push_back(pc); break;
      }
    }
    return false;
  };

  ++s.gen;
  s.cur.clear();
  const std::size_t last = backwards ? 0 : n;
  for (std::size_t at = backwards ? n : 0;;) {
    // Unanchored: a new thread starts at every position.
    if (add(s.cur, start, at)) return true;
    if (at == last) return false;
    ++s.gen;
    s.next.clear();
    const char32_t c = backwards ? cps[at - 1] : cps[at];
    const std::size_t to = backwards ? at - 1 : at + 1;
    for (const std::uint32_t pc : s.cur) {
      const inst& in = code_[pc];
      bool ok = false;
      if (in.code == op::any) {
        ok = c != 0x0A && c != 0x0D && c != 0x2028 && c != 0x2029;
      } else {
        ok = classes_[in.x].contains(c);
      }
      if (ok && add(s.next, pc + 1, to)) return true;
    }
    std::swap(s.cur, s.next);
    at = to;
    // `cur` now holds position `to`'s threads, marked with `gen`; the start thread added next
    // iteration must share that mark so nothing is added twice.
  }
}

LLMJSON_INLINE bool regex::search(std::string_view text, std::size_t& work) const {
  std::vector<char32_t> cps;
  cps.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) cps.push_back(utf8_next(text, i));
  const std::size_t n = cps.size();

  scratch s;
  s.mark.assign(code_.size(), std::numeric_limits<std::size_t>::max());
  s.cur.reserve(code_.size());
  s.next.reserve(code_.size());
  s.stack.reserve(code_.size());
  // The lookaround tables, one row of n + 1 bits per lookaround, innermost first.
  std::vector<bool> tables(looks_.size() * (n + 1), false);
  for (std::size_t k = 0; k < looks_.size(); ++k) {
    const lookaround& l = looks_[k];
    (void)run(cps, l.start, !l.behind, tables, k, s);
    if (l.negated) {
      for (std::size_t at = 0; at <= n; ++at) tables[k * (n + 1) + at].flip();
    }
  }
  const bool found = run(cps, start_, false, tables, looks_.size(), s);
  work += s.work;
  return found;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED
