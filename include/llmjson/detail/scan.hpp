// llmjson: the one-pass brace scan and candidate collection behind candidates()
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/engine.hpp>
#include <llmjson/detail/frames.hpp>
#include <llmjson/detail/utf8.hpp>
#include <llmjson/detail/validator.hpp>
#include <llmjson/fence.hpp>

namespace llmjson::detail {

/// What `[b, e)` holds as one JSON value: a whole value, a valid prefix of one, neither, or
/// nothing but JSON white space.
enum class value_shape { complete, prefix, invalid, blank };

/// Runs the validator over `[b, e)` (JSON white space around the value allowed). `[vb, ve)` is
/// the text without the white space around it.
inline value_shape shape_of(validator& v, std::string_view text, std::size_t b, std::size_t e,
                            std::size_t max_depth, std::size_t& vb, std::size_t& ve,
                            bool quiet = true) {
  while (b < e && is_json_ws(text[b])) ++b;
  vb = b;
  ve = e;
  while (ve > vb && is_json_ws(text[ve - 1])) --ve;
  if (vb == ve) return value_shape::blank;
  v.reset(text, max_depth, quiet);
  for (std::size_t i = b; i < e; ++i)
    if (!v.feed(i)) return value_shape::invalid;
  return v.finish(e) ? value_shape::complete : value_shape::prefix;
}

/// Turns byte offsets into 1-based lines and code-point columns, walking the text once for a
/// sorted list of offsets. A leading BOM takes no column.
class position_finder {
 public:
  explicit position_finder(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
  }
  /// Points at the same text, moved or grown (a stream's buffer).
  void rebind(std::string_view text) noexcept { text_ = text; }

  /// Returns {line, column} of `offset`; offsets must come in non-decreasing order, and the
  /// byte after `offset` must be there when the one at `offset - 1` is a CR.
  std::pair<std::size_t, std::size_t> at(std::size_t offset) {
    offset = std::min(offset, text_.size());
    for (; at_ < offset; ++at_) {
      const char c = text_[at_];
      if (c == '\n' || (c == '\r' && (at_ + 1 >= text_.size() || text_[at_ + 1] != '\n'))) {
        ++line_;
        column_ = 1;
      } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++column_;
      }
    }
    return {line_, column_};
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
  std::size_t column_ = 1;
};

/// Finds again why the span `[begin, end)` is not valid JSON: validity does not depend on
/// what surrounds a span, so validating it alone stops at the same byte, for the same reason.
/// Costs the span's length, once per reported span (reported spans never overlap).
inline void diagnose(validator& v, std::string_view text, std::size_t max_depth, std::size_t begin,
                     std::size_t end, std::size_t& offset, std::string& why) {
  v.reset(text, max_depth);
  std::size_t i = begin;
  while (i < end && v.feed(i)) ++i;
  if (!v.failed()) v.finish(end);
  offset = v.failed() ? v.error_offset() : begin;
  why = v.failed() ? v.reason() : "not valid JSON";
}

/// Builds the value of a span the validator accepted. nlohmann refuses only numbers that do not
/// fit a double (`1e400`): that span is valid JSON with no value llmjson could hand out.
inline bool build_value(std::string_view span, nlohmann::json& out, std::string& why) {
  out = nlohmann::json::parse(span.begin(), span.end(), nullptr, false);
  if (!out.is_discarded()) return true;
  try {
    nlohmann::json probe = nlohmann::json::parse(span.begin(), span.end());
    (void)probe;
    why = "nlohmann/json could not represent the value";
  } catch (const nlohmann::json::exception& e) {
    why = "a number is out of range for a double";
    if (std::string_view(e.what()).find("out_of_range") == std::string_view::npos)
      why = "nlohmann/json could not represent the value";
  }
  return false;
}

}  // namespace llmjson::detail

namespace llmjson::detail {

/// Finds why an invalid record is not valid JSON, if the scan did not say.
inline void prepare(record& r, validator& v, std::string_view text, std::size_t max_depth) {
  if (!r.valid && r.problem.empty())
    diagnose(v, text, max_depth, r.begin, r.end, r.problem_offset, r.problem);
}

/// The public candidate of a prepared record: views into `text`, positions (`position_of`
/// gives {line, column} of an offset), and its value when it is valid JSON.
template <class PositionOf>
candidate make_candidate(std::string_view text, record& r, PositionOf&& position_of) {
  candidate c;
  c.text = text.substr(r.begin, r.end - r.begin);
  c.offset = r.begin;
  std::tie(c.line, c.column) = position_of(r.begin);
  c.source = r.src;
  c.info = text.substr(r.info_at, r.info_len);
  c.in_fence = r.in_fence;
  c.in_reasoning = r.in_reasoning;
  c.marker = text.substr(r.marker_at, r.marker_len);
  c.valid = r.valid;
  if (c.valid) c.valid = build_value(c.text, c.value, r.problem);
  if (!c.valid) {
    c.value = nlohmann::json(nlohmann::json::value_t::discarded);
    auto [line, column] = position_of(r.valid ? r.begin : r.problem_offset);
    c.problem =
        "line " + std::to_string(line) + " col " + std::to_string(column) + ": " + r.problem;
  }
  return c;
}

/// The public scan result of an engine that has read all of `text`: views, positions, values
/// and reasons. Positions take one walk over the text, for the sorted offsets reported. The
/// first candidates may be made already (`made`, a stream's); they are taken as they are.
inline scan_result make_scan_result(std::string_view text, engine& scan,
                                    std::vector<candidate>&& made = {}) {
  std::vector<record>& recs = scan.records;
  validator v;

  // Positions, in one walk over the text.
  std::vector<std::size_t> offsets;
  offsets.reserve(recs.size() * 2 + scan.near.size() + 2);
  for (std::size_t k = made.size(); k < recs.size(); ++k) {
    record& r = recs[k];
    prepare(r, v, text, scan.max_depth());
    offsets.push_back(r.begin);
    if (!r.valid) offsets.push_back(r.problem_offset);
  }
  const std::size_t shown_near = std::min(scan.near.size(), max_near_misses);
  for (std::size_t k = 0; k < shown_near; ++k) offsets.push_back(scan.near[k].begin);
  if (scan.cut) {
    offsets.push_back(scan.cut->offset);
    offsets.push_back(scan.cut->fence_offset);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::vector<std::pair<std::size_t, std::size_t>> positions(offsets.size());
  position_finder finder(text);
  for (std::size_t k = 0; k < offsets.size(); ++k) positions[k] = finder.at(offsets[k]);
  auto position_of = [&](std::size_t offset) {
    return positions[static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.end(), offset) - offsets.begin())];
  };
  auto at = [&](std::size_t offset) {
    auto [line, column] = position_of(offset);
    return std::to_string(line) + ":" + std::to_string(column);
  };

  scan_result out;
  out.candidates = std::move(made);
  out.candidates.reserve(recs.size());
  for (std::size_t k = out.candidates.size(); k < recs.size(); ++k)
    out.candidates.push_back(make_candidate(text, recs[k], position_of));
  out.near_miss_count = scan.near.size();
  for (std::size_t k = 0; k < shown_near; ++k) {
    near_miss m;
    m.offset = scan.near[k].begin;
    m.text = text.substr(m.offset, scan.near[k].end - m.offset);
    std::tie(m.line, m.column) = position_of(m.offset);
    std::size_t ignored = 0;
    diagnose(v, text, scan.max_depth(), m.offset, scan.near[k].end, ignored, m.reason);
    out.near_misses.push_back(std::move(m));
  }
  if (scan.cut) {
    const pending_cut& p = *scan.cut;
    const std::string_view info = text.substr(p.info_at, p.info_len);
    const std::string_view marker = text.substr(p.marker_at, p.marker_len);
    llmjson::cut k;
    k.offset = p.offset;
    std::tie(k.line, k.column) = position_of(p.offset);
    switch (p.kind) {
      case pending_cut::what::object:
        k.what = "the object opened at " + at(p.offset) + " never closes";
        break;
      case pending_cut::what::array:
        k.what = "the array opened at " + at(p.offset) + " never closes";
        break;
      case pending_cut::what::value:
        k.what = (text[p.offset] == '"' ? "the string opened at " : "the value at ") +
                 at(p.offset) + (text[p.offset] == '"' ? " never closes" : " is cut short");
        break;
      case pending_cut::what::fence:
        k.what = "the fence" + (info.empty() ? std::string{} : " \"" + std::string(info) + "\"") +
                 " opened at line " + std::to_string(position_of(p.fence_offset).first) +
                 " never closes and its body " + std::string(p.body);
        break;
      case pending_cut::what::region:
        k.reasoning = true;
        k.marker = std::string(marker);
        k.what = marker.empty()
                     ? "the reasoning that the prompt opened never closes: the output ended before "
                       "any answer"
                     : "the reasoning opened at " + at(p.offset) + " (" + one_line(marker) +
                           ") never closes: the output ended before any answer";
        break;
    }
    out.truncation = std::move(k);
  }
  return out;
}

}  // namespace llmjson::detail

namespace llmjson {

inline scan_result candidates(std::string_view text, const options& opts) {
  detail::engine scan(opts);
  scan.advance(text, /*ended=*/true);
  return detail::make_scan_result(text, scan);
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_HPP_INCLUDED
