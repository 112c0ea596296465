// llmjson: the engine's segments (prose between fences, fence bodies) handed to the frame scanner
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SEGMENTS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SEGMENTS_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

#include <llmjson/detail/scan/prefix_watch.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/scan_state.hpp>

namespace llmjson::detail {

/// A fence's opening line as a cut names it (§4 Truncation): where it starts, its info string.
struct fence_opening {
  std::size_t at = 0;
  std::size_t info_at = 0, info_len = 0;
};

/// The engine's last stage: the segments the fence lines cut a part into (tests/corpus/README.md
/// §2 Fences), each given to the frame scanner (§3 The scan) as its bytes come. §3 Fence bodies:
/// while a fence body is a valid JSON prefix the frames wait, and it may be one value, a cut one
/// (§4 Truncation), or neither (then the frames catch up from its start).
class segment_reader {
 public:
  explicit segment_reader(scan_state& s) noexcept : s_(s) {}

  void rebind(std::string_view text) noexcept { body_watch_.rebind(text); }

  /// Prose starts at `at` (a part's first byte, or a closing fence line's end).
  void prose_begin(std::size_t at, const context& where) {
    in_body_ = false;
    frames_pos_ = at;
    s_.frames.begin(where);
  }

  /// The body of the fence `fence` starts at `at`.
  void body_begin(std::size_t at, const context& where, const fence_opening& fence) {
    in_body_ = true;
    body_begin_ = at;
    body_where_ = where;
    fence_ = fence;
    body_watch_.start(s_.text, at, s_.max_depth, s_.ended);
    frames_pos_ = at;
    s_.frames.begin(where);
  }

  /// The current segment's bytes are known up to `upto`.
  void text(std::size_t upto) {
    if (s_.fences_only) return;
    // §3 Fence bodies: while the body is a valid JSON prefix, the frames wait; then they catch
    // up from its start.
    if (in_body_ && body_watch_.feed(upto)) return;
    if (upto > frames_pos_) {
      s_.frames.feed(frames_pos_, upto);
      frames_pos_ = upto;
    }
  }

  /// Rules §8, read only: what ending the current segment (and a fence body in it) at `e`, the
  /// end of `text`, would leave, into `out` (`out.keep` and `out.upto` are the records so far).
  /// False when that is not known without reading: bytes held back before the segment (a line
  /// that may be a fence line), a body whose frames would start reading it with nesting near
  /// the limit (`max_depth` 0 makes every frame dead at once), a long lazy chain
  /// (`frame_stack::would_end`).
  bool would_end(std::string_view text, std::size_t e, end_view& out) const {
    // The line reader holds a line's first spaces (at most 3) until it knows the line is no
    // fence line; the end would feed them to the segment, where spaces change nothing that this
    // reads (the healing reads the text to its end itself).
    auto fed_to = [&](std::size_t at) {
      if (at == e) return true;
      if (at > e || e - at > 3) return false;
      return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(at),
                         text.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return c == ' '; });
    };
    if (in_body_ && body_watch_.watching()) {
      if (!fed_to(body_watch_.next())) return false;
      const std::size_t first = body_watch_.first();
      switch (body_watch_.would_finish()) {
        case prefix_watch::ending::blank: return true;  // heals to nothing
        case prefix_watch::ending::value:
          out.added = record{first, body_watch_.last(),      0, source::fence, true, {}, false,
                             false, body_watch_.big_number()};
          out.added_where = body_where_;
          return true;
        case prefix_watch::ending::cut: {
          pending_cut found;
          if (text[first] != '{') {
            found.kind = pending_cut::what::fence;
            found.offset = body_begin_;
            found.src = source::fence;
          } else {  // the frames would read the body from its start: the `{` is the cut frame
            if (s_.max_depth == 0 || body_watch_.depth() + 1 >= s_.max_depth) return false;
            found.kind = pending_cut::what::object;
            found.offset = first;
          }
          out.cut = found;
          return true;
        }
      }
    }
    if (!fed_to(frames_pos_)) return false;
    std::optional<frame_stack::ending_view> f = s_.frames.would_end(text, e);
    if (!f) return false;
    out.keep = f->keep;
    out.upto = f->upto;
    out.drops = std::move(f->drops);
    out.cut = f->cut;
    return true;
  }

  /// The current segment ends at `e` (`at_end`: the text's end), cut there by `why`.
  void end(std::size_t e, bool at_end, cut_by why) {
    text(e);
    if (std::optional<pending_cut> found = s_.frames.end(e, at_end, why); found && !s_.cut)
      s_.cut = found;
  }

  /// A fence body ends at `e` (its closing line, or the end of its part).
  void body_end(std::size_t e, bool at_end, cut_by why) {
    text(e);
    if (body_watch_.watching()) {
      const std::size_t first = body_watch_.first();
      switch (body_watch_.finish(e)) {
        case prefix_watch::ending::blank:
          // `` ```json `` and nothing after it was cut; a bare ``` is a prefilled fence's closer.
          if (at_end && fence_.info_len > 0) fence_cut("is empty");
          in_body_ = false;
          return;
        case prefix_watch::ending::value:
          s_.add_record(first, body_watch_.last(), source::fence, body_where_,
                        body_watch_.big_number());
          in_body_ = false;
          return;
        case prefix_watch::ending::cut:
          if (at_end && s_.text[first] != '{') {
            // An unfinished array or scalar owns all inside it, as an unfinished object does.
            fence_cut(s_.text[first] == '[' ? "is an unfinished JSON array"
                                            : "is an unfinished JSON value");
            in_body_ = false;
            return;
          }
          text(e);  // catch up: the frames read the body from its start
          break;
      }
    }
    end(e, at_end, why);
    in_body_ = false;
  }

 private:
  void fence_cut(std::string_view body) {
    pending_cut found;
    found.kind = pending_cut::what::fence;
    found.offset = body_begin_;
    found.src = source::fence;
    found.fence_offset = fence_.at;
    found.info_at = fence_.info_at;
    found.info_len = fence_.info_len;
    found.body = body;
    s_.cut = found;
  }

  scan_state& s_;
  bool in_body_ = false;
  std::size_t body_begin_ = 0;  // the current fence body's
  context body_where_;          // ... where its records lie
  fence_opening fence_;         // ... and its fence
  prefix_watch body_watch_;     // §3 Fence bodies: the current fence body
  std::size_t frames_pos_ = 0;  // the next byte for the frames
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_SEGMENTS_HPP_INCLUDED
