// llmjson: candidates() and fences(), what the scan of a model output finds, before selection
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SCAN_HPP_INCLUDED
#define LLMJSON_SCAN_HPP_INCLUDED

#include <string>
#include <string_view>
#include <vector>

// Not used here: for the caller, who reads the values of the candidates returned (`*c.json`).
#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>

namespace llmjson {

/// Returns every candidate of `text`, valid or malformed, in document order, and where the text
/// was cut if it was truncated. The rules are tests/corpus/README.md's, summed up in the README.
///
/// Linear time and memory in `text.size()` on every input; values are built only for
/// candidates outside reasoning regions (`candidate::json` is null in reasoning: parse `text`
/// for the value of a draft). Allocates; throws only `std::bad_alloc`. `options::max_input_bytes`
/// is not checked here (`extract` checks it). The views in the result point into `text` (with
/// `options::prefill`, those into the prefill into copies the candidates own).
///
/// **Example**:
/// ```cpp
/// auto scan = llmjson::candidates(R"(draft: {"a":1} final: {"b":2})");
/// // scan.candidates.size() == 2, *scan.candidates[1].json == {"b":2}
/// ```
[[nodiscard]] scan_result candidates(std::string_view text, const options& opts = {});

/// Candidates of a temporary string would dangle: the build fails with a message that says so.
/// Pass a named string or a `string_view`.
template <TemporaryString S>
scan_result candidates(S&&, const options& = {}) {
  static_assert(detail::dependent_false<S>,
                "llmjson: candidates() of a temporary std::string: the candidates' views would "
                "point into a string destroyed at the end of the statement. Keep the text in a "
                "named variable");
  return {};
}

/// Returns every fenced code block of `text` that extraction reads, in document order: the
/// fences of tests/corpus/README.md §2 Fences, found by the same reading as `candidates()`.
///
/// A fence opens on a line with at most 3 spaces of indent, then 3 or more backticks or tildes,
/// then an info string (for backticks, one without backticks: ```` ```{"a":1}``` ```` is inline
/// code, not a fence). It closes at the next line with at most 3 spaces of indent, the same
/// character at least as many times, and only spaces or tabs after it. Lines end at LF, CR or
/// CRLF. Fences inside a fence's body are part of the body (a ```` ```` ```` block can quote a
/// ```` ```json ```` one).
///
/// Unlike a plain CommonMark reading, the text is first cut into parts (§2 Reasoning regions,
/// §2 Parts; the default `options`): reasoning regions and harmony tokens end a part, and a
/// fence never crosses a part's boundary. A fence still open at its part's end runs to that
/// end (`closed` is false): `<think>` ```` ```json ```` `{}` `</think>` ```` ``` ```` holds two
/// fences, one in the reasoning ending at `</think>`, and one opened by the last line. Fences
/// inside reasoning are listed too. A text that is one JSON value holds no fence.
///
/// Linear time. Allocates the returned vector and the reading's working memory.
[[nodiscard]] std::vector<fence> fences(std::string_view text);

/// Fences of a temporary string would dangle: the build fails with a message that says so.
/// Pass a named string or a `string_view`.
template <TemporaryString S>
std::vector<fence> fences(S&&) {
  static_assert(detail::dependent_false<S>,
                "llmjson: fences() of a temporary std::string: the fences' views would point into "
                "a string destroyed at the end of the statement. Keep the text in a named "
                "variable");
  return {};
}

/// Returns the label of `c`'s `source`, where it was found, as the library's messages name it:
/// `prose`, `in fence "json"` (a span inside a fence body), `fence "json"` (a whole fence body),
/// `whole part` or `whole output`. The info string is made one line (control characters escaped,
/// ill-formed UTF-8 replaced). Messages put the position first: `3:14 prose`. Allocates; throws
/// only `std::bad_alloc`.
[[nodiscard]] std::string source_label(const candidate& c);

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/scan/scan-inl.hpp>
#endif

#endif  // LLMJSON_SCAN_HPP_INCLUDED
