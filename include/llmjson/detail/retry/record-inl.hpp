// llmjson: the bodies of detail/retry/record.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_RECORD_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_RECORD_INL_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/retry/record.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/result.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

LLMJSON_INLINE answer make_answer(extraction&& x) {
  candidate& c = x.candidates[x.index];
  answer a;
  // Built unless `options::answer_value` was off (the answer holds its value); a copy: the
  // candidate's value is shared and immutable. (A valid candidate's value is always built: the
  // scan checked that nlohmann can hold its numbers.)
  if (ensure_value(c)) a.json = *c.json;
  a.text = std::string(c.text);
  a.offset = c.offset;
  a.line = c.line;
  a.column = c.column;
  a.source = c.source;
  a.info = std::string(c.info);
  a.in_fence = c.in_fence;
  a.fallback = x.fallback;
  a.policy = x.policy;
  a.truncation = std::move(x.truncation);
  a.raw_controls = c.raw_controls;
  a.prefilled = c.prefilled;
  return a;
}

LLMJSON_INLINE result<answer> to_answer(result<extraction>&& r) {
  if (!r) return std::move(r).error();
  return make_answer(std::move(*r));
}

LLMJSON_INLINE void record_cut_after_answer(const result<extraction>& r, attempt& a) {
  if (!r || !r->truncation) return;
  const candidate& c = r->chosen();
  a.truncation = r->truncation;
  a.message = "answer at " + std::to_string(c.line) + ":" + std::to_string(c.column) +
              " taken; the output was cut after it: " + r->truncation->message;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_RECORD_INL_HPP_INCLUDED
