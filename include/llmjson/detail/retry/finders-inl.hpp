// llmjson: the bodies of detail/retry/finders.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_FINDERS_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_FINDERS_INL_HPP_INCLUDED

#include <optional>
#include <utility>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/finders.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

LLMJSON_INLINE found<message> content_finder::operator()(message&& m, attempt& a) const {
  if (is_blank(m.content)) {
    a.outcome = attempt_outcome::empty_content;
    a.message = m.content.empty()
                    ? "the reply has no content"
                    : "the reply is only white space (" + count_of(m.content.size(), "byte") + ")";
    return {};
  }
  a.outcome = attempt_outcome::ok;
  return {std::move(m), std::nullopt, nullptr};
}

LLMJSON_INLINE found<message> content_finder::watch::finish(message&& m, attempt& a) {
  m.content = std::move(text_);
  return content_finder{}(std::move(m), a);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_FINDERS_INL_HPP_INCLUDED
