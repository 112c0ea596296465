// llmjson: builds a schema pattern's program from its syntax tree (Thompson construction)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_EMITTER_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_EMITTER_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <llmjson/detail/schema/regex_program.hpp>
#include <llmjson/detail/schema/regex_syntax.hpp>

namespace llmjson::detail {

/// Turns a syntax tree into the program of a `regex`: each lookaround's body becomes a program of
/// its own (reversed for a lookahead), emitted before the main one.
class regex_emitter {
 public:
  explicit regex_emitter(regex_tree& tree) : tree_(tree) {}

  /// Builds `program()` from the tree (taking its classes); false, with the reason in `error`,
  /// when the program would pass `regex_max_program` instructions.
  bool run(std::string& error) {
    out_.classes = std::move(tree_.classes);
    if (emit_bodies(tree_.root)) {
      out_.start = here();
      if (emit(tree_.root, false) && push({op::match, 0, 0})) return true;
    }
    error = "pattern too large (over " + std::to_string(regex_max_program) + " instructions)";
    return false;
  }
  [[nodiscard]] regex_program& program() noexcept { return out_; }

 private:
  using kind = regex_node::kind;
  using op = regex_program::op;

  regex_tree& tree_;
  regex_program out_;

  // Appends `i`; false when the program is full.
  bool push(regex_program::inst i) {
    if (out_.code.size() >= regex_max_program) return false;
    out_.code.push_back(i);
    return true;
  }
  [[nodiscard]] std::uint32_t here() const noexcept {
    return static_cast<std::uint32_t>(out_.code.size());
  }

  // Emits the program of every lookaround's body under node `id`, innermost first (post-order),
  // so a body only reads tables computed before its own: each body is `emit(body, reversed for a
  // lookahead)` then `match`, and its node's `index` becomes its place in `looks`.
  // A lookaround under a repeat is emitted once, as its table is the same for every copy.
  // Recursion follows the syntax tree, as in `emit`. False when the program is full.
  bool emit_bodies(std::size_t id) {
    for (const std::size_t k : tree_.nodes[id].kids) {
      if (!emit_bodies(k)) return false;
    }
    regex_node& n = tree_.nodes[id];
    if (n.k != kind::look) return true;
    n.index = static_cast<std::uint32_t>(out_.looks.size());
    out_.looks.push_back({here(), n.behind, n.negated});
    return emit(n.kids[0], !n.behind) && push({op::match, 0, 0});
  }

  // Emits the program of node `id`: forwards, or `reversed` (for a lookahead's body, run from
  // right to left: a sequence's parts in the opposite order, everything else as it is). A
  // lookaround is one `look` instruction (its body was emitted by `emit_bodies`).
  // Recursion here follows the pattern's syntax tree, whose depth is bounded by
  // regex_max_nesting groups (each group adds at most three levels). False when the program is
  // full.
  bool emit(std::size_t id, bool reversed) {
    const regex_node& n = tree_.nodes[id];
    switch (n.k) {
      case kind::empty: return true;
      case kind::cls: return push({op::cls, n.index, 0});
      case kind::any: return push({op::any, 0, 0});
      case kind::bol: return push({op::bol, 0, 0});
      case kind::eol: return push({op::eol, 0, 0});
      case kind::word: return push({op::word, 0, 0});
      case kind::not_word: return push({op::not_word, 0, 0});
      case kind::look: return push({op::look, n.index, 0});
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
      case kind::alt: return emit_alt(n, reversed);
      case kind::repeat: return emit_repeat(n, reversed);
    }
    return true;
  }

  // split L1, next; L1: a; jmp end; next: split L2, next2; ... the last alternative
  bool emit_alt(const regex_node& n, bool reversed) {
    std::vector<std::uint32_t> jumps;
    for (std::size_t i = 0; i < n.kids.size(); ++i) {
      if (i + 1 < n.kids.size()) {
        const std::uint32_t s = here();
        if (!push({op::split, s + 1, 0})) return false;
        if (!emit(n.kids[i], reversed)) return false;
        jumps.push_back(here());
        if (!push({op::jmp, 0, 0})) return false;
        out_.code[s].y = here();
      } else if (!emit(n.kids[i], reversed)) {
        return false;
      }
    }
    for (const std::uint32_t j : jumps) out_.code[j].x = here();
    return true;
  }

  // `min` copies of the kid, then a loop (no maximum) or `max - min` optional copies.
  bool emit_repeat(const regex_node& n, bool reversed) {
    const std::size_t kid = n.kids[0];
    for (unsigned i = 0; i < n.min; ++i) {
      const std::uint32_t before = here();
      if (!emit(kid, reversed)) return false;
      if (here() == before) break;  // an empty kid (`(?:){1000000}`): its copies are nothing
    }
    if (n.max == regex_unbounded) {
      const std::uint32_t loop = here();
      if (!push({op::split, loop + 1, 0})) return false;
      if (!emit(kid, reversed)) return false;
      if (!push({op::jmp, loop, 0})) return false;
      out_.code[loop].y = here();
      return true;
    }
    std::vector<std::uint32_t> splits;
    for (unsigned i = n.min; i < n.max; ++i) {
      splits.push_back(here());
      if (!push({op::split, here() + 1, 0})) return false;
      if (!emit(kid, reversed)) return false;
    }
    for (const std::uint32_t s : splits) out_.code[s].y = here();
    return true;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_EMITTER_HPP_INCLUDED
