// llmjson: partial_answer, the answer of a stream as far as the model has written it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_PARTIAL_ANSWER_HPP_INCLUDED
#define LLMJSON_PARTIAL_ANSWER_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>

namespace llmjson {

/// What `stream::partial()` returns: the answer as far as it has been written (rules §8,
/// tests/corpus/README.md), for display. Only `finish()`'s answer is the answer.
///
/// `value` and `open` go together: **everything in `value` that is not on the `open` path is
/// complete** — a member, element or scalar shown is, when the final answer is this candidate
/// (same `position()`), in the final answer with an equal value. On the `open` path, the
/// containers may still grow and the string being written may still grow; nothing else in
/// `value` changes. A member or element still being written that is not a string (a number,
/// `true`, `false`, `null` that a later byte could extend, a key without its `:`, a member
/// without its value) is not in `value` at all.
///
/// **Example**: the text so far `{"steps":[{"t":"ab` gives `value` `{"steps":[{"t":"ab"}]}` and
/// `open` `"/steps/0/t"`; `{"steps":[{"t":"ab"},` gives `{"steps":[{"t":"ab"}]}` and
/// `"/steps"`; `{"a":[1,2` gives `{"a":[1]}` and `"/a"` (the `2` may become `25`).
struct partial_answer {
  /// The value written so far, healed (the open string closed, the open arrays and objects
  /// closed, what is not complete left out).
  nlohmann::json value;
  /// The JSON pointer (RFC 6901) of the innermost value still being written: the string being
  /// written, or the innermost array or object still open (`""`: the root itself); `nullopt`
  /// when the candidate is complete (the whole value is final).
  std::optional<std::string> open;
  /// `open` names a string being written (rather than an open array or object).
  bool open_string = false;
  /// A later byte could still make this text reasoning (rules §8 Provisional): the caller said
  /// nothing of the prompt (`options::start` is `unknown`) and no reasoning marker has been seen,
  /// or the text begins with `analysis` and stripped harmony could still apply. A partial that is
  /// not provisional stops being the partial only when its candidate is ruled out (it proves
  /// malformed, or a later candidate wins under the policy at the end).
  bool provisional = false;
  /// Where the candidate starts: byte offset in the output (0 when it starts in the prefill:
  /// see `prefilled`), 1-based line and column (in code points), as `candidate`'s.
  std::size_t offset = 0;
  std::size_t prefilled = 0;  ///< bytes of it in `options::prefill`, before the output
  std::size_t line = 1;
  std::size_t column = 1;
  /// Where it was found: a frame of the scan (`prose`), a fence body, an answer part or the
  /// whole output.
  llmjson::source source = source::prose;
  /// How many candidates qualify so far (complete ones, and the healed one if it qualifies), this
  /// one included: under policies `unique` and `last`, more than one says the answer is not
  /// decided by this one. After the end: the qualifying candidates of the final reading.
  std::size_t qualifying = 1;
  /// The stream has ended (`finish()` or `stop()`): this is the answer.
  bool final = false;

  /// The position in the output, negative when the candidate starts in the prefill.
  [[nodiscard]] std::ptrdiff_t position() const noexcept {
    return static_cast<std::ptrdiff_t>(offset) - static_cast<std::ptrdiff_t>(prefilled);
  }
  /// The candidate is complete: nothing in `value` is still being written.
  [[nodiscard]] bool complete() const noexcept { return !open.has_value(); }
};

}  // namespace llmjson

#endif  // LLMJSON_PARTIAL_ANSWER_HPP_INCLUDED
