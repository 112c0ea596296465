// llmjson: cancellation: the stop token of one retrying call
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_STOP_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_STOP_HPP_INCLUDED

#include <optional>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>

namespace llmjson::detail {

#if LLMJSON_HAS_STOP_TOKEN
/// The stop token passed to one call, if any; `std::stop_token{}` for the calls without one.
using call_stop = std::stop_token;

/// One token for one call: stopped as soon as the wrapper's or the call's token is. When only
/// one of them can be stopped, it is that token itself (no allocation).
class joined_stop {
 public:
  joined_stop(const std::stop_token& wrapper, const std::stop_token& call);
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
#else
/// No stop tokens in this standard library: the calls take none.
struct call_stop {};
#endif

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/retry/stop-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_RETRY_STOP_HPP_INCLUDED
