// llmjson: one attempt of an adapter that returns the whole message at once
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_WHOLE_ATTEMPT_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_WHOLE_ATTEMPT_HPP_INCLUDED

#include <optional>
#include <utility>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/retry/record.hpp>
#include <llmjson/detail/retry/stop.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// Calls the adapter once (with `stop`, where it takes a token), records in `a` what it returned,
/// and has `finder(message&&, attempt&)` look for the answer in the message. Returns
/// std::nullopt when there was no message (an `api_error`, a `bad_response`). Whatever the
/// adapter or the finder
/// throws goes through.
template <class Out, class A, class Req, class Finder>
std::optional<found<Out>> whole_attempt(A& adapter, const Req& request,
                                        [[maybe_unused]] const call_stop& stop,
                                        const Finder& finder, attempt& a) {
  auto find_in = [&](message& m) -> std::optional<found<Out>> {
    a.content = m.content;
    return finder(std::move(m), a);
  };
#if LLMJSON_HAS_STOP_TOKEN
  return take_completion<Out>(call_adapter(adapter, request, stop), a, find_in);
#else
  return take_completion<Out>(call_adapter(adapter, request), a, find_in);
#endif
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_WHOLE_ATTEMPT_HPP_INCLUDED
