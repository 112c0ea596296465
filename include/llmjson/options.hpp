// llmjson: policy and options, the knobs of extraction
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_OPTIONS_HPP_INCLUDED
#define LLMJSON_OPTIONS_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string_view>

namespace llmjson {

/// How one answer is chosen among the qualifying candidates.
enum class policy {
  first,   ///< the first qualifying candidate in document order (fallback: the first valid one)
  unique,  ///< exactly one qualifies, else `ambiguous` / `no_match`: never a guess
  last,    ///< the last qualifying candidate (self-correcting models)
};

/// Returns the policy's name: `"unique"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(policy p) noexcept {
  switch (p) {
    case policy::first: return "first";
    case policy::unique: return "unique";
    case policy::last: return "last";
  }
  return "unknown";
}

/// The deepest nesting llmjson ever lets through, whatever `options::max_depth` says: nlohmann's
/// copy, `dump` and `==` recurse, and values much deeper than this overflow a thread's stack.
inline constexpr std::size_t max_depth_limit = 2048;

/// Options of `extract`, `candidates` and the retry wrapper. Designated initializers read well:
/// `llmjson::options{.policy = llmjson::policy::unique, .fallback = false}`.
struct options {
  /// How to choose. Unset: the selector's own default — `unique` for typed decoders and JSON
  /// Schemas (strict selectors: exactly one should pass), `first` for key sets and predicates.
  std::optional<llmjson::policy> policy{};
  /// With `first`: when nothing qualifies, return the first valid candidate, flagged as a
  /// fallback. Never used when the output is truncated, and never by typed decoders.
  bool fallback = true;
  /// Nesting deeper than this (an object or array is one level) disqualifies a candidate
  /// ("too deep"). Values above `max_depth_limit` count as `max_depth_limit`.
  std::size_t max_depth = 512;
  /// Longer outputs are the error `too_large` and are not scanned. `candidates()` ignores it.
  std::size_t max_input_bytes = std::size_t{64} << 20;
};

}  // namespace llmjson

#endif  // LLMJSON_OPTIONS_HPP_INCLUDED
