// llmjson: retrying(adapter, options): calls the caller's model again when a reply holds no answer
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_RETRY_HPP_INCLUDED
#define LLMJSON_RETRY_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <string_view>
#include <utility>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/finders.hpp>
#include <llmjson/detail/retry/run.hpp>
#include <llmjson/detail/retry/stop.hpp>
#include <llmjson/options.hpp>
#include <llmjson/retry_types.hpp>
#include <llmjson/select.hpp>

namespace llmjson {

/// Calls an `Adapter` until a reply holds an answer, at most `max_attempts` times, and keeps the
/// record of every attempt.
///
/// Retried: empty content, a `bad_response`, and (in `extract`) the extraction errors `empty`,
/// `no_json`, `truncated`, `no_match`, `ambiguous`; a reply the token limit cut before any answer
/// too, unless `retry_options::retry_reasoning_at_length` is false. Never retried, surfaced at
/// once: an `api_error`, an exception, a stop request, and `too_large`. Nothing is called twice by
/// accident.
///
/// An exception of the adapter or the caller's selector reaches the caller with the record of
/// every attempt so far: nested in an `attempt_exception`, or, when it is an `attempts_record`
/// (the adapter's exception type derives from it), as it was thrown, its record filled in.
///
/// `H` builds the next request from the previous one and the attempt that failed:
/// `h(const Req& previous, const attempt& failed)` returning a `Req` (by value or by reference:
/// it is copied before the previous one is dropped) or a `std::optional<Req>` (`std::nullopt`: do
/// not retry; the failure is the result). The default, `resend`, sends the same request again;
/// `llmjson::reask` (`<llmjson/feedback.hpp>`) adds the failed reply and what was wrong with it.
/// The caller's request is never modified or copied by the wrapper itself. A hook that does not
/// fit fails to compile with a message that says so, and so does an adapter that takes the
/// request by non-const reference or returns something else than an `llmjson::completion`.
///
/// Streaming (`StreamingAdapter`): the wrapper gives the adapter a sink and feeds what comes
/// through it to an `llmjson::stream`; each attempt's extraction is that stream's `finish()`,
/// the same as `llmjson::extract` on the whole content, or, for a call stopped at the settled
/// answer that came back without a `finish_reason`, its `stop()` (the same answer, with no cut
/// after it and no `later_qualifying`: the wrapper ended the text). Under policy `first`, once the
/// answer is settled the wrapper requests stop through the adapter's token
/// (`retry_options::stop_early`), and the attempt says so (`attempt::stopped_early`). The
/// stream's partial answer goes to `retry_options::on_partial` as it changes, and is retracted
/// when the attempt fails (`partial_event`). Everything else (what is retried, the record,
/// cancellation, exceptions) is as for the other forms.
///
/// Threads: the calls are `const` and the wrapper keeps no state between them, so one wrapper may
/// serve several threads at once, if its adapter, its hook, `on_attempt` and `on_partial` may be
/// called concurrently: the wrapper calls them (on the caller's thread; `on_partial` also from
/// within the sink, on the thread the adapter calls it from) without any locking. Whatever an
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
  /// Throws: `attempt_exception` nesting whatever the adapter throws (recorded, never retried), or
  /// the adapter's own exception if it is an `attempts_record` (filled in); and whatever
  /// `on_attempt` or the hook throws, as thrown.
  template <detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<message> complete(const Req& request) const;

  /// Returns the answer `sel` qualifies in the first reply that holds one, or why there is none.
  ///
  /// Each attempt is `complete` plus `llmjson::extract(content, sel, options.extraction)`. The
  /// `parse_error`'s `extraction` is the last call's extraction error, with its candidates.
  /// With a streaming adapter, the extraction runs as the content arrives, and the call may be
  /// stopped once the answer is settled (`retry_options::stop_early`).
  /// Throws: as `complete`; what `sel` throws (other than nlohmann's exceptions; with a streaming
  /// adapter, once the adapter has returned) as the adapter's is.
  template <Selector S, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel) const;

  /// As `extract(request, sel)`, under policy `pol` instead of `options.extraction.policy`.
  template <Selector S, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel,
                                             llmjson::policy pol) const;

  /// A key or a list of keys where a selector belongs (`extract(request, "orders")`): the build
  /// fails with a message that names `any_key`, as `llmjson::extract`'s does.
  template <class K, detail::RequestOrMisdeclared<A> Req>
    requires(!Selector<K> && std::convertible_to<const K&, std::string_view>)
  retry_result<answer> extract(const Req&, const K&)
  const {
    static_assert(detail::dependent_false<K>,
                  "llmjson: retrying::extract(request, \"key\"): a key is not a selector. For "
                  "the object that has the key, write .extract(request, "
                  "llmjson::any_key({\"key\"}))");
    return {retry_error{}, {}};
  }
  template <std::size_t N, detail::RequestOrMisdeclared<A> Req>
  retry_result<answer> extract(const Req&, const char* const (&)[N]) const {
    static_assert(detail::dependent_false<char[N]>,
                  "llmjson: retrying::extract(request, {\"a\", \"b\"}): a list of keys is not a "
                  "selector. For an object with any of the keys, write .extract(request, "
                  "llmjson::any_key({\"a\", \"b\"}))");
    return {retry_error{}, {}};
  }

  /// As `extract(request, sel)` with `any_object`: the answer is a JSON object.
  // The barrier keeps an explicit `extract<T>(request)` away from this overload.
  template <int&... ExplicitArgumentBarrier, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request) const;

  /// Returns the one candidate that decodes strictly to a `T` (`decode<T>`), decoded, from the
  /// first reply that holds one, or why there is none. Policy default: `unique`.
  template <class T, detail::RequestOrMisdeclared<A> Req>
    requires(!Selector<T>)
  [[nodiscard]] retry_result<T> extract(const Req& request) const;

  /// As `extract<T>(request)`, with the caller's check on the decoded `T` (returns `verdict` or
  /// `bool`), as `llmjson::extract<T>(text, check)` has it.
  template <class T, detail::RequestOrMisdeclared<A> Req, CheckFor<T> F>
  [[nodiscard]] retry_result<T> extract(const Req& request, F check) const;

#if LLMJSON_HAS_STOP_TOKEN
  /// The same six calls, each stopped by `stop` as well as by `retry_options::stop`: a stop
  /// requested on either ends this call (before its next attempt, and through the token its
  /// adapter gets), and no other.
  template <detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<message> complete(const Req& request, std::stop_token stop) const;
  template <Selector S, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel,
                                             std::stop_token stop) const;
  template <Selector S, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, const S& sel, llmjson::policy pol,
                                             std::stop_token stop) const;
  template <int&... ExplicitArgumentBarrier, detail::RequestOrMisdeclared<A> Req>
  [[nodiscard]] retry_result<answer> extract(const Req& request, std::stop_token stop) const;
  template <class T, detail::RequestOrMisdeclared<A> Req>
    requires(!Selector<T>)
  [[nodiscard]] retry_result<T> extract(const Req& request, std::stop_token stop) const;
  template <class T, detail::RequestOrMisdeclared<A> Req, CheckFor<T> F>
  [[nodiscard]] retry_result<T> extract(const Req& request, F check, std::stop_token stop) const;
#endif

  /// Returns the wrapped adapter.
  [[nodiscard]] A& adapter() noexcept { return adapter_; }
  [[nodiscard]] const A& adapter() const noexcept { return adapter_; }

 private:
  template <class Out, class Req, class Finder>
  retry_result<Out> run_(const Req& request, const detail::call_stop& stop,
                         const Finder& finder) const;
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

// --- the members of retrying: each call picks its finder and runs detail::run_attempts --------

template <class A, class H>
template <class Out, class Req, class Finder>
retry_result<Out> retrying<A, H>::run_(const Req& request, const detail::call_stop& stop,
                                       const Finder& finder) const {
  if constexpr (Adapter<A, Req>) {
    return detail::run_attempts<Out>(adapter_, next_, options_, request, stop, finder);
  } else {
    // An adapter that takes the request by non-const reference or returns something else than a
    // completion: the build fails here, with the rule as the first error and nothing after it.
    detail::explain_adapter<A, Req>();
    throw;  // never reached
  }
}

template <class A, class H>
template <class Req, class S>
retry_result<answer> retrying<A, H>::extract_with_(const Req& request, const S& sel,
                                                   const llmjson::options& opts,
                                                   const detail::call_stop& stop) const {
  return run_<answer>(request, stop, detail::extraction_finder<answer, S>(sel, opts));
}

template <class A, class H>
template <class T, class Req, class Check>
retry_result<T> retrying<A, H>::extract_as_(const Req& request, const Check& check,
                                            const detail::call_stop& stop) const {
  if constexpr (!detail::decodable<T, unknown_keys::reject>) {
    // A T without from_json or to_json: the build fails here, with what it lacks.
    detail::explain_decode<T, unknown_keys::reject>();
    throw;  // never reached
  } else {
    decode<T> sel = [&] {
      if constexpr (std::same_as<Check, detail::no_check>) {
        return decode<T>();
      } else {
        return decode<T>(check);
      }
    }();
    return run_<T>(request, stop,
                   detail::extraction_finder<T, decode<T>>(sel, options_.extraction));
  }
}

template <class A, class H>
llmjson::options retrying<A, H>::with_policy_(llmjson::policy pol) const {
  llmjson::options opts = options_.extraction;
  opts.policy = pol;
  return opts;
}

template <class A, class H>
template <detail::RequestOrMisdeclared<A> Req>
retry_result<message> retrying<A, H>::complete(const Req& request) const {
  return run_<message>(request, {}, detail::content_finder{});
}

template <class A, class H>
template <Selector S, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel) const {
  return extract_with_(request, sel, options_.extraction, {});
}

template <class A, class H>
template <Selector S, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel,
                                             llmjson::policy pol) const {
  return extract_with_(request, sel, with_policy_(pol), {});
}

template <class A, class H>
template <int&... ExplicitArgumentBarrier, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request) const {
  return extract_with_(request, any_object{}, options_.extraction, {});
}

template <class A, class H>
template <class T, detail::RequestOrMisdeclared<A> Req>
  requires(!Selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request)
const { return extract_as_<T>(request, detail::no_check{}, {}); }

template <class A, class H>
template <class T, detail::RequestOrMisdeclared<A> Req, CheckFor<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check) const {
  return extract_as_<T>(request, check, {});
}

#if LLMJSON_HAS_STOP_TOKEN
template <class A, class H>
template <detail::RequestOrMisdeclared<A> Req>
retry_result<message> retrying<A, H>::complete(const Req& request, std::stop_token stop) const {
  return run_<message>(request, stop, detail::content_finder{});
}

template <class A, class H>
template <Selector S, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel,
                                             std::stop_token stop) const {
  return extract_with_(request, sel, options_.extraction, stop);
}

template <class A, class H>
template <Selector S, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, const S& sel, llmjson::policy pol,
                                             std::stop_token stop) const {
  return extract_with_(request, sel, with_policy_(pol), stop);
}

template <class A, class H>
template <int&... ExplicitArgumentBarrier, detail::RequestOrMisdeclared<A> Req>
retry_result<answer> retrying<A, H>::extract(const Req& request, std::stop_token stop) const {
  return extract_with_(request, any_object{}, options_.extraction, stop);
}

template <class A, class H>
template <class T, detail::RequestOrMisdeclared<A> Req>
  requires(!Selector<T>)
retry_result<T> retrying<A, H>::extract(const Req& request, std::stop_token stop)
const { return extract_as_<T>(request, detail::no_check{}, stop); }

template <class A, class H>
template <class T, detail::RequestOrMisdeclared<A> Req, CheckFor<T> F>
retry_result<T> retrying<A, H>::extract(const Req& request, F check, std::stop_token stop) const {
  return extract_as_<T>(request, check, stop);
}
#endif

}  // namespace llmjson

#endif  // LLMJSON_RETRY_HPP_INCLUDED
