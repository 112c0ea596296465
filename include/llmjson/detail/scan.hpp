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
#include <llmjson/detail/find.hpp>
#include <llmjson/detail/regions.hpp>
#include <llmjson/detail/utf8.hpp>
#include <llmjson/detail/validator.hpp>
#include <llmjson/fence.hpp>

namespace llmjson::detail {

/// A candidate as the scan first records it: a span and a verdict on its validity.
struct record {
  std::size_t begin = 0;
  std::size_t end = 0;
  source src = source::prose;
  bool in_fence = false;
  bool in_reasoning = false;
  std::string_view info;
  std::string_view marker;
  bool valid = false;
  std::size_t problem_offset = 0;
  std::string problem;  // the reason, without its position
};

/// A near miss as the scan records it.
struct span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Where the scan found the output cut, before positions are known.
struct pending_cut {
  enum class what : unsigned char { object, array, value, fence, region };
  what kind = what::object;
  std::size_t offset = 0;
  std::size_t fence_offset = 0;  // fences: where the opening line starts
  std::string_view info;         // fences: the info string
  std::string_view body;         // fences: "is empty", "is an unfinished JSON array", ...
  std::string_view marker;       // regions: the opening marker ("" when the prompt opened it)
};

constexpr bool is_json_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

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

/// The scan of section 3 of the rules, over one segment at a time, with a stack of brace and
/// bracket frames and one validator shared by the chain of nested frames it is validating.
/// Linear: every byte is looked at once by the frame logic and at most once by the validator,
/// and every frame is pushed, killed and popped at most once.
class frame_scanner {
 public:
  /// What every record of a segment shares.
  struct context {
    bool in_fence = false;
    std::string_view info;
    bool in_reasoning = false;
    std::string_view marker;
  };

  frame_scanner(std::string_view text, std::size_t max_depth, std::vector<record>& out,
                std::vector<span>& near)
      : text_(text), max_depth_(max_depth), out_(out), near_misses_(near), openers_(text, "{[") {}

  /// Scans the segment `[b, e)`. When it runs to the end of the text and ends inside a frame
  /// whose text is a valid JSON prefix, returns where the output was cut; when it ends inside
  /// such a frame otherwise, that frame is malformed, cut by `cut_by` ("a fence line").
  std::optional<pending_cut> scan(std::size_t b, std::size_t e, bool runs_to_end,
                                  const context& ctx, std::string_view cut_by) {
    ctx_ = ctx;
    frames_.clear();
    in_string_ = false;
    escaped_ = false;
    alive_from_ = 0;
    for (std::size_t i = b; i < e; ++i) {
      if (frames_.empty()) {
        i = openers_.next(i, e);
        if (i == e) break;
        if (text_[i] == '{') {
          open_brace(i, false);
        } else {
          open_bracket(i);
        }
        continue;
      }
      step(i);
    }
    return end_segment(e, runs_to_end, cut_by);
  }

 private:
  enum class kind : unsigned char {
    brace_pending,
    brace_json,
    brace_prose,
    bracket_pending,
    bracket
  };
  enum class pend : unsigned char { after_brace, first_string, after_first_string };
  enum class probe : unsigned char { none, name, after_name };  // `{name :` makes a near miss
  static constexpr std::size_t alive = static_cast<std::size_t>(-1);

  struct frame {
    std::size_t open = 0;
    std::size_t mark = 0;         // out_.size() when the frame opened: later records lie inside it
    std::size_t near_mark = 0;    // near_misses_.size() likewise
    std::size_t base = 0;         // validator depth outside this frame's opener
    std::size_t dead_at = alive;  // the byte where its text stopped being a valid JSON prefix
    std::size_t nest = 0;         // brackets: the `[` open inside it (outside strings)
    kind k = kind::brace_pending;
    bool in_chain = true;  // the validator is reading this frame's text
    bool looks = false;    // brace frames: starts like an object (`{"`, `{'`, `{name:`)
  };

  static bool json_like(const frame& f) noexcept {
    return f.k == kind::brace_json || f.k == kind::bracket;
  }

  void step(std::size_t i) {
    const char c = text_[i];
    bool joined = false;
    if (frames_.back().in_chain) {
      if (!v_.feed(i)) {
        kill_chain(i);
      } else {
        joined = c == '{';
        if (c == '[') check_depth(i);
      }
    }
    if (in_string_) {
      string_byte(c);
      return;
    }
    // Settle a frame whose kind is still open; the byte is then read as in that kind.
    for (;;) {
      frame& top = frames_.back();
      if (top.k == kind::brace_pending) {
        if (!decide_kind(top, c)) return;
      } else if (top.k == kind::bracket_pending) {
        if (is_json_ws(c)) return;
        if (c != '{' && c != '[' && c != '"') {
          // `[1]`, `[text](url)`, `[ ]`: no frame after all; read the byte where it stands.
          frames_.pop_back();
          alive_from_ = std::min(alive_from_, frames_.size());
          if (frames_.empty()) return;  // outside every frame only `{` and `[` matter
          continue;
        }
        top.k = kind::bracket;
      }
      break;
    }
    frame& top = frames_.back();
    switch (top.k) {
      case kind::bracket:
        if (c == '"') {
          in_string_ = true;
        } else if (c == '[') {
          ++top.nest;
        } else if (c == ']') {
          if (top.nest == 0) {
            close_frame(i);
          } else {
            --top.nest;
          }
        } else if (c == '{') {
          open_brace(i, joined);
        }
        break;
      case kind::brace_json:
        if (c == '"') {
          in_string_ = true;
        } else if (c == '{') {
          open_brace(i, joined);
        } else if (c == '}') {
          close_frame(i);
        }
        break;
      case kind::brace_prose:
        if (probe_ != probe::none) near_miss_byte(top, c);
        if (c == '{') {
          open_brace(i, joined);
        } else if (c == '}') {
          close_frame(i);
        } else if (c == '[') {
          open_bracket(i);
        }
        break;
      default: break;
    }
  }

  static bool is_name_byte(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  /// Settles a pending brace frame's kind on `c`. Returns false when `c` was used up doing so.
  bool decide_kind(frame& top, char c) {
    switch (pend_) {
      case pend::after_brace:
        if (is_json_ws(c)) return false;
        if (c == '}') {
          top.k = kind::brace_json;
          return true;
        }
        if (c == '"') {
          in_string_ = true;
          top.looks = true;
          pend_ = pend::first_string;
          return false;
        }
        top.looks = c == '\'';
        if (is_name_byte(c) && !(c >= '0' && c <= '9')) probe_ = probe::name;
        break;
      case pend::after_first_string:
        if (is_json_ws(c)) return false;
        if (c == ':') {
          top.k = kind::brace_json;
          return false;
        }
        break;
      case pend::first_string: break;  // unreachable: the string is read by string_byte
    }
    top.k = kind::brace_prose;
    return true;
  }

  /// `{name :` in a prose-like frame: it starts like an object with an unquoted key.
  void near_miss_byte(frame& top, char c) {
    if (probe_ == probe::name && is_name_byte(c)) return;
    if (is_json_ws(c)) {
      probe_ = probe::after_name;
      return;
    }
    if (c == ':') top.looks = true;
    probe_ = probe::none;
  }

  void string_byte(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20) {  // a JSON string holds no raw control character: the string ends here
      in_string_ = false;
      escaped_ = false;
      string_ended(false);
    } else if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      string_ended(true);
    }
  }

  void string_ended(bool by_quote) {
    frame& top = frames_.back();
    if (top.k != kind::brace_pending) return;
    if (by_quote) {
      pend_ = pend::after_first_string;
    } else {
      top.k = kind::brace_prose;
    }
  }

  void push_frame(std::size_t i, kind k) {
    frame f;
    f.open = i;
    f.mark = out_.size();
    f.near_mark = near_misses_.size();
    f.base = v_.depth() - 1;
    f.k = k;
    frames_.push_back(f);
    probe_ = probe::none;
    check_depth(i);
  }

  void open_brace(std::size_t i, bool joined) {
    if (!joined) start_chain(i);
    push_frame(i, kind::brace_pending);
    pend_ = pend::after_brace;
  }

  /// A `[` outside every frame or in a prose-like frame: a frame if what follows it says so.
  /// Such a `[` never continues a chain (a prose-like frame's text is no JSON prefix).
  void open_bracket(std::size_t i) {
    start_chain(i);
    push_frame(i, kind::bracket_pending);
  }

  void start_chain(std::size_t i) {
    v_.reset(text_, std::numeric_limits<std::size_t>::max(), /*quiet=*/true);
    v_.feed(i);
    alive_from_ = frames_.size();
  }

  void close_frame(std::size_t i) {
    const frame f = frames_.back();
    frames_.pop_back();
    alive_from_ = std::min(alive_from_, frames_.size());
    probe_ = probe::none;
    if (f.k == kind::brace_prose) {  // keeps what lies inside it
      if (f.looks && !ctx_.in_reasoning) {
        near_misses_.resize(f.near_mark);  // only the outermost near miss is named
        near_misses_.push_back(span{f.open, i + 1});
      }
      return;
    }
    out_.resize(f.mark);  // the parts of a JSON-like frame are never answers
    near_misses_.resize(f.near_mark);
    push_record(f.open, i + 1, f.dead_at == alive);  // a malformed span's reason is found later
  }

  void push_record(std::size_t begin, std::size_t end, bool valid) {
    record r;
    r.begin = begin;
    r.end = end;
    r.in_fence = ctx_.in_fence;
    r.info = ctx_.info;
    r.in_reasoning = ctx_.in_reasoning;
    r.marker = ctx_.marker;
    r.valid = valid;
    out_.push_back(std::move(r));
  }

  /// The validator failed at `i`: every frame it was reading contains the failure.
  void kill_chain(std::size_t i) {
    for (std::size_t k = frames_.size(); k-- > 0 && frames_[k].in_chain;) {
      frames_[k].in_chain = false;
      if (frames_[k].dead_at == alive) frames_[k].dead_at = i;
    }
    alive_from_ = frames_.size();
  }

  /// Frames whose nesting now exceeds the limit are dead; frames nested deeper stay valid.
  void check_depth(std::size_t i) {
    while (alive_from_ < frames_.size() && v_.depth() - frames_[alive_from_].base > max_depth_)
      frames_[alive_from_++].dead_at = i;
  }

  std::optional<pending_cut> end_segment(std::size_t e, bool runs_to_end, std::string_view cut_by) {
    std::optional<pending_cut> cut;
    if (frames_.empty()) return cut;
    // The outermost open frame whose text is a valid prefix swallows all inside it; the dead
    // JSON-like frames outside it drop what starts before the byte where they went wrong.
    std::vector<span> drops;
    const std::size_t mark = frames_.front().mark, near_mark = frames_.front().near_mark;
    for (const frame& f : frames_) {
      if (f.dead_at == alive) {
        out_.resize(f.mark);
        near_misses_.resize(f.near_mark);
        const bool array = f.k == kind::bracket || f.k == kind::bracket_pending;
        if (runs_to_end) {
          pending_cut k;
          k.kind = array ? pending_cut::what::array : pending_cut::what::object;
          k.offset = f.open;
          cut = k;
        } else {
          push_record(f.open, e, false);
          out_.back().problem_offset = e;
          out_.back().problem = std::string(array ? "the array" : "the object") +
                                " never closes: " + std::string(cut_by) + " cuts it";
        }
        break;
      }
      if (json_like(f)) drops.push_back(span{f.open, f.dead_at});
    }
    if (!drops.empty()) {
      drop_starting_in(out_, mark, drops);
      drop_starting_in(near_misses_, near_mark, drops);
    }
    frames_.clear();
    return cut;
  }

  /// Removes the items of `v[from..]` (sorted by `begin`) that start in one of the spans of
  /// `drops` (sorted by `begin`; each contains every item from its `begin` on).
  template <class T>
  static void drop_starting_in(std::vector<T>& v, std::size_t from,
                               const std::vector<span>& drops) {
    std::size_t d = 0, until = 0, to = from;
    for (std::size_t k = from; k < v.size(); ++k) {
      while (d < drops.size() && drops[d].begin <= v[k].begin)
        until = std::max(until, drops[d++].end);
      if (v[k].begin < until) continue;
      if (to != k) v[to] = std::move(v[k]);
      ++to;
    }
    v.resize(to);
  }

  std::string_view text_;
  std::size_t max_depth_;
  std::vector<record>& out_;
  std::vector<span>& near_misses_;
  std::vector<frame> frames_;
  byte_finder openers_;  // outside every frame only `{` and `[` matter
  validator v_;
  context ctx_;
  std::size_t alive_from_ = 0;  // frames_[alive_from_..] are the chain's live frames
  pend pend_ = pend::after_brace;
  probe probe_ = probe::none;
  bool in_string_ = false;
  bool escaped_ = false;
};

/// Turns byte offsets into 1-based lines and code-point columns, walking the text once for a
/// sorted list of offsets. A leading BOM takes no column.
class position_finder {
 public:
  explicit position_finder(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") at_ = 3;
  }
  /// Returns {line, column} of `offset`; offsets must come in non-decreasing order.
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

/// Section 2 and 3 of the rules over one output: the whole output, then its parts (reasoning
/// regions and answer text), each cut into segments by its fences, each segment scanned.
class output_scanner {
 public:
  output_scanner(std::string_view text, const options& opts)
      : text_(text),
        opts_(opts),
        max_depth_(std::min(opts.max_depth, max_depth_limit)),
        frames_(text, max_depth_, records_, near_) {}

  void run() {
    const std::size_t start = text_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    std::size_t vb = 0, ve = 0;
    // The whole output: one value, or one value cut by the end of the text.
    switch (shape_of(v_, text_, start, text_.size(), max_depth_, vb, ve)) {
      case value_shape::complete: return whole_value(vb, ve, source::whole, {}, {});
      case value_shape::prefix: return value_cut(vb);
      case value_shape::blank:  // no value: a region the prompt opened may still hold it all
      case value_shape::invalid: break;
    }
    const std::vector<part> parts = region_finder(text_, opts_).parts(start);
    for (const part& p : parts) scan_part(p);
    // A region that never closes holds the end of the text: it is the outermost cut.
    if (!parts.empty() && parts.back().region && !parts.back().closed) {
      pending_cut k;
      k.kind = pending_cut::what::region;
      k.offset = parts.back().marker_at;
      k.marker = parts.back().marker;
      cut_ = k;
    }
  }

  std::vector<record> records_;
  std::vector<span> near_;
  std::optional<pending_cut> cut_;
  validator v_;
  std::size_t max_depth() const noexcept { return max_depth_; }

 private:
  void scan_part(const part& p) {
    frame_scanner::context ctx;
    ctx.in_reasoning = p.region;
    ctx.marker = p.marker;
    const std::size_t n = text_.size();
    std::size_t vb = 0, ve = 0;
    if (!p.region) {  // a whole answer part: one value, or one value cut by the end of the text
      switch (shape_of(v_, text_, p.begin, p.end, max_depth_, vb, ve)) {
        case value_shape::complete: return whole_value(vb, ve, source::part, ctx, {});
        case value_shape::prefix:
          if (p.end == n) return value_cut(vb);
          break;
        case value_shape::blank: return;
        case value_shape::invalid: break;
      }
    }
    const std::string_view part_end =
        p.region ? "the end of the reasoning" : "a reasoning or harmony marker";
    std::size_t pos = p.begin;
    for (const fence& f : fences_in(text_, p.begin, p.end)) {
      segment(pos, f.offset, false, ctx, "a fence line");
      const std::size_t bb = f.body_offset, be = f.body_offset + f.body.size();
      frame_scanner::context body = ctx;
      body.in_fence = true;
      body.info = f.info;
      const bool reaches_end = !f.closed && be == n;
      const value_shape shape = shape_of(v_, text_, bb, be, max_depth_, vb, ve);
      if (shape == value_shape::complete) {
        whole_value(vb, ve, source::fence, body, f.info);
      } else if (shape == value_shape::blank) {
        // `` ```json `` and nothing after it was cut; a bare ``` is a prefilled fence's closer.
        if (reaches_end && !f.info.empty()) fence_cut(f, "is empty");
      } else if (reaches_end && shape == value_shape::prefix && text_[vb] != '{') {
        // An unfinished array or scalar owns all inside it, as an unfinished object does.
        fence_cut(f,
                  text_[vb] == '[' ? "is an unfinished JSON array" : "is an unfinished JSON value");
      } else {
        segment(bb, be, reaches_end, body, f.closed ? "the fence's closing line" : part_end);
      }
      if (!f.closed) return;  // it runs to the end of the part
      pos = f.offset + f.text.size();
    }
    segment(pos, p.end, p.end == n, ctx, part_end);
  }

  void segment(std::size_t b, std::size_t e, bool runs_to_end, const frame_scanner::context& ctx,
               std::string_view cut_by) {
    if (b >= e) return;
    std::optional<pending_cut> k = frames_.scan(b, e, runs_to_end, ctx, cut_by);
    if (k && !cut_) cut_ = k;
  }

  void whole_value(std::size_t vb, std::size_t ve, source src, const frame_scanner::context& ctx,
                   std::string_view info) {
    record r;
    r.begin = vb;
    r.end = ve;
    r.src = src;
    r.in_fence = ctx.in_fence;
    r.info = info;
    r.in_reasoning = ctx.in_reasoning;
    r.marker = ctx.marker;
    r.valid = true;
    records_.push_back(std::move(r));
  }

  void value_cut(std::size_t vb) {
    pending_cut k;
    k.kind = text_[vb] == '{'   ? pending_cut::what::object
             : text_[vb] == '[' ? pending_cut::what::array
                                : pending_cut::what::value;
    k.offset = vb;
    cut_ = k;
  }

  void fence_cut(const fence& f, std::string_view body) {
    pending_cut k;
    k.kind = pending_cut::what::fence;
    k.offset = f.body_offset;
    k.fence_offset = f.offset;
    k.info = f.info;
    k.body = body;
    cut_ = k;
  }

  std::string_view text_;
  const options& opts_;
  std::size_t max_depth_;
  frame_scanner frames_;
};

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

namespace llmjson {

inline scan_result candidates(std::string_view text, const options& opts) {
  using namespace detail;
  output_scanner scan(text, opts);
  scan.run();
  std::vector<record>& recs = scan.records_;
  validator& v = scan.v_;

  // Positions, in one walk over the text.
  std::vector<std::size_t> offsets;
  offsets.reserve(recs.size() * 2 + scan.near_.size() + 2);
  for (record& r : recs) {
    offsets.push_back(r.begin);
    if (r.valid) continue;
    if (r.problem.empty())
      diagnose(v, text, scan.max_depth(), r.begin, r.end, r.problem_offset, r.problem);
    offsets.push_back(r.problem_offset);
  }
  const std::size_t shown_near = std::min(scan.near_.size(), max_near_misses);
  for (std::size_t k = 0; k < shown_near; ++k) offsets.push_back(scan.near_[k].begin);
  if (scan.cut_) {
    offsets.push_back(scan.cut_->offset);
    offsets.push_back(scan.cut_->fence_offset);
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
  out.candidates.reserve(recs.size());
  for (record& r : recs) {
    candidate c;
    c.text = text.substr(r.begin, r.end - r.begin);
    c.offset = r.begin;
    std::tie(c.line, c.column) = position_of(r.begin);
    c.source = r.src;
    c.info = r.info;
    c.in_fence = r.in_fence;
    c.in_reasoning = r.in_reasoning;
    c.marker = r.marker;
    c.valid = r.valid;
    if (c.valid) c.valid = build_value(c.text, c.value, r.problem);
    if (!c.valid) {
      c.value = nlohmann::json(nlohmann::json::value_t::discarded);
      auto [line, column] = position_of(r.valid ? r.begin : r.problem_offset);
      c.problem =
          "line " + std::to_string(line) + " col " + std::to_string(column) + ": " + r.problem;
    }
    out.candidates.push_back(std::move(c));
  }
  out.near_miss_count = scan.near_.size();
  for (std::size_t k = 0; k < shown_near; ++k) {
    near_miss m;
    m.offset = scan.near_[k].begin;
    m.text = text.substr(m.offset, scan.near_[k].end - m.offset);
    std::tie(m.line, m.column) = position_of(m.offset);
    std::size_t ignored = 0;
    diagnose(v, text, scan.max_depth(), m.offset, scan.near_[k].end, ignored, m.reason);
    out.near_misses.push_back(std::move(m));
  }
  if (scan.cut_) {
    const pending_cut& p = *scan.cut_;
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
        k.what = "the fence" +
                 (p.info.empty() ? std::string{} : " \"" + std::string(p.info) + "\"") +
                 " opened at line " + std::to_string(position_of(p.fence_offset).first) +
                 " never closes and its body " + std::string(p.body);
        break;
      case pending_cut::what::region:
        k.reasoning = true;
        k.marker = std::string(p.marker);
        k.what = p.marker.empty()
                     ? "the reasoning that the prompt opened never closes: the output ended before "
                       "any answer"
                     : "the reasoning opened at " + at(p.offset) + " (" + one_line(p.marker) +
                           ") never closes: the output ended before any answer";
        break;
    }
    out.truncation = std::move(k);
  }
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_HPP_INCLUDED
