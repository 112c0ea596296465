// llmjson: a span that is one JSON value, checked and built in two quick passes
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/validator.hpp>

namespace llmjson::detail {

/// Whether `text[b, e)` is one valid JSON value under the rules (JSON white space around it
/// allowed), built into `out`: the validator reads it (the rules' own reading, which tells a
/// repeated key and nesting deeper than `max_depth`), then `value_builder` builds it without
/// checking again, together several times faster than nlohmann's parse alone. A `false` decides
/// nothing: the caller reads the text the slow way, which tells a prefix, an invalid text, or a
/// value nlohmann cannot hold (`1e400`).
inline bool parse_whole(std::string_view text, std::size_t b, std::size_t e, std::size_t max_depth,
                        nlohmann::json& out) {
  validator v;
  std::size_t vb = 0, ve = 0;
  if (shape_of(v, text, b, e, max_depth, vb, ve) != value_shape::complete) return false;
  return build_json(text.substr(vb, ve - vb), out);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
