// llmjson: the quantifiers of schema patterns (* + ? {n} {n,} {n,m}), and the errors around them
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_QUANTIFIERS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_QUANTIFIERS_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>

#include <llmjson/detail/schema/regex_cursor.hpp>
#include <llmjson/detail/schema/regex_syntax.hpp>

namespace llmjson::detail {

/// How many copies of an atom a quantifier asks for: `min` to `max` (or `regex_unbounded`).
struct regex_quantity {
  unsigned min = 1;
  unsigned max = 1;
};

/// Reads {n}, {n,} or {n,m} at the position (which is '{') into `q`, and moves past it. Returns
/// false, moving nothing, when the braces are no quantifier (then the '{' is a lone '{', a syntax
/// error with the u flag). Numbers over a million count as a million (the program cap stops any
/// atom repeated that often).
inline bool read_braces(regex_cursor& in, regex_quantity& q) {
  const auto& cps = in.cps;
  std::size_t p = in.pos + 1;
  auto number = [&](unsigned& v) {
    const std::size_t start = p;
    unsigned long long acc = 0;
    while (p < cps.size() && cps[p] >= U'0' && cps[p] <= U'9') {
      acc = std::min<unsigned long long>(acc * 10 + (cps[p] - U'0'), 1000000ULL);
      ++p;
    }
    v = static_cast<unsigned>(acc);
    return p > start;
  };
  unsigned a = 0;
  unsigned b = 0;
  if (!number(a)) return false;
  if (p < cps.size() && cps[p] == U'}') {
    b = a;
  } else {
    if (p >= cps.size() || cps[p] != U',') return false;
    ++p;
    if (p < cps.size() && cps[p] == U'}') {
      b = regex_unbounded;
    } else if (!number(b) || p >= cps.size() || cps[p] != U'}') {
      return false;
    }
  }
  q = {a, b};
  in.pos = p + 1;
  return true;
}

/// The error for a quantifier (`*`, `+`, `?`, or `{` at the position) where an atom should be.
inline bool fail_quantifier_without_atom(regex_cursor& in) {
  regex_quantity ignored;
  if (in.peek() != U'{' || read_braces(in, ignored)) return in.fail("nothing to repeat");
  return in.fail("lone '{' (write \\{ for the character; a quantifier is {n}, {n,} or {n,m})");
}

/// Reads the quantifier after an atom, if one is there, into `q`: greedy or lazy (a `?` after it,
/// the same for a yes/no search). Errors: numbers out of order, a quantified `assertion` (ECMA-262
/// with the u flag allows none), a second quantifier.
inline bool read_quantifier(regex_cursor& in, bool assertion, std::optional<regex_quantity>& q) {
  regex_quantity read;
  const char32_t c = in.peek();
  if (c == U'*' || c == U'+' || c == U'?') {
    read = {c == U'+' ? 1U : 0U, c == U'?' ? 1U : regex_unbounded};
    ++in.pos;
  } else if (c != U'{' || !read_braces(in, read)) {
    return true;  // none (a '{' that is no quantifier is the next atom's error)
  } else if (read.max < read.min) {
    return in.fail("numbers out of order in {} quantifier");
  }
  if (assertion) return in.fail("an assertion (^ $ \\b \\B or a lookaround) cannot be quantified");
  if (in.peek() == U'?') ++in.pos;  // lazy
  regex_quantity again;
  if (in.peek() == U'*' || in.peek() == U'+' || in.peek() == U'?' ||
      (in.peek() == U'{' && read_braces(in, again))) {
    return in.fail("nothing to repeat");
  }
  q = read;
  return true;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_QUANTIFIERS_HPP_INCLUDED
