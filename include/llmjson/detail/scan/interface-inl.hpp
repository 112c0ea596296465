// llmjson: the bodies of detail/scan/interface.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_INTERFACE_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_INTERFACE_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/engine.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/positions.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/scanner-inl.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

LLMJSON_INLINE bool ensure_value(candidate& c) {
  if (!c.valid || c.in_reasoning) return false;
  if (c.json) return true;
  nlohmann::json value;
  const std::string escaped = c.raw_controls ? minify(c.text) : std::string();
  if (build_json(c.raw_controls ? std::string_view(escaped) : c.text, value)) {
    c.json = std::make_shared<const nlohmann::json>(std::move(value));
    return true;
  }
  c.valid = false;  // unreachable: the scan checked its numbers (numbers_fit)
  c.raw_controls = false;
  c.message = "nlohmann/json could not represent the value";
  return false;
}

LLMJSON_INLINE const char* valid_json_type(std::string_view span) noexcept {
  return type_name_of(span);
}

LLMJSON_INLINE bool has_top_level_key(std::string_view span, const std::vector<std::string>& keys) {
  return any_top_level_key(span, [&](std::string_view k) {
    for (const std::string& want : keys)
      if (want == k) return true;
    return false;
  });
}

LLMJSON_INLINE bool surely_lacks_keys(std::string_view span,
                                      std::span<const std::string> keys) noexcept {
  // Without a backslash every key is written as it is: one that is there shows as `"key"`.
  // Keys up to 32 bytes: a search compares at most that many bytes where one could start.
  if (span.find('\\') != std::string_view::npos) return false;
  for (const std::string& key : keys) {
    if (key.size() > 32) return false;
    for (std::size_t at = span.find(key, 1); at != std::string_view::npos;
         at = span.find(key, at + 1))
      if (span[at - 1] == '"' && at + key.size() < span.size() && span[at + key.size()] == '"')
        return false;
  }
  return true;
}

LLMJSON_INLINE bool opens_stripped_harmony(std::string_view marker) noexcept {
  return marker.size() == stripped_open.size() && marker_at(marker, 0, stripped_open);
}

LLMJSON_INLINE std::vector<std::pair<std::size_t, std::size_t>> reasoning_regions(
    std::string_view text, const options& opts) {
  options unbounded = opts;
  unbounded.max_candidates = std::numeric_limits<std::size_t>::max();
  unbounded.max_open_frames = std::numeric_limits<std::size_t>::max();
  engine reader(unbounded);
  std::vector<fence_span> fences;  // unused: asking only for fences skips the frame scan
  std::vector<part_span> parts;
  reader.collect_fences(fences, /*only=*/true);
  reader.collect_parts(parts);
  reader.advance(text, /*ended=*/true);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].region) continue;
    const std::size_t from = std::min(parts[k].begin, parts[k].marker_at);
    const std::size_t to = k + 1 < parts.size() ? parts[k + 1].begin : text.size();
    if (from < to) out.emplace_back(from, std::min(to, text.size()));
  }
  return out;
}

LLMJSON_INLINE std::size_t fault_offset(std::string_view text, const candidate& c,
                                        const options& opts) {
  validator v;
  std::size_t at = c.offset;
  std::string why;
  // A span that starts in the prefill lies in the content from 0 (its bytes there). A frame's
  // raw line breaks and tabs are no fault (rules §3): its message names the one.
  diagnose(v, text, std::min(opts.max_depth, max_depth_limit), c.offset,
           std::min(text.size(), c.offset + c.text.size() - c.prefilled), at, why,
           c.source == source::prose);
  return at;
}

LLMJSON_INLINE std::vector<std::pair<std::size_t, std::size_t>> line_columns(
    std::string_view text, const std::vector<std::size_t>& offsets) {
  position_finder positions(text);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  out.reserve(offsets.size());
  for (std::size_t offset : offsets) out.push_back(positions.at(offset));
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_INTERFACE_INL_HPP_INCLUDED
