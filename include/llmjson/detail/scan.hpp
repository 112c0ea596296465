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
#include <llmjson/detail/positions.hpp>
#include <llmjson/detail/utf8.hpp>
#include <llmjson/detail/validator.hpp>
#include <llmjson/detail/whole.hpp>
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

/// Why a record is not valid JSON (`problem`, at `offset`): what cut it, or what the validator
/// finds again on its own (validity does not depend on what surrounds a span). Nothing for a
/// valid record.
inline void diagnose(const record& r, validator& v, std::string_view text, std::size_t max_depth,
                     std::size_t& offset, std::string& problem) {
  if (r.valid) return;
  if (r.cut != cut_by::none) {
    offset = r.end;
    problem = std::string(text[r.begin] == '[' ? "the array" : "the object") +
              " never closes: " + std::string(to_string(r.cut)) + " cuts it";
    return;
  }
  diagnose(v, text, max_depth, r.begin, r.end, offset, problem);
}

/// The public candidate of a record: views into `text`, positions (`position_of` gives
/// {line, column} of an offset), its value when it is valid JSON, and why not when it is not
/// (`problem` at `problem_offset`, from `diagnose`).
template <class PositionOf>
candidate make_candidate(std::string_view text, const record& r, const context& where,
                         std::size_t problem_offset, std::string problem, PositionOf&& position_of,
                         bool build = true) {
  candidate c;
  c.text = text.substr(r.begin, r.end - r.begin);
  c.offset = r.begin;
  std::tie(c.line, c.column) = position_of(r.begin);
  c.source = r.src;
  c.info = text.substr(where.info_at, where.info_len);
  c.in_fence = where.in_fence;
  c.in_reasoning = where.in_reasoning;
  c.marker = text.substr(where.marker_at, where.marker_len);
  c.valid = r.valid;
  c.enclosed = r.enclosed;
  if (!build) return c;  // valid, its value built already
  if (c.valid) c.valid = build_value(c.text, c.value, problem);
  if (!c.valid) {
    c.value = nlohmann::json(nlohmann::json::value_t::discarded);
    auto [line, column] = position_of(r.valid ? r.begin : problem_offset);
    c.message = "line " + std::to_string(line) + " col " + std::to_string(column) + ": " + problem;
  }
  return c;
}

/// The fast path: when the whole output (a BOM and white space aside) is one object or array,
/// its one candidate, checked and built in one nlohmann pass. Nothing otherwise: the engine then
/// reads the text and decides (the same way: a whole value owns all inside it).
inline std::optional<scan_result> whole_candidate(std::string_view text, const options& opts) {
  const std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  std::size_t b = start, e = text.size();
  while (b < e && is_json_ws(text[b])) ++b;
  if (b == e || (text[b] != '{' && text[b] != '[')) return std::nullopt;
  while (is_json_ws(text[e - 1])) --e;
  candidate c;
  if (!parse_whole(text, start, text.size(), std::min(opts.max_depth, max_depth_limit), c.value))
    return std::nullopt;
  c.text = text.substr(b, e - b);
  c.offset = b;
  std::tie(c.line, c.column) = position_finder(text).at(b);
  c.source = source::whole;
  c.valid = true;
  scan_result out;
  out.candidates.push_back(std::move(c));
  return out;
}

/// Why a resource limit stopped `scan`, in words; empty when none did.
inline std::string stopped_by(const engine& scan, const options& opts) {
  switch (scan.overflowed()) {
    case overflow::candidates:
      return "the output holds more than " + std::to_string(opts.max_candidates) +
             " candidates (options::max_candidates)";
    case overflow::frames:
      return "the output opens more than " + std::to_string(opts.max_open_frames) +
             " braces and brackets at once (options::max_open_frames)";
    case overflow::none: break;
  }
  return {};
}

/// The public scan result of an engine that has read all of `text`: views, positions, values
/// and reasons. Positions take one walk over the text, for the sorted offsets reported. The
/// first candidates may be made already (`made`, a stream's); they are taken as they are.
inline scan_result make_scan_result(std::string_view text, engine& scan, const options& opts,
                                    std::vector<candidate>&& made = {}) {
  scan_result out;
  out.message = stopped_by(scan, opts);
  if (!out.message.empty()) return out;
  const std::vector<record>& recs = scan.records;
  validator v;

  // Reasons, then positions in one walk over the text.
  std::vector<std::pair<std::size_t, std::string>> problems(recs.size() - made.size());
  std::vector<std::size_t> offsets;
  offsets.reserve(recs.size() * 2 + scan.near.size() + 2);
  for (std::size_t k = made.size(); k < recs.size(); ++k) {
    const record& r = recs[k];
    auto& [problem_at, why] = problems[k - made.size()];
    diagnose(r, v, text, scan.max_depth(), problem_at, why);
    offsets.push_back(r.begin);
    if (!r.valid) offsets.push_back(problem_at);
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

  const std::size_t first_new = made.size();
  out.candidates = std::move(made);
  out.candidates.reserve(recs.size());
  auto built = scan.built.begin();
  for (std::size_t k = first_new; k < recs.size(); ++k) {
    while (built != scan.built.end() && built->first < k) ++built;
    if (built != scan.built.end() && built->first == k) {  // checked and built already
      candidate c = make_candidate(text, recs[k], scan.contexts[recs[k].ctx], 0, {}, position_of,
                                   /*build=*/false);
      c.value = std::move(built->second);
      out.candidates.push_back(std::move(c));
      continue;
    }
    auto& [problem_at, why] = problems[k - first_new];
    out.candidates.push_back(make_candidate(text, recs[k], scan.contexts[recs[k].ctx], problem_at,
                                            std::move(why), position_of));
  }
  out.near_miss_count = scan.near.size();
  for (std::size_t k = 0; k < shown_near; ++k) {
    near_miss m;
    m.offset = scan.near[k].begin;
    m.text = text.substr(m.offset, scan.near[k].end - m.offset);
    std::tie(m.line, m.column) = position_of(m.offset);
    std::size_t ignored = 0;
    diagnose(v, text, scan.max_depth(), m.offset, scan.near[k].end, ignored, m.message);
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
        k.message = "the object opened at " + at(p.offset) + " never closes";
        break;
      case pending_cut::what::array:
        k.message = "the array opened at " + at(p.offset) + " never closes";
        break;
      case pending_cut::what::value:
        k.message = (text[p.offset] == '"' ? "the string opened at " : "the value at ") +
                    at(p.offset) + (text[p.offset] == '"' ? " never closes" : " is cut short");
        break;
      case pending_cut::what::fence:
        k.message = "the fence" +
                    (info.empty() ? std::string{} : " \"" + std::string(info) + "\"") +
                    " opened at line " + std::to_string(position_of(p.fence_offset).first) +
                    " never closes and its body " + std::string(p.body);
        break;
      case pending_cut::what::region:
        k.reasoning = true;
        k.marker = std::string(marker);
        k.message =
            marker.empty()
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
  if (std::optional<scan_result> fast = detail::whole_candidate(text, opts))
    return std::move(*fast);
  detail::engine scan(opts);
  scan.advance(text, /*ended=*/true);
  return detail::make_scan_result(text, scan, opts);
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_HPP_INCLUDED
