// llmjson: struct candidate and scan_result: the JSON values a model output may mean as its answer
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_CANDIDATE_HPP_INCLUDED
#define LLMJSON_CANDIDATE_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The declaration of nlohmann::json only: a candidate holds its value behind a pointer, so that
// this header, error.hpp and result.hpp compile without nlohmann's whole header (most of the
// umbrella header's compile time). nlohmann/json before 3.11.2 may install no single-header
// json_fwd.hpp: then the whole header.
#if __has_include(<nlohmann/json_fwd.hpp>)
#include <nlohmann/json_fwd.hpp>
#else
#include <nlohmann/json.hpp>
#endif

#include <llmjson/enum_names.hpp>

namespace llmjson {

/// Where a candidate was found.
enum class source {
  prose,  ///< a balanced `{...}` or `[...]` span found by the scan (in prose or in a fence body)
  fence,  ///< the whole body of a fenced code block
  whole,  ///< the whole output (a leading BOM and white space aside)
  part,   ///< the whole of an answer part: the text after a reasoning region, a harmony message
};

/// Returns the source's name: `"prose"`, `"fence"`, `"whole"`, `"part"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(source s) noexcept {
  switch (s) {
    case source::prose: return "prose";
    case source::fence: return "fence";
    case source::whole: return "whole";
    case source::part: return "part";
  }
  return "unknown";
}

/// Every `source`: `from_string<source>("fence") == source::fence`.
template <>
inline constexpr std::array enumerators<source>{source::prose, source::fence, source::whole,
                                                source::part};

/// Where a truncated output was cut: the start of the value, or of the reasoning, that never ended.
struct cut {
  std::size_t offset = 0;  ///< byte offset of the unclosed `{` or `[`, of the unclosed fence's
                           ///< body, or of the reasoning region that never closes (0 when it
                           ///< starts in the prefill: see `prefilled`)
  /// How many bytes before the output the cut starts: non-zero only when it starts in
  /// `options::prefill` (a prefilled `{` that the output never closes). `position()` says both.
  std::size_t prefilled = 0;
  std::size_t line = 1;    ///< 1-based line of `offset`
  std::size_t column = 1;  ///< 1-based column of `offset`, in code points
  std::string message;     ///< one line: `the object opened at 3:1 never closes`
  /// The cut is a reasoning region that never closes: the model was still thinking when it
  /// stopped (with `finish_reason` `length`, the token budget went to reasoning).
  bool reasoning = false;
  /// With `reasoning`: the marker that opened the region, as written (`<think>`,
  /// `<|channel|>analysis`); empty when the prompt opened it (`options::start`).
  std::string marker;
  /// The position in the output, negative in the prefill: `offset - prefilled`.
  [[nodiscard]] std::ptrdiff_t position() const noexcept {
    return static_cast<std::ptrdiff_t>(offset) - static_cast<std::ptrdiff_t>(prefilled);
  }
};

/// One span of the output that is, or claims to be, a JSON answer.
///
/// A candidate's value, `json`, is built where something needs it. From `candidates()`: every
/// valid candidate outside reasoning has it. From `extract`, a stream and the retry wrapper: the
/// answer has it, and so does every candidate that qualifies and every one a selector judged by
/// its value (a predicate, a typed decoder, a schema); `any_object` and `any_key` judge from the
/// text (its type and top-level keys: the same verdict, word for word), so the valid candidates
/// they turn down have none (`json` is null: parse `text`, or call `candidates()`), and so does
/// an object a schema turns down for the first key its root requires when its text shows it
/// lacks it (no backslash, the key written nowhere; the root without `const` or `enum`); with
/// `options::answer_value` off, `extract` builds none that they and the policy do not read. Valid
/// candidates inside a reasoning region (`in_reasoning`) never have one: they never qualify and
/// are never the fallback, which spares a thinking model's drafts most of the cost of reading
/// them; their `valid`, `text`, position, `marker` and `message` are as for any other. Invalid ones
/// (`json` null) are *malformed owners*: spans that start like a JSON object (`{` then `}` or
/// `"key":`), close, and are not valid JSON; they are listed with the reason so a person or a
/// re-prompt can act on them, and they never qualify. `text`, `info` and `marker` are views into
/// the caller's text: they live as long as it does. With `options::prefill`, a candidate with a
/// view into the prefill (its span starts there, or its fence's info string or its region's marker
/// lies there) owns copies of all three
/// (`storage`), from `extract`, `candidates` and the retry wrapper; a stream's candidates point
/// into the stream's text, which keeps the prefill just before `stream::text()`.
struct candidate {
  /// The span, a slice of the caller's text; a candidate that starts in `options::prefill`
  /// spans the prefill's last `prefilled` bytes and then the output (see `storage`).
  std::string_view text;
  std::size_t offset = 0;  ///< byte offset of `text` in the caller's text (0: see `prefilled`)
  /// How many of the span's first bytes lie in `options::prefill`, before the output; 0 for a
  /// candidate that starts in the output. `position()` is `offset - prefilled`.
  std::size_t prefilled = 0;
  std::size_t line = 1;    ///< 1-based line of the first byte
  std::size_t column = 1;  ///< 1-based column of the first byte, in code points
  llmjson::source source = source::prose;
  std::string_view info;  ///< the enclosing fence's info string (`json`), if any
  bool in_fence = false;  ///< the span lies in a fence body
  bool valid = false;     ///< valid JSON (RFC 8259, unique keys, depth limit)
  /// The value (nlohmann's reading of `text`, or of `minify(text)` with `raw_controls`) of a
  /// valid candidate outside reasoning, where it was built (see above: always the answer's and
  /// those that qualify; all from `candidates()`); null otherwise. `valid` says whether nlohmann
  /// can hold it whether or not it was built (`1e400` is malformed, in reasoning too). Immutable
  /// and shared: copies of a candidate, of an error or of a result holding one share it instead of
  /// copying it. Reading it needs `<nlohmann/json.hpp>`; the headers of the calls that make
  /// candidates include it.
  std::shared_ptr<const nlohmann::json> json;
  bool qualifies = false;  ///< set by selection
  /// Why it cannot be the answer; empty when nothing is known against it. From `candidates()`:
  /// for an invalid one, what is wrong (`line 7 col 18: trailing comma`). After selection
  /// (`extract`, `stream`, an error's candidates): why it does not qualify (`malformed: line 7
  /// col 18: trailing comma`, `inside <think>`, the selector's words); empty when it qualifies.
  std::string message;
  /// The span lies in a reasoning region (`<think>`...`</think>`, a harmony analysis message):
  /// listed for diagnostics, it never qualifies and is never the fallback.
  bool in_reasoning = false;
  /// With `in_reasoning`: the marker that opened the region, as written in the text (`<think>`,
  /// `<|channel|>analysis`), or, when the prompt opened it, the marker that closed it (`</think>`).
  std::string_view marker;
  /// Found inside a frame (a prose-like `{...}` such as a Python dict or a blockquoted object,
  /// or a JSON-like one that died or never closed): a piece of something bigger. It may
  /// qualify, but it is never the fallback of policy `first`. Whole outputs, whole parts and
  /// fence bodies never are.
  bool enclosed = false;
  /// Valid with raw controls (rules §3): the text as written holds raw line feeds, carriage
  /// returns or tabs in strings, which JSON forbids, and is valid once they are escaped; `json`
  /// is that value. Its text is not JSON as written: print `json`, or `llmjson::minify`, which
  /// escapes them.
  bool raw_controls = false;
  /// Owns copies of `text`, `info` and `marker`, in that text's order, when one of them lies in
  /// `options::prefill` (null otherwise, and always in a stream's candidates).
  std::shared_ptr<const std::string> storage;

  /// The position in the output, negative when the span starts in the prefill.
  [[nodiscard]] std::ptrdiff_t position() const noexcept {
    return static_cast<std::ptrdiff_t>(offset) - static_cast<std::ptrdiff_t>(prefilled);
  }
};

/// A closed `{...}` span in answer text that is not JSON but looks like an object the model
/// meant (`{'city': 'Paris'}`, `{name: "x"}`): named in `no_json` and `no_match` errors with the
/// first reason it is not JSON, so a re-prompt can say what to fix. Never a candidate: it never
/// qualifies.
struct near_miss {
  std::string_view text;      ///< the span, a slice of the caller's text (as `candidate::text`)
  std::size_t offset = 0;     ///< byte offset of `text` (0: see `prefilled`)
  std::size_t prefilled = 0;  ///< bytes of the span in the prefill, as `candidate::prefilled`
  std::shared_ptr<const std::string> storage;  ///< owns `text` when `prefilled` (else null)
  std::size_t line = 1;                        ///< 1-based line of the first byte
  std::size_t column = 1;                      ///< 1-based column of the first byte, in code points
  std::string message;  ///< the first reason it is not JSON: `single quotes are not JSON strings`
  /// The position in the output, negative when the span starts in the prefill.
  [[nodiscard]] std::ptrdiff_t position() const noexcept {
    return static_cast<std::ptrdiff_t>(offset) - static_cast<std::ptrdiff_t>(prefilled);
  }
};

/// What the scan of one output found: the candidates in document order, and the cut, if any.
struct scan_result {
  std::vector<candidate> candidates;
  std::optional<cut> truncation;
  /// The first near misses in answer text (at most `max_near_misses`), in document order.
  std::vector<near_miss> near_misses;
  std::size_t near_miss_count = 0;  ///< all the near misses found, shown or not
  /// Set when a resource limit (`options::max_candidates`, `max_open_frames`) stopped the scan:
  /// what it was, in words. The lists above are then incomplete; `extract` says `too_large`.
  std::string message;
};

/// How many near misses a scan keeps (and an error message names).
inline constexpr std::size_t max_near_misses = 3;

}  // namespace llmjson

#endif  // LLMJSON_CANDIDATE_HPP_INCLUDED
