// llmjson tests: whether two extraction results are the same, field for field
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_SAME_RESULT_HPP_INCLUDED
#define LLMJSON_TESTS_SAME_RESULT_HPP_INCLUDED

#include <llmjson/extract.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace llmjson_test {

/// Empty when `a` and `b` are the same (views compared by offset and bytes, as they point into
/// different buffers); otherwise what differs first.
inline std::string differs(const std::vector<llmjson::candidate>& a,
                           const std::vector<llmjson::candidate>& b) {
  if (a.size() != b.size())
    return "candidate count " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    const llmjson::candidate &x = a[k], &y = b[k];
    const std::string at = "candidate " + std::to_string(k) + ": ";
    if (x.offset != y.offset || x.prefilled != y.prefilled || x.text != y.text) return at + "span";
    if (x.line != y.line || x.column != y.column) return at + "position";
    if (x.source != y.source || x.info != y.info || x.in_fence != y.in_fence) return at + "source";
    if (x.valid != y.valid || x.raw_controls != y.raw_controls) return at + "validity";
    if (x.enclosed != y.enclosed) return at + "enclosure";
    // A value where one has none (a valid candidate in reasoning has none), or another value.
    if ((x.json == nullptr) != (y.json == nullptr) || (x.json && *x.json != *y.json))
      return at + "value";
    if (x.qualifies != y.qualifies) return at + "verdict";
    if (x.message != y.message) return at + "message";
    if (x.in_reasoning != y.in_reasoning || x.marker != y.marker) return at + "reasoning";
  }
  return {};
}

inline std::string differs(const std::optional<llmjson::cut>& a,
                           const std::optional<llmjson::cut>& b) {
  if (a.has_value() != b.has_value()) return "cut or not";
  if (!a) return {};
  if (a->offset != b->offset || a->prefilled != b->prefilled || a->line != b->line ||
      a->column != b->column || a->message != b->message || a->reasoning != b->reasoning ||
      a->marker != b->marker)
    return "cut";
  return {};
}

inline std::string differs(const llmjson::result<llmjson::extraction>& a,
                           const llmjson::result<llmjson::extraction>& b) {
  if (a.has_value() != b.has_value()) return "answer or error";
  if (a) {
    if (a->index != b->index || a->fallback != b->fallback || a->policy != b->policy)
      return "the choice";
    if (a->later_qualifying != b->later_qualifying) return "the later qualifying candidates";
    if (auto d = differs(a->truncation, b->truncation); !d.empty()) return d;
    return differs(a->candidates, b->candidates);
  }
  const llmjson::error &x = a.error(), &y = b.error();
  if (x.kind != y.kind) return "error kind";
  if (x.offset != y.offset || x.message != y.message) return "error message";
  if (auto d = differs(x.truncation, y.truncation); !d.empty()) return d;
  if (x.near_misses.size() != y.near_misses.size()) return "near misses";
  for (std::size_t k = 0; k < x.near_misses.size(); ++k) {
    const auto &m = x.near_misses[k], &n = y.near_misses[k];
    if (m.offset != n.offset || m.prefilled != n.prefilled || m.text != n.text ||
        m.line != n.line || m.column != n.column || m.message != n.message)
      return "near miss " + std::to_string(k);
  }
  return differs(x.candidates, y.candidates);
}

/// `r` with no candidate's value: to compare what two results say but for their values.
inline llmjson::result<llmjson::extraction> without_values(llmjson::result<llmjson::extraction> r) {
  for (llmjson::candidate& c : r ? r->candidates : r.error().candidates) c.json.reset();
  return r;
}

}  // namespace llmjson_test

#endif  // LLMJSON_TESTS_SAME_RESULT_HPP_INCLUDED
