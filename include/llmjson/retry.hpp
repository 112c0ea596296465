// llmjson: retrying(adapter, options): calls the caller's model again when a reply holds no answer
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_RETRY_HPP_INCLUDED
#define LLMJSON_RETRY_HPP_INCLUDED

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/candidate.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/select.hpp>
#include <llmjson/stream.hpp>

namespace llmjson {

/// What one attempt (one adapter call, then extraction) came to.
///
/// `empty_content`, `bad_response` and the extraction errors `no_json`, `truncated`, `no_match`
/// and `ambiguous` are retried within `retry_options::max_attempts` (an empty or reasoning-cut
/// reply at `length` only with `retry_reasoning_at_length`); the others never are.
enum class attempt_outcome {
  ok,             ///< a message with content (`complete`), or an answer (`extract`)
  empty_content,  ///< a message with no content, or only white space (extraction's `empty`)
  bad_response,   ///< the adapter could not read the provider's reply (`llmjson::bad_response`)
  no_json,        ///< extraction: no JSON value in the content
  truncated,      ///< extraction: the content was cut inside the answer
  no_match,       ///< extraction: JSON, but none qualifies under the selector
  ambiguous,      ///< extraction: policy `unique`, and two or more qualify
  too_large,      ///< extraction: over `options::max_input_bytes`; not retried
  api_error,      ///< the provider answered with an error (`llmjson::api_error`); not retried
  exception,      ///< the adapter, or the caller's selector, threw; rethrown, not retried
  cancelled,      ///< stop was requested before this attempt: the adapter was not called
};

/// Returns the outcome's name: `"empty_content"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(attempt_outcome o) noexcept;

/// One attempt, as it happened: what the adapter returned, what became of it, how long it took.
///
/// The wrapper records every attempt, keeps the records on success and on failure
/// (`retry_result::attempts`) and shows each to `retry_options::on_attempt` as it ends. All
/// members own their data. For a streaming adapter, `content` is all that came through the sink
/// (whatever the adapter returned: a message, an `api_error` or a `bad_response`).
struct attempt {
  std::size_t number = 1;                         ///< 1-based, in call order
  attempt_outcome outcome = attempt_outcome::ok;  ///< what became of it
  std::string content;        ///< the raw content the model sent ("" when none came)
  std::string reasoning;      ///< the reasoning sent apart (`message::reasoning`); never scanned
  std::string finish_reason;  ///< as the provider sent it ("" when no message)
  std::string role;           ///< the message's role ("" when no message)
  int status = 0;             ///< the HTTP status of an `api_error`; 0 otherwise
  /// One line (control characters escaped, invalid UTF-8 replaced): why there is no answer ("" when
  /// `ok`). Its wording may change between releases.
  std::string message;
  /// What the adapter or the exception handed over, unchanged (newlines and all): the
  /// `api_error`'s message, the `bad_response`'s `raw` (its `message` when `raw` is empty), the
  /// exception's `what()`. "" for the other outcomes: their raw text is `content`.
  std::string raw;
  /// Where the content was cut: the extraction error's `truncation` (`extract` only). With
  /// `cut::reasoning`, the cut is a reasoning region that never closes.
  std::optional<llmjson::cut> truncation;
  std::chrono::nanoseconds duration{0};  ///< adapter call plus extraction (0 when `cancelled`)
  /// Streaming adapters (`StreamingAdapter`): the bytes that came through the sink, those after
  /// a stop request included. 0 for the other forms.
  std::size_t received = 0;
  /// The answer settled while the content was streaming, and the wrapper requested stop
  /// (`retry_options::stop_early`): the call was ended early, after `received` bytes. The
  /// answer is the one the whole output would have given.
  bool stopped_early = false;

  /// Returns true when the message was empty and cut by the token limit (`finish_reason` is
  /// `length`): with reasoning models, usually the reasoning spent the whole `max_tokens`, and
  /// resending the same request tends to fail the same way. Does not throw.
  [[nodiscard]] bool empty_at_length() const noexcept {
    return outcome == attempt_outcome::empty_content && finish_reason == "length";
  }
  /// Returns true when the token limit (`finish_reason` `length`) stopped the model before it
  /// wrote any answer: the content is empty (`empty_at_length()`), or it was cut inside a
  /// reasoning region (outcome `truncated`, `truncation->reasoning`). The budget went to
  /// reasoning; `retry_options::retry_reasoning_at_length` decides whether to retry. Does not
  /// throw.
  [[nodiscard]] bool reasoning_at_length() const noexcept {
    if (empty_at_length()) return true;
    return outcome == attempt_outcome::truncated && truncation && truncation->reasoning &&
           finish_reason == "length";
  }
  /// Returns true when the adapter was called (every outcome but `cancelled`). Does not throw.
  [[nodiscard]] bool called() const noexcept { return outcome != attempt_outcome::cancelled; }
};

/// Why the wrapper returned no answer.
enum class retry_error_kind {
  api_error,    ///< the provider returned an error: surfaced at once, never retried
  cancelled,    ///< stop was requested before an attempt: no further call was made
  parse_error,  ///< no attempt gave an answer (empty content, a bad response, an extraction error)
};

/// Returns the kind's name: `"parse_error"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(retry_error_kind k) noexcept;

/// Why the wrapper returned no answer, with what the last call left behind.
///
/// `extraction` holds the last call's extraction error with all its candidates, so a `length`
/// cut-off (`truncated`, `finish_reason == "length"`) is told apart from a `stop` without parsing
/// again. Its views (`candidate::text`, `candidate::info`) point into `*text`, which the error
/// shares: they stay valid while any copy of this error (or of the result holding it) lives.
struct retry_error {
  retry_error_kind kind = retry_error_kind::parse_error;
  attempt_outcome cause = attempt_outcome::empty_content;  ///< the last attempt's outcome
  std::string finish_reason;                 ///< the last call's, "" when it returned no message
  std::optional<llmjson::error> extraction;  ///< the last call's extraction error, if it had one
  std::optional<llmjson::api_error> api;     ///< the provider's error (kind `api_error`)
  std::string message;                       ///< one line, without the kind: for a log
  /// The last call's content, shared: `extraction`'s views point here.
  std::shared_ptr<const std::string> text;
};

/// Thrown by `retry_result<T>::value()` when the result holds an error. It carries the error.
class bad_retry_access : public std::exception {
 public:
  explicit bad_retry_access(retry_error e) : error_(std::move(e)) {}
  [[nodiscard]] const char* what() const noexcept override {
    return "llmjson: retry result holds an error";
  }
  [[nodiscard]] const retry_error& error() const noexcept { return error_; }

 private:
  retry_error error_;
};

/// Holds a `T` (the answer) or a `retry_error`, and always the record of every attempt.
///
/// The members are `std::expected<T, retry_error>`'s (`has_value()`, `explicit operator bool`,
/// `value()`, `error()`, `*`, `->`, `value_or()`), plus `attempts`. `value()` on an error throws
/// `bad_retry_access`; `*` and `error()` only assert.
///
/// **Example**:
/// ```cpp
/// auto r = llmjson::retrying(adapter).extract<plan>(prompt);
/// for (const auto& a : r.attempts) log(a.number, to_string(a.outcome), a.finish_reason);
/// ```
template <class T>
class [[nodiscard]] retry_result : public detail::expected_base<T, retry_error, bad_retry_access> {
  using base = detail::expected_base<T, retry_error, bad_retry_access>;

 public:
  /// Every attempt, in order, on success and on failure. The last one is the one that decided.
  std::vector<attempt> attempts;

  retry_result(T v, std::vector<attempt> a) : base(std::move(v)), attempts(std::move(a)) {}
  retry_result(retry_error e, std::vector<attempt> a)
      : base(std::move(e)), attempts(std::move(a)) {}

  /// Returns how many times the adapter was called: the attempts not `cancelled`. Does not throw.
  [[nodiscard]] std::size_t calls() const noexcept {
    return static_cast<std::size_t>(std::count_if(attempts.begin(), attempts.end(),
                                                  [](const attempt& a) { return a.called(); }));
  }
};

/// The answer `retrying::extract(request, selector)` found: the value and where it was, owned.
struct answer {
  nlohmann::json value;                    ///< the chosen candidate's value
  std::string text;                        ///< the chosen candidate's text, copied from the content
  std::size_t offset = 0;                  ///< byte offset of `text` in the last attempt's content
  std::size_t line = 1;                    ///< 1-based line of the first byte
  std::size_t column = 1;                  ///< 1-based column of the first byte, in code points
  llmjson::source source = source::prose;  ///< where it was found
  std::string info;                        ///< the enclosing fence's info string, if any
  bool in_fence = false;                   ///< the span lies in a fence body
  bool fallback = false;                   ///< policy `first` took a candidate that did not qualify
  llmjson::policy policy = policy::first;  ///< the policy that chose
  std::optional<cut> truncation;  ///< the content was cut after the answer (policy `first`)
};

/// Options of the retry wrapper. Designated initializers read well:
/// `llmjson::retry_options{.max_attempts = 3, .retry_reasoning_at_length = false}`.
struct retry_options {
  /// Adapter calls in all, the first one included (2: the send and one retry). 0 counts as 1:
  /// the request is always sent once, and never retried.
  std::size_t max_attempts = 2;
  /// Retry a reply that the token limit cut before any answer (`attempt::reasoning_at_length()`):
  /// empty content with `finish_reason` `length`, or content cut inside a reasoning region at
  /// `length`. With reasoning models the reasoning used the whole `max_tokens`; resending the
  /// same request tends to fail the same way and is billed again. On by default, so that "empty
  /// content is retried" holds without exceptions; set it to false unless a `next_request` hook
  /// raises the token budget. (Formerly `retry_empty_at_length`, which named the first case only.)
  bool retry_reasoning_at_length = true;
  /// Extraction options (`extract` only): policy, fallback, limits.
  llmjson::options extraction{};
  /// Called with each attempt as it ends, successful or not, before any further call. It may
  /// throw: the exception reaches the caller and no further call is made, except while an
  /// adapter's exception is on its way out: then the adapter's exception wins and the callback's
  /// is dropped. Called without locking: see `retrying` on sharing a wrapper between threads.
  std::function<void(const attempt&)> on_attempt{};
#if LLMJSON_HAS_STOP_TOKEN
  /// Stops every call of the wrapper: checked before every attempt, and passed to adapters that
  /// take a stop token. One call alone is stopped through the token the call takes.
  std::stop_token stop{};
  /// With a streaming adapter (`StreamingAdapter`), in `extract` under policy `first`: request
  /// stop as soon as the answer is settled (`llmjson::stream::settled()`), so that the adapter
  /// ends the call and the rest of the output is neither waited for nor paid for. The answer is
  /// the one the whole output would have given. Under `unique` and `last` nothing settles
  /// before the end, and `complete` has no answer to settle: the switch changes nothing there.
  /// Note that with `extraction.start` left `unknown`, an output without reasoning markers
  /// settles only at its end, so this saves nothing on most outputs (on the corpus, 1 case of
  /// 85 settles before its last byte): set `output_start::answer` for models that do not reason
  /// in their content (21 of 85 then do). The README's "How early it settles" has the figures.
  bool stop_early = true;
#endif
};

/// The default `next_request` hook: resend the caller's request unchanged (it is not copied).
struct resend {
  template <class Req>
  const Req& operator()(const Req& previous, const attempt&) const noexcept {
    return previous;
  }
};

namespace detail {
#if LLMJSON_HAS_STOP_TOKEN
/// The stop token passed to one call, if any; `std::stop_token{}` for the calls without one.
using call_stop = std::stop_token;
#else
/// No stop tokens in this standard library: the calls take none.
struct call_stop {};
#endif
}  // namespace detail

/// Calls an `Adapter` until a reply holds an answer, at most `max_attempts` times, and keeps the
/// record of every attempt.
///
/// Retried: empty content, a `bad_response`, and (in `extract`) the extraction errors `empty`,
/// `no_json`, `truncated`, `no_match`, `ambiguous`. Never retried, surfaced at once: an
/// `api_error`, an exception, a stop request, and `too_large`. Nothing is called twice by accident.
///
/// `H` builds the next request from the previous one and the attempt that failed:
/// `h(const Req& previous, const attempt& failed)` returning a `Req` (by value or by reference:
/// it is copied before the previous one is dropped) or a `std::optional<Req>` (`std::nullopt`: do
/// not retry; the failure is the result). The default, `resend`, sends the same request again.
/// The caller's request is never modified or copied by the wrapper itself. A hook that does not
/// fit fails to compile with a message that says so.
///
/// Streaming (`StreamingAdapter`): the wrapper gives the adapter a sink and feeds what comes
/// through it to an `llmjson::stream`; each attempt's extraction is that stream's `finish()`,
/// the same as `llmjson::extract` on the whole content. Under policy `first`, once the answer is
/// settled the wrapper requests stop through the adapter's token (`retry_options::stop_early`),
/// and the attempt says so (`attempt::stopped_early`). Everything else (what is retried, the
/// record, cancellation, exceptions) is as for the other forms.
///
/// Threads: the calls are `const` and the wrapper keeps no state between them, so one wrapper may
/// serve several threads at once, if its adapter, its hook and `on_attempt` may be called
/// concurrently: the wrapper calls them (on the caller's thread) without any locking. Whatever an
/// adapter, a hook or a callback throws leaves the wrapper usable. To stop one call alone, pass
/// it its own `std::stop_token`; `retry_options::stop` stops them all.
///
/// **Example**:
/// ```cpp
/// auto model = llmjson::retrying(adapter, {.max_attempts = 3});
/// llmjson::retry_result<plan> r = model.extract<plan>(prompt);
/// if (!r) log(r.error().message, r.attempts.size());
/// ```
template <class A, class H = resend>
class retrying {
 public:
  /// Wraps `adapter` (kept by value: pass `std::ref(a)` to keep a reference).
  explicit retrying(A adapter, retry_options opts = {}, H next_request = {})
      : adapter_(std::move(adapter)), options_(std::move(opts)), next_(std::move(next_request)) {}

  /// Returns the first message with content, or why there is none.
  ///
  /// A streaming adapter's message has the content that came through the sink.
  /// Retries empty content and a `bad_response`. Errors: `api_error` (one call, no retry),
  /// `cancelled`, `parse_error` after the last attempt (its `cause` is `empty_content` or
  /// `bad_response`, with the last `finish_reason`).
  /// Throws: whatever the adapter throws (recorded, then rethrown unchanged, never retried), and
  /// whatever `on_attempt` or the hook throws.
  template <RequestFor<A> Req>
  [[nodiscard]] retry_result<message> complete(const Req& request) const;

  /// Returns the answer `sel` qualifies in the first reply that holds one, or why there is none.
  ///
  /// Each attempt is `complete` plus `llmjson::extract(content, sel, options.extraction)`. The
  /// `parse_error`'s `extraction` is the last call's extraction error, with its candidates.
  /// With a streaming adapter, the extraction runs as the content arrives, and the call may be
  /// stopped once the answer is settled (`retry_options::stop_early`).
  /// Throws: as `complete`, and whatever `sel` throws (other than nlohmann's exceptions; with a
  /// streaming adapter, once the adapter has returned).
  template <Selector S, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel) const;

  /// As `extract(request, sel)`, under policy `pol` instead of `options.extraction.policy`.
  template <Selector S, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel,
                                             llmjson::policy pol) const;

  /// As `extract(request, sel)` with `any_object`: the answer is a JSON object.
  // The barrier keeps an explicit `extract<T>(request)` away from this overload.
  template <int&... ExplicitArgumentBarrier, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request) const;

  /// Returns the one candidate that decodes strictly to a `T` (`decode<T>`), decoded, from the
  /// first reply that holds one, or why there is none. Policy default: `unique`.
  template <class T, RequestFor<A> Req>
    requires(!Selector<T>)
  [[nodiscard]] retry_result<T> extract(const Req& request) const;

  /// As `extract<T>(request)`, with the caller's check on the decoded `T` (returns `verdict` or
  /// `bool`), as `llmjson::extract<T>(text, check)` has it.
  template <class T, RequestFor<A> Req, CheckFor<T> F>
  [[nodiscard]] retry_result<T> extract(const Req& request, F check) const;

#if LLMJSON_HAS_STOP_TOKEN
  /// The same six calls, each stopped by `stop` as well as by `retry_options::stop`: a stop
  /// requested on either ends this call (before its next attempt, and through the token its
  /// adapter gets), and no other.
  template <RequestFor<A> Req>
  [[nodiscard]] retry_result<message> complete(const Req& request, std::stop_token stop) const;
  template <Selector S, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel,
                                             std::stop_token stop) const;
  template <Selector S, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel, llmjson::policy pol,
                                             std::stop_token stop) const;
  template <int&... ExplicitArgumentBarrier, RequestFor<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, std::stop_token stop) const;
  template <class T, RequestFor<A> Req>
    requires(!Selector<T>)
  [[nodiscard]] retry_result<T> extract(const Req& request, std::stop_token stop) const;
  template <class T, RequestFor<A> Req, CheckFor<T> F>
  [[nodiscard]] retry_result<T> extract(const Req& request, F check, std::stop_token stop) const;
#endif

  /// Returns the wrapped adapter.
  [[nodiscard]] A& adapter() noexcept { return adapter_; }
  [[nodiscard]] const A& adapter() const noexcept { return adapter_; }

 private:
  template <class Out, class Req, class Judge>
  retry_result<Out> run_(const Req& request, const detail::call_stop& stop,
                         const Judge& judge) const;
  template <class Req, class S>
  retry_result<answer> extract_with_(const Req& request, const S& sel, const llmjson::options& opts,
                                     const detail::call_stop& stop) const;
  template <class T, class Req, class Check>
  retry_result<T> extract_as_(const Req& request, const Check& check,
                              const detail::call_stop& stop) const;
  llmjson::options with_policy_(llmjson::policy pol) const;

  // The adapter and the hook are called from the const calls, as std::function calls its target:
  // the wrapper itself changes nothing, and sharing it between threads is the caller's choice.
  mutable A adapter_;
  retry_options options_;
  mutable H next_;
};

}  // namespace llmjson

#include <llmjson/detail/retry_run.hpp>

#endif  // LLMJSON_RETRY_HPP_INCLUDED
