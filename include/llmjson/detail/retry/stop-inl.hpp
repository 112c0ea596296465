// llmjson: the bodies of detail/retry/stop.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_STOP_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_STOP_INL_HPP_INCLUDED

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/stop.hpp>

namespace llmjson::detail {

#if LLMJSON_HAS_STOP_TOKEN
LLMJSON_INLINE joined_stop::joined_stop(const std::stop_token& wrapper,
                                        const std::stop_token& call) {
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
#endif

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_STOP_INL_HPP_INCLUDED
