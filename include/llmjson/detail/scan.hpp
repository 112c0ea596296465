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
#include <llmjson/detail/validator.hpp>
#include <llmjson/fence.hpp>

namespace llmjson::detail {

/// A candidate as the scan first records it: a span and a verdict on its validity.
struct record {
  std::size_t begin = 0;
  std::size_t end = 0;
  source src = source::prose;
  bool in_fence = false;
  std::string_view info;
  bool valid = false;
  std::size_t problem_offset = 0;
  std::string problem;  // the reason, without its position
};

/// Where the scan found the output cut, before positions are known.
struct pending_cut {
  std::size_t offset = 0;
  bool fence = false;  // an unclosed fence (else an unclosed object)
  std::size_t fence_line = 0;
  std::string_view info;
  std::string body;  // "empty" or "an unfinished JSON array", for fences
};

constexpr bool is_json_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// What `[b, e)` holds as one JSON value: a whole value, a valid prefix of one, or neither.
enum class value_shape { complete, prefix, invalid };

/// Runs the validator over `[b, e)` (JSON white space around the value allowed). On `complete`,
/// `[vb, ve)` is the value without the white space.
inline value_shape shape_of(validator& v, std::string_view text, std::size_t b, std::size_t e,
                            std::size_t max_depth, std::size_t& vb, std::size_t& ve,
                            bool quiet = true) {
  while (b < e && is_json_ws(text[b])) ++b;
  vb = b;
  ve = e;
  while (ve > vb && is_json_ws(text[ve - 1])) --ve;
  v.reset(text, max_depth, quiet);
  for (std::size_t i = b; i < e; ++i)
    if (!v.feed(i)) return value_shape::invalid;
  return v.finish(e) ? value_shape::complete : value_shape::prefix;
}

/// The brace scan of section 3 of the rules, over one segment at a time, with a stack of frames
/// and one validator shared by the chain of nested frames it is validating. Linear: every byte
/// is looked at once by the frame logic and at most once by the validator, and every frame is
/// pushed, killed and popped at most once.
class brace_scanner {
 public:
  brace_scanner(std::string_view text, std::size_t max_depth, std::vector<record>& out)
      : text_(text), max_depth_(max_depth), out_(out) {}

  /// Scans `[b, e)`. Returns the offset of the `{` where the text was cut when the segment runs
  /// to the end of the text and ends inside an object.
  std::optional<std::size_t> scan(std::size_t b, std::size_t e, bool runs_to_end, bool in_fence,
                                  std::string_view info) {
    in_fence_ = in_fence;
    info_ = info;
    frames_.clear();
    in_string_ = false;
    escaped_ = false;
    for (std::size_t i = b; i < e; ++i) {
      if (frames_.empty()) {
        const void* p = std::memchr(text_.data() + i, '{', e - i);
        if (!p) break;
        i = static_cast<std::size_t>(static_cast<const char*>(p) - text_.data());
        open_frame(i, false);
        continue;
      }
      const char c = text_[i];
      bool joined = false;
      if (frames_.back().in_chain) {
        if (!v_.feed(i)) {
          kill_chain();
        } else {
          joined = c == '{';
          if (c == '[') check_depth();
        }
      }
      if (in_string_) {
        string_byte(c);
        continue;
      }
      frame& top = frames_.back();
      if (top.k == kind::pending && !decide_kind(top, c)) continue;
      if (c == '{') {
        open_frame(i, joined);
      } else if (c == '}') {
        close_frame(i);
      } else if (c == '"' && top.k == kind::json) {
        in_string_ = true;
      }
    }
    return end_segment(e, runs_to_end);
  }

 private:
  enum class kind : unsigned char { pending, json, prose };
  enum class pend : unsigned char { after_brace, first_string, after_first_string };

  struct frame {
    std::size_t open = 0;
    std::size_t mark = 0;  // out_.size() when the frame opened: later records lie inside it
    std::size_t base = 0;  // validator depth outside this frame's '{'
    kind k = kind::pending;
    bool in_chain = true;  // the validator is reading this frame's text
    bool alive = true;     // this frame's text so far is a valid JSON prefix
  };

  /// Settles a pending frame's kind on `c`. Returns false when `c` was used up doing so.
  bool decide_kind(frame& top, char c) {
    switch (pend_) {
      case pend::after_brace:
        if (is_json_ws(c)) return false;
        if (c == '}') {
          top.k = kind::json;
          return true;
        }
        if (c == '"') {
          in_string_ = true;
          pend_ = pend::first_string;
          return false;
        }
        break;
      case pend::after_first_string:
        if (is_json_ws(c)) return false;
        if (c == ':') {
          top.k = kind::json;
          return false;
        }
        break;
      case pend::first_string: break;  // unreachable: the string is read by string_byte
    }
    top.k = kind::prose;
    return true;
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
    if (top.k != kind::pending) return;
    if (by_quote) {
      pend_ = pend::after_first_string;
    } else {
      top.k = kind::prose;
    }
  }

  void open_frame(std::size_t i, bool joined) {
    if (!joined) {
      v_.reset(text_, std::numeric_limits<std::size_t>::max(), /*quiet=*/true);
      v_.feed(i);
      alive_from_ = frames_.size();
    }
    frame f;
    f.open = i;
    f.mark = out_.size();
    f.base = v_.depth() - 1;
    frames_.push_back(f);
    pend_ = pend::after_brace;
    check_depth();
  }

  void close_frame(std::size_t i) {
    frame f = frames_.back();
    frames_.pop_back();
    alive_from_ = std::min(alive_from_, frames_.size());
    if (f.k != kind::json) return;  // a prose-like frame keeps what lies inside it
    out_.resize(f.mark);            // the parts of a JSON-like frame are never answers
    record r;
    r.begin = f.open;
    r.end = i + 1;
    r.in_fence = in_fence_;
    r.info = info_;
    r.valid = f.alive;  // a malformed span's reason is found again when it is reported
    out_.push_back(std::move(r));
  }

  /// The validator failed: every frame it was reading contains the failure.
  void kill_chain() {
    for (std::size_t k = frames_.size(); k-- > 0 && frames_[k].in_chain;) {
      frames_[k].in_chain = false;
      frames_[k].alive = false;
    }
    alive_from_ = frames_.size();
  }

  /// Frames whose nesting now exceeds the limit are dead; frames nested deeper stay valid.
  void check_depth() {
    while (alive_from_ < frames_.size() && v_.depth() - frames_[alive_from_].base > max_depth_)
      frames_[alive_from_++].alive = false;
  }

  std::optional<std::size_t> end_segment(std::size_t e, bool runs_to_end) {
    std::optional<std::size_t> cut;
    for (const frame& f : frames_) {
      if (!f.alive) continue;
      // The outermost open frame whose text is a valid prefix swallows all inside it.
      out_.resize(f.mark);
      if (runs_to_end) {
        cut = f.open;
      } else {
        record r;
        r.begin = f.open;
        r.end = e;
        r.in_fence = in_fence_;
        r.info = info_;
        r.valid = false;
        r.problem_offset = e;
        r.problem = "the object never closes: a fence line cuts it";
        out_.push_back(std::move(r));
      }
      break;
    }
    frames_.clear();
    return cut;
  }

  std::string_view text_;
  std::size_t max_depth_;
  std::vector<record>& out_;
  std::vector<frame> frames_;
  validator v_;
  std::size_t alive_from_ = 0;  // frames_[alive_from_..] are the chain's live frames
  pend pend_ = pend::after_brace;
  bool in_string_ = false;
  bool escaped_ = false;
  bool in_fence_ = false;
  std::string_view info_;
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

/// Finds again why the span `[r.begin, r.end)` is not valid JSON: validity does not depend on
/// what surrounds a span, so validating it alone stops at the same byte, for the same reason.
/// Costs the span's length, once per reported span (reported spans never overlap).
inline void diagnose(validator& v, std::string_view text, std::size_t max_depth, record& r) {
  v.reset(text, max_depth);
  std::size_t i = r.begin;
  while (i < r.end && v.feed(i)) ++i;
  if (!v.failed()) v.finish(r.end);
  r.problem_offset = v.failed() ? v.error_offset() : r.begin;
  r.problem = v.failed() ? v.reason() : "not valid JSON";
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

namespace llmjson {

inline scan_result candidates(std::string_view text, const options& opts) {
  using namespace detail;
  const std::size_t max_depth = std::min(opts.max_depth, max_depth_limit);
  std::vector<record> recs;
  std::optional<pending_cut> cut;
  validator v;
  const std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  std::size_t vb = 0, ve = 0;

  const value_shape whole = shape_of(v, text, start, text.size(), max_depth, vb, ve);
  // A whole value (the output, or a fence body) is a candidate that owns all inside it.
  auto whole_value = [&](source src, const fence* f) {
    record r;
    r.begin = vb;
    r.end = ve;
    r.src = src;
    r.in_fence = f != nullptr;
    if (f) r.info = f->info;
    r.valid = true;
    recs.push_back(std::move(r));
  };
  if (whole == value_shape::complete) {
    whole_value(source::whole, nullptr);
  } else {
    brace_scanner scanner(text, max_depth, recs);
    auto note_cut = [&](std::optional<std::size_t> at) {
      if (at && !cut) cut = pending_cut{*at, false, 0, {}, {}};
    };
    std::size_t pos = start;
    bool ended_in_fence = false;
    for (const fence& f : fences(text)) {
      note_cut(scanner.scan(pos, f.offset, false, false, {}));
      const std::size_t bb = f.body_offset, be = f.body_offset + f.body.size();
      const value_shape body = shape_of(v, text, bb, be, max_depth, vb, ve);
      if (body == value_shape::complete) {
        whole_value(source::fence, &f);
      } else if (!f.closed && vb == ve) {
        // `` ```json `` and nothing after it was cut; a bare ``` is a prefilled fence's closer.
        if (!f.info.empty()) cut = pending_cut{bb, true, f.line, f.info, "is empty"};
      } else if (!f.closed && body == value_shape::prefix && text[vb] != '{') {
        // An unfinished array or scalar owns all inside it, as an unfinished object does.
        cut = pending_cut{
            bb, true, f.line, f.info,
            text[vb] == '[' ? "is an unfinished JSON array" : "is an unfinished JSON value"};
      } else {
        note_cut(scanner.scan(bb, be, !f.closed, true, f.info));
      }
      if (!f.closed) {
        ended_in_fence = true;
        break;
      }
      pos = f.offset + f.text.size();
    }
    if (!ended_in_fence) note_cut(scanner.scan(pos, text.size(), true, false, {}));
  }

  // Positions, in one walk over the text.
  std::vector<std::size_t> offsets;
  offsets.reserve(recs.size() * 2 + 1);
  for (record& r : recs) {
    offsets.push_back(r.begin);
    if (r.valid) continue;
    if (r.problem.empty()) diagnose(v, text, max_depth, r);
    offsets.push_back(r.problem_offset);
  }
  if (cut) offsets.push_back(cut->offset);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::vector<std::pair<std::size_t, std::size_t>> positions(offsets.size());
  position_finder finder(text);
  for (std::size_t k = 0; k < offsets.size(); ++k) positions[k] = finder.at(offsets[k]);
  auto position_of = [&](std::size_t offset) {
    return positions[static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.end(), offset) - offsets.begin())];
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
  if (cut) {
    llmjson::cut k;
    k.offset = cut->offset;
    std::tie(k.line, k.column) = position_of(cut->offset);
    if (cut->fence) {
      k.what = "the fence" +
               (cut->info.empty() ? std::string{} : " \"" + std::string(cut->info) + "\"") +
               " opened at line " + std::to_string(cut->fence_line) +
               " never closes and its body " + cut->body;
    } else {
      k.what = "the object opened at " + std::to_string(k.line) + ":" + std::to_string(k.column) +
               " never closes";
    }
    out.truncation = std::move(k);
  }
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_HPP_INCLUDED
