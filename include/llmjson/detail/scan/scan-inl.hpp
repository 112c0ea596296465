// llmjson: the bodies of candidates() and fences()
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED

#include <string_view>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/fences.hpp>
#include <llmjson/detail/scan/scanner.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>
#include <llmjson/scan.hpp>

namespace llmjson {

LLMJSON_INLINE scan_result candidates(std::string_view text, const options& opts) {
  return detail::scanner::scan(text, opts);
}

LLMJSON_INLINE std::vector<fence> fences(std::string_view text) {
  // A leading UTF-8 BOM is no part of the first line (as CommonMark implementations strip it).
  return detail::fences_in(text, text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0, text.size());
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED
