// llmjson: the bodies of detail/schema/regex.hpp: compiling (parser, then emitter) and the Pike VM
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/regex_emitter.hpp>
#include <llmjson/detail/schema/regex_parser.hpp>
#include <llmjson/detail/schema/regex_ranges.hpp>
#include <llmjson/detail/schema/regex_syntax.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

LLMJSON_INLINE std::optional<regex> regex::compile(std::string_view pattern, std::string& error) {
  regex_parser parser(pattern);
  if (!parser.run(error)) return std::nullopt;
  regex_emitter emitter(parser.tree());
  if (!emitter.run(error)) return std::nullopt;
  return regex(std::move(emitter.program()));
}

/// One search: the text's code points, the lookaround tables (one row of code points + 1 bits
/// per lookaround, innermost first), and the state lists its runs share. `mark[pc] == gen` means
/// pc is already in the list being built for the current position; `gen` only grows, so a new
/// run or position needs no clearing.
struct regex::search_state {
  std::vector<char32_t> cps;
  std::vector<bool> tables;
  std::vector<std::uint32_t> cur;
  std::vector<std::uint32_t> next;
  std::vector<std::uint32_t> stack;
  std::vector<std::size_t> mark;
  std::size_t gen = 0;
  std::size_t work = 0;  // instructions visited
};

LLMJSON_INLINE bool regex::close(std::vector<std::uint32_t>& list, std::uint32_t from,
                                 std::size_t at, std::size_t record, search_state& s) const {
  const std::size_t n = s.cps.size();
  s.stack.push_back(from);
  while (!s.stack.empty()) {
    const std::uint32_t pc = s.stack.back();
    s.stack.pop_back();
    if (s.mark[pc] == s.gen) continue;
    s.mark[pc] = s.gen;
    ++s.work;
    const inst& in = program_.code[pc];
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
        const bool before = at > 0 && is_word_char(s.cps[at - 1]);
        const bool after = at < n && is_word_char(s.cps[at]);
        if ((before != after) == (in.code == op::word)) s.stack.push_back(pc + 1);
        break;
      }
      case op::look:
        if (s.tables[in.x * (n + 1) + at]) s.stack.push_back(pc + 1);
        break;
      case op::match:
        if (record >= program_.looks.size()) {
          s.stack.clear();
          return true;
        }
        s.tables[record * (n + 1) + at] = true;
        break;
      case op::cls:
      case op::any: list.push_back(pc); break;
    }
  }
  return false;
}

LLMJSON_INLINE bool regex::run(std::uint32_t start, bool backwards, std::size_t record,
                               search_state& s) const {
  const std::size_t n = s.cps.size();
  ++s.gen;
  s.cur.clear();
  const std::size_t last = backwards ? 0 : n;
  for (std::size_t at = backwards ? n : 0;;) {
    // Unanchored: a new thread starts at every position.
    if (close(s.cur, start, at, record, s)) return true;
    if (at == last) return false;
    ++s.gen;
    s.next.clear();
    const char32_t c = backwards ? s.cps[at - 1] : s.cps[at];
    const std::size_t to = backwards ? at - 1 : at + 1;
    for (const std::uint32_t pc : s.cur) {
      const inst& in = program_.code[pc];
      bool ok = false;
      if (in.code == op::any) {
        ok = c != 0x0A && c != 0x0D && c != 0x2028 && c != 0x2029;
      } else {
        ok = program_.classes[in.x].contains(c);
      }
      if (ok && close(s.next, pc + 1, to, record, s)) return true;
    }
    std::swap(s.cur, s.next);
    at = to;
    // `cur` now holds position `to`'s threads, marked with `gen`; the start thread added next
    // iteration must share that mark so nothing is added twice.
  }
}

LLMJSON_INLINE bool regex::search(std::string_view text, std::size_t& work) const {
  search_state s;
  s.cps.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) s.cps.push_back(utf8_next(text, i));
  const std::size_t n = s.cps.size();
  s.mark.assign(program_.code.size(), std::numeric_limits<std::size_t>::max());
  s.cur.reserve(program_.code.size());
  s.next.reserve(program_.code.size());
  s.stack.reserve(program_.code.size());
  s.tables.assign(program_.looks.size() * (n + 1), false);
  for (std::size_t k = 0; k < program_.looks.size(); ++k) {
    const regex_program::lookaround& l = program_.looks[k];
    (void)run(l.start, !l.behind, k, s);
    if (l.negated) {
      for (std::size_t at = 0; at <= n; ++at) s.tables[k * (n + 1) + at].flip();
    }
  }
  const bool found = run(program_.start, false, program_.looks.size(), s);
  work += s.work;
  return found;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_INL_HPP_INCLUDED
