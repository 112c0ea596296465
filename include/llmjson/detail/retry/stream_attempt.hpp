// llmjson: one attempt of a streaming adapter: the sink, the watch, the early stop, the partials
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_STREAM_ATTEMPT_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_STREAM_ATTEMPT_HPP_INCLUDED

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/retry/partials.hpp>
#include <llmjson/detail/retry/record.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

#if LLMJSON_HAS_STOP_TOKEN
/// One attempt of a streaming adapter: the content goes through a sink into the finder's watch,
/// and the call is stopped once the answer is settled (with `stop_early`) or once `call_token`
/// is. What the sink's work throws is rethrown when the adapter has returned (or thrown). The
/// watch's partial answer goes to `on_partial` as it changes (`partial_shows`), and is retracted
/// whenever the attempt ends without an answer.
template <class Out, class A, class Req, class Finder>
std::optional<found<Out>> stream_attempt(
    A& adapter, const Req& request, const std::stop_token& call_token, bool stop_early,
    const std::function<void(const partial_event&)>& on_partial, const Finder& finder, attempt& a) {
  auto watch = finder.start();
  constexpr bool has_partial = partial_watch<decltype(watch)>;
  partial_shows shows(has_partial ? &on_partial : nullptr, a.number);
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
      if constexpr (has_partial) shows.look(watch);
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
    shows.retract_quietly();
    if (thrown) std::rethrow_exception(thrown);  // the cause: the adapter was stopped for it
    throw;
  }
  a.content = std::string(watch.text());  // whatever the adapter returned
  if (thrown) {
    shows.retract_quietly();
    std::rethrow_exception(thrown);
  }
  std::optional<found<Out>> got;
  try {
    got = take_completion<Out>(std::move(c), a, [&](message& m) -> std::optional<found<Out>> {
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
  } catch (...) {  // the selector threw at the end
    shows.retract_quietly();
    throw;
  }
  if constexpr (has_partial) {
    if (got && got->value) {
      shows.show_answer(watch);
    } else {
      shows.retract();
    }
  }
  return got;
}
#endif

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_STREAM_ATTEMPT_HPP_INCLUDED
