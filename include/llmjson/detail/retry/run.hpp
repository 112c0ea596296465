// llmjson: the attempt loop of every retrying call
// SPDX-License-Identifier: MIT
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
#include <llmjson/detail/retry/hooks.hpp>
#include <llmjson/detail/retry/judges.hpp>
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

/// The attempt loop of every `retrying` call, over a hook that fits (`NextRequestHook`).
template <class Out, class A, class H, class Req, class Judge>
retry_result<Out> run_checked(A& adapter, H& next, const retry_options& options, const Req& request,
                              [[maybe_unused]] const call_stop& call_token, const Judge& judge) {
  using clock = std::chrono::steady_clock;
  const std::size_t most = std::max<std::size_t>(options.max_attempts, 1);
  std::vector<attempt> attempts;
  // The hook's request, once it made one; `current` points to the caller's until then.
  using stored = std::conditional_t<std::same_as<H, resend>, std::monostate, std::optional<Req>>;
  [[maybe_unused]] stored changed{};
  const Req* current = &request;
  // What the last call left behind, for the final error.
  std::string last_finish;
  std::optional<llmjson::error> last_extraction;
  std::shared_ptr<const std::string> last_text;
#if LLMJSON_HAS_STOP_TOKEN
  const joined_stop stop(options.stop, call_token);
#endif

  auto report = [&](attempt&& a) {
    attempts.push_back(std::move(a));
    if (options.on_attempt) options.on_attempt(attempts.back());
  };
  auto fail = [&](retry_error_kind kind, std::string message) {
    retry_error e;
    e.kind = kind;
    e.cause = attempts.back().outcome;
    e.finish_reason = std::move(last_finish);
    e.extraction = std::move(last_extraction);
    e.text = std::move(last_text);
    e.message = std::move(message);
    if (kind == retry_error_kind::api_error)
      e.api = llmjson::api_error{attempts.back().status, attempts.back().raw};
    return retry_result<Out>(std::move(e), std::move(attempts));
  };

  for (std::size_t n = 1;; ++n) {
#if LLMJSON_HAS_STOP_TOKEN
    if (stop.token().stop_requested()) {
      std::string m = "stop requested before attempt " + std::to_string(n);
      m += n == 1 ? ": the adapter was not called" : " (" + describe_attempts(attempts) + ")";
      attempt a;
      a.number = n;
      a.outcome = attempt_outcome::cancelled;
      a.message = "stop requested: the adapter was not called";
      report(std::move(a));
      return fail(retry_error_kind::cancelled, std::move(m));
    }
#endif

    attempt a;
    a.number = n;
    std::optional<judged<Out>> judgement;
    const auto start = clock::now();
    try {
#if LLMJSON_HAS_STOP_TOKEN
      if constexpr (StreamingAdapter<A, Req>) {
        judgement =
            stream_attempt<Out>(adapter, *current, stop.token(), options.stop_early, judge, a);
      } else {
        judgement = whole_attempt<Out>(adapter, *current, stop.token(), judge, a);
      }
#else
      judgement = whole_attempt<Out>(adapter, *current, call_stop{}, judge, a);
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
      rethrow_with_attempts(std::move(attempts));
    }
    a.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start);
    if (a.reasoning_at_length()) a.message += reasoning_at_length_note(a);
    if (a.outcome != attempt_outcome::ok) {
      const llmjson::error* e =
          judgement && judgement->extraction ? &*judgement->extraction : nullptr;
      a.feedback = attempt_feedback(a, e);
      if (!a.feedback.empty()) a.excerpt = reply_excerpt(a.content, e, options.extraction);
    }

    if (judgement && judgement->value) {
      report(std::move(a));
      return retry_result<Out>(std::move(*judgement->value), std::move(attempts));
    }
    last_finish = a.finish_reason;
    last_extraction.reset();
    last_text.reset();
    if (judgement) {
      last_extraction = std::move(judgement->extraction);
      last_text = std::move(judgement->text);
    }
    report(std::move(a));
    const attempt& failed = attempts.back();

    if (failed.outcome == attempt_outcome::api_error) {
      std::string m = "HTTP " + std::to_string(failed.status) + " on attempt " + std::to_string(n) +
                      ", not retried: " + failed.message;
      return fail(retry_error_kind::api_error, std::move(m));
    }
    std::string not_retried;
    if (!retryable(failed.outcome))
      not_retried = std::string(to_string(failed.outcome)) + " is never retried";
    else if (failed.reasoning_at_length() && !options.retry_reasoning_at_length)
      not_retried = "retry_reasoning_at_length is off";
    auto give_up = [&](std::string why) {
      std::string m = "no answer after " + count_attempts(n);
      if (!why.empty()) m += " (not retried: " + why + ")";
      m += " [" + describe_attempts(attempts) + "]: " + attempts.back().message;
      return fail(retry_error_kind::parse_error, std::move(m));
    };
    if (!not_retried.empty()) return give_up(std::move(not_retried));
    if (n >= most) return give_up({});

    if constexpr (!std::same_as<H, resend>) {
#if LLMJSON_HAS_STOP_TOKEN
      // A stop requested meanwhile (by on_attempt, say): the loop's top records the cancellation.
      if (stop.token().stop_requested()) continue;
#endif
      // The next request is made whole before the previous one is dropped: a hook may return a
      // reference into the previous request (as `resend` does), which `changed` may hold.
      if constexpr (is_optional_v<hook_result_t<H, Req>>) {
        std::optional<Req> made = next(*current, failed);
        if (!made) return give_up("the next_request hook returned no request");
        changed = std::move(made);
      } else {
        Req made(next(*current, failed));
        changed.reset();
        changed.emplace(std::move(made));
      }
      current = &*changed;
    }
  }
}

/// The attempt loop of every `retrying` call. A hook that does not fit the request type stops
/// the build here, with the rule it breaks as the first error.
template <class Out, class A, class H, class Req, class Judge>
retry_result<Out> run_attempts(A& adapter, H& next, const retry_options& options,
                               const Req& request, const call_stop& call_token,
                               const Judge& judge) {
  if constexpr (NextRequestHook<H, Req>) {
    return run_checked<Out>(adapter, next, options, request, call_token, judge);
  } else {
    explain_hook<H, Req>();  // called, not asserted on: its own static_assert is the one error
    throw;  // never reached: the build failed above; this keeps the compiler from adding errors
  }
}

/// `extract<T>(request)`: no check of the caller's.
struct no_check {};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
