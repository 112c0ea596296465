// llmjson: the bodies of retry_types.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_RETRY_TYPES_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_RETRY_TYPES_INL_HPP_INCLUDED

#include <vector>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson {

LLMJSON_INLINE usage_total total_usage(const std::vector<attempt>& attempts) noexcept {
  usage_total t;
  for (const attempt& a : attempts) {
    if (!a.called()) continue;
    if (a.usage) {
      t.tokens += *a.usage;
      ++t.reported;
    } else {
      ++t.unreported;
    }
  }
  return t;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_RETRY_RETRY_TYPES_INL_HPP_INCLUDED
