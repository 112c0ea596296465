// llmjson: the frame scanner: §3 The scan, one segment at a time, resumable
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_FRAMES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_FRAMES_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/frame_stack.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// §3 The scan, over one segment at a time, with a stack of brace and bracket frames and one
/// validator shared by the chain of nested frames it is validating (`frame_stack`, which this
/// class builds on, holds them; the byte rules are here).
/// Linear: every byte is looked at at most once by the frame logic and at most twice by the
/// validator (once by a `quick` run that failed there, once by the chain's), and every frame is
/// pushed, killed and popped at most once. A value that starts a chain and is valid JSON is
/// recorded from one validator run and never read by the frames (`quick`). Where nothing but a few
/// bytes can matter (a dead frame, the plain text of a string), it skips 16 or 32 bytes at a time
/// (`byte_finder`, `next_in_string`).
///
/// Memory stays in proportion to what real outputs hold, whatever the text: prose-like frames
/// that do not look like objects are counted, not stored (`{{{{`); a frame inside a frame that
/// is still a valid JSON prefix records nothing (that owner will drop it whatever comes); the
/// validator forgets the containers of dead frames. Past `max_frames` open frames, or
/// `max_records` records, the scan stops (`overflowed()`).
class frame_scanner : public frame_stack {
 public:
  using frame_stack::frame_stack;

  /// Points at the text again, moved or grown (a stream's buffer): offsets keep their meaning.
  void rebind(std::string_view text) noexcept {
    text_ = text;
    validator_.rebind(text);
  }

  /// Starts a segment whose records lie in `where`. The context is added to the engine's
  /// contexts with the segment's first record (most segments have none).
  void begin(const context& where) {
    where_ = where;
    context_index_ = no_context;
    frames_.clear();
    forget_dead_prefix();
    prose_run_ = 0;
    in_string_ = false;
    escaped_ = false;
    strict_ = false;
    alive_from_ = 0;
    lazy_ = false;
    quick_from_ = 0;
  }

  /// Scans the segment's bytes `[b, e)`, which continue the bytes scanned before.
  void feed(std::size_t b, std::size_t e) {
    static constexpr byte_finder openers{"{["};  // outside every frame only these matter
    static constexpr byte_finder in_prose{"{}["};
    static constexpr byte_finder in_object{"\"{}"};
    static constexpr byte_finder in_array{"\"[]{"};
    for (std::size_t i = b; i < e && overflow_ == overflow::none; ++i) {
      if (frames_.empty()) {
        i = openers.next(text_, i, e);
        if (i == e) break;
        if (const std::size_t after = quick(i, e)) {
          i = after - 1;
          continue;
        }
        if (text_[i] == '{') {
          open_brace(i, false);
        } else {
          open_bracket(i);
        }
        continue;
      }
      // Skip what cannot matter: in a dead frame, all but its structure; in a string, its
      // plain text (the validator, if it reads the string, takes the run at once).
      const frame& top = frames_.back();
      if (in_string_) {
        if (!escaped_) {
          if (!top.in_chain || lazy_) {
            i = next_in_string(text_, i, e, false);
          } else if (!lazy_ && validator_.in_plain_string()) {
            const std::size_t j = next_in_string(text_, i, e, true);
            validator_.take_plain(i, j);
            i = j;
          }
          if (i == e) break;
        }
      } else if (top.in_chain) {
        // In a live JSON-like frame, only quotes and brackets concern the frames: the bytes
        // between them (white space, `:`, `,`, numbers, literals) go to the validator alone.
        if (!lazy_ && top.prose_above == 0 && json_like(top)) {
          std::size_t j = i;
          for (; j < e; ++j) {
            const char c = text_[j];
            if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') break;
            if (!validator_.feed(j)) {
              kill_chain(j);
              break;
            }
          }
          if (j == e) break;
          i = j;
          if (!frames_.back().in_chain) continue;  // the byte at `j` killed the chain
        }
      } else {
        const byte_finder* f =
            top.prose_above > 0 || (top.kind == frame_kind::brace_prose && probe_ == probe::none)
                ? &in_prose
            : top.kind == frame_kind::brace_json ? &in_object
            : top.kind == frame_kind::bracket    ? &in_array
                                                 : nullptr;
        if (f) {
          i = f->next(text_, i, e);
          if (i == e) break;
          // An opener in a dead or prose-like frame starts a chain of its own.
          if (text_[i] == '{' || (text_[i] == '[' && f == &in_prose)) {
            if (const std::size_t after = quick(i, e)) {
              i = after - 1;
              continue;
            }
          }
        }
        if (f == &in_array) {  // runs of brackets in a dead bracket frame are only counted
          frame& array = frames_.back();
          std::size_t j = i;
          if (text_[i] == '[') {
            while (j < e && text_[j] == '[') ++j;
            array.nest += static_cast<std::uint32_t>(j - i);
          } else if (text_[i] == ']') {
            while (j < e && text_[j] == ']' && array.nest > 0) ++j, --array.nest;
          }
          if (j > i) {
            i = j - 1;
            continue;
          }
        }
      }
      step(i);
    }
  }

  /// Ends the segment at `e`. When it runs to the end of the text and ends inside a frame whose
  /// text is a valid JSON prefix, returns where the output was cut; when it ends inside such a
  /// frame otherwise, that frame is malformed, cut by `why`.
  std::optional<pending_cut> end(std::size_t e, bool runs_to_end, cut_by why) {
    return end_segment(e, runs_to_end, why);
  }

 private:
  enum class pending : unsigned char { after_brace, first_string, after_first_string };
  enum class probe : unsigned char { none, name, after_name };  // `{name :` makes a near miss

  /// Settles the kind of the frame on top while it is still open, on `c`. Returns false when
  /// the byte was used up doing so; else the byte is read in the kind of the frame then on top.
  /// `first_string`: `c` is a `"` that starts a bracket frame's first string.
  bool settle(std::size_t i, char c, bool& first_string) {
    for (;;) {
      frame& top = frames_.back();
      if (top.kind == frame_kind::brace_pending) {
        if (!decide_kind(top, c)) return false;
        if (fold_prose()) {  // counted now: the byte is read in it
          step_counted(i, c);
          return false;
        }
      } else if (top.kind == frame_kind::bracket_pending) {
        if (is_json_ws(c)) return false;
        if (c != '{' && c != '[' && c != '"') {
          // `[1]`, `[text](url)`, `[ ]`: no frame after all; read the byte where it stands.
          frames_.pop_back();
          after_pop();
          if (frames_.empty()) return false;  // outside every frame only `{` and `[` matter
          if (frames_.back().prose_above > 0) {
            step_counted(i, c);
            return false;
          }
          continue;
        }
        top.kind = frame_kind::bracket;
        first_string = c == '"';
      }
      break;
    }
    return true;
  }

  void step(std::size_t i) {
    const char c = text_[i];
    bool joined = false;
    if (c == '{' && lazy_ && pending_ == pending::after_brace && frames_.size() >= 2 &&
        frames_.back().kind == frame_kind::brace_pending) {
      // `{{`: the frame just opened is prose-like (a `{` follows its `{`) and goes onto the
      // count of the frame below; this `{` opens the next one in its place.
      ++frames_[frames_.size() - 2].prose_above;
      frame& top = frames_.back();
      top.open = i;
      top.mark = records_.size();
      top.near_mark = near_misses_.size();
      lazy_from_ = i;
      return;
    }
    if (frames_.back().in_chain && !(lazy_ && lazy_skips(i, c))) {
      if (lazy_ && !start_validator(i)) {
        // What the scan read alone was no JSON prefix after all: the chain died in it.
      } else if (!validator_.feed(i)) {
        kill_chain(i);
      } else {
        joined = c == '{';
        if (c == '[') check_depth(i);
      }
    }
    if (in_string_) {
      string_byte(i, c);
      return;
    }
    // The innermost frame may be a counted prose-like one.
    if (frames_.back().prose_above > 0) {
      step_counted(i, c);
      return;
    }
    // Settle a frame whose kind is still open; the byte is then read as in that kind.
    bool first_string = false;
    if (!settle(i, c, first_string)) return;
    read_in_kind(i, c, joined, first_string);
  }

  /// Reads `c` in the settled kind of the frame on top.
  void read_in_kind(std::size_t i, char c, bool joined, bool first_string) {
    frame& top = frames_.back();
    switch (top.kind) {
      case frame_kind::bracket:
        if (c == '"') {
          start_string(first_string);
        } else if (c == '[') {
          ++top.nest;
        } else if (c == ']') {
          if (top.nest == 0) {
            close(i);
          } else {
            --top.nest;
          }
        } else if (c == '{') {
          open_brace(i, joined);
        }
        break;
      case frame_kind::brace_json:
        if (c == '"') {
          start_string(false);
        } else if (c == '{') {
          open_brace(i, joined);
        } else if (c == '}') {
          close(i);
        }
        break;
      case frame_kind::brace_prose:
        if (probe_ != probe::none) {
          near_miss_byte(top, c);
          if (fold_prose()) {
            step_counted(i, c);
            return;
          }
        }
        if (c == '{') {
          open_brace(i, joined);
        } else if (c == '}') {
          close(i);
        } else if (c == '[') {
          open_bracket(i);
        }
        break;
      default: break;
    }
  }

  /// Reads `c` in a counted prose-like frame (the innermost one).
  void step_counted(std::size_t i, char c) {
    if (c == '{') {
      open_brace(i, false);
    } else if (c == '}') {
      --frames_.back().prose_above;
    } else if (c == '[') {
      open_bracket(i);
    }
  }

  /// A prose-like frame on top that does not look like an object (and no longer may): it only
  /// nests, so it is counted on the frame below it instead of stored. Returns whether it was.
  bool fold_prose() {
    frame& top = frames_.back();
    if (top.kind != frame_kind::brace_prose || top.looks || probe_ != probe::none ||
        frames_.size() < 2)
      return false;
    frames_.pop_back();
    after_pop();
    ++frames_.back().prose_above;
    return true;
  }

  /// Settles a pending brace frame's kind on `c`. Returns false when `c` was used up doing so.
  bool decide_kind(frame& top, char c) {
    switch (pending_) {
      case pending::after_brace:
        if (is_json_ws(c)) return false;
        if (c == '}') {
          top.kind = frame_kind::brace_json;
          return true;
        }
        if (c == '"') {
          start_string(true);
          top.looks = true;
          pending_ = pending::first_string;
          return false;
        }
        top.looks = c == '\'';
        if (is_word_start(c)) probe_ = probe::name;
        break;
      case pending::after_first_string:
        if (is_json_ws(c)) return false;
        if (c == ':') {
          top.kind = frame_kind::brace_json;
          return false;
        }
        break;
      case pending::first_string: break;  // unreachable: the string is read by string_byte
    }
    top.kind = frame_kind::brace_prose;
    return true;
  }

  /// `{name :` in a prose-like frame: it starts like an object with an unquoted key.
  void near_miss_byte(frame& top, char c) {
    if (probe_ == probe::name && is_word_byte(c)) return;
    if (is_json_ws(c)) {
      probe_ = probe::after_name;
      return;
    }
    if (c == ':') top.looks = true;
    probe_ = probe::none;
  }

  /// A string starts. A frame's first string (`strict`: a brace frame's while its kind is
  /// undecided, a bracket frame's right after its `[`) ends at a raw control character too;
  /// every other string ends only at a `"` no backslash escapes.
  void start_string(bool strict) {
    in_string_ = true;
    escaped_ = false;
    strict_ = strict;
  }

  void string_byte(std::size_t i, char c) {
    const auto u = static_cast<unsigned char>(c);
    if (strict_ && u < 0x20) {  // even after a backslash: that quote was punctuation
      in_string_ = false;
      escaped_ = false;
      string_ended(i, false);
    } else if (escaped_) {  // whatever the byte, a raw control character included
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      string_ended(i, true);
    }
  }

  void string_ended(std::size_t i, bool by_quote) {
    frame& top = frames_.back();
    if (!by_quote && top.kind == frame_kind::bracket) {
      // A bracket frame's first string that a raw control character ends: no frame at all.
      // Its `[` and the string stay text; the scan goes on after this byte in the frame
      // around it (a prose-like one, or none). The validator read the string relaxed (it
      // is no key) and is retired with the chain this frame started.
      frames_.pop_back();
      after_pop();
      return;
    }
    if (top.kind != frame_kind::brace_pending) return;
    if (by_quote) {
      pending_ = pending::after_first_string;
    } else {
      if (lazy_) kill_chain(i);  // the validator, had it read the string, would stop here
      top.kind = frame_kind::brace_prose;
      fold_prose();
    }
  }

  /// The frame on top closes at `i` (a near miss's probe ends with it).
  void close(std::size_t i) {
    probe_ = probe::none;
    close_frame(i);
  }

  void open_brace(std::size_t i, bool joined) {
    if (!joined) start_chain(i);
    push_frame(i, frame_kind::brace_pending);
    probe_ = probe::none;
    pending_ = pending::after_brace;
  }

  /// A `[` outside every frame or in a prose-like frame: a frame if what follows it says so.
  /// Such a `[` never continues a chain (a prose-like frame's text is no JSON prefix).
  void open_bracket(std::size_t i) {
    start_chain(i);
    push_frame(i, frame_kind::bracket_pending);
    probe_ = probe::none;
  }

  /// An opener at `i` that would start a chain (`feed` calls it where the frames would call
  /// `open_brace(i, false)` or `open_bracket(i)` next, and nothing else): when it starts like
  /// JSON (`{"`, `[{`, `[[`, `["`, white space between) and its value is valid JSON that closes
  /// within the bytes fed, before `e` (`quick_value`), it is recorded at once and the offset
  /// after it is returned, where the scan goes on as the frames would after closing it; else 0.
  /// Most openers in prose fail the first test (`{x`, `{{`, `[1]`) at the byte after them.
  std::size_t quick(std::size_t i, std::size_t e) {
    std::size_t j = i + 1;
    if (j >= e) return 0;
    char c = text_[j];
    const bool brace = text_[i] == '{';
    if (c != '"') {
      if (brace && !is_json_ws(c)) return 0;  // `{x`, `{{`: most braces in prose
      while (is_json_ws(c) && ++j < e) c = text_[j];
      if (j >= e || (brace ? c != '"' : c != '"' && c != '{' && c != '[')) return 0;
    }
    if (i < quick_from_) return 0;
    const std::size_t after = quick_value(i, e);
    if (after != 0) probe_ = probe::none;
    return after;
  }

  /// Whether the validator of a chain not started yet may skip `c` (white space after the
  /// opener); a byte that makes the frame no JSON prefix kills it without the validator.
  bool lazy_skips(std::size_t i, char c) {
    if (frames_.back().kind == frame_kind::bracket_pending) {
      if (is_json_ws(c)) return true;
      if (c == '{' || c == '[' || c == '"') return false;  // it may be JSON: the validator starts
      lazy_ = false;  // a `[` followed by anything else is no frame: it goes away
      return true;
    }
    // A brace frame's first string is read by the scan alone: only a `:` after it makes the
    // frame JSON-like (and `}` right after the `{`); then the validator reads it all.
    switch (pending_) {
      case pending::after_brace:
        if (is_json_ws(c) || c == '"') return true;
        if (c == '}') return false;
        break;
      case pending::first_string: return true;  // a control byte ends it (string_ended)
      case pending::after_first_string:
        if (is_json_ws(c)) return true;
        if (c == ':') return false;
        break;
    }
    kill_chain(i);  // `{x`, `{"a" x`: the frame is prose-like, its text no JSON prefix
    return true;
  }

  pending pending_ = pending::after_brace;
  probe probe_ = probe::none;
  bool in_string_ = false;
  bool escaped_ = false;
  bool strict_ = false;  // the string is a frame's first one (string_byte)
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_FRAMES_HPP_INCLUDED
