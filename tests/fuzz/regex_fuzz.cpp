// llmjson: fuzz target: the pattern engine (detail/schema/regex.hpp) against std::regex
// SPDX-License-Identifier: MIT
#include <llmjson/detail/schema/regex.hpp>

#include "fuzz_bytes.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The input's bytes build a valid pattern of ECMA-262 with the u flag (literals, `.`, classes,
// class escapes, `\p{..}` and `\P{..}`, character escapes, anchors, word boundaries, groups,
// alternation, greedy and lazy quantifiers, lookahead and lookbehind, nested) and a few short
// subject strings. llmjson must compile every such pattern (short of its size limits), and its
// `search` is checked against two oracles, on match / no match for every subject:
//
// - `std::regex_search` (ECMAScript, as JSON Schema's `pattern`), where it accepts the pattern
//   and is sound for it: libstdc++ has no lookbehind, rejects a quantified lookahead, and runs a
//   lookahead's body as if the text began where the lookahead is (`a(?=^b)` matches "ab",
//   `a(?=\b)` does not match "a"), so patterns with `^ \b \B` inside a lookahead are left out.
// - `oracle`, a brute-force reading of ECMA-262's semantics on the generated syntax tree, for
//   every pattern: a term maps the set of positions it may start at to the set where it may end
//   (no captures, so the order of the alternatives ECMA-262's backtracking tries does not change
//   the answer), a lookahead runs its body forwards from the position, a lookbehind backwards
//   (ECMA-262's direction -1). Its single-character atoms are tested by std::wregex, on one
//   character where libstdc++ agrees with ECMAScript. It also runs against std::regex on every
//   pattern std::regex is sound for, so it is checked too.
//
// So that both run quickly and agree on what a character is: subjects are at most 8 code points;
// quantified atoms never hold a quantifier (no nested quantifiers for libstdc++'s backtracking);
// std::regex runs as std::wregex over code points (wchar_t is 32 bits here), as llmjson matches
// by code point. Where libstdc++ departs from ECMAScript (`\cJ`) or cannot express a pattern
// (a surrogate-pair escape, `\p{..}`, which it reads without the u flag), std::regex gets an
// equivalent pattern (`struct pattern`): for a property, the class of the alphabet's code points
// that have it (Unicode 15.0; the subjects hold no others).

namespace {

using llmjson_fuzz::fuzz_bytes;

/// The syntax tree of a generated pattern, for `oracle`.
struct tree {
  enum class kind { one, bol, eol, word, not_word, seq, alt, repeat, look } k = kind::seq;
  const std::wregex* one = nullptr;  // one: the atom, as std::wregex, matched on one character
  std::vector<tree> kids;
  unsigned min = 0;
  unsigned max = 0;  // repeat: `unbounded` for no maximum
  bool behind = false;
  bool negated = false;
  static constexpr unsigned unbounded = ~0u;
};

// Code points of the subjects and literals: ASCII letters and digits, punctuation the patterns
// use, white space, and non-ASCII letters and symbols (BMP and astral).
const char32_t alphabet[] = {U'a',  U'b',  U'c',      U'A',      U'Z',          U'0',
                             U'7',  U'_',  U' ',      U'-',      U'.',          U'\n',
                             U'\t', U'\r', U'\u00e9', U'\u20ac', U'\U0001F600', U'x'};

void append_utf8(std::string& s, char32_t c) {
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
}

/// A pattern as code points, for llmjson (as UTF-8) and for std::wregex. They are the same
/// except where std::wregex cannot say what llmjson's pattern means: a surrogate-pair escape
/// (`\ud83d\ude00`) is one code point for llmjson (ECMAScript with the `u` flag, as JSON Schema
/// validators use it and the README documents), so std::wregex gets `(?:😀)` for it; and
/// libstdc++ reads `\cJ` as a literal `J` (ECMA-262: U+000A), so it gets `\n`.
struct pattern {
  std::u32string cps;
  std::u32string for_std;
  int lookaheads_open = 0;   // while generating: lookaheads the next term is inside
  bool std_unsound = false;  // std::regex cannot run it as ECMAScript does (see the top)
  bool has_lookaround = false;
  void add(char32_t c) { cps += c, for_std += c; }
  void add(const char* ascii) {
    for (; *ascii; ++ascii) add(static_cast<char32_t>(static_cast<unsigned char>(*ascii)));
  }
  void add_apart(std::u32string_view ours, std::u32string_view theirs) {
    cps += ours, for_std += theirs;
  }
  [[nodiscard]] std::string utf8() const {
    std::string s;
    for (char32_t c : cps) append_utf8(s, c);
    return s;
  }
};

// ECMA-262's SyntaxCharacter: what a literal must escape (and all an identity escape may, with
// the u flag, besides '/').
bool is_syntax(char32_t c) {
  return c == U'.' || c == U'\\' || c == U'^' || c == U'$' || c == U'|' || c == U'(' || c == U')' ||
         c == U'[' || c == U']' || c == U'{' || c == U'}' || c == U'*' || c == U'+' || c == U'?';
}

void literal(fuzz_bytes& in, pattern& p) {
  const char32_t c = alphabet[in.pick(std::size(alphabet))];
  if (c == U'\n') return p.add("\\n");
  if (c == U'\t') return p.add("\\t");
  if (c == U'\r') return p.add("\\r");
  if (is_syntax(c)) p.add(U'\\');
  p.add(c);
}

void char_class(fuzz_bytes& in, pattern& p) {
  p.add(U'[');
  if (in.one_in(3)) p.add(U'^');
  for (std::size_t n = 1 + in.pick(3); n > 0; --n) {
    switch (in.pick(6)) {
      case 0: p.add("a-c"); break;
      case 1: p.add("0-9"); break;
      case 2: p.add(in.one_in(2) ? "\\d" : (in.one_in(2) ? "\\w" : "\\s")); break;
      case 3: p.add("\\-"); break;
      case 4: p.add(U'\u00e0'), p.add(U'-'), p.add(U'\u00ff'); break;
      default: {
        const char32_t c = alphabet[in.pick(std::size(alphabet))];
        if (c == U'\n') {
          p.add("\\n");
        } else if (c == U']' || c == U'\\' || c == U'^' || c == U'-') {
          p.add(U'\\'), p.add(c);
        } else {
          p.add(c);
        }
      }
    }
  }
  p.add(U']');
}

void one_char_text(fuzz_bytes& in, pattern& p);

/// The atom std::wregex compiles from `text`, kept for the whole run (a few hundred distinct).
const std::wregex* atom_regex(const std::u32string& text) {
  static std::map<std::u32string, std::wregex> atoms;
  auto it = atoms.find(text);
  if (it == atoms.end()) {
    std::wregex re;
    try {
      re.assign(std::wstring(text.begin(), text.end()), std::regex_constants::ECMAScript);
    } catch (const std::regex_error&) {
      return nullptr;
    }
    it = atoms.emplace(text, std::move(re)).first;
  }
  return &it->second;
}

/// An atom that matches exactly one character; `t` becomes its node (with a null `one` when
/// std::wregex rejects it: the oracle then stays out).
void one_char(fuzz_bytes& in, pattern& p, tree& t) {
  const std::size_t from = p.for_std.size();
  one_char_text(in, p);
  t.k = tree::kind::one;
  t.one = atom_regex(p.for_std.substr(from));
}

void one_char_text(fuzz_bytes& in, pattern& p) {
  switch (in.pick(8)) {
    case 0:
    case 1:
    case 2: return literal(in, p);
    case 3: return p.add(U'.');
    case 4: return char_class(in, p);
    case 5: {
      static const char* const esc[] = {"\\d", "\\D", "\\w", "\\W", "\\s", "\\S"};
      return p.add(esc[in.pick(std::size(esc))]);
    }
    default: {
      // \0 in a group: a digit after it would make a legacy octal escape, an error with u.
      static const char* const esc[] = {"\\x61", "\\u00e9", "\\u20AC", "\\/",    "\\.",
                                        "\\*",   "\\v",     "\\f",     "(?:\\0)"};
      if (in.one_in(8)) return p.add_apart(U"\\ud83d\\ude00", U"(?:\U0001F600)");
      if (in.one_in(8)) return p.add_apart(U"\\u{1F600}", U"(?:\U0001F600)");
      if (in.one_in(3)) {
        // A property and its code points among the alphabet's (Unicode 15.0).
        static const std::pair<std::u32string_view, std::u32string_view> props[] = {
            {U"\\p{L}", U"[abcxAZ\u00e9]"},
            {U"\\P{L}", U"[^abcxAZ\u00e9]"},
            {U"\\p{Lu}", U"[AZ]"},
            {U"\\p{gc=Ll}", U"[abcx\u00e9]"},
            {U"\\p{Letter}", U"[abcxAZ\u00e9]"},
            {U"\\p{sc=Latn}", U"[abcxAZ\u00e9]"},
            {U"\\p{scx=Zyyy}", U"[07_ \\-.\n\t\r\u20ac\U0001F600]"},
            {U"\\p{Nd}", U"[07]"},
            {U"\\p{P}", U"[_\\-.]"},
            {U"\\p{Sc}", U"[\u20ac]"},
            {U"\\p{White_Space}", U"[ \\n\\t\\r]"},
            {U"\\P{Assigned}", U"[^\\s\\S]"},
            {U"\\p{Any}", U"[\\s\\S]"},
            {U"\\p{ASCII}", U"[\\x00-\\x7F]"},
            {U"\\p{Emoji_Presentation}", U"[\U0001F600]"},
            {U"\\p{Alpha}", U"[abcxAZ\u00e9]"},
            {U"\\P{Hex}", U"[^abcA07]"},
        };
        const auto& [ours, theirs] = props[in.pick(std::size(props))];
        return p.add_apart(ours, theirs);
      }
      // ECMAScript: \cJ is U+000A (J % 32); libstdc++ reads it as a literal J.
      if (in.one_in(8)) return p.add_apart(U"\\cJ", U"\\n");
      return p.add(esc[in.pick(std::size(esc))]);
    }
  }
}

/// The body of a quantified group: one or two alternatives of one to three one-character atoms.
/// Every iteration consumes a character and nothing inside is quantified, so libstdc++'s
/// backtracking stays polynomial on short subjects (a loop whose body can match empty in many
/// ways makes it exponential: `(?:(?:\B|\B)|(?:a|\B)){1,}7` takes seconds on "aaa").
void loop_body(fuzz_bytes& in, pattern& p, tree& t) {
  t.k = tree::kind::alt;
  for (std::size_t alt = in.one_in(3) ? 2 : 1; alt > 0; --alt) {
    tree& seq = t.kids.emplace_back();
    for (std::size_t n = 1 + in.pick(3); n > 0; --n) one_char(in, p, seq.kids.emplace_back());
    if (alt > 1) p.add(U'|');
  }
}

/// A quantifier on `t`, which becomes the repeat's only child.
void quantifier(fuzz_bytes& in, pattern& p, tree& t) {
  static const char* const q[] = {"*", "+", "?", "{2}", "{0,1}", "{1,}", "{1,2}", "{0}"};
  static const unsigned bounds[][2] = {{0, tree::unbounded},
                                       {1, tree::unbounded},
                                       {0, 1},
                                       {2, 2},
                                       {0, 1},
                                       {1, tree::unbounded},
                                       {1, 2},
                                       {0, 0}};
  const std::size_t k = in.pick(std::size(q));
  p.add(q[k]);
  if (in.one_in(4)) p.add(U'?');  // lazy
  tree rep;
  rep.k = tree::kind::repeat;
  rep.min = bounds[k][0];
  rep.max = bounds[k][1];
  rep.kids.push_back(std::move(t));
  t = std::move(rep);
}

void disjunction(fuzz_bytes& in, pattern& p, int depth, tree& t);

/// One term: an assertion, an atom with or without a quantifier, a group or a lookaround.
void term(fuzz_bytes& in, pattern& p, int depth, tree& t) {
  switch (in.pick(depth < 3 ? 13 : 8)) {
    case 0:
      if (p.lookaheads_open > 0) p.std_unsound = true;
      t.k = tree::kind::bol;
      return p.add(U'^');
    case 1: t.k = tree::kind::eol; return p.add(U'$');
    case 2: {
      if (p.lookaheads_open > 0) p.std_unsound = true;
      const bool b = in.one_in(2);
      t.k = b ? tree::kind::word : tree::kind::not_word;
      return p.add(b ? "\\b" : "\\B");
    }
    case 3:
    case 4:
    case 5: return one_char(in, p, t);
    case 6:
    case 7: one_char(in, p, t); return quantifier(in, p, t);
    case 8:  // a quantified group (no quantifier inside it)
      p.add(in.one_in(2) ? "(" : "(?:");
      loop_body(in, p, t);
      p.add(U')');
      return quantifier(in, p, t);
    case 9:
    case 10:
    case 11: {  // a lookaround, anything inside
      static const char* const open[] = {"(?=", "(?!", "(?<=", "(?<!"};
      const std::size_t k = in.pick(4);
      p.add(open[k]);
      p.has_lookaround = true;
      t.k = tree::kind::look;
      t.negated = k % 2 == 1;
      t.behind = k >= 2;
      if (t.behind) p.std_unsound = true;  // libstdc++ has no lookbehind
      if (!t.behind) ++p.lookaheads_open;
      disjunction(in, p, depth + 1, t.kids.emplace_back());
      if (!t.behind) --p.lookaheads_open;
      p.add(U')');
      return;  // not quantified: with the u flag no assertion may be
    }
    default:  // a group, anything inside
      p.add(in.one_in(2) ? "(" : "(?:");
      disjunction(in, p, depth + 1, t);
      return p.add(U')');
  }
}

void disjunction(fuzz_bytes& in, pattern& p, int depth, tree& t) {
  t.k = tree::kind::alt;
  for (std::size_t alt = in.pick(3) == 0 ? 2 : 1; alt > 0; --alt) {
    tree& seq = t.kids.emplace_back();
    for (std::size_t n = in.pick(4); n > 0; --n) term(in, p, depth, seq.kids.emplace_back());
    if (alt > 1) p.add(U'|');
  }
}

/// The oracle's sets of positions in a subject of at most 8 code points: bit i is position i.
using positions = std::uint32_t;

bool is_word(const std::u32string& s, std::size_t i) {
  if (i >= s.size()) return false;
  const char32_t c = s[i];
  return (c >= U'0' && c <= U'9') || (c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z') ||
         c == U'_';
}

/// Returns whether the tree has a node the oracle cannot run (an atom std::wregex rejected).
bool oracle_can_run(const tree& t) {
  if (t.k == tree::kind::one && t.one == nullptr) return false;
  for (const tree& k : t.kids) {
    if (!oracle_can_run(k)) return false;
  }
  return true;
}

/// The positions where `t` may end when started at any of `from` in `s`, matching forwards or
/// (`backwards`, ECMA-262's direction -1, for lookbehind) backwards.
positions oracle(const tree& t, const std::u32string& s, positions from, bool backwards) {
  const std::size_t n = s.size();
  positions out = 0;
  switch (t.k) {
    case tree::kind::one:
      for (std::size_t i = 0; i <= n; ++i) {
        if (!(from >> i & 1)) continue;
        if (backwards ? i == 0 : i == n) continue;
        const std::wstring c(1, static_cast<wchar_t>(backwards ? s[i - 1] : s[i]));
        if (std::regex_match(c, *t.one)) out |= positions{1} << (backwards ? i - 1 : i + 1);
      }
      return out;
    case tree::kind::bol: return from & 1;
    case tree::kind::eol: return from & (positions{1} << n);
    case tree::kind::word:
    case tree::kind::not_word:
      for (std::size_t i = 0; i <= n; ++i) {
        const bool boundary = (i > 0 && is_word(s, i - 1)) != is_word(s, i);
        if ((from >> i & 1) && boundary == (t.k == tree::kind::word)) out |= positions{1} << i;
      }
      return out;
    case tree::kind::seq:
      out = from;
      for (std::size_t k = 0; k < t.kids.size(); ++k) {
        out = oracle(t.kids[backwards ? t.kids.size() - 1 - k : k], s, out, backwards);
      }
      return out;
    case tree::kind::alt:
      for (const tree& k : t.kids) out |= oracle(k, s, from, backwards);
      return out;
    case tree::kind::repeat: {
      // The minimum, then more until nothing new (an iteration past the minimum that ends where
      // it started fails in ECMA-262, but adds no position here either).
      positions cur = from;
      for (unsigned i = 0; i < t.min; ++i) cur = oracle(t.kids[0], s, cur, backwards);
      out = cur;
      for (unsigned i = t.min; i < t.max && cur != 0; ++i) {
        cur = oracle(t.kids[0], s, cur, backwards) & ~out;
        out |= cur;
      }
      return out;
    }
    case tree::kind::look:
      for (std::size_t i = 0; i <= n; ++i) {
        if (!(from >> i & 1)) continue;
        const bool holds = oracle(t.kids[0], s, positions{1} << i, t.behind) != 0;
        if (holds != t.negated) out |= positions{1} << i;
      }
      return out;
  }
  return out;
}

/// Whether `t` matches somewhere in `s`: started at every position.
bool oracle_search(const tree& t, const std::u32string& s) {
  const positions all = (positions{1} << (s.size() + 1)) - 1;
  return oracle(t, s, all, false) != 0;
}

std::u32string subject(fuzz_bytes& in) {
  std::u32string s;
  for (std::size_t n = in.pick(9); n > 0; --n) s += alphabet[in.pick(std::size(alphabet))];
  return s;
}

std::string show(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) {
    if (c < 0x20 || c > 0x7E) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u{%X}", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_bytes in(data, size);
  pattern p;
  tree t;
  disjunction(in, p, 0, t);
  std::string error;
  const std::optional<llmjson::detail::regex> ours =
      llmjson::detail::regex::compile(p.utf8(), error);
  std::optional<std::wregex> theirs;
  if (!p.std_unsound) {
    try {
      const std::wstring wp(p.for_std.begin(), p.for_std.end());
      theirs.emplace(wp, std::regex_constants::ECMAScript);
    } catch (const std::regex_error&) {
    }
  }
  // Every generated pattern is valid with the u flag: llmjson refuses one only for its limits.
  if (!ours && error.rfind("pattern too large", 0) != 0 &&
      error.rfind("too many lookarounds", 0) != 0 &&
      error.rfind("groups nested too deeply", 0) != 0) {
    std::fprintf(stderr, "llmjson refused a valid pattern:\n  pattern: /%s/\n  error: %s\n",
                 show(p.cps).c_str(), error.c_str());
    std::abort();
  }
  // The oracle runs every pattern whose atoms std::wregex takes.
  const bool oracle_ok = oracle_can_run(t);
  for (std::size_t n = 1 + in.pick(4); n > 0; --n) {
    const std::u32string s = subject(in);
    std::string s8;
    for (char32_t c : s) append_utf8(s8, c);
    const std::wstring ws(s.begin(), s.end());
    const int a = ours ? ours->search(s8) : -1;
    const int b = theirs ? std::regex_search(ws, *theirs) : -1;
    const int c = oracle_ok ? oracle_search(t, s) : -1;
    if ((a >= 0 && b >= 0 && a != b) || (a >= 0 && c >= 0 && a != c) ||
        (b >= 0 && c >= 0 && b != c)) {
      static const char* const said[] = {"-", "no match", "match"};
      std::fprintf(stderr,
                   "llmjson regex, std::regex (ECMAScript) and the oracle differ:\n  pattern: "
                   "/%s/\n  subject: \"%s\"\n  llmjson: %s, std::regex: %s, oracle: %s\n",
                   show(p.cps).c_str(), show(s).c_str(), said[a + 1], said[b + 1], said[c + 1]);
      std::abort();
    }
  }
  return 0;
}
