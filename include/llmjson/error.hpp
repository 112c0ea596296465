// llmjson: error_kind, its to_string and from_string, struct error
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_ERROR_HPP_INCLUDED
#define LLMJSON_ERROR_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/enum_names.hpp>

namespace llmjson {

/// Why a model output yielded no answer. A stable contract: the corpus, the `llmjson` tool
/// (`llmjson: KIND: message`) and the README name these kinds; a new kind changes all of them.
enum class error_kind {
  empty,      ///< the output is empty or only white space
  no_json,    ///< no valid JSON candidate at all
  truncated,  ///< the output was cut inside the answer (max_tokens): retry, do not guess
  no_match,   ///< candidates exist, none qualifies under the selector
  ambiguous,  ///< policy `unique`: two or more candidates with different values qualify
  too_large,  ///< longer than `options::max_input_bytes`; not scanned
};

/// Returns the kind's name as it appears in messages: `"no_json"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(error_kind k) noexcept {
  switch (k) {
    case error_kind::empty: return "empty";
    case error_kind::no_json: return "no_json";
    case error_kind::truncated: return "truncated";
    case error_kind::no_match: return "no_match";
    case error_kind::ambiguous: return "ambiguous";
    case error_kind::too_large: return "too_large";
  }
  return "unknown";
}

/// Every `error_kind`: `from_string<error_kind>("no_json") == error_kind::no_json`.
template <>
inline constexpr std::array enumerators<error_kind>{error_kind::empty,     error_kind::no_json,
                                                    error_kind::truncated, error_kind::no_match,
                                                    error_kind::ambiguous, error_kind::too_large};

/// Why an output yielded no answer, with everything needed to act on it.
///
/// `candidates` lists every candidate the scan found, each with its position and, where it does
/// not qualify, the reason (`unknown key "draft"`, `line 7 col 18: trailing comma`). `message` is
/// one line, fit for a log or a re-prompt; its wording may change between releases, `kind` won't.
/// The candidates' `text` views point into the caller's text, as everywhere in llmjson (a
/// candidate with a view into `options::prefill` owns copies: `candidate::storage`).
struct error {
  error_kind kind = error_kind::no_json;
  /// Byte in the input where the problem was seen (the cut, the 2nd match); 0 for a place in
  /// `options::prefill`, before the input (the candidate's or cut's `position()` says where).
  std::size_t offset = 0;
  std::string message;  ///< one line, without the kind: `2 candidates, none qualifies: ...`
  std::vector<candidate> candidates;  ///< all candidates, with verdicts (empty for empty/too_large)
  std::optional<cut> truncation;      ///< where the output was cut, when it was
  /// With `no_json` and `no_match`: closed spans in answer text that look like objects but are
  /// not JSON (at most `max_near_misses`), each with its first reason: with `no_match`, maybe
  /// the answer the model meant (`feedback` names them). They are not candidates.
  std::vector<near_miss> near_misses;
};

}  // namespace llmjson

#endif  // LLMJSON_ERROR_HPP_INCLUDED
