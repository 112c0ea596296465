// llmjson: the bodies of retry.hpp: the attempt loop of llmjson::retrying
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED

#include <llmjson/retry.hpp>

namespace llmjson {

constexpr std::string_view to_string(attempt_outcome o) noexcept {
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

constexpr std::string_view to_string(retry_error_kind k) noexcept {
  switch (k) {
    case retry_error_kind::api_error: return "api_error";
    case retry_error_kind::cancelled: return "cancelled";
    case retry_error_kind::parse_error: return "parse_error";
  }
  return "unknown";
}

namespace detail {

/// The outcome an extraction error stands for. Does not throw.
constexpr attempt_outcome outcome_of(error_kind k) noexcept {
  switch (k) {
    case error_kind::empty: return attempt_outcome::empty_content;
    case error_kind::no_json: return attempt_outcome::no_json;
    case error_kind::truncated: return attempt_outcome::truncated;
    case error_kind::no_match: return attempt_outcome::no_match;
    case error_kind::ambiguous: return attempt_outcome::ambiguous;
    case error_kind::too_large: return attempt_outcome::too_large;
  }
  return attempt_outcome::no_json;
}

/// Whether another attempt may help. Does not throw.
constexpr bool retryable(attempt_outcome o) noexcept {
  switch (o) {
    case attempt_outcome::empty_content:
    case attempt_outcome::bad_response:
    case attempt_outcome::no_json:
    case attempt_outcome::truncated:
    case attempt_outcome::no_match:
    case attempt_outcome::ambiguous: return true;
    // too_large: a model that wrote 64 MiB once will likely do it again, at that price.
    default: return false;
  }
}

template <class>
inline constexpr bool is_optional_v = false;
template <class T>
inline constexpr bool is_optional_v<std::optional<T>> = true;

/// What a hook `H` returns for requests of type `Req`, without reference or const.
template <class H, class Req>
using hook_result_t = std::remove_cvref_t<std::invoke_result_t<H&, const Req&, const attempt&>>;

/// Whether `h(const Req& previous, const attempt& failed)` returns a `Req` (by value or
/// reference) or a `std::optional<Req>`.
template <class H, class Req>
concept makes_request = std::invocable<H&, const Req&, const attempt&> &&
    (std::same_as<hook_result_t<H, Req>, Req> ||
     std::same_as<hook_result_t<H, Req>, std::optional<Req>>);

/// Whether `H` is a `next_request` hook for requests of type `Req`. The default hook, `resend`,
/// fits any request, a string literal included; another hook needs a request object.
template <class H, class Req>
concept next_request_hook = std::same_as<H, resend> ||
    (!std::is_array_v<Req> && makes_request<H, Req>);

/// Fails the build with the rule a hook breaks. Instantiated only when `next_request_hook<H, Req>`
/// is false, before anything else is instantiated with that hook, so this is the first error.
template <class H, class Req>
constexpr bool explain_hook() {
  if constexpr (std::is_array_v<Req>) {
    static_assert(!std::is_array_v<Req>,
                  "a next_request hook needs a request object: pass a std::string or a "
                  "std::string_view rather than a string literal");
  } else if constexpr (!std::invocable<H&, const Req&, const attempt&>) {
    static_assert(std::invocable<H&, const Req&, const attempt&>,
                  "the next_request hook must be callable as hook(const Req& previous, const "
                  "llmjson::attempt& failed), Req being the request type of the call");
  } else {
    static_assert(next_request_hook<H, Req>,
                  "the next_request hook must return the request type itself or a std::optional "
                  "of it: a request converted from another type (a std::string made into a "
                  "std::string_view request) would point into a temporary");
  }
  return false;
}

/// What one attempt's judge made of a message: the answer, or the extraction error and the text
/// its views point into.
template <class Out>
struct judged {
  std::optional<Out> value;
  std::optional<llmjson::error> extraction;
  std::shared_ptr<const std::string> text;
};

/// Records the exception being handled in `a`: `detail` one line, `raw` its `what()`. Call only
/// inside a handler.
inline void record_current_exception(attempt& a) {
  try {
    throw;
  } catch (const std::exception& e) {
    a.raw = e.what();
    a.detail = "the adapter or selector threw: " + one_line(a.raw);
  } catch (...) {
    a.detail = "the adapter or selector threw an exception not derived from std::exception";
  }
}

/// `empty_content, finish_reason "length"`: how messages name an attempt.
inline std::string describe_attempt(const attempt& a) {
  std::string s(to_string(a.outcome));
  if (a.outcome == attempt_outcome::api_error) return s + ", HTTP " + std::to_string(a.status);
  if (a.outcome == attempt_outcome::bad_response) return s;
  return s + ", finish_reason \"" + one_line(a.finish_reason) + "\"";
}

/// `1: empty_content, finish_reason "stop"; 2: ...` over the called attempts.
inline std::string describe_attempts(const std::vector<attempt>& as) {
  std::string s;
  for (const auto& a : as) {
    if (!a.called()) continue;
    if (!s.empty()) s += "; ";
    s += std::to_string(a.number) + ": " + describe_attempt(a);
  }
  return s;
}

inline std::string count_attempts(std::size_t n) { return count_of(n, "attempt"); }

/// What `detail` adds when the token limit stopped the model before any answer.
inline std::string reasoning_at_length_note(const attempt& a) {
  const std::string same_again =
      ", and the same request tends to fail the same way (raise max_tokens)";
  if (a.empty_at_length() && a.reasoning.empty())
    return "; empty with finish_reason \"length\": the token budget was likely spent on "
           "reasoning" +
           same_again;
  if (a.empty_at_length())
    return "; empty with finish_reason \"length\" after " + count_of(a.reasoning.size(), "byte") +
           " of reasoning: the token budget went to reasoning" + same_again;
  return "; cut inside the reasoning with finish_reason \"length\": the token budget went to "
         "reasoning" +
         same_again;
}

inline answer make_answer(extraction&& x) {
  candidate& c = x.candidates[x.index];
  answer a;
  a.value = std::move(c.value);
  a.text = std::string(c.text);
  a.offset = c.offset;
  a.line = c.line;
  a.column = c.column;
  a.source = c.source;
  a.info = std::string(c.info);
  a.in_fence = c.in_fence;
  a.fallback = x.fallback;
  a.policy = x.policy;
  a.truncation = std::move(x.truncation);
  return a;
}

/// The judge of `extract`: runs the core extraction (`run`, a `result<...>(std::string_view)`)
/// on the message's content, and records in `a` what became of it.
template <class Out, class Extract>
judged<Out> judge_extraction(message&& m, attempt& a, Extract run) {
  auto text = std::make_shared<const std::string>(std::move(m.content));
  auto r = run(std::string_view(*text));
  if (r) {
    a.outcome = attempt_outcome::ok;
    if constexpr (std::same_as<Out, answer>) {
      return {make_answer(std::move(*r)), std::nullopt, nullptr};
    } else {
      return {std::move(*r), std::nullopt, nullptr};
    }
  }
  // The error is moved out once and read from the copy: reading `r.error()` member by member
  // made g++ -O2 warn (-Wnull-dereference) through the variant's get_if.
  llmjson::error e = std::move(r).error();
  a.outcome = outcome_of(e.kind);
  a.detail = e.message;
  a.truncation = e.truncation;
  return {std::nullopt, std::move(e), std::move(text)};
}

#if LLMJSON_HAS_STOP_TOKEN
/// One token for one call: stopped as soon as the wrapper's or the call's token is. When only
/// one of them can be stopped, it is that token itself (no allocation).
class joined_stop {
 public:
  joined_stop(const std::stop_token& wrapper, const std::stop_token& call) {
    if (!wrapper.stop_possible()) {
      token_ = call;
    } else if (!call.stop_possible()) {
      token_ = wrapper;
    } else {
      source_ = std::stop_source();
      token_ = source_.get_token();
      from_wrapper_.emplace(wrapper, forward{&source_});
      from_call_.emplace(call, forward{&source_});
    }
  }
  joined_stop(const joined_stop&) = delete;
  joined_stop& operator=(const joined_stop&) = delete;

  [[nodiscard]] const std::stop_token& token() const noexcept { return token_; }

 private:
  struct forward {
    std::stop_source* to;
    void operator()() const noexcept { to->request_stop(); }
  };
  // Declared before the callbacks: they are destroyed first, and may still fire until then.
  std::stop_source source_{std::nostopstate};
  std::stop_token token_;
  std::optional<std::stop_callback<forward>> from_wrapper_;
  std::optional<std::stop_callback<forward>> from_call_;
};
#endif

/// The attempt loop of every `retrying` call, over a hook that fits (`next_request_hook`).
template <class Out, class A, class H, class Req, class Judge>
retry_result<Out> run_checked(A& adapter, H& next, const retry_options& options, const Req& request,
                              [[maybe_unused]] const call_stop& call_token, Judge judge) {
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
      a.detail = "stop requested: the adapter was not called";
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
      completion c = call_adapter(adapter, *current, stop.token());
#else
      completion c = call_adapter(adapter, *current);
#endif
      if (auto* api = std::get_if<llmjson::api_error>(&c)) {
        a.outcome = attempt_outcome::api_error;
        a.status = api->status;
        a.raw = std::move(api->message);
        a.detail = one_line(a.raw);
      } else if (auto* bad = std::get_if<bad_response>(&c)) {
        a.outcome = attempt_outcome::bad_response;
        a.detail = one_line(bad->message);
        a.raw = std::move(bad->raw.empty() ? bad->message : bad->raw);
      } else {
        message& m = std::get<message>(c);
        // Copies: the message itself is `complete`'s answer.
        a.content = m.content;
        a.reasoning = m.reasoning;
        a.finish_reason = m.finish_reason;
        a.role = m.role;
        judgement.emplace(judge(std::move(m), a));
      }
    } catch (...) {
      a.outcome = attempt_outcome::exception;
      // Record and report without letting anything replace the adapter's exception.
      try {
        record_current_exception(a);
        a.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start);
        report(std::move(a));
      } catch (...) {
      }
      throw;
    }
    a.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start);
    if (a.reasoning_at_length()) a.detail += reasoning_at_length_note(a);

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
                      ", not retried: " + failed.detail;
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
      m += " [" + describe_attempts(attempts) + "]: " + attempts.back().detail;
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
                               const Req& request, const call_stop& call_token, Judge judge) {
  if constexpr (next_request_hook<H, Req>) {
    return run_checked<Out>(adapter, next, options, request, call_token, std::move(judge));
  } else {
    static_assert(explain_hook<H, Req>());
    throw;  // never reached: the build failed above; this keeps the compiler from adding errors
  }
}

/// `extract<T>(request)`: no check of the caller's.
struct no_check {};

/// The judge of `complete`: a message with content is the answer.
inline judged<message> judge_content(message&& m, attempt& a) {
  if (is_blank(m.content)) {
    a.outcome = attempt_outcome::empty_content;
    a.detail = m.content.empty()
                   ? "the reply has no content"
                   : "the reply is only white space (" + count_of(m.content.size(), "byte") + ")";
    return {};
  }
  a.outcome = attempt_outcome::ok;
  return {std::move(m), std::nullopt, nullptr};
}

}  // namespace detail

template <class A, class H>
template <class Out, class Req, class Judge>
retry_result<Out> retrying<A, H>::run_(const Req& request, const detail::call_stop& stop,
                                       Judge judge) const {
  return detail::run_attempts<Out>(adapter_, next_, options_, request, stop, std::move(judge));
}

template <class A, class H>
template <class Req, class S>
retry_result<answer> retrying<A, H>::extract_with_(const Req& request, const S& sel,
                                                   const llmjson::options& opts,
                                                   const detail::call_stop& stop) const {
  return run_<answer>(request, stop, [&](message&& m, attempt& a) {
    return detail::judge_extraction<answer>(std::move(m), a, [&](std::string_view text) {
      return ::llmjson::extract(text, sel, opts);
    });
  });
}

template <class A, class H>
template <class T, class Req, class Check>
retry_result<T> retrying<A, H>::extract_as_(const Req& request, const Check& check,
                                            const detail::call_stop& stop) const {
  const llmjson::options& opts = options_.extraction;
  return run_<T>(request, stop, [&](message&& m, attempt& a) {
    return detail::judge_extraction<T>(std::move(m), a, [&](std::string_view text) {
      if constexpr (std::same_as<Check, detail::no_check>) {
        return ::llmjson::extract<T>(text, opts);
      } else {
        return ::llmjson::extract<T>(text, check, opts);
      }
    });
  });
}

template <class A, class H>
llmjson::options retrying<A, H>::with_policy_(llmjson::policy pol) const {
  llmjson::options opts = options_.extraction;
  opts.policy = pol;
  return opts;
}

template <class A, class H>
template <RequestFor<A> Req>
retry_result<message> retrying<A, H>::complete(const Req& request) const {
  return run_<message>(request, {}, detail::judge_content);
}

template <class A, class H>
template <selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel) const {
  return extract_with_(request, sel, options_.extraction, {});
}

template <class A, class H>
template <selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel,
                                             llmjson::policy pol) const {
  return extract_with_(request, sel, with_policy_(pol), {});
}

template <class A, class H>
template <int&... ExplicitArgumentBarrier, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request) const {
  return extract_with_(request, any_object{}, options_.extraction, {});
}

template <class A, class H>
template <class T, RequestFor<A> Req>
  requires(!selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request)
const { return extract_as_<T>(request, detail::no_check{}, {}); }

template <class A, class H>
template <class T, RequestFor<A> Req, check_for<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check) const {
  return extract_as_<T>(request, check, {});
}

#if LLMJSON_HAS_STOP_TOKEN
template <class A, class H>
template <RequestFor<A> Req>
retry_result<message> retrying<A, H>::complete(const Req& request, std::stop_token stop) const {
  return run_<message>(request, stop, detail::judge_content);
}

template <class A, class H>
template <selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel,
                                             std::stop_token stop) const {
  return extract_with_(request, sel, options_.extraction, stop);
}

template <class A, class H>
template <selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel, llmjson::policy pol,
                                             std::stop_token stop) const {
  return extract_with_(request, sel, with_policy_(pol), stop);
}

template <class A, class H>
template <int&... ExplicitArgumentBarrier, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, std::stop_token stop) const {
  return extract_with_(request, any_object{}, options_.extraction, stop);
}

template <class A, class H>
template <class T, RequestFor<A> Req>
  requires(!selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request, std::stop_token stop)
const { return extract_as_<T>(request, detail::no_check{}, stop); }

template <class A, class H>
template <class T, RequestFor<A> Req, check_for<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check, std::stop_token stop) const {
  return extract_as_<T>(request, check, stop);
}
#endif

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
