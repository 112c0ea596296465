// llmjson: the engine's lines and fences: which lines of a part are fence lines, and the segments
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_LINES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_LINES_HPP_INCLUDED

#include <cstddef>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/fence_walker.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/scan_state.hpp>
#include <llmjson/detail/scan/segments.hpp>
#include <llmjson/detail/scan/whole.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// The engine's stage for tests/corpus/README.md §2 Lines and §2 Fences, over one part at a
/// time: a line that may be a fence line is held until it ends, then fed to the `fence_walker`;
/// fence lines cut the part into segments (prose and fence bodies) for the `segment_reader`.
/// With all the text there, §3 Fence bodies: a long body that is one object or array is checked
/// and built in one pass (`whole_body`).
class line_reader {
 public:
  line_reader(scan_state& s, segment_reader& segments) noexcept : s_(s), segments_(segments) {}

  /// A part starts at `at` (which starts a line); its records lie in `where`, which the
  /// `part_reader` keeps until the part ends (it is not copied: a part per marker).
  void begin(std::size_t at, const context& where) {
    part_begin_ = at;
    part_where_ = &where;
    line_pos_ = at;
    held_ = false;
    fences_.reset();
    segments_.prose_begin(at, where);
  }

  /// §2 Lines, §2 Fences over the part's bytes `[line_pos_, upto)`. `part_ended`: `upto` ends
  /// the part.
  void feed(std::size_t upto, bool part_ended) {
    const std::string_view text = s_.text;
    while (line_pos_ < upto) {
      if (held_) {
        // A line that may be a fence line: its fate needs all of it.
        const std::size_t eol = line_ends.next(text, line_pos_, upto);
        std::size_t next = eol;
        if (eol == upto) {
          if (!part_ended) {
            line_pos_ = upto;
            return;
          }
        } else if (text[eol] == '\r' && eol + 1 == upto && !part_ended) {
          line_pos_ = eol;  // CR then perhaps LF: one more byte tells where the next line starts
          return;
        } else {
          next = eol + (text[eol] == '\r' && eol + 1 < upto && text[eol + 1] == '\n' ? 2 : 1);
        }
        held_line(held_at_, eol, next, upto);
        continue;
      }
      // Outside a held line only backticks and tildes matter: a fence line starts, after at
      // most 3 spaces, with 3 of them.
      const std::size_t h = fence_bytes.next(text, line_pos_, upto);
      if (h == upto) {
        // Nothing to hold, but the last line's start could still become a fence line.
        std::size_t keep = upto;
        if (!part_ended) keep = open_line_start(line_pos_, upto);
        segments_.text(keep);
        line_pos_ = keep;
        return;
      }
      const std::size_t s = fence_line_start(h);
      if (s == none) {  // not at a line's start: this line is no fence line
        segments_.text(h + 1);
        line_pos_ = h + 1;
        continue;
      }
      // A line start: a fence line if the run is 3 long.
      std::size_t run = h;
      while (run < upto && run - h < 3 && text[run] == text[h]) ++run;
      if (run - h < 3 && run == upto && !part_ended) {
        segments_.text(s);
        line_pos_ = s;
        return;
      }
      if (run - h < 3) {
        segments_.text(run);
        line_pos_ = run;
        continue;
      }
      segments_.text(s);
      line_pos_ = s;
      held_at_ = s;
      held_ = true;
    }
    // The part's end ends a line still held.
    if (held_ && part_ended) held_line(held_at_, upto, upto, upto);
  }

  /// The part ends at `e` (`at_end`: the text's end), cut there by `why`.
  void end(std::size_t e, bool at_end, cut_by why) {
    feed(e, true);
    if (fences_.in_fence()) {
      note_fence_end(e, e, false);
      segments_.body_end(e, at_end, why);
    } else {
      segments_.end(e, at_end, why);
    }
  }

 private:
  static constexpr std::size_t none = scan_state::none;
  static constexpr byte_finder fence_bytes{"`~"};  // §2 Fences: a fence line's run
  static constexpr byte_finder line_ends{"\n\r"};  // §2 Lines

  /// The line `[s, eol)` of `text` (`s <= eol <= text.size()`). Not `substr`: its bounds check
  /// is a call where the compiler leaves it out of line, once or twice per fence line.
  [[nodiscard]] static std::string_view line_of(std::string_view text, std::size_t s,
                                                std::size_t eol) noexcept {
    return {text.data() + s, eol - s};
  }

  /// If the backtick or tilde at `h` follows at most 3 spaces at the start of a line (of the
  /// part), returns that line's start.
  [[nodiscard]] std::size_t fence_line_start(std::size_t h) const noexcept {
    std::size_t s = h;
    while (s > part_begin_ && h - s < 4 && s_.text[s - 1] == ' ') --s;
    if (h - s > 3) return none;
    if (s == part_begin_ || s_.text[s - 1] == '\n' || s_.text[s - 1] == '\r') return s;
    return none;
  }

  /// `upto`, or the start of the last line in `[from, upto)` if that line is still too short
  /// to tell whether it is a fence line (at most 3 spaces so far).
  [[nodiscard]] std::size_t open_line_start(std::size_t from, std::size_t upto) const noexcept {
    const std::string_view text = s_.text;
    std::size_t s = upto;
    while (s > from && upto - s < 4 && text[s - 1] == ' ') --s;
    if (upto - s > 3) return upto;
    if (s == part_begin_ || (s > 0 && (text[s - 1] == '\n' || text[s - 1] == '\r'))) return s;
    return upto;
  }

  /// The held line `[s, eol)` is complete; the next line starts at `next`.
  void held_line(std::size_t s, std::size_t eol, std::size_t next, std::size_t upto) {
    held_ = false;
    const fence_walker::line_read read = fences_.feed(line_of(s_.text, s, eol));
    if (read.kind == fence_walker::line_kind::opens) {
      segments_.end(s, false, cut_by::fence_line);
      fence_.at = s;
      fence_.info_at = static_cast<std::size_t>(read.info.data() - s_.text.data());
      fence_.info_len = read.info.size();
      if (s_.fence_spans) {
        s_.fence_spans->push_back(fence_span{s, next, next, next, fence_.info_at, fence_.info_len,
                                             fences_.fence_length(), fences_.fence_char(), false});
      }
      if (s_.ended && !s_.fences_only && !part_where_->in_reasoning && whole_body(next, upto))
        return;
      segments_.body_begin(next, body_where(), fence_);
      line_pos_ = next;
      return;
    }
    if (read.kind == fence_walker::line_kind::closes) {
      segments_.body_end(s, false, cut_by::closing_line);
      note_fence_end(s, eol, true);
      // The closing line's end: the prose after it starts there (its line ending included).
      segments_.prose_begin(eol, *part_where_);
      line_pos_ = eol;
      return;
    }
    segments_.text(next);
    line_pos_ = next;
  }

  /// Where the records of the open fence's body lie.
  [[nodiscard]] context body_where() const noexcept {
    context c = *part_where_;
    c.in_fence = true;
    c.info_at = fence_.info_at;
    c.info_len = clamp32(fence_.info_len);
    return c;
  }

  /// §3 Fence bodies, with all the text there: a fence body of `whole_body_min` bytes or more that
  /// is one object or array, with its closing line, is checked in one run of the validator and
  /// built (`parse_whole`, as a whole output is), and nothing inside it is read again. Returns
  /// false (having changed nothing) when it is not so: the body is then read the usual way. Not
  /// in reasoning, where no value is built. Every body this way, however small and in reasoning
  /// too, was measured at issue 31's sixth stop: no faster (the batch's 20,000 lines 1.132 billion
  /// instructions against 1.131), a small body's validator costing its setup.
  static constexpr std::size_t whole_body_min = 256;
  bool whole_body(std::size_t body, std::size_t upto) {
    const std::string_view text = s_.text;
    std::size_t b = body;
    while (b < upto && is_json_ws(text[b])) ++b;
    if (b == upto || (text[b] != '{' && text[b] != '[')) return false;
    for (std::size_t i = body; (i = fence_bytes.next(text, i, upto)) < upto;) {
      const std::size_t s = fence_line_start(i);
      const std::size_t eol = line_ends.next(text, i, upto);
      if (eol == upto) return false;  // the closing line must end before the part does
      if (s == none || !fences_.closes(line_of(text, s, eol))) {
        i = eol;
        continue;
      }
      // A small body is read as fast the usual way: a validator's setup costs more than its bytes.
      if (s - b < whole_body_min) return false;
      std::size_t e = s;
      while (e > b && is_json_ws(text[e - 1])) --e;
      nlohmann::json value;
      if (!parse_whole(text, body, s, s_.max_depth, s_.build_values ? &value : nullptr))
        return false;
      s_.add_record(b, e, source::fence, body_where(), false);  // parse_whole checked its numbers
      if (s_.build_values) s_.built.emplace_back(s_.records.size() - 1, std::move(value));
      fences_.close();
      note_fence_end(s, eol, true);
      segments_.prose_begin(eol, *part_where_);  // the closing line's end: the prose starts there
      line_pos_ = eol;
      return true;
    }
    return false;
  }

  /// The open fence's body ends at `body_end` and the fence at `end`, for `collect_fences`.
  void note_fence_end(std::size_t body_end, std::size_t end, bool closed) {
    if (!s_.fence_spans || s_.fence_spans->empty()) return;
    fence_span& f = s_.fence_spans->back();
    f.body_end = body_end;
    f.end = end;
    f.closed = closed;
  }

  scan_state& s_;
  segment_reader& segments_;
  std::size_t part_begin_ = 0;           // the current part's first byte
  const context* part_where_ = nullptr;  // ... and where its prose's records lie
  bool held_ = false;  // the line from held_at_ may be a fence line: it waits for its end
  std::size_t line_pos_ = 0, held_at_ = 0;
  fence_walker fences_;
  fence_opening fence_;  // the last fence opened
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_LINES_HPP_INCLUDED
