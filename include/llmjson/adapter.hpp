// llmjson: usage, message, api_error, bad_response, completion, sink, the Adapter concepts
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_ADAPTER_HPP_INCLUDED
#define LLMJSON_ADAPTER_HPP_INCLUDED

#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <version>

#include <llmjson/detail/config.hpp>

/// 1 when the standard library has `std::stop_token` (`__cpp_lib_jthread`), else 0. Without it
/// (older libc++, such as Debian 12's libc++ 14 or older Xcode's), the adapter forms that take a
/// stop token (the streaming form with its `sink` too), `retry_options::stop` and
/// `stop_early`, and the retry calls that take a token are left out; all the rest is the same.
#if defined(__cpp_lib_jthread) && __has_include(<stop_token>)
#define LLMJSON_HAS_STOP_TOKEN 1
#include <stop_token>
#else
#define LLMJSON_HAS_STOP_TOKEN 0
#endif

namespace llmjson {

/// The tokens one model call was billed for, as the provider reported them (OpenAI's `usage`).
///
/// The counts are the provider's, never estimated by llmjson: an adapter fills them in from the
/// reply, and leaves `message::usage` empty when the provider sent none. Adding two usages
/// (`+=`, `+`) adds each count and saturates at the largest `std::uint64_t` instead of wrapping,
/// so a sum never understates.
struct usage {
  /// The tokens of the request: the prompt, the messages, the schema sent with them (OpenAI's
  /// `prompt_tokens`, cached ones included).
  std::uint64_t prompt_tokens = 0;
  /// The tokens the model generated: the content, and the reasoning too (OpenAI's
  /// `completion_tokens`, which counts the reasoning tokens and bills them as output).
  std::uint64_t completion_tokens = 0;
  /// The part of `completion_tokens` spent on reasoning (OpenAI's
  /// `completion_tokens_details.reasoning_tokens`); 0 when the provider reports none. Not to be
  /// added to `completion_tokens`: it is already counted there.
  std::uint64_t reasoning_tokens = 0;

  /// Returns `prompt_tokens + completion_tokens` (saturating): what the call cost in tokens.
  /// Does not throw.
  [[nodiscard]] constexpr std::uint64_t total_tokens() const noexcept {
    return add(prompt_tokens, completion_tokens);
  }

  /// Adds each count of `other` to this one's, saturating. Returns `*this`. Does not throw.
  constexpr usage& operator+=(const usage& other) noexcept {
    prompt_tokens = add(prompt_tokens, other.prompt_tokens);
    completion_tokens = add(completion_tokens, other.completion_tokens);
    reasoning_tokens = add(reasoning_tokens, other.reasoning_tokens);
    return *this;
  }
  /// Returns the sum of `a` and `b`, each count saturating. Does not throw.
  [[nodiscard]] friend constexpr usage operator+(usage a, const usage& b) noexcept {
    return a += b;
  }
  friend bool operator==(const usage&, const usage&) = default;

 private:
  static constexpr std::uint64_t add(std::uint64_t a, std::uint64_t b) noexcept {
    return b > std::numeric_limits<std::uint64_t>::max() - a
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
  }
};

/// What the model sent back: one assistant message.
///
/// llmjson makes no HTTP call. The caller's adapter does, and fills this in from the provider's
/// reply. An absent content (`"content": null`) and an empty one are the same: `content == ""`.
struct message {
  std::string content{};        ///< the text; "" when the provider sent none or null
  std::string finish_reason{};  ///< as the provider sent it: `stop`, `length`, `content_filter`,
                                ///< `tool_calls`, ...; "" when it sent none
  std::string role = "assistant";
  /// The reasoning, for providers that send it apart from the content (`reasoning_content`,
  /// `reasoning`); "" when there is none. Kept in the attempt record, never scanned: an answer
  /// is only ever looked for in `content`.
  std::string reasoning{};
  /// The tokens the call was billed for, as the provider reported them; std::nullopt when it
  /// reported none (the retry wrapper keeps it in `attempt::usage` and sums it in `total_usage`).
  std::optional<llmjson::usage> usage{};

  friend bool operator==(const message&, const message&) = default;
};

/// The provider answered, but with an error instead of a message (HTTP 429, 500, a bad key).
///
/// The retry wrapper surfaces it at once and never retries it: only the caller knows whether
/// a 429 is worth waiting for, and a 500 may have been billed.
struct api_error {
  int status = 0;         ///< the HTTP status (`429`); 0 when the transport has none
  std::string message{};  ///< the provider's own message, as it sent it

  friend bool operator==(const api_error&, const api_error&) = default;
};

/// The adapter got a reply it could not read: a parse error reported by the adapter (a 200
/// whose body is not the provider's JSON, or lacks its expected fields).
///
/// The retry wrapper retries it, like an empty message, within `retry_options::max_attempts`.
/// It records `message` on one line (`attempt::message`, control characters escaped) and `raw`
/// as it is (`attempt::raw`).
struct bad_response {
  std::string message{};  ///< what was wrong, for a person: `the body is not a JSON object`
  std::string raw{};      ///< the body as received (or the part that matters), kept unchanged
  /// The tokens the call was billed for, when the adapter could read them in a body it could not
  /// otherwise use (a 200 is billed even when its content is unreadable); std::nullopt if not.
  std::optional<llmjson::usage> usage{};

  friend bool operator==(const bad_response&, const bad_response&) = default;
};

/// What one call of an adapter returns: a message, an API error or a bad response.
///
/// An adapter returns any of the three (or anything that converts to `completion`); a network
/// failure is not a completion: the adapter throws, and the exception reaches the caller.
using completion = std::variant<message, api_error, bad_response>;

#if LLMJSON_HAS_STOP_TOKEN
/// Where a streaming adapter pushes the model's content as it arrives: `out(chunk)`.
///
/// A handle to a callable, not a copy of it: two pointers, cheap to copy, valid during the
/// adapter call it was given to. Call it with the pieces of the content in order, one call at a
/// time (from any thread, but never two at once), and never after the call has returned.
/// Calling it never throws, so it may be called from a C library's callback (libcurl's write
/// callback): the retry wrapper's sink catches what its own work throws (the caller's selector,
/// `std::bad_alloc`), requests stop, and rethrows it once the adapter has returned.
///
/// **Example** (a sink of one's own, to try an adapter without the wrapper):
/// ```cpp
/// std::string got;
/// auto append = [&](std::string_view chunk) noexcept { got += chunk; };
/// adapter(request, llmjson::sink(append), std::stop_token{});
/// ```
class sink {
 public:
  /// A sink that calls `f(chunk)`. `f` must outlive the sink, and must be callable on a
  /// `std::string_view` without throwing (declared `noexcept`). A temporary is refused: the sink
  /// would point to it after it is gone.
  template <class F>
    requires(std::is_object_v<F> && !std::same_as<std::remove_cvref_t<F>, sink> &&
             std::is_nothrow_invocable_v<F&, std::string_view>)
  explicit sink(F& f) noexcept
      : target_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_(&call_target<F>) {}

  /// Pushes the next piece of the content. Does not throw.
  void operator()(std::string_view chunk) const noexcept { call_(target_, chunk); }

 private:
  template <class F>
  static void call_target(void* f, std::string_view chunk) noexcept {
    (*static_cast<F*>(f))(chunk);
  }

  void* target_;
  void (*call_)(void*, std::string_view) noexcept;
};
#endif

namespace detail {

/// Whether `a(request)` returns a completion, called as the retry wrapper calls it.
template <class A, class Req>
concept TakesRequest = requires(A& a, const Req& request) {
  { a(request) } -> std::convertible_to<completion>;
};

#if LLMJSON_HAS_STOP_TOKEN
/// Whether `a(request, stop)` returns a completion, called exactly as the retry wrapper calls it:
/// the token is a `const std::stop_token&` lvalue, so an adapter parameter of type
/// `std::stop_token`, `const std::stop_token&` or a template fits, and `std::stop_token&` or
/// `std::stop_token&&` does not.
template <class A, class Req>
concept TakesStopToken = requires(A& a, const Req& request, const std::stop_token& stop) {
  { a(request, stop) } -> std::convertible_to<completion>;
};

/// Whether `a(request, out, stop)` returns a completion, called exactly as the retry wrapper
/// calls it: `out` is a `const llmjson::sink&` lvalue and `stop` a `const std::stop_token&` one,
/// so a sink parameter of type `llmjson::sink`, `const llmjson::sink&`, a template or a
/// `std::function<void(std::string_view)>` fits, and `llmjson::sink&` or `llmjson::sink&&` does
/// not.
template <class A, class Req>
concept TakesSink = requires(A& a, const Req& request, const sink& out,
                             const std::stop_token& stop) {
  { a(request, out, stop) } -> std::convertible_to<completion>;
};
#else
template <class A, class Req>
concept TakesStopToken = false;
template <class A, class Req>
concept TakesSink = false;
#endif

}  // namespace detail

/// An adapter calls the model once with the caller's request and returns what came back.
///
/// Requires: callable on a non-const `a` in one of three forms, returning something convertible
/// to `llmjson::completion` (a `message`, an `api_error`, a `bad_response`, or a `completion`):
/// - `a(const Req& request)`;
/// - where the standard library has `std::stop_token` (`LLMJSON_HAS_STOP_TOKEN`),
///   `a(const Req& request, const std::stop_token& stop)`;
/// - there too, the streaming form (`StreamingAdapter`):
///   `a(const Req& request, const llmjson::sink& out, const std::stop_token& stop)`.
/// Requires: exactly one model call per invocation and no retries of its own; a transport
/// failure is thrown, and the caller receives that exception unchanged.
///
/// `Req` is the caller's: a prompt string, a chat message list, a struct of their own. The
/// adapter never gets a chance to modify it (it is passed as `const Req&`). When several forms
/// are callable, the wrapper uses the streaming one, else the one with the stop token. The
/// concept checks exactly the calls the wrapper makes: an adapter that satisfies it is one the
/// wrapper can call.
///
/// **Example**:
/// ```cpp
/// auto adapter = [&](std::string_view prompt) -> llmjson::completion {
///   return llmjson::message{.content = my_client.chat(prompt), .finish_reason = "stop"}; };
/// static_assert(llmjson::Adapter<decltype(adapter), std::string>);
/// ```
template <class A, class Req>
concept Adapter =
    detail::TakesRequest<A, Req> || detail::TakesStopToken<A, Req> || detail::TakesSink<A, Req>;

/// The streaming form of an `Adapter`: it pushes the content into `out` as it arrives, and ends
/// the call early when `stop` is requested.
///
/// Requires (where `LLMJSON_HAS_STOP_TOKEN`; elsewhere no type satisfies it): callable on a
/// non-const `a` as `a(const Req& request, const llmjson::sink& out, const std::stop_token&
/// stop)`, returning something convertible to `llmjson::completion`.
/// Requires: every piece of the content goes through `out`, in order, as it arrives. The
/// returned `message` leaves `content` empty (or equal to all that went through `out`; an adapter
/// whose provider answered without streaming may return the content whole and push nothing).
/// Its `reasoning`, `role` and `finish_reason` are as for the other forms (`finish_reason` ""
/// when the call ended before the provider sent one).
/// Requires: when `stop` is requested, the call ends as soon as it can (an HTTP adapter closes
/// the connection) and returns what it has, the message so far, rather than throwing.
///
/// The retry wrapper requests stop when the answer is settled (`retry_options::stop_early`), as
/// well as when the caller's token is stopped.
template <class A, class Req>
concept StreamingAdapter = detail::TakesSink<A, Req>;

/// `Adapter<A, Req>` with the request first, to constrain a request type.
///
/// A request that no adapter form accepts is refused at the retry wrapper's call, with this
/// concept named. An adapter that takes the request by non-const reference, or returns something
/// else than a completion, is refused there too, with a static_assert that names the rule.
template <class Req, class A>
concept RequestFor = Adapter<A, Req>;

namespace detail {

/// The parameters and result of a callable's one call operator, for the adapters whose
/// declaration can be read without a request type: functions, function pointers, and classes
/// with exactly one call operator that is not a template (lambdas that do not take `auto`).
template <class F>
struct call_signature {
  static constexpr bool known = false;
};
template <class R, class First, class... Rest>
struct call_signature<R(First, Rest...)> {
  static constexpr bool known = true;
  using result = R;
  using request = First;
};
template <class R, class... P>
struct call_signature<R (*)(P...)> : call_signature<R(P...)> {};
template <class R, class... P>
struct call_signature<R (*)(P...) noexcept> : call_signature<R(P...)> {};
template <class R, class C, class... P>
struct call_signature<R (C::*)(P...)> : call_signature<R(P...)> {};
template <class R, class C, class... P>
struct call_signature<R (C::*)(P...) const> : call_signature<R(P...)> {};
template <class R, class C, class... P>
struct call_signature<R (C::*)(P...) noexcept> : call_signature<R(P...)> {};
template <class R, class C, class... P>
struct call_signature<R (C::*)(P...) const noexcept> : call_signature<R(P...)> {};

/// `call_signature` of `A`'s call operator, or of `A` itself (a function pointer).
template <class A>
constexpr auto signature_of() noexcept {
  if constexpr (requires { &A::operator(); }) {
    return call_signature<decltype(&A::operator())>{};
  } else {
    return call_signature<A>{};
  }
}
template <class A>
using signature_t = decltype(signature_of<A>());

/// Whether `A`'s declaration alone shows that no request can be passed as the wrapper passes it:
/// its first parameter is a non-const lvalue reference (the wrapper passes a `const Req&`), or
/// it returns something that is not a completion.
template <class A>
constexpr bool misdeclared_adapter() noexcept {
  using sig = signature_t<A>;
  if constexpr (!sig::known) {
    return false;
  } else {
    using P = typename sig::request;
    return (std::is_lvalue_reference_v<P> && !std::is_const_v<std::remove_reference_t<P>>) ||
           !std::is_convertible_v<typename sig::result, completion>;
  }
}

/// Whether `a` takes the request in one of the adapter forms once the request may be modified
/// or the result may be anything: an adapter that breaks only those two rules.
template <class A, class Req>
concept CallableIgnoringRules = std::invocable<A&, Req&> || std::invocable<A&, const Req&>
#if LLMJSON_HAS_STOP_TOKEN
    || std::invocable<A&, Req&, const std::stop_token&> ||
    std::invocable<A&, const Req&, const std::stop_token&> ||
    std::invocable<A&, Req&, const sink&, const std::stop_token&> ||
    std::invocable<A&, const Req&, const sink&, const std::stop_token&>
#endif
    ;

/// What the retry wrapper's calls accept: a request for the adapter (`RequestFor`), or a
/// request for an adapter that takes it by non-const reference or returns something else than a
/// completion. The call accepts the latter only to fail the build with `explain_adapter`, whose
/// message says which rule it breaks, instead of "no matching function".
template <class Req, class A>
concept RequestOrMisdeclared = RequestFor<Req, A> ||
    misdeclared_adapter<A>() || CallableIgnoringRules<A, Req>;

/// Fails the build with the rule an adapter breaks. Called only when `Adapter<A, Req>` is false,
/// before anything else is instantiated with that adapter, so this is the first error.
template <class A, class Req>
constexpr void explain_adapter() {
  using sig = signature_t<A>;
  constexpr bool returns_other = [] {
    if constexpr (sig::known) {
      return !std::is_convertible_v<typename sig::result, completion>;
    } else if constexpr (std::invocable<A&, const Req&>) {
      return !std::is_convertible_v<std::invoke_result_t<A&, const Req&>, completion>;
    } else if constexpr (std::invocable<A&, Req&>) {
      return !std::is_convertible_v<std::invoke_result_t<A&, Req&>, completion>;
    } else {
      return false;
    }
  }();
  if constexpr (returns_other) {
    static_assert(dependent_false<A>,
                  "llmjson: the adapter must return llmjson::completion (or a message, api_error "
                  "or bad_response): declare it `-> llmjson::completion` and return "
                  "llmjson::message{.content = text, .finish_reason = reason}, not the text. See "
                  "Adapter in <llmjson/adapter.hpp>");
  } else {
    static_assert(dependent_false<A>,
                  "llmjson: the adapter must be callable with `const Request&`: take the request "
                  "by value or by const reference (`const std::string& prompt`), not by non-const "
                  "reference; the wrapper never lets an adapter modify the request. See Adapter "
                  "in <llmjson/adapter.hpp>");
  }
}

#if LLMJSON_HAS_STOP_TOKEN
/// Calls a streaming adapter once.
template <class A, RequestFor<A> Req>
  requires StreamingAdapter<A, Req> completion call_adapter(A& adapter, const Req& request,
                                                            const sink& out,
                                                            const std::stop_token& stop) {
    return completion(adapter(request, out, stop));
  }

/// Calls the adapter once, with the stop token when it takes one.
template <class A, RequestFor<A> Req>
  requires(!StreamingAdapter<A, Req>)
completion call_adapter(A& adapter, const Req& request, const std::stop_token& stop) {
  if constexpr (TakesStopToken<A, Req>) {
    return completion(adapter(request, stop));
  } else {
    return completion(adapter(request));
  }
}
#else
/// Calls the adapter once.
template <class A, RequestFor<A> Req>
completion call_adapter(A& adapter, const Req& request) {
  return completion(adapter(request));
}
#endif

}  // namespace detail

}  // namespace llmjson

#endif  // LLMJSON_ADAPTER_HPP_INCLUDED
