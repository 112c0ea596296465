// llmjson: the attempt loop of every retrying call
// SPDX-License-Identifier: MIT
//
// The retry wing (`detail/retry/`) may use the text room (`detail/text/`), the scan's interface
// (`detail/scan/interface.hpp`) and the public headers, the selection's among them
// (`<llmjson/extract.hpp>`, `<llmjson/select.hpp>`, `<llmjson/stream.hpp>`); nothing else of
// another wing. No other wing uses it.
#ifndef LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/retry/finders.hpp>
#include <llmjson/detail/retry/hooks.hpp>
#include <llmjson/detail/retry/record.hpp>
#include <llmjson/detail/retry/stop.hpp>
#include <llmjson/detail/retry/stream_attempt.hpp>
#include <llmjson/detail/retry/whole_attempt.hpp>
#include <llmjson/detail/retry/wording.hpp>
#include <llmjson/error.hpp>
#include <llmjson/feedback.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// Whether another attempt may help. Does not throw.
constexpr bool retryable(attempt_outcome o) noexcept {
  switch (o) {
    case attempt_outcome::empty_content:
    case attempt_outcome::bad_response:
    case attempt_outcome::no_json:
    case attempt_outcome::truncated:
    case attempt_outcome::no_match:
    case attempt_outcome::ambiguous: return true;
    // too_large: a model that wrote past `max_input_bytes` once will likely do it again, at that
    // price.
    default: return false;
  }
}

/// Why `failed` is not retried, in words; empty when another attempt may help.
inline std::string not_retried(const attempt& failed, const retry_options& options) {
  if (!retryable(failed.outcome))
    return std::string(to_string(failed.outcome)) + " is never retried";
  if (failed.reasoning_at_length() && !options.retry_reasoning_at_length)
    return "retry_reasoning_at_length is off";
  return {};
}

/// The attempt loop of every `retrying` call, over a hook that fits (`NextRequestHook`): what one
/// call keeps from attempt to attempt. `run()` once.
template <class Out, class A, class H, class Req, class Finder>
class attempt_loop {
 public:
  attempt_loop(A& adapter, H& next, const retry_options& options, const Req& request,
               [[maybe_unused]] const call_stop& call_token, const Finder& finder)
      : adapter_(adapter),
        next_(next),
        options_(options),
        finder_(finder),
        current_(&request)
#if LLMJSON_HAS_STOP_TOKEN
        ,
        stop_(options.stop, call_token)
#endif
  {
  }

  retry_result<Out> run() {
    const std::size_t most = std::max<std::size_t>(options_.max_attempts, 1);
    for (std::size_t n = 1;; ++n) {
      if (stop_requested()) return cancelled(n);
      attempt a;
      a.number = n;
      std::optional<found<Out>> got = call(a);
      if (got && got->value) {
        report(std::move(a));
        return retry_result<Out>(std::move(*got->value), std::move(attempts_));
      }
      keep_last(a, std::move(got));
      report(std::move(a));
      const attempt& failed = attempts_.back();
      if (failed.outcome == attempt_outcome::api_error) {
        std::string m = "HTTP " + std::to_string(failed.status) + " on attempt " +
                        std::to_string(n) + ", not retried: " + failed.message;
        return fail(retry_error_kind::api_error, std::move(m));
      }
      if (std::string why = not_retried(failed, options_); !why.empty())
        return give_up(n, std::move(why));
      if (n >= most) return give_up(n, {});
      if constexpr (!std::same_as<H, resend>) {
        // A stop requested meanwhile (by on_attempt, say): the loop's top records the
        // cancellation.
        if (stop_requested()) continue;
        if (!next_request(failed)) return give_up(n, "the next_request hook returned no request");
      }
    }
  }

 private:
  [[nodiscard]] bool stop_requested() const noexcept {
#if LLMJSON_HAS_STOP_TOKEN
    return stop_.token().stop_requested();
#else
    return false;
#endif
  }

  /// Calls the adapter for attempt `a` and records what came of it (its duration, and the
  /// feedback and excerpt for the next request). Whatever the adapter throws goes through,
  /// carrying the attempts so far (`rethrow_with_attempts`).
  std::optional<found<Out>> call(attempt& a) {
    using clock = std::chrono::steady_clock;
    std::optional<found<Out>> got;
    const auto start = clock::now();
    try {
#if LLMJSON_HAS_STOP_TOKEN
      if constexpr (StreamingAdapter<A, Req>) {
        got = stream_attempt<Out>(adapter_, *current_, stop_.token(), options_.stop_early,
                                  options_.on_partial, finder_, a);
      } else {
        got = whole_attempt<Out>(adapter_, *current_, stop_.token(), finder_, a);
      }
#else
      got = whole_attempt<Out>(adapter_, *current_, call_stop{}, finder_, a);
#endif
    } catch (...) {
      a.outcome = attempt_outcome::exception;
      // Record and report without letting anything replace the adapter's exception, which then
      // carries the record: the earlier attempts' replies are not lost with the call.
      try {
        record_current_exception(a);
        a.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start);
        report(std::move(a));
      } catch (...) {
      }
      rethrow_with_attempts(std::move(attempts_));
    }
    a.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start);
    if (a.reasoning_at_length()) a.message += reasoning_at_length_note(a);
    if (a.outcome != attempt_outcome::ok) {
      const llmjson::error* e = got && got->extraction ? &*got->extraction : nullptr;
      a.feedback = attempt_feedback(a, e);
      if (!a.feedback.empty()) a.excerpt = reply_excerpt(a.content, e, options_.extraction);
    }
    return got;
  }

  void report(attempt&& a) {
    attempts_.push_back(std::move(a));
    if (options_.on_attempt) options_.on_attempt(attempts_.back());
  }

  /// Keeps what the failed attempt `a` left behind, for the final error.
  void keep_last(const attempt& a, std::optional<found<Out>>&& got) {
    last_finish_ = a.finish_reason;
    last_extraction_.reset();
    last_text_.reset();
    if (got) {
      last_extraction_ = std::move(got->extraction);
      last_text_ = std::move(got->text);
    }
  }

  /// Makes the hook's request for the next attempt; false when the hook returned none. It is
  /// made whole before the previous one is dropped: a hook may return a reference into the
  /// previous request (as `resend` does), which `changed_` may hold.
  bool next_request(const attempt& failed) {
    if constexpr (is_optional_v<hook_result_t<H, Req>>) {
      std::optional<Req> made = next_(*current_, failed);
      if (!made) return false;
      changed_ = std::move(made);
    } else {
      Req made(next_(*current_, failed));
      changed_.reset();
      changed_.emplace(std::move(made));
    }
    current_ = &*changed_;
    return true;
  }

  retry_result<Out> cancelled(std::size_t n) {
    std::string m = "stop requested before attempt " + std::to_string(n);
    m += n == 1 ? ": the adapter was not called" : " (" + describe_attempts(attempts_) + ")";
    attempt a;
    a.number = n;
    a.outcome = attempt_outcome::cancelled;
    a.message = "stop requested: the adapter was not called";
    report(std::move(a));
    return fail(retry_error_kind::cancelled, std::move(m));
  }

  /// No answer after `n` attempts; `why`: why the last was not retried (empty: none was left).
  retry_result<Out> give_up(std::size_t n, std::string why) {
    std::string m = "no answer after " + count_attempts(n);
    if (!why.empty()) m += " (not retried: " + why + ")";
    m += " [" + describe_attempts(attempts_) + "]: " + attempts_.back().message;
    return fail(retry_error_kind::parse_error, std::move(m));
  }

  retry_result<Out> fail(retry_error_kind kind, std::string message) {
    retry_error e;
    e.kind = kind;
    e.cause = attempts_.back().outcome;
    e.finish_reason = std::move(last_finish_);
    e.extraction = std::move(last_extraction_);
    e.text = std::move(last_text_);
    e.message = std::move(message);
    if (kind == retry_error_kind::api_error)
      e.api = llmjson::api_error{attempts_.back().status, attempts_.back().raw};
    return retry_result<Out>(std::move(e), std::move(attempts_));
  }

  A& adapter_;
  H& next_;
  const retry_options& options_;
  const Finder& finder_;
  const Req* current_;  // the caller's request, then the hook's (`changed_`)
  // The hook's request, once it made one.
  using stored = std::conditional_t<std::same_as<H, resend>, std::monostate, std::optional<Req>>;
  stored changed_{};
  std::vector<attempt> attempts_;
  // What the last call left behind, for the final error.
  std::string last_finish_;
  std::optional<llmjson::error> last_extraction_;
  std::shared_ptr<const std::string> last_text_;
#if LLMJSON_HAS_STOP_TOKEN
  const joined_stop stop_;
#endif
};

/// The attempt loop of every `retrying` call. A hook that does not fit the request type stops
/// the build here, with the rule it breaks as the first error.
template <class Out, class A, class H, class Req, class Finder>
retry_result<Out> run_attempts(A& adapter, H& next, const retry_options& options,
                               const Req& request, const call_stop& call_token,
                               const Finder& finder) {
  if constexpr (NextRequestHook<H, Req>) {
    return attempt_loop<Out, A, H, Req, Finder>(adapter, next, options, request, call_token, finder)
        .run();
  } else {
    explain_hook<H, Req>();  // called, not asserted on: its own static_assert is the one error
    throw;  // never reached: the build failed above; this keeps the compiler from adding errors
  }
}

/// `extract<T>(request)`: no check of the caller's.
struct no_check {};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
