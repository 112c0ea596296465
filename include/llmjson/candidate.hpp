// llmjson: struct candidate, candidates(): every JSON value a model output may mean as its answer
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_CANDIDATE_HPP_INCLUDED
#define LLMJSON_CANDIDATE_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>

namespace llmjson {

/// Where a candidate was found.
enum class source {
  prose,  ///< a balanced `{...}` span found by the brace scan (in prose or inside a fence body)
  fence,  ///< the whole body of a fenced code block
  whole,  ///< the whole output (a leading BOM and white space aside)
};

/// Returns the source's name: `"prose"`, `"fence"`, `"whole"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(source s) noexcept {
  switch (s) {
    case source::prose: return "prose";
    case source::fence: return "fence";
    case source::whole: return "whole";
  }
  return "unknown";
}

/// Where a truncated output was cut: the start of the value that never ended.
struct cut {
  std::size_t offset = 0;  ///< byte offset of the unclosed `{`, or of the unclosed fence's body
  std::size_t line = 1;    ///< 1-based line of `offset`
  std::size_t column = 1;  ///< 1-based column of `offset`, in code points
  std::string what;        ///< one line: `an object opened at 3:1 never closes`
};

/// One span of the output that is, or claims to be, a JSON answer.
///
/// Valid candidates carry their `value`. Invalid ones are *malformed owners*: spans that start
/// like a JSON object (`{` then `}` or `"key":`), close, and are not valid JSON; they are listed
/// with the reason so a person or a re-prompt can act on them, and they never qualify.
/// `text` and `info` are views into the caller's text: they live as long as it does.
struct candidate {
  std::string_view text;   ///< the span, a slice of the caller's text
  std::size_t offset = 0;  ///< byte offset of `text` in the caller's text
  std::size_t line = 1;    ///< 1-based line of the first byte
  std::size_t column = 1;  ///< 1-based column of the first byte, in code points
  llmjson::source source = source::prose;
  std::string_view info;   ///< the enclosing fence's info string (`json`), if any
  bool in_fence = false;   ///< the span lies in a fence body
  bool valid = false;      ///< valid JSON (RFC 8259, unique keys, depth limit)
  std::string problem;     ///< why not valid: `line 7 col 18: trailing comma`
  nlohmann::json value;    ///< the value when valid; discarded otherwise
  bool qualifies = false;  ///< set by selection
  std::string reason;      ///< why it does not qualify (the selector's words)
};

/// What the scan of one output found: the candidates in document order, and the cut, if any.
struct scan_result {
  std::vector<candidate> candidates;
  std::optional<cut> truncation;
};

/// Returns every candidate of `text`, valid or malformed, in document order, and where the text
/// was cut if it was truncated. The rules are tests/corpus/README.md's, summed up in the README.
///
/// Linear time and memory in `text.size()` on every input; values are built only for
/// candidates. Allocates; throws only `std::bad_alloc`. `options::max_input_bytes` is not
/// checked here (`extract` checks it). The views in the result point into `text`.
///
/// **Example**:
/// ```cpp
/// auto scan = llmjson::candidates(R"(draft: {"a":1} final: {"b":2})");
/// // scan.candidates.size() == 2, scan.candidates[1].value == {"b":2}
/// ```
[[nodiscard]] scan_result candidates(std::string_view text, const options& opts = {});

/// Candidates of a temporary string would dangle: pass a named string or a `string_view`.
template <std::same_as<std::string> S>
scan_result candidates(S&&, const options& = {}) = delete;

}  // namespace llmjson

#include <llmjson/detail/scan.hpp>

#endif  // LLMJSON_CANDIDATE_HPP_INCLUDED
