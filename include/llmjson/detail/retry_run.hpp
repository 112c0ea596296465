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
concept MakesRequest = std::invocable<H&, const Req&, const attempt&> &&
    (std::same_as<hook_result_t<H, Req>, Req> ||
     std::same_as<hook_result_t<H, Req>, std::optional<Req>>);

/// Whether `H` is a `next_request` hook for requests of type `Req`. The default hook, `resend`,
/// fits any request, a string literal included; another hook needs a request object.
template <class H, class Req>
concept NextRequestHook = std::same_as<H, resend> ||(!std::is_array_v<Req> && MakesRequest<H, Req>);

/// Fails the build with the rule a hook breaks. Instantiated only when `NextRequestHook<H, Req>`
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
    static_assert(NextRequestHook<H, Req>,
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

/// Records the exception being handled in `a`: `message` one line, `raw` its `what()`. Call only
/// inside a handler.
inline void record_current_exception(attempt& a) {
  try {
    throw;
  } catch (const std::exception& e) {
    a.raw = e.what();
    a.message = "the adapter or selector threw: " + one_line(a.raw);
  } catch (...) {
    a.message = "the adapter or selector threw an exception not derived from std::exception";
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

/// What `message` adds when the token limit stopped the model before any answer.
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

/// Records in `a` what became of one extraction (`r`), and returns it as a judgement; `text` is
/// the content the error's views point into.
template <class Out>
judged<Out> record_extraction(result<Out>&& r, attempt& a,
                              std::shared_ptr<const std::string> text) {
  if (r) {
    a.outcome = attempt_outcome::ok;
    return {std::move(*r), std::nullopt, nullptr};
  }
  // The error is moved out once and read from the copy: reading `r.error()` member by member
  // made g++ -O2 warn (-Wnull-dereference) through the variant's get_if.
  llmjson::error e = std::move(r).error();
  a.outcome = outcome_of(e.kind);
  a.message = e.message;
  a.truncation = e.truncation;
  return {std::nullopt, std::move(e), std::move(text)};
}

/// The answer of an extraction, owned, or its error.
inline result<answer> to_answer(result<extraction>&& r) {
  if (!r) return std::move(r).error();
  return make_answer(std::move(*r));
}

/// Judges one message's content with an extraction (`run`, a `result<...>(std::string_view)`:
/// of an `extraction` for `Out = answer`, else of an `Out`), and records in `a` what became of
/// it. (Also the seam the tests use to script extraction errors.)
template <class Out, class Extract>
judged<Out> judge_extraction(message&& m, attempt& a, Extract run) {
  auto text = std::make_shared<const std::string>(std::move(m.content));
  // Made before `text` is moved into the judgement (arguments are evaluated in any order).
  result<Out> r = [&] {
    if constexpr (std::same_as<Out, answer>) {
      return to_answer(run(std::string_view(*text)));
    } else {
      return run(std::string_view(*text));
    }
  }();
  return record_extraction(std::move(r), a, std::move(text));
}

/// Points the views of `e` (its candidates' and near misses') into `to`, a copy of `from`,
/// instead of into `from`. Does not throw.
inline void rebase(llmjson::error& e, std::string_view from, std::string_view to) noexcept {
  auto moved = [&](std::string_view v) {
    return v.empty() ? v : to.substr(static_cast<std::size_t>(v.data() - from.data()), v.size());
  };
  for (candidate& c : e.candidates) {
    c.text = moved(c.text);
    c.info = moved(c.info);
    c.marker = moved(c.marker);
  }
  for (near_miss& m : e.near_misses) m.text = moved(m.text);
}

/// The caller's selector, as a stream takes it (by value) without copying it: a view, with the
/// selector's default policy and fallback rule.
template <class S>
class selector_view {
 public:
  static constexpr llmjson::policy default_policy = default_policy_of<S>();
  static constexpr bool allows_fallback = allows_fallback_of<S>();

  explicit selector_view(const S& sel) noexcept : sel_(&sel) {}
  decltype(auto) operator()(const nlohmann::json& v) const { return (*sel_)(v); }

 private:
  const S* sel_;
};

/// The judge of `extract` and `extract<T>`: `sel` under `opts` on a message's content, the
/// answer made an `Out` (an `answer`, or the `T` of `S = decode<T>`).
///
/// A judge is called on a whole message (`judge(m, a)`), or, for a streaming adapter, makes a
/// watch (`start()`) that is fed the content as it arrives (`feed`), says whether the answer is
/// settled, keeps the text, and judges the message at the end (`finish(m, a)`).
template <class Out, class S>
class extraction_judge {
 public:
  extraction_judge(const S& sel, const options& opts) noexcept : sel_(sel), opts_(opts) {}

  judged<Out> operator()(message&& m, attempt& a) const {
    return judge_extraction<Out>(std::move(m), a, [&](std::string_view text) {
      if constexpr (std::same_as<Out, answer>) {
        return ::llmjson::extract(text, sel_, opts_);
      } else {
        return decoded_answer(sel_, ::llmjson::extract(text, sel_, opts_));
      }
    });
  }

  /// The content of one streaming attempt, extracted as it arrives.
  class watch {
   public:
    explicit watch(const extraction_judge& judge)
        : judge_(&judge), stream_(selector_view<S>(judge.sel_), judge.opts_) {}

    void feed(std::string_view chunk) {
      if (!over_ && stream_.size() + chunk.size() > judge_->opts_.max_input_bytes) {
        // The stream keeps no text past the limit, and the record keeps all of it.
        kept_ = std::string(stream_.text());
        over_ = true;
      }
      if (over_) kept_.append(chunk);
      stream_.feed(chunk);
      stream_.sync();  // cheap, and the settled answer is seen at once
    }
    [[nodiscard]] bool settled() const noexcept { return stream_.settled() != nullptr; }
    [[nodiscard]] std::string_view text() const noexcept {
      return over_ ? std::string_view(kept_) : stream_.text();
    }
    /// Judges the message whose content was fed: the stream's `finish()`.
    judged<Out> finish(message&&, attempt& a) {
      result<Out> r = judge_->conclude_(stream_.finish());
      if (r) return record_extraction(std::move(r), a, nullptr);
      // The error's views point into the stream: into a copy the error can share instead.
      auto text = std::make_shared<const std::string>(this->text());
      rebase(r.error(), stream_.text(), *text);
      return record_extraction(std::move(r), a, std::move(text));
    }

   private:
    const extraction_judge* judge_;
    stream<selector_view<S>> stream_;
    bool over_ = false;
    std::string kept_;  // the text, once over max_input_bytes
  };
  [[nodiscard]] watch start() const { return watch(*this); }

 private:
  result<Out> conclude_(result<extraction>&& r) const {
    if constexpr (std::same_as<Out, answer>) {
      return to_answer(std::move(r));
    } else {
      return decoded_answer(sel_, std::move(r));
    }
  }

  const S& sel_;
  const options& opts_;
};

/// The judge of `complete`: a message with content is the answer.
struct content_judge {
  judged<message> operator()(message&& m, attempt& a) const {
    if (is_blank(m.content)) {
      a.outcome = attempt_outcome::empty_content;
      a.message = m.content.empty() ? "the reply has no content"
                                    : "the reply is only white space (" +
                                          count_of(m.content.size(), "byte") + ")";
      return {};
    }
    a.outcome = attempt_outcome::ok;
    return {std::move(m), std::nullopt, nullptr};
  }

  /// The content of one streaming attempt: kept, and never settled (there is no answer to
  /// settle).
  class watch {
   public:
    void feed(std::string_view chunk) { text_.append(chunk); }
    [[nodiscard]] bool settled() const noexcept { return false; }
    [[nodiscard]] std::string_view text() const noexcept { return text_; }
    judged<message> finish(message&& m, attempt& a) {
      m.content = std::move(text_);
      return content_judge{}(std::move(m), a);
    }

   private:
    std::string text_;
  };
  [[nodiscard]] watch start() const { return {}; }
};

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

/// Records in `a` what the adapter returned: an `api_error` or a `bad_response` as it is, a
/// message's reasoning, finish_reason and role, which `judge_message(message&)` then judges.
template <class Out, class JudgeMessage>
std::optional<judged<Out>> take_completion(completion&& c, attempt& a, JudgeMessage judge_message) {
  if (auto* api = std::get_if<llmjson::api_error>(&c)) {
    a.outcome = attempt_outcome::api_error;
    a.status = api->status;
    a.raw = std::move(api->message);
    a.message = one_line(a.raw);
    return std::nullopt;
  }
  if (auto* bad = std::get_if<bad_response>(&c)) {
    a.outcome = attempt_outcome::bad_response;
    a.message = one_line(bad->message);
    a.raw = std::move(bad->raw.empty() ? bad->message : bad->raw);
    return std::nullopt;
  }
  message& m = std::get<message>(c);
  // Copies: the message itself is `complete`'s answer.
  a.reasoning = m.reasoning;
  a.finish_reason = m.finish_reason;
  a.role = m.role;
  return judge_message(m);
}

#if LLMJSON_HAS_STOP_TOKEN
/// One attempt of a streaming adapter: the content goes through a sink into the judge's watch,
/// and the call is stopped once the answer is settled (with `stop_early`) or once `call_token`
/// is. What the sink's work throws is rethrown when the adapter has returned (or thrown).
template <class Out, class A, class Req, class Judge>
std::optional<judged<Out>> stream_attempt(A& adapter, const Req& request,
                                          const std::stop_token& call_token, bool stop_early,
                                          const Judge& judge, attempt& a) {
  auto watch = judge.start();
  struct forward {
    std::stop_source* to;
    void operator()() const noexcept { to->request_stop(); }
  };
  std::stop_source stop;  // this attempt's: requested by the caller's token, or at the answer
  std::optional<std::stop_callback<forward>> from_call;
  if (call_token.stop_possible()) from_call.emplace(call_token, forward{&stop});
  std::exception_ptr thrown;
  auto push = [&](std::string_view chunk) noexcept {
    if (thrown) return;
    a.received += chunk.size();
    try {
      watch.feed(chunk);
      if (stop_early && !a.stopped_early && watch.settled()) {
        a.stopped_early = true;
        stop.request_stop();
      }
    } catch (...) {
      thrown = std::current_exception();
      stop.request_stop();
    }
  };
  const sink out(push);
  completion c;
  try {
    c = call_adapter(adapter, request, out, stop.get_token());
  } catch (...) {
    try {
      a.content = std::string(watch.text());  // what came before the failure
    } catch (...) {
    }
    if (thrown) std::rethrow_exception(thrown);  // the cause: the adapter was stopped for it
    throw;
  }
  a.content = std::string(watch.text());  // whatever the adapter returned
  if (thrown) std::rethrow_exception(thrown);
  return take_completion<Out>(std::move(c), a, [&](message& m) -> std::optional<judged<Out>> {
    if (!m.content.empty()) {
      if (a.received == 0) {
        // Answered without streaming: the content came whole.
        watch.feed(m.content);
        a.content = m.content;
      } else if (m.content != watch.text()) {
        a.outcome = attempt_outcome::bad_response;
        a.message = "the streaming adapter returned a content of " +
                    count_of(m.content.size(), "byte") + " that is not the " +
                    count_of(a.received, "byte") + " it streamed";
        a.raw = std::move(m.content);
        return std::nullopt;
      }
    }
    return watch.finish(std::move(m), a);
  });
}
#endif

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
      auto judge_message = [&](message& m) -> std::optional<judged<Out>> {
        a.content = m.content;
        return judge(std::move(m), a);
      };
#if LLMJSON_HAS_STOP_TOKEN
      if constexpr (StreamingAdapter<A, Req>) {
        judgement =
            stream_attempt<Out>(adapter, *current, stop.token(), options.stop_early, judge, a);
      } else {
        judgement =
            take_completion<Out>(call_adapter(adapter, *current, stop.token()), a, judge_message);
      }
#else
      judgement = take_completion<Out>(call_adapter(adapter, *current), a, judge_message);
#endif
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
    if (a.reasoning_at_length()) a.message += reasoning_at_length_note(a);

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
    static_assert(explain_hook<H, Req>());
    throw;  // never reached: the build failed above; this keeps the compiler from adding errors
  }
}

/// `extract<T>(request)`: no check of the caller's.
struct no_check {};

}  // namespace detail

template <class A, class H>
template <class Out, class Req, class Judge>
retry_result<Out> retrying<A, H>::run_(const Req& request, const detail::call_stop& stop,
                                       const Judge& judge) const {
  return detail::run_attempts<Out>(adapter_, next_, options_, request, stop, judge);
}

template <class A, class H>
template <class Req, class S>
retry_result<answer> retrying<A, H>::extract_with_(const Req& request, const S& sel,
                                                   const llmjson::options& opts,
                                                   const detail::call_stop& stop) const {
  return run_<answer>(request, stop, detail::extraction_judge<answer, S>(sel, opts));
}

template <class A, class H>
template <class T, class Req, class Check>
retry_result<T> retrying<A, H>::extract_as_(const Req& request, const Check& check,
                                            const detail::call_stop& stop) const {
  decode<T> sel = [&] {
    if constexpr (std::same_as<Check, detail::no_check>) {
      return decode<T>();
    } else {
      return decode<T>(check);
    }
  }();
  return run_<T>(request, stop, detail::extraction_judge<T, decode<T>>(sel, options_.extraction));
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
  return run_<message>(request, {}, detail::content_judge{});
}

template <class A, class H>
template <Selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel) const {
  return extract_with_(request, sel, options_.extraction, {});
}

template <class A, class H>
template <Selector S, RequestFor<A> Req>
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
  requires(!Selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request)
const { return extract_as_<T>(request, detail::no_check{}, {}); }

template <class A, class H>
template <class T, RequestFor<A> Req, CheckFor<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check) const {
  return extract_as_<T>(request, check, {});
}

#if LLMJSON_HAS_STOP_TOKEN
template <class A, class H>
template <RequestFor<A> Req>
retry_result<message> retrying<A, H>::complete(const Req& request, std::stop_token stop) const {
  return run_<message>(request, stop, detail::content_judge{});
}

template <class A, class H>
template <Selector S, RequestFor<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel,
                                             std::stop_token stop) const {
  return extract_with_(request, sel, options_.extraction, stop);
}

template <class A, class H>
template <Selector S, RequestFor<A> Req>
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
  requires(!Selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request, std::stop_token stop)
const { return extract_as_<T>(request, detail::no_check{}, stop); }

template <class A, class H>
template <class T, RequestFor<A> Req, CheckFor<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check, std::stop_token stop) const {
  return extract_as_<T>(request, check, stop);
}
#endif

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_RETRY_RUN_HPP_INCLUDED
