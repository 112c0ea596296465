// llmjson: the bodies of detail::scanner (the engine's records made into candidates)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SCANNER_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SCANNER_INL_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/diagnose.hpp>
#include <llmjson/detail/scan/engine.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/frames.hpp>
#include <llmjson/detail/scan/heal.hpp>
#include <llmjson/detail/scan/positions.hpp>
#include <llmjson/detail/scan/relocate.hpp>
#include <llmjson/detail/scan/scanner.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// Builds the value of a span the validator accepted. nlohmann refuses only numbers that do not
/// fit a double (`1e400`): that span is valid JSON with no value llmjson could hand out.
inline bool build_value(std::string_view span, nlohmann::json& out, std::string& why) {
  if (build_json(span, out)) return true;
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
  // A closed frame may hold raw LF, CR and tabs (§3 Raw controls): the reason is its defect.
  diagnose(v, text, max_depth, r.begin, r.end, offset, problem, r.src == source::prose);
}

/// Turns `offset`, a position in the text read (a prefill of `base` bytes, then the output), into
/// a position in the output (§2 The text): `offset` from the output's start, or 0 and
/// `prefilled`, the bytes before it, when it lies in the prefill.
inline void to_output(std::size_t& offset, std::size_t& prefilled, std::size_t base) noexcept {
  prefilled = offset < base ? base - offset : 0;
  offset = offset < base ? 0 : offset - base;
}

/// Whether a candidate's `message` says why it is not valid JSON: always for `candidates()`;
/// for a selection, only outside reasoning (judging overwrites the message of one inside).
inline bool worded(const context& where, scan_for purpose) noexcept {
  return purpose == scan_for::listing || !where.in_reasoning;
}

/// The public candidate of a record: views into `text`, positions (`position_of` gives
/// {line, column} of an offset), its value when it is valid JSON outside reasoning, and why not
/// when it is not valid (`problem` at `problem_offset`, from `diagnose`; neither is read when
/// `worded(where, purpose)` is false, and `message` stays empty).
/// Made in `c`, a candidate as default-constructed: in the result's storage, not moved there.
template <class PositionOf>
void make_candidate(candidate& c, std::string_view text, const record& r, const context& where,
                    std::size_t problem_offset, std::string problem, PositionOf&& position_of,
                    bool build = true, scan_for purpose = scan_for::listing) {
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
  c.raw_controls = r.raw;
  if (!build) return;  // valid, its value built already
  if (c.valid && (c.in_reasoning || purpose == scan_for::selection)) {
    // In reasoning: never the answer (nor the fallback): its value is not built. For selection:
    // built when judging or the answer needs it (`ensure_value`). `json` stays null; whether
    // nlohmann could hold it still decides `valid`, as building it would.
    if (r.big_number && !numbers_fit(c.text)) {
      c.valid = false;
      problem = "a number is out of range for a double";
    }
  } else if (c.valid) {
    nlohmann::json value;
    // With raw controls, the value is that of the text with them escaped (`minify` does).
    c.valid =
        r.raw ? build_value(minify(c.text), value, problem) : build_value(c.text, value, problem);
    if (c.valid) c.json = std::make_shared<const nlohmann::json>(std::move(value));
  }
  if (!c.valid) c.raw_controls = false;      // only a valid candidate is (`1e400` is not)
  if (!c.valid && worded(where, purpose)) {  // no value: `json` stays null
    auto [line, column] = position_of(r.valid ? r.begin : problem_offset);
    c.message = "line " + std::to_string(line) + " col " + std::to_string(column) + ": " + problem;
  }
}

/// `make_candidate` returning it: where a throw must leave the storage as it was (a stream's).
template <class PositionOf>
candidate make_candidate(std::string_view text, const record& r, const context& where,
                         std::size_t problem_offset, std::string problem, PositionOf&& position_of,
                         bool build = true, scan_for purpose = scan_for::listing) {
  candidate c;
  make_candidate(c, text, r, where, problem_offset, std::move(problem), position_of, build,
                 purpose);
  return c;
}

/// The fast path: when the whole output (a BOM and white space aside) is one object or array,
/// its one candidate, checked and (for `scan_for::listing`) built. Nothing otherwise: the engine
/// then reads the text and decides (the same way: a whole value owns all inside it).
inline std::optional<scan_result> whole_candidate(std::string_view text, const options& opts,
                                                  std::size_t base = 0,
                                                  scan_for purpose = scan_for::listing) {
  const std::size_t start = bom_length(text);
  std::size_t b = start, e = text.size();
  while (b < e && is_json_ws(text[b])) ++b;
  if (b == e || (text[b] != '{' && text[b] != '[')) return std::nullopt;
  while (is_json_ws(text[e - 1])) --e;
  // For selection, checked only: its value is built when judging or the answer asks for it.
  nlohmann::json value;
  const bool build = purpose == scan_for::listing;
  if (!parse_whole(text, start, text.size(), std::min(opts.max_depth, max_depth_limit),
                   build ? &value : nullptr))
    return std::nullopt;
  candidate c;
  if (build) c.json = std::make_shared<const nlohmann::json>(std::move(value));
  c.text = text.substr(b, e - b);
  c.offset = b;
  std::tie(c.line, c.column) = position_finder(text).at(b);
  c.source = source::whole;
  c.valid = true;
  to_output(c.offset, c.prefilled, base);
  scan_result out;
  out.candidates.push_back(std::move(c));
  return out;
}

/// Why a resource limit stopped `reader`, in words; empty when none did.
inline std::string stopped_by(const engine& reader, const options& opts) {
  switch (reader.overflowed()) {
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

/// Why a record is not valid JSON, worded (`diagnose`): `why`, at byte `at`.
struct record_problem {
  std::size_t at = 0;
  std::string why;
};

/// The problems of the records from `first` on that are worded (`worded`), in record order, and
/// in `offsets` every offset the scan result reports: the records' starts and their problems,
/// the near misses shown, the cut's, sorted and each once.
inline std::vector<record_problem> find_problems(std::string_view text, const engine& reader,
                                                 std::size_t first, scan_for purpose, validator& v,
                                                 std::vector<std::size_t>& offsets) {
  const std::vector<record>& recs = reader.records;
  std::vector<record_problem> problems;
  offsets.reserve(recs.size() * 2 + reader.near.size() + 2);
  for (std::size_t k = first; k < recs.size(); ++k) {
    const record& r = recs[k];
    offsets.push_back(r.begin);
    if (r.valid || !worded(reader.contexts[r.ctx], purpose)) continue;
    record_problem& p = problems.emplace_back();
    diagnose(r, v, text, reader.max_depth(), p.at, p.why);
    offsets.push_back(p.at);  // within the record: in order with the others, unless they nest
  }
  const std::size_t shown_near = std::min(reader.near.size(), max_near_misses);
  for (std::size_t k = 0; k < shown_near; ++k) offsets.push_back(reader.near[k].begin);
  if (reader.cut) {
    offsets.push_back(std::min(reader.cut->offset, reader.cut->fence_offset));
    offsets.push_back(std::max(reader.cut->offset, reader.cut->fence_offset));
  }
  sort_runs(offsets);
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return problems;
}

/// The lines and columns of the offsets a scan result reports (`find_problems`), found in one
/// walk over the text, and looked up by offset.
class reported_positions {
 public:
  reported_positions(std::string_view text, std::vector<std::size_t>&& offsets)
      : offsets_(std::move(offsets)), positions_(offsets_.size()) {
    position_finder finder(text);
    for (std::size_t k = 0; k < offsets_.size(); ++k) positions_[k] = finder.at(offsets_[k]);
  }

  /// {line, column} of `offset`, one of those reported. Asked mostly in order (a record's start,
  /// then its problem, then the next record's start): the offset after the last one asked is
  /// tried before a binary search.
  [[gnu::always_inline]] std::pair<std::size_t, std::size_t> operator()(
      std::size_t offset) noexcept {
    if (last_ + 1 < offsets_.size() && offsets_[last_ + 1] == offset) {
      ++last_;
    } else if (last_ >= offsets_.size() || offsets_[last_] != offset) {
      last_ = static_cast<std::size_t>(std::lower_bound(offsets_.begin(), offsets_.end(), offset) -
                                       offsets_.begin());
    }
    return positions_[last_];
  }

  /// `2:9`, the line and column of `offset`.
  std::string line_column(std::size_t offset) {
    auto [line, column] = (*this)(offset);
    return std::to_string(line) + ":" + std::to_string(column);
  }

 private:
  std::vector<std::size_t> offsets_;
  std::vector<std::pair<std::size_t, std::size_t>> positions_;
  std::size_t last_ = 0;
};

/// Makes in `out` the candidates of the records from `out.size()` on (`problems`: those of
/// `find_problems`, in order), views into `text`, offsets in the text read.
inline void make_candidates(std::vector<candidate>& out, std::string_view text, engine& reader,
                            scan_for purpose, std::vector<record_problem>& problems,
                            reported_positions& positions) {
  const std::vector<record>& recs = reader.records;
  out.reserve(recs.size());
  auto built = reader.built.begin();
  auto next_problem = problems.begin();
  for (std::size_t k = out.size(); k < recs.size(); ++k) {
    while (built != reader.built.end() && built->first < k) ++built;
    const record& r = recs[k];
    const context& where = reader.contexts[r.ctx];
    candidate& c = out.emplace_back();
    if (built != reader.built.end() && built->first == k) {  // checked and built already
      make_candidate(c, text, r, where, 0, {}, positions, /*build=*/false);
      c.json = std::make_shared<const nlohmann::json>(std::move(built->second));
      continue;
    }
    if (r.valid || !worded(where, purpose)) {
      make_candidate(c, text, r, where, 0, {}, positions, /*build=*/true, purpose);
      continue;
    }
    assert(next_problem != problems.end());
    make_candidate(c, text, r, where, next_problem->at, std::move(next_problem->why), positions);
    ++next_problem;
  }
}

/// Makes in `out` the near misses `reader` shows (at most `max_near_misses`), each with why it
/// is not JSON; offsets in the output (the text read has a prefill of `base` bytes).
inline void make_near_misses(std::vector<near_miss>& out, std::string_view text,
                             const engine& reader, validator& v, reported_positions& positions,
                             std::size_t base) {
  const std::size_t shown_near = std::min(reader.near.size(), max_near_misses);
  for (std::size_t k = 0; k < shown_near; ++k) {
    near_miss m;
    m.offset = reader.near[k].begin;
    m.text = text.substr(m.offset, reader.near[k].end - m.offset);
    std::tie(m.line, m.column) = positions(m.offset);
    std::size_t ignored = 0;
    diagnose(v, text, reader.max_depth(), m.offset, reader.near[k].end, ignored, m.message);
    to_output(m.offset, m.prefilled, base);
    out.push_back(std::move(m));
  }
}

/// The public cut of the engine's `p`, worded. Offsets in the text read.
inline llmjson::cut make_cut(std::string_view text, const pending_cut& p,
                             reported_positions& positions) {
  const std::string_view info = text.substr(p.info_at, p.info_len);
  const std::string_view marker = text.substr(p.marker_at, p.marker_len);
  llmjson::cut k;
  k.offset = p.offset;
  std::tie(k.line, k.column) = positions(p.offset);
  switch (p.kind) {
    case pending_cut::what::object:
      k.message = "the object opened at " + positions.line_column(p.offset) + " never closes";
      break;
    case pending_cut::what::array:
      k.message = "the array opened at " + positions.line_column(p.offset) + " never closes";
      break;
    case pending_cut::what::value:
      k.message = (text[p.offset] == '"' ? "the string opened at " : "the value at ") +
                  positions.line_column(p.offset) +
                  (text[p.offset] == '"' ? " never closes" : " is cut short");
      break;
    case pending_cut::what::fence:
      k.message = "the fence" + (info.empty() ? std::string{} : " \"" + std::string(info) + "\"") +
                  " opened at line " + std::to_string(positions(p.fence_offset).first) +
                  " never closes and its body " + std::string(p.body);
      break;
    case pending_cut::what::region:
      k.reasoning = true;
      k.marker = std::string(marker);
      k.message =
          marker.empty()
              ? "the reasoning that the prompt opened never closes: the output ended before any "
                "answer"
              : "the reasoning opened at " + positions.line_column(p.offset) + " (" +
                    one_line(marker) + ") never closes: the output ended before any answer";
      break;
  }
  return k;
}

/// The public scan result of an engine that has read all of `text`: views, positions, values
/// and reasons (for `purpose`: see `scan_for`). Positions take one walk over the text, for the
/// offsets reported, put in order by merging their sources (each already in document order, or
/// nearly). The first candidates may be made already (`made`, a stream's); they are taken as
/// they are.
inline scan_result make_scan_result(std::string_view text, engine& reader, const options& opts,
                                    std::vector<candidate>&& made = {}, std::size_t base = 0,
                                    scan_for purpose = scan_for::listing) {
  scan_result out;
  out.message = stopped_by(reader, opts);
  if (!out.message.empty()) return out;
  validator v;
  const std::size_t first_new = made.size();
  std::vector<std::size_t> offsets;
  std::vector<record_problem> problems =
      find_problems(text, reader, first_new, purpose, v, offsets);
  reported_positions positions(text, std::move(offsets));
  out.candidates = std::move(made);
  make_candidates(out.candidates, text, reader, purpose, problems, positions);
  for (std::size_t k = first_new; k < out.candidates.size(); ++k)
    to_output(out.candidates[k].offset, out.candidates[k].prefilled, base);
  out.near_miss_count = reader.near.size();
  make_near_misses(out.near_misses, text, reader, v, positions, base);
  if (reader.cut) {
    out.truncation = make_cut(text, *reader.cut, positions);
    to_output(out.truncation->offset, out.truncation->prefilled, base);
  }
  return out;
}

}  // namespace llmjson::detail

namespace llmjson::detail {

/// A scanner's state: the engine, and for a text fed in pieces the text itself, the candidates
/// made so far and what makes them (positions found so far, a validator for problems).
struct scanner::state {
  state(const options& o, scan_for p)
      : opts(o), purpose(p), engine(o), buf(o.prefill), base(o.prefill.size()) {
    engine.build_values(p == scan_for::listing);
  }

  const options& opts;
  scan_for purpose;
  detail::engine engine;
  std::string buf;          // the prefill, then the bytes fed
  std::size_t base = 0;     // the prefill's length: positions in the output start here
  std::size_t total = 0;    // bytes fed
  std::size_t read = 0;     // bytes the engine has seen
  std::size_t read_at = 0;  // feed asks for a read once the text is this long
  bool over = false;        // over max_input_bytes: the text is dropped
  bool ended = false;
  std::vector<candidate> made;
  // The storage of `made` that a read, a make or finish replaced: a stream's views into it
  // (`settled()`, `completed()`, `seen()`) stay valid until the next feed, which frees it.
  std::vector<std::vector<candidate>> retired;
  const char* views_into = nullptr;  // buf.data() when made's views were made
  std::size_t generation = 0;
  position_finder positions{std::string_view()};
  bool positions_made = false;
  validator diagnosis;
  // Positions for `tail()`, ahead of `positions` (which `make` asks in document order): made
  // again from the text's start when asked for an earlier offset than the last (`tail_at`).
  position_finder tail_positions{std::string_view()};
  std::size_t tail_at = 0;
  bool tail_positions_made = false;

  /// {line, column} of `offset` for `tail()`.
  std::pair<std::size_t, std::size_t> tail_position(std::size_t offset) {
    const std::string_view text = buf;
    if (!tail_positions_made || offset < tail_at) {
      tail_positions = position_finder(text);
      tail_positions_made = true;
    }
    tail_positions.rebind(text);
    tail_at = offset;
    return tail_positions.at(offset);
  }

  /// `engine.would_end` over the text read, and the first records of so_far's that are final.
  std::optional<end_view> would_end(std::size_t& final_records) const {
    if (over || ended || engine.overflowed() != overflow::none) return std::nullopt;
    std::optional<end_view> v = engine.would_end(std::string_view(buf).substr(0, read));
    if (v) final_records = std::min(engine.stable_records(), v->upto);
    return v;
  }

  /// Whether record `k` starts in one of `drops` (sorted by their start).
  static bool dropped(const record& r, const std::vector<span>& drops) noexcept {
    return std::any_of(drops.begin(), drops.end(),
                       [&](const span& d) { return r.begin >= d.begin && r.begin < d.end; });
  }

  /// The buffer moved: the views of the candidates follow it. The buffer grows geometrically,
  /// so this costs O(1) a byte in all.
  void follow_buffer() {
    const std::string_view text = buf;
    for (candidate& c : made) {
      auto moved = [&](std::string_view v) {
        return v.empty() ? v
                         : text.substr(static_cast<std::size_t>(v.data() - views_into), v.size());
      };
      c.text = moved(c.text);
      c.info = moved(c.info);
      c.marker = moved(c.marker);
    }
    views_into = buf.data();
  }

  /// Empties `made`, keeping its storage until the next feed.
  void retire() {
    if (made.empty()) return;
    retired.push_back(std::move(made));
    made = std::vector<candidate>();
  }

  /// Makes room for `n` candidates in `made` without moving those made: a larger copy takes
  /// its place, and the old storage is kept until the next feed. The capacity doubles, so the
  /// copies cost O(1) a candidate in all.
  void reserve(std::size_t n) {
    if (made.capacity() >= n) return;
    std::vector<candidate> bigger;
    bigger.reserve(std::max(n, 2 * made.capacity()));
    bigger.insert(bigger.end(), made.begin(), made.end());
    if (made.empty()) {
      made = std::move(bigger);
      return;
    }
    retired.push_back(std::move(made));
    made = std::move(bigger);
  }
};

LLMJSON_INLINE void scanner::state_deleter::operator()(state* s) const noexcept { delete s; }

LLMJSON_INLINE scan_result scanner::scan(std::string_view text, const options& opts,
                                         scan_for purpose) {
  if (!opts.prefill.empty()) {  // §2 The text: the prefill, then the output, read as one text
    std::string read;
    read.reserve(opts.prefill.size() + text.size());
    read += opts.prefill;
    read += text;
    scan_result r = scan(read, opts, opts.prefill.size(), purpose);
    views_into_output(r.candidates, r.near_misses, read, opts.prefill.size(), text);
    return r;
  }
  return scan(text, opts, 0, purpose);
}

LLMJSON_INLINE scan_result scanner::scan(std::string_view text, const options& opts,
                                         std::size_t base, scan_for purpose) {
  if (std::optional<scan_result> fast = whole_candidate(text, opts, base, purpose))
    return std::move(*fast);
  detail::engine engine(opts);
  engine.build_values(purpose == scan_for::listing);
  engine.advance(text, /*ended=*/true);
  return make_scan_result(text, engine, opts, {}, base, purpose);
}

/// Rules §8 Healing: the candidate that the cut `p` of `text` (a prefill of `base` bytes, then
/// the output) starts, healed; nothing when no value is left or the text there is a whole value.
/// `position_of` gives {line, column} of an offset.
template <class PositionOf>
std::optional<healed_candidate> heal_cut(std::string_view text, const pending_cut& p,
                                         std::size_t base, PositionOf&& position_of) {
  std::size_t b = p.offset;
  while (b < text.size() && is_json_ws(text[b])) ++b;
  std::optional<healed_value> h = heal(text.substr(b));
  if (!h || h->complete) return std::nullopt;
  healed_candidate hc;
  hc.c.offset = b;
  std::tie(hc.c.line, hc.c.column) = position_of(b);
  to_output(hc.c.offset, hc.c.prefilled, base);
  hc.c.source = p.src;
  hc.c.in_fence = p.kind == pending_cut::what::fence;
  hc.c.valid = true;
  // Not a const object: the partial answer takes the value over (`make_partial`).
  hc.c.json = std::make_shared<nlohmann::json>(std::move(h->value));
  hc.open = std::move(h->open);
  hc.open_string = h->open_string;
  hc.root_keys = std::move(h->root_keys);
  return hc;
}

LLMJSON_INLINE text_so_far scanner::so_far(std::string_view output, const options& opts) {
  std::string joined;  // §2 The text: the prefill, then the output, read as one text
  std::string_view text = output;
  const std::size_t base = opts.prefill.size();
  if (base != 0) {
    joined.reserve(base + output.size());
    joined += opts.prefill;
    joined += output;
    text = joined;
  }
  text_so_far out;
  detail::engine reader(opts);
  reader.build_values(false);
  // As the stream reads it: the text may go on (what a later byte could still change).
  reader.advance(text, /*ended=*/false);
  // While the text so far is one JSON value or a prefix of one, the engine has not begun
  // reading it: a later byte that ends that (`}</think>`) makes it reasoning, unless the caller
  // said the output starts in answer text (a JSON value cannot begin with `analysis` nor with a
  // phrase pair).
  out.provisional = reader.reading() ? reader.provisional()
                                     : opts.reasoning_regions && opts.start != output_start::answer;
  std::optional<scan_result> fast;
  if (!reader.reading()) fast = whole_candidate(text, opts, base, scan_for::selection);
  if (fast) {
    out.scan = std::move(*fast);
  } else {
    reader.advance(text, /*ended=*/true);
    out.scan = make_scan_result(text, reader, opts, {}, base, scan_for::selection);
    if (reader.cut && reader.overflowed() == overflow::none) {
      const pending_cut& p = *reader.cut;
      if (p.kind == pending_cut::what::region) {
        out.in_reasoning = true;
      } else {
        out.healed =
            heal_cut(text, p, base, [&](std::size_t at) { return position_finder(text).at(at); });
      }
    }
  }
  if (base != 0) views_into_output(out.scan.candidates, out.scan.near_misses, text, base, output);
  return out;
}

LLMJSON_INLINE scanner::scanner(const options& opts, scan_for purpose)
    : s_(new state(opts, purpose)) {}

LLMJSON_INLINE bool scanner::feed(std::string_view chunk) {
  state& s = *s_;
  s.retired.clear();  // the views of the storage replaced since the last feed end here
  s.total += chunk.size();
  if (s.over) return false;
  if (s.total > s.opts.max_input_bytes || s.base > s.opts.max_input_bytes - s.total) {
    // Over the limit: the result is too_large whatever comes; the text is not kept.
    s.over = true;
    s.buf = std::string();
    s.made.clear();
    return false;
  }
  if (chunk.size() > s.buf.capacity() - s.buf.size()) {
    // The buffer moves: grown here (doubling, as append would), so that the views follow
    // it exactly when it moves. A chunk taken from the scanner's own text is copied first.
    const std::less<const char*> before;
    std::string own;
    if (!before(chunk.data(), s.buf.data()) && before(chunk.data(), s.buf.data() + s.buf.size()))
      chunk = own.assign(chunk);
    s.buf.reserve(std::max(s.buf.size() + chunk.size(), 2 * s.buf.capacity()));
    s.follow_buffer();
    s.buf.append(chunk);
  } else {
    s.buf.append(chunk);
  }
  return s.buf.size() >= s.read_at;
}

LLMJSON_INLINE bool scanner::read(bool ended) {
  state& s = *s_;
  if (s.over) return false;
  s.engine.advance(s.buf, ended);
  s.read = s.buf.size();
  // The next read once enough new bytes came: 64, or 1/16 of the text so far, at most 4 KB.
  s.read_at = s.read + std::min<std::size_t>(4096, std::max<std::size_t>(64, s.read / 16));
  if (s.engine.overflowed() != overflow::none) {  // too_large, whatever comes
    s.retire();
    return true;
  }
  if (s.engine.generation() != s.generation) {  // the start was reasoning after all
    s.generation = s.engine.generation();
    s.retire();
    s.positions_made = false;
    return true;
  }
  return false;
}

LLMJSON_INLINE bool scanner::unread() const noexcept {
  return !s_->ended && !s_->over && s_->read < s_->buf.size();
}

LLMJSON_INLINE std::string_view scanner::text() const noexcept {
  return s_->over ? std::string_view() : std::string_view(s_->buf).substr(s_->base);
}

LLMJSON_INLINE std::string_view scanner::text_read() const noexcept {
  if (s_->over || s_->read <= s_->base) return std::string_view();
  return std::string_view(s_->buf).substr(s_->base, s_->read - s_->base);
}

LLMJSON_INLINE std::size_t scanner::size() const noexcept { return s_->total; }

LLMJSON_INLINE bool scanner::over() const noexcept { return s_->over; }

LLMJSON_INLINE bool scanner::live() const noexcept {
  return !s_->over && !s_->ended && s_->engine.overflowed() == overflow::none;
}

LLMJSON_INLINE bool scanner::provisional() const noexcept { return s_->engine.provisional(); }

LLMJSON_INLINE std::size_t scanner::stable() const noexcept { return s_->engine.stable_records(); }

LLMJSON_INLINE bool scanner::may_qualify(std::size_t k) const noexcept {
  const record& r = s_->engine.records[k];
  return r.valid && !s_->engine.contexts[r.ctx].in_reasoning;
}

LLMJSON_INLINE void scanner::make(std::size_t upto) {
  state& s = *s_;
  if (!live() || s.made.size() >= upto) return;
  const std::string_view text = s.buf;
  if (!s.positions_made) {
    // Made with the first record, when the start is known (a BOM takes no column).
    s.positions = position_finder(text);
    s.positions_made = true;
  }
  s.positions.rebind(text);
  auto position_of = [&](std::size_t offset) { return s.positions.at(offset); };
  s.views_into = s.buf.data();
  s.reserve(upto);  // the candidates made stay where they are: views of them stay valid
  while (s.made.size() < upto) {
    const record& r = s.engine.records[s.made.size()];
    const context& where = s.engine.contexts[r.ctx];
    std::size_t at = 0;
    std::string why;
    if (worded(where, s.purpose)) diagnose(r, s.diagnosis, text, s.engine.max_depth(), at, why);
    s.made.push_back(make_candidate(text, r, where, at, std::move(why), position_of,
                                    /*build=*/true, s.purpose));
    to_output(s.made.back().offset, s.made.back().prefilled, s.base);
  }
}

LLMJSON_INLINE std::vector<candidate>& scanner::made() noexcept { return s_->made; }

LLMJSON_INLINE std::optional<tail_so_far> scanner::tail() {
  state& s = *s_;
  std::size_t made = 0;
  const std::optional<end_view> v = s.would_end(made);
  if (!v) return std::nullopt;
  tail_so_far out;
  out.in_reasoning = v->in_reasoning;
  out.provisional = s.engine.provisional();
  if (out.in_reasoning) return out;
  out.made = made;
  const std::string_view text = std::string_view(s.buf).substr(0, s.read);
  auto position_of = [&](std::size_t offset) { return s.tail_position(offset); };
  auto add = [&](const record& r, const context& where) {
    // Positions in document order (a problem's offset is its record's start: `message` is not
    // read, judging replaces it).
    candidate& c = out.more.emplace_back();
    make_candidate(c, text, r, where, r.begin, std::string(), position_of, /*build=*/true,
                   scan_for::selection);
    to_output(c.offset, c.prefilled, s.base);
  };
  for (std::size_t k = made; k < v->upto; ++k) {
    const record& r = s.engine.records[k];
    if (k >= v->keep && state::dropped(r, v->drops)) continue;
    add(r, s.engine.contexts[r.ctx]);
  }
  if (v->added) add(*v->added, v->added_where);
  if (v->cut) out.healed = heal_cut(text, *v->cut, s.base, position_of);
  return out;
}

LLMJSON_INLINE tail_key scanner::key() const {
  const state& s = *s_;
  tail_key k;
  std::size_t made = 0;
  const std::optional<end_view> v = s.would_end(made);
  // Many candidates a later byte could still drop (objects inside a `[` gone wrong): not
  // compared at every read; the version changes.
  if (!v || v->upto - std::min(made, v->upto) > tail_key::most) return k;
  k.known = true;
  k.in_reasoning = v->in_reasoning;
  k.provisional = s.engine.provisional();
  if (k.in_reasoning) return k;
  k.made = made;
  auto note = [&](const record& r) {
    k.more.push_back(r.begin);
    k.more.push_back(r.end);
    k.more.push_back((r.valid ? 1U : 0U) | (r.end == s.read ? 2U : 0U));  // a number may go on
  };
  for (std::size_t i = made; i < v->upto; ++i) {
    const record& r = s.engine.records[i];
    if (i >= v->keep && state::dropped(r, v->drops)) continue;
    note(r);
  }
  if (v->added) note(*v->added);
  k.cut = v->cut.has_value();
  if (v->cut) k.cut_at = v->cut->offset;
  return k;
}

LLMJSON_INLINE scan_result scanner::finish(std::size_t& kept, bool keep_made) {
  state& s = *s_;
  kept = 0;
  if (s.over) {
    s.ended = true;
    return {};
  }
  // The whole-output fast path, as in scan(): the engine has not begun reading the text.
  if (!s.engine.reading()) {
    if (std::optional<scan_result> fast = whole_candidate(s.buf, s.opts, s.base, s.purpose)) {
      s.ended = true;
      s.retire();
      return std::move(*fast);
    }
  }
  read(/*ended=*/true);
  s.ended = true;
  kept = s.made.size();
  if (!keep_made) {
    scan_result out =
        make_scan_result(s.buf, s.engine, s.opts, std::move(s.made), s.base, s.purpose);
    s.made = std::vector<candidate>();
    return out;
  }
  // A copy: the views a stream gave of `made` stay valid while the stream lives, whatever
  // becomes of the result.
  std::vector<candidate> copy = s.made;
  scan_result out = make_scan_result(s.buf, s.engine, s.opts, std::move(copy), s.base, s.purpose);
  s.retire();
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_SCANNER_INL_HPP_INCLUDED
