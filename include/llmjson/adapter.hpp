// llmjson: message, api_error, bad_response, completion, and the Adapter concept
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_ADAPTER_HPP_INCLUDED
#define LLMJSON_ADAPTER_HPP_INCLUDED

#include <concepts>
#include <stop_token>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace llmjson {

/// What the model sent back: one assistant message.
///
/// llmjson makes no HTTP call. The caller's adapter does, and fills this in from the provider's
/// reply. An absent content (`"content": null`) and an empty one are the same: `content == ""`.
struct message {
  std::string content;        ///< the text; "" when the provider sent none or null
  std::string finish_reason;  ///< as the provider sent it: `stop`, `length`, `content_filter`,
                              ///< `tool_calls`, ...; "" when it sent none
  std::string role = "assistant";

  friend bool operator==(const message&, const message&) = default;
};

/// The provider answered, but with an error instead of a message (HTTP 429, 500, a bad key).
///
/// The retry wrapper surfaces it at once and never retries it: only the caller knows whether
/// a 429 is worth waiting for, and a 500 may have been billed.
struct api_error {
  int status = 0;       ///< the HTTP status (`429`); 0 when the transport has none
  std::string message;  ///< the provider's own message, as it sent it

  friend bool operator==(const api_error&, const api_error&) = default;
};

/// The adapter got a reply it could not read: a parse error reported by the adapter (a 200
/// whose body is not the provider's JSON, or lacks its expected fields).
///
/// The retry wrapper retries it, like an empty message, within `retry_options::max_attempts`.
struct bad_response {
  std::string message;  ///< one line: what was wrong, with a short excerpt of the body if useful

  friend bool operator==(const bad_response&, const bad_response&) = default;
};

/// What one call of an adapter returns: a message, an API error or a bad response.
///
/// An adapter returns any of the three (or anything that converts to `completion`); a network
/// failure is not a completion: the adapter throws, and the exception reaches the caller.
using completion = std::variant<message, api_error, bad_response>;

namespace detail {

/// Whether `a(request)` returns a completion.
template <class A, class Req>
concept takes_request = requires(A& a, const Req& request) {
  { a(request) } -> std::convertible_to<completion>;
};

/// Whether `a(request, stop)` returns a completion.
template <class A, class Req>
concept takes_stop_token = requires(A& a, const Req& request, std::stop_token stop) {
  { a(request, stop) } -> std::convertible_to<completion>;
};

}  // namespace detail

/// An adapter calls the model once with the caller's request and returns what came back.
///
/// Requires: callable on a non-const `a` as `a(const Req& request)` or
/// `a(const Req& request, std::stop_token stop)`, returning something convertible to
/// `llmjson::completion` (a `message`, an `api_error`, a `bad_response`, or a `completion`).
/// Requires: exactly one model call per invocation and no retries of its own; a transport
/// failure is thrown, and the caller receives that exception unchanged.
///
/// `Req` is the caller's: a prompt string, a chat message list, a struct of their own. The
/// adapter never gets a chance to modify it (it is passed as `const Req&`). When both forms are
/// callable, the wrapper uses the one with the `std::stop_token`.
///
/// **Example**:
/// ```cpp
/// auto adapter = [&](std::string_view prompt) -> llmjson::completion {
///   return llmjson::message{.content = my_client.chat(prompt), .finish_reason = "stop"}; };
/// static_assert(llmjson::Adapter<decltype(adapter), std::string>);
/// ```
template <class A, class Req>
concept Adapter = detail::takes_request<A, Req> || detail::takes_stop_token<A, Req>;

namespace detail {

/// `Adapter<A, Req>`, with the request first: constrains a template parameter,
/// `template <detail::request_for<A> Req>`.
template <class Req, class A>
concept request_for = Adapter<A, Req>;

/// Calls the adapter once, with the stop token when it takes one.
template <class A, request_for<A> Req>
completion call_adapter(A& adapter, const Req& request, const std::stop_token& stop) {
  if constexpr (takes_stop_token<A, Req>) {
    return completion(adapter(request, stop));
  } else {
    return completion(adapter(request));
  }
}

}  // namespace detail

}  // namespace llmjson

#endif  // LLMJSON_ADAPTER_HPP_INCLUDED
