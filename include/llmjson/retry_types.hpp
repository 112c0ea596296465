// llmjson: the values of the retry wrapper: its options, and the record and result it returns
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_RETRY_TYPES_HPP_INCLUDED
#define LLMJSON_RETRY_TYPES_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/candidate.hpp>
#include <llmjson/enum_names.hpp>
#include <llmjson/error.hpp>
#include <llmjson/options.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/result.hpp>

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
  ambiguous,      ///< extraction: policy `unique`, and two or more different values qualify
  too_large,      ///< extraction: over `options::max_input_bytes`; not retried
  api_error,      ///< the provider answered with an error (`llmjson::api_error`); not retried
  exception,      ///< the adapter or the selector threw: never retried (`attempt_exception`)
  cancelled,      ///< stop was requested before this attempt: the adapter was not called
};

/// Returns the outcome's name: `"empty_content"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(attempt_outcome o) noexcept {
  switch (o) {
    case attempt_outcome::ok: return "ok";
    case attempt_outcome::empty_content: return "empty_content";
    case attempt_outcome::bad_response: return "bad_response";
    case attempt_outcome::no_json: return "no_json";
    case attempt_outcome::truncated: return "truncated";
    case attempt_outcome::no_match: return "no_match";
    case attempt_outcome::ambiguous: return "ambiguous";
    case attempt_outcome::too_large: return "too_large";
    case attempt_outcome::api_error: return "api_error";
    case attempt_outcome::exception: return "exception";
    case attempt_outcome::cancelled: return "cancelled";
  }
  return "unknown";
}

/// Every `attempt_outcome`: `from_string<attempt_outcome>("no_json") == attempt_outcome::no_json`.
template <>
inline constexpr std::array enumerators<attempt_outcome>{
    attempt_outcome::ok,        attempt_outcome::empty_content, attempt_outcome::bad_response,
    attempt_outcome::no_json,   attempt_outcome::truncated,     attempt_outcome::no_match,
    attempt_outcome::ambiguous, attempt_outcome::too_large,     attempt_outcome::api_error,
    attempt_outcome::exception, attempt_outcome::cancelled};

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
  /// One line (control characters escaped, invalid UTF-8 replaced): why there is no answer. When
  /// `ok`, "", or what was cut after the answer (`truncation`): `answer at 1:1 taken; the output
  /// was cut after it: the object opened at 3:1 never closes`. Its wording may change between
  /// releases.
  std::string message;
  /// What the adapter or the exception handed over, unchanged (newlines and all): the
  /// `api_error`'s message, the `bad_response`'s `raw` (its `message` when `raw` is empty), the
  /// exception's `what()`. "" for the other outcomes: their raw text is `content`.
  std::string raw;
  /// What to tell the model about this failure, for the next request (`llmjson::feedback(a)`
  /// returns it; the hook `llmjson::reask` sends it): one short instruction, made of the
  /// extraction error with all its candidates and of the `finish_reason`. "" when there is
  /// nothing to tell: `ok`, an empty reply not cut at `length`, `bad_response`, `api_error`,
  /// `exception`, `cancelled`.
  std::string feedback;
  /// What of `content` to show the model with `feedback` (the hook `llmjson::reask` sends it as
  /// the assistant message): the answer text, never the reasoning regions (`<think>`...,
  /// found as extraction finds them), and when that is longer than `max_excerpt_bytes`
  /// (`<llmjson/feedback.hpp>`), only the pieces around the places `feedback` names; each cut is
  /// said (`[... 68,123 bytes cut; resuming at line 812 col 1 ...]`). At most about 5.5 KB
  /// whatever the reply, so the requests of a retry loop do not grow with the replies. "" when
  /// `feedback` is. `content` keeps the whole reply.
  std::string excerpt;
  /// Where the content was cut (`extract` only): the extraction error's `truncation`, or, when
  /// `ok`, the cut after the answer that policy `first` took (`answer::truncation`). With
  /// `cut::reasoning`, the cut is a reasoning region that never closes. Never set by a call that
  /// `stopped_early` and came back without a `finish_reason`: the wrapper ended that text, the
  /// model did not cut it.
  std::optional<llmjson::cut> truncation;
  std::chrono::nanoseconds duration{0};  ///< adapter call plus extraction (0 when `cancelled`)
  /// Streaming adapters (`StreamingAdapter`): the bytes that came through the sink, those after
  /// a stop request included. 0 for the other forms.
  std::size_t received = 0;
  /// The answer settled while the content was streaming, and the wrapper requested stop
  /// (`retry_options::stop_early`): the call was ended early, after `received` bytes. The
  /// answer is the one the whole output would have given.
  bool stopped_early = false;
  /// The tokens this call was billed for, as the adapter reported them (`message::usage`, or a
  /// `bad_response`'s). std::nullopt when the provider reported none, and when no completion came
  /// back: `cancelled`, an adapter that threw, a streaming call stopped before the provider sent
  /// its usage. `total_usage` sums them.
  std::optional<llmjson::usage> usage;

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

/// The tokens a run of attempts was billed for: the sum of what each call reported, and how many
/// calls reported nothing.
///
/// When `unreported` is 0 the sum is the cost; otherwise it is a lower bound ("at least"): those
/// calls may have been billed too. `cancelled` attempts made no call and count in neither.
struct usage_total {
  llmjson::usage tokens{};     ///< the sum of every reported `attempt::usage` (saturating)
  std::size_t reported = 0;    ///< the calls that reported usage: the ones summed in `tokens`
  std::size_t unreported = 0;  ///< the calls that reported none (`attempt::usage` empty)

  /// Returns true when every call reported its usage: `tokens` is the whole cost. Does not throw.
  [[nodiscard]] bool exact() const noexcept { return unreported == 0; }
  friend bool operator==(const usage_total&, const usage_total&) = default;
};

/// Returns the tokens `attempts` were billed for: the failed attempts' included, that is, the
/// true cost of the answer (or of getting none). Works on `retry_result::attempts` and on
/// `attempts_record::attempts()` (an `attempt_exception`'s). Does not throw.
///
/// **Example**: `auto t = llmjson::total_usage(r.attempts); log(t.tokens.total_tokens(),
/// t.exact() ? "" : "at least");`
[[nodiscard]] usage_total total_usage(const std::vector<attempt>& attempts) noexcept;

/// Why the wrapper returned no answer.
enum class retry_error_kind {
  api_error,    ///< the provider returned an error: surfaced at once, never retried
  cancelled,    ///< stop was requested before an attempt: no further call was made
  parse_error,  ///< no attempt gave an answer (empty content, a bad response, an extraction error)
};

/// Returns the kind's name: `"parse_error"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(retry_error_kind k) noexcept {
  switch (k) {
    case retry_error_kind::api_error: return "api_error";
    case retry_error_kind::cancelled: return "cancelled";
    case retry_error_kind::parse_error: return "parse_error";
  }
  return "unknown";
}

/// Every `retry_error_kind`: `from_string<retry_error_kind>("cancelled")`.
template <>
inline constexpr std::array enumerators<retry_error_kind>{
    retry_error_kind::api_error, retry_error_kind::cancelled, retry_error_kind::parse_error};

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

/// Thrown by `retry_result<T>::value()` when the result holds an error. It carries the error,
/// and `what()` says it: `llmjson: retry result holds an error (api_error): ...`.
class bad_retry_access : public std::exception {
 public:
  explicit bad_retry_access(retry_error e)
      : what_("llmjson: retry result holds an error (" + std::string(to_string(e.kind)) +
              "): " + e.message),
        error_(std::move(e)) {}
  [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }
  [[nodiscard]] const retry_error& error() const noexcept { return error_; }

 private:
  std::string what_;
  retry_error error_;
};

namespace detail {
struct attempts_access;
}  // namespace detail

/// The record of every attempt of a `retrying` call, carried by the exception the call throws
/// when the adapter or the caller's selector throws: catch it (`catch (const
/// llmjson::attempts_record& r)`) to read `r.attempts()`, the raw replies of the attempts before
/// the one that threw included.
///
/// The wrapper throws an `attempt_exception`, which is one, unless the exception the adapter
/// threw is one already: derive your adapter's exception type from it (`class network_error :
/// public std::runtime_error, public llmjson::attempts_record`) and the wrapper fills in its
/// record and rethrows that same exception, so `catch (const network_error& e)` still catches it
/// and `e.attempts()` holds the record. (An exception whose record is filled in already, from an
/// inner `retrying` call, is nested in an `attempt_exception` instead: no record is overwritten.)
class attempts_record {
 public:
  /// Every attempt of the call, in order; the last one is the one that threw (outcome
  /// `exception`). Empty until the wrapper fills it in. Does not throw.
  [[nodiscard]] const std::vector<attempt>& attempts() const noexcept { return attempts_; }

  attempts_record(const attempts_record&) = default;
  attempts_record(attempts_record&&) noexcept = default;
  attempts_record& operator=(const attempts_record&) = default;
  attempts_record& operator=(attempts_record&&) noexcept = default;
  virtual ~attempts_record() = default;

 protected:
  attempts_record() = default;
  explicit attempts_record(std::vector<attempt> attempts) noexcept
      : attempts_(std::move(attempts)) {}

 private:
  friend struct detail::attempts_access;
  std::vector<attempt> attempts_;
};

/// Thrown by a `retrying` call when the adapter or the caller's selector throws (an exception
/// that is not an `attempts_record` already): it holds every attempt so far (`attempts()`; the
/// last one's outcome is `exception`) and nests the exception as thrown, which
/// `rethrow_nested()` or `std::rethrow_if_nested(e)` throws again:
///
/// ```cpp
/// try {
///   r = model.extract<plan>(prompt);
/// } catch (const llmjson::attempt_exception& e) {
///   for (const llmjson::attempt& a : e.attempts()) log(a.number, a.content);
///   e.rethrow_nested();  // the adapter's own exception, to the caller's handlers
/// }
/// ```
///
/// `what()` is one line: `attempt 2 threw, not retried [1: no_json, finish_reason "stop"; 2:
/// exception]: the adapter or selector threw: connection reset by peer`.
class attempt_exception : public std::exception,
                          public std::nested_exception,
                          public attempts_record {
 public:
  /// Nests the exception being handled (`std::current_exception()`, as `std::nested_exception`
  /// does), with `attempts` and `what`, one line.
  attempt_exception(std::vector<attempt> attempts, std::string what)
      : attempts_record(std::move(attempts)), what_(std::move(what)) {}
  [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

namespace detail {
/// How the wrapper fills in the record of an exception on its way out.
struct attempts_access {
  static void fill(attempts_record& r, std::vector<attempt>&& attempts) noexcept {
    r.attempts_ = std::move(attempts);
  }
};
}  // namespace detail

/// Holds a `T` (the answer) or a `retry_error`, and always the record of every attempt.
///
/// The members are `std::expected<T, retry_error>`'s (`has_value()`, `explicit operator bool`,
/// `value()`, `error()`, `*`, `->`, `value_or()`), plus `attempts`. `value()` on an error throws
/// `bad_retry_access`, whose `what()` names the error's kind and message; `*` and `->` on an
/// error write the same to stderr and abort; `error()` on a value only asserts.
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
  /// Returns the tokens every attempt was billed for, failed ones included
  /// (`llmjson::total_usage(attempts)`). Does not throw.
  [[nodiscard]] usage_total total_usage() const noexcept { return llmjson::total_usage(attempts); }
};

/// The answer `retrying::extract(request, selector)` found: the value and where it was, owned.
struct answer {
  nlohmann::json json;                     ///< the chosen candidate's value (nlohmann's reading)
  std::string text;                        ///< the chosen candidate's text, copied from the content
  std::size_t offset = 0;                  ///< byte offset of `text` in the last attempt's content
  std::size_t line = 1;                    ///< 1-based line of the first byte
  std::size_t column = 1;                  ///< 1-based column of the first byte, in code points
  llmjson::source source = source::prose;  ///< where it was found
  std::string info;                        ///< the enclosing fence's info string, if any
  bool in_fence = false;                   ///< the span lies in a fence body
  bool fallback = false;                   ///< policy `first` took a candidate that did not qualify
  llmjson::policy policy = policy::first;  ///< the policy that chose
  /// The content was cut after the answer (policy `first`); never when the attempt
  /// `stopped_early` without a `finish_reason` (the wrapper ended the text there: not a cut).
  std::optional<cut> truncation;
  /// Valid with raw controls (`candidate::raw_controls`): `text` holds raw line breaks or tabs
  /// in strings, which JSON forbids; `json` has them escaped.
  bool raw_controls = false;
  /// The bytes of `text` in `options::prefill`, before the content (`offset` is then 0).
  std::size_t prefilled = 0;
};

/// What happened to the partial answer a streaming attempt shows (`partial_event::change`).
enum class partial_change {
  /// A partial answer to show, new or changed (`partial_event::partial`): it replaces whatever
  /// the attempt showed before. The last one of the attempt that gives the answer is that answer
  /// (`partial_answer::final`).
  shown,
  /// Within the attempt, the partial answer went away: the text shown turned out to be
  /// reasoning (a `</think>` came after it), or its candidate was ruled out and none qualifies
  /// now. Show nothing until the next `shown`.
  cleared,
  /// The attempt ended without being the answer (it failed and is retried, or was the last; the
  /// adapter or the sink's work threw): clear all it showed. The attempt's last event.
  retracted,
};

/// Returns the change's name: `"retracted"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(partial_change c) noexcept {
  switch (c) {
    case partial_change::shown: return "shown";
    case partial_change::cleared: return "cleared";
    case partial_change::retracted: return "retracted";
  }
  return "unknown";
}

/// Every `partial_change`: `from_string<partial_change>("shown") == partial_change::shown`.
template <>
inline constexpr std::array enumerators<partial_change>{
    partial_change::shown, partial_change::cleared, partial_change::retracted};

/// What `retry_options::on_partial` is told: the partial answer of a streaming attempt changed,
/// went away, or was retracted with its attempt.
///
/// For each attempt, the events are `shown` and `cleared` as the content streams, then, if the
/// attempt showed anything, one last event: a `shown` whose partial is `final` (the attempt gave
/// the answer, and the call returns it) or `retracted` (it did not). An attempt whose answer came
/// with nothing shown before (no partial while it streamed) ends with that final `shown` alone;
/// a failed one that showed nothing says nothing (one that showed, then cleared, is still
/// retracted). When the callback throws on the final `shown`, the call returns no answer, and
/// `retracted` follows. So a UI shows the latest `shown`, empties on `cleared` and `retracted`,
/// and what it shows when the call returns an answer is that answer.
struct partial_event {
  /// The attempt (1-based, `attempt::number`) whose partial answer this is.
  std::size_t attempt = 1;
  /// What happened.
  partial_change change = partial_change::shown;
  /// `shown`: the partial answer (rules §8; `partial_answer`'s promise holds against the
  /// attempt's answer), valid during the call only: copy what you keep. Build a typed one with
  /// `llmjson::partial<T>(*e.partial)`. `nullptr` for `cleared` and `retracted`.
  const partial_answer* partial = nullptr;
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
  /// same request often fails the same way and is billed again, but reasoning lengths vary from
  /// call to call and some providers return such replies at random. On by default, so that the
  /// wrapper's promise holds without exceptions: empty content is retried, whatever the
  /// `finish_reason`. The attempt's `message` says to raise `max_tokens`; a `next_request` hook
  /// that does raise it makes the retry worth its cost. Set it to false to take such a reply as
  /// the result at once.
  bool retry_reasoning_at_length = true;
  /// Extraction options (`extract` only): policy, fallback, limits.
  llmjson::options extraction{};
  /// Called with each attempt as it ends, successful or not, before any further call. It may
  /// throw: the exception reaches the caller as thrown (the callback saw every attempt) and no
  /// further call is made, except while an adapter's exception is on its way out: then the
  /// adapter's (in its `attempt_exception`) wins and the callback's is dropped. Called without
  /// locking: see `retrying` on sharing a wrapper between threads.
  std::function<void(const attempt&)> on_attempt{};
#if LLMJSON_HAS_STOP_TOKEN
  /// Stops every call of the wrapper: checked before every attempt, and passed to adapters that
  /// take a stop token. One call alone is stopped through the token the call takes.
  std::stop_token stop{};
  /// With a streaming adapter (`StreamingAdapter`), in `extract` under policy `first`: request
  /// stop as soon as the answer is settled (`llmjson::stream::settled()`), so that the adapter
  /// ends the call and the rest of the output is neither waited for nor paid for. The answer is
  /// the one the whole output would have given, so it is on by default: it never changes an
  /// answer, and acts only when one settles before the end. It never does under `unique` and
  /// `last` (`extract<T>`'s default is `unique`: set `extraction.policy` to `first` there), in
  /// `complete`, or with a non-streaming adapter; and with `extraction.start` left `unknown` an
  /// output settles before its end only after a reasoning marker (10 of the 102 corpus cases; 51
  /// with `output_start::answer`, for models that do not reason in their content:
  /// tests/bench/README.md, "How early the stream settles"). `attempt::stopped_early` says when
  /// it acted.
  bool stop_early = true;
  /// With a streaming adapter (`StreamingAdapter`), in `extract` and `extract<T>`: called with
  /// each change of the attempt's partial answer (`llmjson::stream::partial()`, rules §8), for a
  /// UI that shows the answer as the model writes it: see `partial_event` for the events and
  /// their order. Called only when the partial changed (a member of `partial_answer` other than
  /// `source`), and the partial is computed only when the stream read new bytes
  /// (`partial_version()`); unset (the default), nothing is computed. Never called by `complete`
  /// or with a non-streaming adapter.
  ///
  /// `shown` and `cleared` are called synchronously from within the sink, on the thread that
  /// calls it, as the chunks arrive: the adapter waits for the callback, so keep it short (hand
  /// the partial to the UI's thread). The final `shown` and `retracted` come after the adapter
  /// returned (or threw), on the caller's thread, before `on_attempt` sees the attempt.
  ///
  /// It may throw: its exception is treated as the selector's is (the attempt's outcome is
  /// `exception`, never retried, and the call throws an `attempt_exception` that nests it). While
  /// streaming, the call is stopped, and the exception waits until the adapter returned. Then,
  /// as after any failure, the attempt is retracted if it showed anything: while an exception is
  /// on its way out (the adapter's, the selector's, or the callback's own), what `retracted`
  /// throws is dropped and the first exception wins: the adapter's is never lost. A `retracted`
  /// that throws on an attempt that failed without exception becomes that attempt's exception.
  /// Called without locking: see `retrying` on sharing a wrapper between threads.
  std::function<void(const partial_event&)> on_partial{};
#endif
};

/// The default `next_request` hook: resend the caller's request unchanged (it is not copied).
struct resend {
  template <class Req>
  const Req& operator()(const Req& previous, const attempt&) const noexcept {
    return previous;
  }
};

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/retry_types-inl.hpp>
#endif

#endif  // LLMJSON_RETRY_TYPES_HPP_INCLUDED
