// llmjson: fuzz target: the pattern engine (detail/schema/regex.hpp) against std::regex
// SPDX-License-Identifier: MIT
#include <llmjson/detail/schema/regex.hpp>

#include "fuzz_bytes.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

// The input's bytes build a pattern from the supported subset (literals, `.`, classes, class
// escapes, character escapes, anchors, word boundaries, groups, alternation, greedy and lazy
// quantifiers) and a few short subject strings. Where both engines accept the pattern, llmjson's
// `search` and `std::regex_search` (ECMAScript, as JSON Schema's `pattern`) must agree on
// match / no match for every subject.
//
// So that both run quickly and agree on what a character is: subjects are at most 8 code points;
// quantified atoms never hold a quantifier (no nested quantifiers for libstdc++'s backtracking);
// std::regex runs as std::wregex over code points (wchar_t is 32 bits here), as llmjson matches
// by code point. Where libstdc++ departs from ECMAScript (`\cJ`) or cannot express a pattern
// (a surrogate-pair escape), std::regex gets an equivalent pattern (`struct pattern`).

namespace {

using llmjson_fuzz::fuzz_bytes;

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

bool is_syntax(char32_t c) {
  return c == U'.' || c == U'-' || c == U'\\' || c == U'^' || c == U'$' || c == U'|' || c == U'(' ||
         c == U')' || c == U'[' || c == U']' || c == U'{' || c == U'}' || c == U'*' || c == U'+' ||
         c == U'?';
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

/// An atom that matches exactly one character.
void one_char(fuzz_bytes& in, pattern& p) {
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
      static const char* const esc[] = {"\\x61", "\\u00e9", "\\u20AC", "\\/", "\\.",
                                        "\\*",   "\\v",     "\\f",     "\\0"};
      if (in.one_in(8)) return p.add_apart(U"\\ud83d\\ude00", U"(?:\U0001F600)");
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
void loop_body(fuzz_bytes& in, pattern& p) {
  for (std::size_t alt = in.one_in(3) ? 2 : 1; alt > 0; --alt) {
    for (std::size_t n = 1 + in.pick(3); n > 0; --n) one_char(in, p);
    if (alt > 1) p.add(U'|');
  }
}

void quantifier(fuzz_bytes& in, pattern& p) {
  static const char* const q[] = {"*", "+", "?", "{2}", "{0,1}", "{1,}", "{1,2}", "{0}"};
  p.add(q[in.pick(std::size(q))]);
  if (in.one_in(4)) p.add(U'?');  // lazy
}

void disjunction(fuzz_bytes& in, pattern& p, int depth);

/// One term: an assertion, an atom with or without a quantifier, or a group.
void term(fuzz_bytes& in, pattern& p, int depth) {
  switch (in.pick(depth < 3 ? 10 : 8)) {
    case 0: return p.add(U'^');
    case 1: return p.add(U'$');
    case 2: return p.add(in.one_in(2) ? "\\b" : "\\B");
    case 3:
    case 4:
    case 5: return one_char(in, p);
    case 6:
    case 7: one_char(in, p); return quantifier(in, p);
    case 8:  // a quantified group (no quantifier inside it)
      p.add(in.one_in(2) ? "(" : "(?:");
      loop_body(in, p);
      p.add(U')');
      return quantifier(in, p);
    default:  // a group, anything inside
      p.add(in.one_in(2) ? "(" : "(?:");
      disjunction(in, p, depth + 1);
      return p.add(U')');
  }
}

void disjunction(fuzz_bytes& in, pattern& p, int depth) {
  for (std::size_t alt = in.pick(3) == 0 ? 2 : 1; alt > 0; --alt) {
    for (std::size_t n = in.pick(4); n > 0; --n) term(in, p, depth);
    if (alt > 1) p.add(U'|');
  }
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
  disjunction(in, p, 0);
  std::string error;
  const std::optional<llmjson::detail::regex> ours =
      llmjson::detail::regex::compile(p.utf8(), error);
  std::optional<std::wregex> theirs;
  try {
    const std::wstring wp(p.for_std.begin(), p.for_std.end());
    theirs.emplace(wp, std::regex_constants::ECMAScript);
  } catch (const std::regex_error&) {
  }
  if (!ours || !theirs) return 0;  // only patterns both engines take are compared
  for (std::size_t n = 1 + in.pick(4); n > 0; --n) {
    const std::u32string s = subject(in);
    std::string s8;
    for (char32_t c : s) append_utf8(s8, c);
    const std::wstring ws(s.begin(), s.end());
    const bool a = ours->search(s8);
    const bool b = std::regex_search(ws, *theirs);
    if (a != b) {
      std::fprintf(stderr,
                   "llmjson regex differs from std::regex (ECMAScript):\n  pattern: /%s/\n  "
                   "subject: \"%s\"\n  llmjson: %s, std::regex: %s\n",
                   show(p.cps).c_str(), show(s).c_str(), a ? "match" : "no match",
                   b ? "match" : "no match");
      std::abort();
    }
  }
  return 0;
}
