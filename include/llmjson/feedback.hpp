// llmjson: feedback, what to tell the model about a failed reply, and reask, the hook that tells it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_FEEDBACK_HPP_INCLUDED
#define LLMJSON_FEEDBACK_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson {

/// What to tell the model about a reply that held no answer: one short instruction addressed to
/// it, built from what the extraction found (`line 2 col 26: trailing comma (remove it)`).
///
/// `text` is at most `max_feedback_bytes` bytes of valid UTF-8 on one line, whatever the reply
/// was: it quotes no more of the reply than a short key or reason (each clipped with `...`) and
/// names at most three places (`and 4 more`). "" means there is nothing to tell the model (an
/// `api_error`, an empty reply that the token limit did not cut): send the request again as it
/// was. Its wording may change between releases.
struct instruction {
  std::string text;  ///< the instruction, for a user message; "" when there is none
  /// The token limit cut the reply (or may have: a `truncated` error whose `finish_reason` is
  /// unknown): raising the request's `max_tokens` is a better fix than asking for brevity, which
  /// `text` does.
  bool raise_budget = false;

  /// Returns true when there is something to tell the model (`text` is not empty). Does not throw.
  explicit operator bool() const noexcept { return !text.empty(); }
};

/// The most bytes of an `instruction::text`.
inline constexpr std::size_t max_feedback_bytes = 600;

/// The most bytes of a reply's answer text that `reask` shows the model again
/// (`attempt::excerpt`): a reply whose answer text is longer is cut to the places the
/// instruction names, a few lines around each, each cut said (`[... 68,123 bytes cut; resuming
/// at line 812 col 1 ...]`).
inline constexpr std::size_t max_excerpt_bytes = 4096;

/// Returns the instruction for an extraction error: what to fix, where, and to reply with the
/// JSON answer.
///
/// - `empty`: `Your reply was empty. Reply with the JSON answer.`
/// - `no_json`: each malformed candidate and near miss with its place and reason, and how to fix
///   it where that is known (single quotes, a raw line break, a trailing comma, a comment); JSON
///   found only inside the reasoning; or no JSON at all.
/// - `no_match`: the selector's reasons against the closest candidates (valid ones outside any
///   frame first), `missing key "title"`, `/steps/0: type: expected integer, got string`,
///   `unknown key "draft"`; the near misses, maybe the answer the model meant (`{'a': 1}` beside
///   `{"b": 2}`: `single quotes are not JSON strings (use double quotes)`), right after the first
///   valid value; then to reply with one corrected JSON value.
/// - `ambiguous`: where the qualifying candidates are, and to give exactly one answer.
/// - `truncated`: where the reply was cut (`the object opened at 3:1 never closes`), and to reply
///   more briefly; `raise_budget` is true (an error alone does not say whether the token limit
///   cut it; it is the usual cause). A cut inside the reasoning: to reason more briefly.
/// - `too_large`: to reply with the JSON answer only, briefly (the wrapper never retries it).
///
/// Throws only `std::bad_alloc`.
[[nodiscard]] instruction feedback(const llmjson::error& e);

/// Returns the instruction for an attempt of the retry wrapper: `attempt::feedback`, which the
/// wrapper made of the attempt's extraction error as `feedback(error)` does, knowing the
/// `finish_reason` too, and whether the token limit cut the reply.
///
/// Where the `finish_reason` changes it: a `truncated` reply at `length` was `cut at the token
/// limit` (`raise_budget`); with another known `finish_reason` it ended early, and `raise_budget`
/// is false. An empty reply has no instruction (send the same request again: there is nothing
/// to correct) unless it ended at `length`: then the reasoning likely spent the budget, and the
/// model is told to reason more briefly (`raise_budget`). `api_error`, `bad_response`,
/// `exception`, `cancelled` and `ok` have none. Throws only `std::bad_alloc`.
[[nodiscard]] instruction feedback(const llmjson::attempt& a);

namespace detail {

/// `reask`'s default way to add a message to a request: `std::vector<llmjson::message>`.
struct append_message {
  void operator()(std::vector<message>& request, const message& m) const { request.push_back(m); }
};

/// The `attempt::feedback` of an attempt: `e`, its extraction error (null when it had none),
/// worded with `a.outcome` and `a.finish_reason`.
std::string attempt_feedback(const attempt& a, const llmjson::error* e);

/// The `attempt::excerpt` of a reply `text` whose extraction (with `o`) failed with `e` (null
/// when unknown): its answer text without the reasoning regions, and when that is longer than
/// `max_excerpt_bytes`, only the pieces around the places `e` names, within that budget (the
/// end and the start of the text when there is room), each cut said with where the next piece
/// is in `text`. "" for a blank `text`.
std::string reply_excerpt(std::string_view text, const llmjson::error* e, const options& o);

}  // namespace detail

/// A `next_request` hook for chat requests: it tells the model what was wrong with its reply.
///
/// After a failed attempt with an instruction (`feedback(failed)`), the next request is the
/// previous one with two messages more: the model's reply as an assistant message, then the
/// instruction as a user message. The reply is `failed.excerpt`: never its reasoning (neither
/// `failed.reasoning` nor the `<think>` blocks and other regions of its content, found as
/// extraction finds them), and a reply whose answer text is over `max_excerpt_bytes` (4 KiB)
/// only around the places the instruction names, each cut said (`[... 68,123 bytes cut;
/// resuming at line 812 col 1 ...]`). So each failed attempt adds at most about 6 KB to the
/// request, whatever the reply (a 70 KB reply: 2.6 KB after three attempts, not 210 KB), while
/// `retry_result::attempts` keeps every reply whole. (An attempt made by hand, without its
/// `excerpt`, is cut here as extraction with the default options reads it.) Without an
/// instruction (a `bad_response`), or after an empty reply (content empty or only white space:
/// there is no reply to correct), it is the previous request, unchanged. An empty reply at
/// `length` has an instruction (`raise_budget`: the reasoning spent the budget), which `reask`
/// leaves out: raising `max_tokens` is the fix, and only a hook that knows the request type
/// can do it (`feedback(failed).raise_budget`). The wrapper never calls a hook after an
/// `api_error`, an exception or a stop request: those are not retried.
///
/// `reask{}` works with requests of type `std::vector<llmjson::message>`. For another request
/// type, give it how to add a message: a callable `append(Req& request, const
/// llmjson::message& m)`; `Req` must be copyable.
///
/// **Example**:
/// ```cpp
/// auto model = llmjson::retrying(adapter, {.max_attempts = 3}, llmjson::reask{});
/// auto r = model.extract<plan>(std::vector<llmjson::message>{{.content = prompt, .role =
/// "user"}});
/// // A request type of one's own:
/// llmjson::reask hook([](chat_request& r, const llmjson::message& m) {
///   r.messages.push_back({m.role, m.content});
/// });
/// ```
template <class Append = detail::append_message>
struct reask {
  Append append{};  ///< how to add a message to a request

  /// The hook for `std::vector<llmjson::message>` requests (or for an `Append` made by default).
  reask() = default;
  /// The hook for requests that `append(Req& request, const llmjson::message& m)` adds to.
  explicit reask(Append how) : append(std::move(how)) {}

  /// Returns `previous` with the failed reply and the instruction added, or `previous` unchanged
  /// when there is no instruction. Throws what copying the request or `append` throws.
  template <class Req>
  Req operator()(const Req& previous, const attempt& failed) const {
    if constexpr (std::same_as<Append, detail::append_message> &&
                  !std::same_as<Req, std::vector<message>>) {
      static_assert(detail::dependent_false<Req>,
                    "llmjson::reask{} adds messages to a std::vector<llmjson::message> request; "
                    "for another request type, give it how to add one: llmjson::reask([](Req& "
                    "request, const llmjson::message& m) { ... })");
      return previous;
    } else if constexpr (!std::invocable<const Append&, Req&, const message&>) {
      static_assert(detail::dependent_false<Req>,
                    "llmjson::reask(append): append must be callable as append(Req& request, "
                    "const llmjson::message& m), Req being the request type of the call");
      return previous;
    } else {
      static_assert(std::copy_constructible<Req>,
                    "llmjson::reask makes the next request from a copy of the previous one: the "
                    "request type must be copyable");
      const instruction said = feedback(failed);
      Req next = previous;
      if (!said || detail::is_blank(failed.content)) return next;
      // An attempt of the wrapper has its excerpt; one made otherwise is cut here, as
      // extraction with the default options reads it.
      append(next, message{.content = failed.excerpt.empty()
                                          ? detail::reply_excerpt(failed.content, nullptr, {})
                                          : failed.excerpt,
                           .role = "assistant"});
      append(next, message{.content = said.text, .role = "user"});
      return next;
    }
  }
};

reask()->reask<detail::append_message>;
template <class Append>
reask(Append) -> reask<Append>;

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/feedback-inl.hpp>
#endif

#endif  // LLMJSON_FEEDBACK_HPP_INCLUDED
