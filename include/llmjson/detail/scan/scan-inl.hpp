// llmjson: the bodies of candidates(), fences() and source_label()
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/engine.hpp>
#include <llmjson/detail/scan/positions.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/scanner.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>
#include <llmjson/scan.hpp>

namespace llmjson {

LLMJSON_INLINE scan_result candidates(std::string_view text, const options& opts) {
  return detail::scanner::scan(text, opts);
}

// §2 Fences, read by the engine itself (one fence walker): per part, reasoning regions and
// harmony tokens respected, the default options. The segments are not scanned (no candidate is
// wanted), and no limit stops the reading.
LLMJSON_INLINE std::vector<fence> fences(std::string_view text) {
  options opts;
  opts.max_candidates = std::numeric_limits<std::size_t>::max();
  opts.max_open_frames = std::numeric_limits<std::size_t>::max();
  detail::engine reader(opts);
  std::vector<detail::fence_span> spans;
  reader.collect_fences(spans, /*only=*/true);
  reader.advance(text, /*ended=*/true);
  detail::position_finder lines(text);
  std::vector<fence> out;
  out.reserve(spans.size());
  for (const detail::fence_span& s : spans) {
    fence f;
    f.text = text.substr(s.begin, s.end - s.begin);
    f.offset = s.begin;
    f.body = text.substr(s.body_begin, s.body_end - s.body_begin);
    f.body_offset = s.body_begin;
    f.info = text.substr(s.info_at, s.info_len);
    f.fence_char = s.fence_char;
    f.fence_length = s.fence_length;
    f.line = lines.at(s.begin).first;
    f.closed = s.closed;
    out.push_back(f);
  }
  return out;
}

LLMJSON_INLINE std::string source_label(const candidate& c) {
  // Appended piece by piece: g++ 12 -O2 warns (-Wrestrict, a false positive) on "literal" + string.
  std::string out;
  switch (c.source) {
    case source::whole: return "whole output";
    case source::part: return "whole part";
    case source::fence: out = "fence"; break;
    case source::prose:
      if (!c.in_fence) return "prose";
      out = "in fence";
      break;
  }
  out += " \"";
  out += detail::one_line(c.info);
  out += '"';
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_SCAN_INL_HPP_INCLUDED
