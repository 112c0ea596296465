// llmjson: the engine's parts: answer text and reasoning regions, each read once its bytes come
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_PARTS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_PARTS_HPP_INCLUDED

#include <cstddef>
#include <string_view>

#include <llmjson/detail/scan/lines.hpp>
#include <llmjson/detail/scan/prefix_watch.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/scan_state.hpp>
#include <llmjson/detail/scan/segments.hpp>

namespace llmjson::detail {

/// The engine's stage for tests/corpus/README.md §2 Parts: the part being read (where it starts,
/// whether it is a reasoning region and which marker opened it), its bytes handed on to the
/// `line_reader` as they come. §3 Whole parts: an answer part waits while it is a valid JSON
/// prefix, and may be one value or a cut one. The `marker_walk` says where parts begin and end.
class part_reader {
 public:
  /// The part being read.
  struct part_state {
    bool active = false;
    bool region = false;
    std::size_t begin = 0;
    std::size_t records_from = 0;              // its records are records[records_from..]
    std::size_t contexts_from = 0;             // and its contexts contexts[contexts_from..]
    std::size_t marker_at = scan_state::none;  // regions: the marker (none: the prompt's)
    std::size_t marker_len = 0;
    std::size_t released = 0;  // the part's bytes known so far end here
  };

  part_reader(scan_state& s, line_reader& lines) noexcept : s_(s), lines_(lines) {}

  void rebind(std::string_view text) noexcept { part_watch_.rebind(text); }

  [[nodiscard]] const part_state& current() const noexcept { return part_; }

  /// A part starts at `at`: answer text, or a region (`region`) whose marker is
  /// `[marker_at, marker_at + marker_len)` (`marker_at` none: the prompt opened it).
  void begin(bool region, std::size_t at, std::size_t marker_at, std::size_t marker_len) {
    part_ = part_state{};
    part_.active = true;
    part_.region = region;
    part_.begin = at;
    part_.marker_at = marker_at;
    part_.marker_len = marker_len;
    part_.records_from = s_.records.size();
    part_.contexts_from = s_.contexts.size();
    part_.released = at;
    if (s_.part_spans) s_.part_spans->push_back(part_span{at, marker_at, region});
    if (region) {
      part_watch_.stop();  // §3 Whole parts: answer parts only
    } else {
      part_watch_.start(s_.text, at, s_.max_depth, s_.ended);
    }
    where_ = context{};
    where_.in_reasoning = region;
    if (region && marker_at != scan_state::none) {
      where_.marker_at = marker_at;
      where_.marker_len = clamp32(marker_len);
    }
    // Lines and frames start at the part's first byte, which starts a line.
    lines_.begin(at, where_);
  }

  /// The part's bytes are known up to `upto`.
  void text(std::size_t upto) {
    if (!part_.active || upto <= part_.released || s_.stopped()) return;
    part_.released = upto;
    if (part_watch_.feed(upto)) return;
    lines_.feed(upto, false);  // not one value: its lines and frames catch up from its start
  }

  /// Rules §8, read only: what ending the current part at `e`, the end of `text`, would leave,
  /// into `out`: an answer part still a valid JSON prefix is one value, a cut one, or blank;
  /// otherwise its segment says (`segment_reader::would_end`). False when that is not known
  /// without reading (bytes held back before the part or its segment).
  bool would_end(std::string_view text, std::size_t e, const segment_reader& segments,
                 end_view& out) const {
    if (!part_.active || part_.released != e) return false;
    out.keep = out.upto = s_.records.size();
    if (part_.region) {
      out.in_reasoning = true;
      return true;
    }
    if (!part_watch_.watching()) return segments.would_end(text, e, out);
    if (part_watch_.next() != e) return false;
    switch (part_watch_.would_finish()) {
      case prefix_watch::ending::blank: return true;
      case prefix_watch::ending::value:
        out.added = record{
            part_watch_.first(),     part_watch_.last(), 0, source::part, true, {}, false, false,
            part_watch_.big_number()};
        out.added_where = where_;
        return true;
      case prefix_watch::ending::cut:
        out.cut = value_cut_at(text, part_watch_.first(), source::part);
        return true;
    }
    return false;
  }

  /// The part ends at `e` (a marker, or the end of the text).
  void end(std::size_t e) {
    if (s_.stopped()) return finish();
    text(e);
    const bool at_end = s_.ended && e == s_.text.size();
    if (part_watch_.watching()) {  // still a valid JSON prefix: one value, a cut value, or neither
      switch (part_watch_.finish(e)) {
        case prefix_watch::ending::blank: return finish();
        case prefix_watch::ending::value:
          s_.add_record(part_watch_.first(), part_watch_.last(), source::part, where_,
                        part_watch_.big_number());
          return finish();
        case prefix_watch::ending::cut:
          if (!at_end) break;  // cut by a marker: its lines and frames read it
          s_.value_cut(part_watch_.first(), source::part);
          return finish();
      }
    }
    lines_.end(e, at_end, part_.region ? cut_by::reasoning_end : cut_by::marker);
    finish();
  }

 private:
  void finish() noexcept { part_.active = false; }

  scan_state& s_;
  line_reader& lines_;
  part_state part_;
  context where_;  // where the part's records lie (but for fence bodies): in reasoning or not
  prefix_watch part_watch_;  // §3 Whole parts: the current answer part
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_PARTS_HPP_INCLUDED
