// llmjson: verdict, what a selector says of one candidate
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_VERDICT_HPP_INCLUDED
#define LLMJSON_VERDICT_HPP_INCLUDED

#include <string>
#include <utility>

namespace llmjson {

/// Whether a candidate qualifies under a selector and, when it does not, why.
///
/// Selectors (key sets, typed decoders, JSON Schemas, the caller's own callables) return a
/// `verdict`; a callable that returns `bool` is wrapped into one. The reason is one line for a
/// log or a re-prompt: `missing key "orders"`, `/thread_id: const: expected "t-42"`.
struct verdict {
  bool ok = false;
  std::string message;  ///< why the candidate does not qualify; empty when `ok`

  /// Returns a verdict that qualifies the candidate.
  [[nodiscard]] static verdict pass() { return verdict{true, {}}; }
  /// Returns a verdict that rejects the candidate with `message`.
  [[nodiscard]] static verdict fail(std::string message) {
    return verdict{false, std::move(message)};
  }

  explicit operator bool() const noexcept { return ok; }
};

}  // namespace llmjson

#endif  // LLMJSON_VERDICT_HPP_INCLUDED
