// llmjson: what a next_request hook must be, and the build error that says so
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_HOOKS_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_HOOKS_HPP_INCLUDED

#include <concepts>
#include <optional>
#include <type_traits>

#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// Whether a type is a `std::optional`: a hook that returns one may decline to retry.
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
constexpr void explain_hook() {
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
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_HOOKS_HPP_INCLUDED
