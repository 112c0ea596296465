// llmjson: why a span is not valid JSON, found again by the validator (the scanner's candidates
// and the retry feedback's excerpts word it alike)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_DIAGNOSE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_DIAGNOSE_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/scan/validator.hpp>

namespace llmjson::detail {

/// Finds again why the span `[begin, end)` is not valid JSON: validity does not depend on
/// what surrounds a span, so validating it alone stops at the same byte, for the same reason.
/// Costs the span's length, once per reported span (reported spans never overlap).
inline void diagnose(validator& v, std::string_view text, std::size_t max_depth, std::size_t begin,
                     std::size_t end, std::size_t& offset, std::string& why,
                     bool raw_whitespace = false) {
  v.reset(text, max_depth);
  if (raw_whitespace) v.allow_raw_whitespace();
  v.run(begin, end);  // a token at a time, as `feed` would read it a byte at a time
  if (!v.failed()) v.finish(end);
  offset = v.failed() ? v.fault_offset() : begin;
  why = v.failed() ? v.reason() : "not valid JSON";
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_DIAGNOSE_HPP_INCLUDED
