// llmjson: the frames of the scan (§3): the stack of open brace and bracket frames, the validator
// that reads the chain of live JSON-like ones, and the records they leave
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_FRAME_STACK_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_FRAME_STACK_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>

namespace llmjson::detail {

/// §3 The frames the scan has open, the chain of them that one validator reads, and what a frame
/// leaves when it closes or its segment ends: a record (a candidate to be), or a cut. The byte
/// rules that open, settle and close frames are the frame scanner's (frames.hpp), which builds
/// on this.
///
/// A chain is a run of nested frames whose text the validator reads as one JSON prefix: it
/// starts at an opener outside every live frame (lazily: the validator starts only once the
/// bytes after the opener can still make JSON), and dies where the validator fails; frames
/// nested deeper than `max_depth` die there too.
class frame_stack {
 public:
  frame_stack(std::size_t max_depth, std::vector<record>& records, std::vector<context>& contexts,
              std::vector<span>& near, std::size_t max_records, std::size_t max_frames)
      : max_depth_(max_depth),
        records_(records),
        contexts_(contexts),
        near_misses_(near),
        max_records_(max_records),
        max_frames_(max_frames) {}

  /// Records from this index on lie inside an open frame that could still own them (a
  /// JSON-like frame, or one whose kind is not decided yet): they may still be dropped.
  /// Amortized O(1): the run of prose-like frames at the bottom of the stack is remembered
  /// (a prose-like frame never changes kind, and leaves the stack only from its top), so a
  /// stream that asks after every chunk never walks thousands of unclosed `{'x` frames again.
  [[nodiscard]] std::size_t stable_records() const noexcept {
    while (prose_run_ < frames_.size() && frames_[prose_run_].kind == frame_kind::brace_prose)
      ++prose_run_;
    return prose_run_ < frames_.size() ? frames_[prose_run_].mark : records_.size();
  }

  /// What `end_segment(e, /*runs_to_end=*/true, ...)` would leave, without changing anything
  /// (rules §8: the text so far read as if it ended at `e`).
  struct ending_view {
    /// The records before `keep` stay; of those from `keep` to `upto`, those that start in none
    /// of `drops` stay too; the rest go.
    std::size_t keep = 0;
    std::size_t upto = 0;
    std::vector<span> drops;
    std::optional<pending_cut> cut;  ///< the outermost open frame whose text is a JSON prefix
  };

  /// `end_segment` read only: `text`, the text so far (the scan's own view may be stale, a
  /// stream's buffer having moved since). A chain whose validator has not started is checked
  /// with one of its own, from the chain's opener (the span of the open frame). Amortized O(1)
  /// a call but that check and the frames above the first live one: the dead frames at the
  /// bottom of the stack, whose kind is settled, are looked at once while they stay (a stream
  /// that asks after every chunk never walks thousands of unclosed `{'x` frames again). Nothing
  /// (not known cheaply) past `lazy_check_limit` bytes to check, or `most_frames` frames to look
  /// at or drops to hand out.
  [[nodiscard]] std::optional<ending_view> would_end(std::string_view text, std::size_t e) const {
    // A chain that stays lazy over a long stretch (`[` then white space): not read at each call.
    if (lazy_ && e - lazy_from_ > lazy_check_limit) return std::nullopt;
    ending_view out;
    out.keep = out.upto = records_.size();
    if (frames_.empty()) return out;
    // Dead frames of a settled kind never come alive nor change their drop: remembered.
    for (; dead_prefix_ < frames_.size(); ++dead_prefix_) {
      const frame& f = frames_[dead_prefix_];
      if (f.dead_at == alive || f.kind == frame_kind::brace_pending ||
          f.kind == frame_kind::bracket_pending)
        break;
      if (json_like(f)) prefix_drops_.push_back({dead_prefix_, span{f.open, f.dead_at}});
    }

    std::size_t lazy_dead = alive;            // where the lazy chain's validator would stop
    std::size_t chain_from = frames_.size();  // frames_[chain_from..] are in the chain
    if (lazy_) {
      validator v;
      v.reset(text, std::numeric_limits<std::size_t>::max(), /*quiet=*/true);
      v.relax_strings();
      v.run(lazy_from_, e);
      if (v.failed()) lazy_dead = v.error_offset();
      while (chain_from > 0 && frames_[chain_from - 1].in_chain) --chain_from;
    }
    out.keep = frames_.front().mark;
    std::vector<span> drops;
    for (std::size_t k = dead_prefix_; k < frames_.size(); ++k) {
      if (k - dead_prefix_ > most_frames) return std::nullopt;  // frames still settling
      const frame& f = frames_[k];
      const std::size_t dead_at = f.dead_at == alive && k >= chain_from ? lazy_dead : f.dead_at;
      if (dead_at == alive) {
        out.upto = f.mark;
        const bool array = f.kind == frame_kind::bracket || f.kind == frame_kind::bracket_pending;
        pending_cut found;
        found.kind = array ? pending_cut::what::array : pending_cut::what::object;
        found.offset = f.open;
        out.cut = found;
        break;
      }
      if (json_like(f)) drops.push_back(span{f.open, dead_at});
    }
    // The drops matter only to the records inside the open frames (most often none).
    if (out.upto > out.keep) {
      if (prefix_drops_.size() + drops.size() > most_frames) return std::nullopt;
      for (const auto& d : prefix_drops_) out.drops.push_back(d.second);
      out.drops.insert(out.drops.end(), drops.begin(), drops.end());
    }
    return out;
  }

  /// `would_end` gives up (nothing) past this many frames to look at or drops to hand out.
  static constexpr std::size_t most_frames = 256;

  /// The longest stretch `would_end` validates for a chain whose validator has not started.
  static constexpr std::size_t lazy_check_limit = 1024;

  /// A resource limit stopped the scan: which.
  [[nodiscard]] overflow overflowed() const noexcept { return overflow_; }

  /// Counts a record made outside this scanner (a whole value) against the limit.
  void note_record() {
    if (records_.size() > max_records_) overflow_ = overflow::candidates;
  }

 protected:
  enum class frame_kind : unsigned char {
    brace_pending,
    brace_json,
    brace_prose,
    bracket_pending,
    bracket
  };
  static constexpr std::size_t alive = static_cast<std::size_t>(-1);

  struct frame {
    std::size_t open = 0;
    std::size_t dead_at = alive;  // the byte where its text stopped being a valid JSON prefix
    std::size_t mark = 0;  // records_.size() when the frame opened: later records lie inside it
    std::size_t near_mark = 0;      // near_misses_.size() likewise
    std::size_t base = 0;           // validator depth outside this frame's opener
    std::uint32_t nest = 0;         // brackets: the `[` open inside it (outside strings)
    std::uint32_t prose_above = 0;  // prose-like frames that do not look like objects, open
                                    // right inside this one (counted, not stored)
    frame_kind kind = frame_kind::brace_pending;
    bool in_chain = true;  // the validator is reading this frame's text
    bool looks = false;    // brace frames: starts like an object (`{"`, `{'`, `{name:`)
  };

  static bool json_like(const frame& f) noexcept {
    return f.kind == frame_kind::brace_json || f.kind == frame_kind::bracket;
  }

  /// Opens a frame of `kind` at `i` (none past `max_frames`: the scan stops).
  void push_frame(std::size_t i, frame_kind kind) {
    if (frames_.size() >= max_frames_) {
      overflow_ = overflow::frames;
      return;
    }
    // Filled in place: a frame built aside and copied in stalls on the copy (store forwarding).
    frame& f = frames_.emplace_back();
    f.open = i;
    f.mark = records_.size();
    f.near_mark = near_misses_.size();
    f.base = lazy_ ? 0 : validator_.depth() - 1;
    f.kind = kind;
    if (!lazy_) check_depth(i);
  }

  /// A frame that starts a chain: the validator starts only if what follows the opener can
  /// still make it JSON (most `{` and `[` in prose are not: `{{name}}`, `[1]`), so a run of
  /// such openers costs no validator work.
  void start_chain(std::size_t i) {
    retire_chain();
    alive_from_ = frames_.size();
    if (max_depth_ == 0) {  // every frame is too deep at once: the validator says so
      validator_.reset(text_, std::numeric_limits<std::size_t>::max(), /*quiet=*/true);
      validator_.relax_strings();
      validator_.feed(i);
      return;
    }
    lazy_ = true;
    lazy_from_ = i;
  }

  /// Starts the validator of a lazy chain: it reads what the scan read since the opener.
  /// Returns false when that already is no JSON prefix (the chain is then dead there).
  bool start_validator(std::size_t i) {
    lazy_ = false;
    validator_.reset(text_, std::numeric_limits<std::size_t>::max(), /*quiet=*/true);
    validator_.relax_strings();  // the valid-prefix tests read strings as the scan does
    validator_.run(lazy_from_, i);
    if (validator_.failed()) {
      kill_chain(validator_.error_offset());
      return false;
    }
    return true;
  }

  /// §3 at an opener at `i` that starts a chain: when its value is valid JSON that closes
  /// before `e`, its frame would close valid with nothing kept inside it. It is recorded so from
  /// one validator run, without the frames: while a frame's text is a valid JSON prefix, its
  /// brace frames nest as its objects do and its bracket frame as its array (its strings hold no
  /// raw control character, and no line inside it is a fence line), so the frames would close it
  /// at the same byte, leaving the same state. Returns the offset after the value, or 0: then
  /// the frames read it, and no opener before the byte where the run stopped is tried again
  /// (each byte is run at most once). Strict, so a value with raw controls, one nested past the
  /// limits (the validator's depth bounds the frames') or one not closed before `e` is left to
  /// the frames. A value that is plainly valid is read without the validator's state
  /// (`whole_value_reader`, which gives the validator's answer or none).
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::noinline]]
#endif
  std::size_t
  quick_value(std::size_t i, std::size_t e) {
    if (max_depth_ == 0 || frames_.size() >= max_frames_) return 0;
    const std::size_t limit = std::min(max_depth_, max_frames_ - frames_.size());
    whole_value_reader::value v = whole_value_reader::of_thread().read(text_, i, e, limit);
    if (v.end == 0) {
      validator_.reset(text_, limit, /*quiet=*/true);
      v.end = validator_.run_value(i, e);
      if (!validator_.complete()) {
        quick_from_ = v.end;
        return 0;
      }
      v.big = validator_.last_big_number() != validator::no_raw;
    }
    retire_chain();  // as `start_chain` did, and `close_frame` after the pop
    alive_from_ = frames_.size();
    push_record(i, v.end, true, cut_by::none, !frames_.empty(), false, v.big);
    return v.end;
  }

  /// The frames are gone (a segment begins or ends): `would_end` remembers none.
  void forget_dead_prefix() noexcept {
    dead_prefix_ = 0;
    prefix_drops_.clear();
  }

  /// After a pop: the chain's live frames are within the stack; none left, the chain is over.
  void after_pop() {
    if (dead_prefix_ > frames_.size()) {
      dead_prefix_ = frames_.size();
      while (!prefix_drops_.empty() && prefix_drops_.back().first >= dead_prefix_)
        prefix_drops_.pop_back();
    }
    prose_run_ = std::min(prose_run_, frames_.size());
    alive_from_ = std::min(alive_from_, frames_.size());
    if (alive_from_ == frames_.size()) retire_chain();
  }

  /// No frame the validator reads is alive: it stops reading (its state would only grow).
  void retire_chain() {
    lazy_ = false;
    for (std::size_t k = frames_.size(); k-- > 0 && frames_[k].in_chain;)
      frames_[k].in_chain = false;
  }

  void close_frame(std::size_t i) {
    const frame f = frames_.back();
    frames_.pop_back();
    after_pop();
    if (f.kind == frame_kind::brace_prose) {  // keeps what lies inside it
      if (f.looks && !where_.in_reasoning) {
        near_misses_.resize(f.near_mark);  // only the outermost near miss is named
        near_misses_.push_back(span{f.open, i + 1});
      }
      return;
    }
    records_.resize(f.mark);  // the parts of a JSON-like frame are never answers
    near_misses_.resize(f.near_mark);
    // A frame inside one that is still a valid JSON prefix is a part of it, whatever comes.
    if (alive_from_ < frames_.size()) return;
    // A live frame's text was all read by the validator since the chain started (relaxed):
    // a raw control character it took in a string inside the frame makes it invalid JSON, or
    // valid with raw controls when every one is a LF, CR or tab on its own (§3 Raw controls).
    auto inside = [&](std::size_t at) { return at != validator::no_raw && at >= f.open && at < i; };
    const bool alive_closed = f.dead_at == alive;
    const bool raw = alive_closed && inside(validator_.last_raw());
    const bool bad = raw && inside(validator_.last_bad_raw());
    push_record(f.open, i + 1, alive_closed && !bad, cut_by::none, !frames_.empty(), raw && !bad,
                !alive_closed || inside(validator_.last_big_number()));
  }

  void push_record(std::size_t begin, std::size_t end, bool valid, cut_by why, bool enclosed,
                   bool raw_controls = false, bool big_number = true) {
    if (context_index_ == no_context) {
      contexts_.push_back(where_);
      context_index_ = static_cast<std::uint32_t>(contexts_.size() - 1);
    }
    records_.push_back(record{begin, end, context_index_, source::prose, valid, why, enclosed,
                              raw_controls, big_number});
    note_record();
  }

  /// The validator failed at `i`: every frame it was reading contains the failure.
  void kill_chain(std::size_t i) {
    lazy_ = false;
    for (std::size_t k = frames_.size(); k-- > 0 && frames_[k].in_chain;) {
      frames_[k].in_chain = false;
      if (frames_[k].dead_at == alive) frames_[k].dead_at = i;
    }
    alive_from_ = frames_.size();
  }

  /// Frames whose nesting now exceeds the limit are dead; frames nested deeper stay valid. The
  /// validator then forgets the containers outside the outermost live frame.
  void check_depth(std::size_t i) {
    const std::size_t from = alive_from_;
    while (alive_from_ < frames_.size() &&
           validator_.depth() - frames_[alive_from_].base > max_depth_)
      frames_[alive_from_++].dead_at = i;
    if (alive_from_ == from) return;
    if (alive_from_ == frames_.size()) {
      retire_chain();
    } else {
      validator_.forget_outer(validator_.depth() - frames_[alive_from_].base);
    }
  }

  /// The segment ends at `e` with frames open: the outermost one whose text is still a valid
  /// JSON prefix is a cut value (`runs_to_end`: the output ends there) or a malformed record cut
  /// by `why`. What lies in it is dropped, and so is what starts in a dead JSON-like frame
  /// outside it before the byte where that frame went wrong.
  std::optional<pending_cut> end_segment(std::size_t e, bool runs_to_end, cut_by why) {
    std::optional<pending_cut> cut;
    if (frames_.empty()) return cut;
    if (lazy_) start_validator(e);  // is what the scan read alone a JSON prefix?
    // The outermost open frame whose text is a valid prefix swallows all inside it; the dead
    // JSON-like frames outside it drop what starts before the byte where they went wrong.
    std::vector<span> drops;
    const std::size_t mark = frames_.front().mark, near_mark = frames_.front().near_mark;
    for (const frame& f : frames_) {
      if (f.dead_at == alive) {
        records_.resize(f.mark);
        near_misses_.resize(f.near_mark);
        const bool array = f.kind == frame_kind::bracket || f.kind == frame_kind::bracket_pending;
        if (runs_to_end) {
          pending_cut found;
          found.kind = array ? pending_cut::what::array : pending_cut::what::object;
          found.offset = f.open;
          cut = found;
        } else {
          push_record(f.open, e, false, why, &f != &frames_.front());
        }
        break;
      }
      if (json_like(f)) drops.push_back(span{f.open, f.dead_at});
    }
    if (!drops.empty()) {
      drop_starting_in(records_, mark, drops);
      drop_starting_in(near_misses_, near_mark, drops);
    }
    frames_.clear();
    forget_dead_prefix();
    prose_run_ = 0;
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
  std::vector<record>& records_;
  std::vector<context>& contexts_;
  std::vector<span>& near_misses_;
  std::size_t max_records_;
  std::size_t max_frames_;
  std::vector<frame> frames_;
  mutable std::size_t prose_run_ = 0;  // frames_[..prose_run_] are prose-like (stable_records)
  // would_end: frames_[..dead_prefix_] are dead and settled; the drops of those JSON-like (with
  // the frame's index).
  mutable std::size_t dead_prefix_ = 0;
  mutable std::vector<std::pair<std::size_t, span>> prefix_drops_;
  validator validator_;
  static constexpr std::uint32_t no_context = static_cast<std::uint32_t>(-1);
  context where_;                             // the current segment's
  std::uint32_t context_index_ = no_context;  // its index in contexts_, once it has a record
  std::size_t alive_from_ = 0;                // frames_[alive_from_..] are the chain's live frames
  overflow overflow_ = overflow::none;
  bool lazy_ = false;  // the chain's validator has not started (lazy_from_: its opener)
  std::size_t lazy_from_ = 0;
  std::size_t quick_from_ = 0;  // quick_value tries no opener before this byte
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_FRAME_STACK_HPP_INCLUDED
