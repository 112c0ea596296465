// llmjson: the engine: the extraction rules over a text that may still be growing, in one pass
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/scan/fence_walker.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/frames.hpp>
#include <llmjson/detail/scan/prefix_watch.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/text.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// One part of a text as the engine reads it (§2 Parts): answer text, or a reasoning region,
/// from `begin` to the next part's `begin` (or the end of the text). A region's `marker_at` is
/// where its marker is (the one that opened it, or for a region the prompt opened, the one that
/// closed it; `no_marker` when none did): the region's text, markers included, runs from the
/// first of `marker_at` and `begin` to the next part.
struct part_span {
  static constexpr std::size_t no_marker = static_cast<std::size_t>(-1);
  std::size_t begin = 0;
  std::size_t marker_at = no_marker;
  bool region = false;
};

/// The rules of tests/corpus/README.md §1 to §4 over a text given as it grows. Each `advance`
/// takes all the text so far and goes as far as the bytes seen decide; the last one says the
/// text has ended. Given the whole text at once it yields what `candidates()` lists; given it
/// in pieces, exactly the same records, near misses and cut, whatever the pieces. Linear: each
/// byte is read a few times at most. Allocates the records and the stages' state.
///
/// The stages, each reading left to right:
/// - §3 Whole output: a `prefix_watch` while the text is a valid JSON prefix; the stages below
///   wait until it fails (a whole value owns all inside it), then read from the start;
/// - §2 Reasoning regions, §2 Parts: markers cut the text into parts, each decided once the
///   bytes it may span are there. Before any opening marker the text is read as answer text;
///   a closing marker then (already open) makes it reasoning, read again once (a harmony
///   <|end|> or <|call|> then holds the reading until a token only harmony uses follows it, or
///   the text ends). Stripped harmony is watched by two cursors; when a later byte changes
///   whether it applies, the text is read again (twice at most). The phrase pairs are decided
///   by the first bytes after the white space: the reading waits for them;
/// - §3 Whole parts: an answer part waits while it is a valid JSON prefix;
/// - §2 Fences: a line that may be a fence line is held until it ends, then fed to the
///   `fence_walker`; fence lines cut a part into segments. §3 Fence bodies: a body waits while
///   it is a valid JSON prefix;
/// - §3 The scan: the `frame_scanner` over each segment.
class engine {
 public:
  explicit engine(const options& opts)
      : options_(opts),
        max_depth_(std::min(opts.max_depth, max_depth_limit)),
        markers_(opts),
        frames_(max_depth_, records, contexts, near, opts.max_candidates, opts.max_open_frames) {}

  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  std::vector<record> records;    ///< the candidates so far, in document order
  std::vector<context> contexts;  ///< where they lie: `records[k].ctx` indexes it
  std::vector<span> near;         ///< near misses so far
  /// Values already built (whole fence bodies outside reasoning, with all the text there):
  /// record index, value.
  std::vector<std::pair<std::size_t, nlohmann::json>> built;
  std::optional<pending_cut> cut;  ///< where the output was cut (known at the end)

  /// A resource limit stopped the reading (`options::max_candidates`, `max_open_frames`): the
  /// results are incomplete, and the answer is `too_large`.
  [[nodiscard]] overflow overflowed() const noexcept { return frames_.overflowed(); }

  [[nodiscard]] std::size_t max_depth() const noexcept { return max_depth_; }

  /// The whole output is known not to be one JSON value (nor a cut one): the stages below
  /// read the text. Before that, no record exists.
  [[nodiscard]] bool reading() const noexcept { return reading_; }
  /// A later byte could change how all the text so far is read (and `generation()` would
  /// change): before any opening marker with the already-open rule on, a later closing marker
  /// would make it reasoning; while the text begins with `analysis` and holds no harmony token,
  /// a later `assistantfinal` would make stripped harmony apply, or a later harmony token would
  /// cancel it.
  [[nodiscard]] bool provisional() const noexcept {
    return reading_ && (mode_ == mode::pre || (!ended_ && stripped_ != stripped::no));
  }
  /// Records before this index are final: later text never drops or changes them (unless
  /// `generation()` changes). In a region the prompt opened, none is: its records take the
  /// marker that closes it.
  [[nodiscard]] std::size_t stable_records() const noexcept {
    if (reading_ && mode_ == mode::region && region_ == region_kind::prompt)
      return part_.records_from;
    return frames_.stable_records();
  }
  /// Changes when the text is read again (the already-open rule, stripped harmony): the records
  /// made before are gone.
  [[nodiscard]] std::size_t generation() const noexcept { return generation_; }

  /// From now on, every fence the engine reads (§2 Fences: per part, in document order) is
  /// added to `out`, which must outlive the engine's use; a reading again (`generation()`)
  /// clears it. `only`: the segments are not scanned (the fences stay the same; the records
  /// and the cut do not). For `fences()`: the fences are complete if no limit stops the
  /// reading (`overflowed()`).
  void collect_fences(std::vector<fence_span>& out, bool only) noexcept {
    fence_spans_ = &out;
    fences_only_ = only;
  }

  /// From now on, every part the engine reads (§2 Parts, in document order) is added to `out`,
  /// which must outlive the engine's use; a reading again (`generation()`) clears it. A text
  /// that is one value (or a cut one) has no parts: it is all answer.
  void collect_parts(std::vector<part_span>& out) noexcept { part_spans_ = &out; }

  /// Whether the long fence bodies checked in one pass are built too (`built`): not for a
  /// scan for selection, which builds the values that judging and the answer ask for.
  void build_values(bool yes) noexcept { build_values_ = yes; }

  /// Takes all the text so far (the bytes given before, and maybe more) and processes what it
  /// can decide. `ended`: no more text will come; the results are then final.
  void advance(std::string_view text, bool ended) {
    text_ = text;
    ended_ = ended;
    frames_.rebind(text);
    whole_watch_.rebind(text);
    part_watch_.rebind(text);
    body_watch_.rebind(text);
    if (frames_.overflowed() != overflow::none) return;
    if (!started_ && !find_start()) return;
    if (stripped_ != stripped::no) stripped_harmony();
    if (phrase_ == phrase::unknown) phrase_start();
    if (!whole_output()) return;
    if (!reading_) {
      // The phrase pairs decide the start: the text waits until the bytes tell (a few dozen
      // at most after the white space, none of them JSON).
      if (phrase_ == phrase::unknown) return;
      begin_reading();
    }
    if (!options_.reasoning_regions) {
      part_text(text_.size());
      if (ended_ && part_.active) part_end(text_.size());
      return;
    }
    markers();
  }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  // --- the start and the whole output -------------------------------------------------------

  /// §1 Valid JSON: one leading UTF-8 BOM is no part of the text. Returns false while the bytes
  /// so far may still be the start of one.
  bool find_start() {
    const std::size_t n = std::min(text_.size(), utf8_bom.size());
    if (text_.substr(0, n) == utf8_bom.substr(0, n) && n < utf8_bom.size() && !ended_) return false;
    start_ = bom_length(text_);
    started_ = true;
    stripped_ws_end_ = start_;
    if (!options_.reasoning_regions || !markers_.on(reasoning_format::stripped_harmony))
      stripped_ = stripped::no;
    if (!options_.reasoning_regions) phrase_ = phrase::no;
    whole_watch_.start(text_, start_, max_depth_);
    return true;
  }

  /// §3 Whole output. Returns whether the stages below may run (they read the text from its
  /// start: `begin_reading`).
  bool whole_output() {
    if (whole_decided_) return !whole_value_;
    if (whole_watch_.feed(text_.size())) {
      if (!ended_) return false;
      whole_decided_ = true;
      switch (whole_watch_.finish(text_.size())) {
        case prefix_watch::ending::value:
          whole_value_ = true;
          add_record(whole_watch_.first(), whole_watch_.last(), source::whole, context{});
          return false;
        case prefix_watch::ending::cut:
          whole_value_ = true;
          value_cut(whole_watch_.first());
          return false;
        case prefix_watch::ending::blank: break;  // a region the prompt opened may hold it
      }
    }
    whole_decided_ = true;  // not one value
    return true;
  }

  /// The text is not one value: parts, fences and frames from the start.
  void begin_reading() {
    reading_ = true;
    marker_pos_ = start_;
    read_stripped_ = stripped_ == stripped::yes;
    if (phrase_ == phrase::yes) {
      // A phrase pair decides the start, whatever options::start says: one region from the
      // opening phrase through the first closing phrase of its pair.
      mode_ = mode::region;
      region_ = region_kind::phrase;
      marker_pos_ = phrase_at_ + phrase_len_;
      part_begin(true, marker_pos_, phrase_at_, phrase_len_);
    } else if (read_stripped_) {
      // Stripped harmony decides the start, whatever options::start says: one region from
      // the start (its part after `analysis`) through the first `assistantfinal`.
      mode_ = mode::region;
      region_ = region_kind::stripped;
      marker_pos_ = stripped_word_ + stripped_open.size();
      part_begin(true, marker_pos_, stripped_word_, stripped_open.size());
    } else if (!options_.reasoning_regions || options_.start == output_start::answer) {
      mode_ = mode::answer;
      part_begin(false, start_, none, 0);
    } else if (options_.start == output_start::reasoning) {
      mode_ = mode::region;
      region_ = region_kind::prompt;
      part_begin(true, start_, none, 0);
    } else {
      mode_ = mode::pre;
      part_begin(false, start_, none, 0);
      // The whole text is here: when a closing marker comes before any opening one (§2
      // Already open), the reading starts as that region at once, instead of reading the
      // reasoning as answer text first and then again (a thinking model's whole reasoning).
      if (ended_) {
        if (const std::optional<marker_match> m = first_already_open()) already_open(*m);
      }
    }
  }

  /// With the whole text: the marker at which the reading in mode `pre` would find the region
  /// already open (a closing tag before any opening marker, or an `<|end|>`/`<|call|>` before
  /// any other harmony token with a token only harmony uses after it), as `markers()` decides
  /// it; nothing when it would decide the start is answer text. Only looks at markers.
  /// Where it finds no marker at all, the reading does not look again (`no_marker_from_`).
  [[nodiscard]] std::optional<marker_match> first_already_open() {
    bool seen_harmony = false;
    for (std::size_t pos = start_;;) {
      const marker_match m = markers_.next(text_, pos, /*ended=*/true);
      if (m.kind == marker_kind::none) {
        no_marker_from_ = pos;
        return std::nullopt;
      }
      const std::size_t after = m.at + m.len;
      if (m.kind == marker_kind::tag_close) return m;
      if ((m.is(harmony::end) || m.is(harmony::call)) && !seen_harmony &&
          marker_set::harmony_in(harmony_only, text_, after, true).kind != marker_kind::none)
        return m;
      if (marker_set::opens_region(text_, m)) return std::nullopt;
      if (m.kind == marker_kind::harmony_token) seen_harmony = true;
      pos = after;
    }
  }

  /// What the stages below made of the text so far is dropped: it is about to be read again
  /// (`generation()` changes).
  void forget_reading() {
    ++generation_;
    records.clear();
    built.clear();
    contexts.clear();
    near.clear();
    cut.reset();
    if (fence_spans_) fence_spans_->clear();
    if (part_spans_) part_spans_->clear();
    part_ = part_state{};
  }

  /// All of the text so far is read again from its start (how it is read changed).
  void reread() {
    forget_reading();
    seen_harmony_ = false;
    begin_reading();
  }

  // --- stripped harmony --------------------------------------------------------------------

  /// Where the JSON white space after the BOM ends, as far as the text so far shows (read once).
  std::size_t leading_ws_end() noexcept {
    while (stripped_ws_end_ < text_.size() && is_json_ws(text_[stripped_ws_end_]))
      ++stripped_ws_end_;
    return stripped_ws_end_;
  }

  /// §2 Phrase pairs: whether the text begins, after the BOM and JSON white space, with an
  /// opening phrase (of a pair that is on). Decided by a few dozen bytes at most: the stages
  /// below wait for it.
  void phrase_start() {
    const std::size_t at = leading_ws_end();
    if (at == text_.size() && !ended_) return;  // white space so far
    const marker_match m = markers_.phrase_at(text_, at, ended_);
    if (!m.decided) return;
    if (m.kind == marker_kind::none) {
      phrase_ = phrase::no;
      return;
    }
    phrase_ = phrase::yes;
    phrase_pair_ = m.index;
    phrase_at_ = m.at;
    phrase_len_ = m.len;
  }

  /// §2 Stripped harmony: whether it applies to the text so far: it begins, after the BOM
  /// and JSON white space, with `analysis`, holds `assistantfinal` after it, and holds none of
  /// the seven harmony tokens. Each cursor reads each byte once (a token or word cut by the end
  /// of the text so far is looked at again, a few bytes). When the answer changes, and the
  /// stages below read already, they read again.
  void stripped_harmony() {
    if (stripped_ == stripped::unknown) {
      leading_ws_end();
      const std::size_t have = std::min(stripped_open.size(), text_.size() - stripped_ws_end_);
      if (have == 0 && !ended_) return;  // white space so far
      if (have == 0 ||
          !marker_at(text_.substr(0, stripped_ws_end_ + have), stripped_ws_end_,
                     stripped_open.substr(0, have)) ||
          (have < stripped_open.size() && ended_)) {
        stripped_ = stripped::no;  // not `analysis` first: never
        return;
      }
      if (have < stripped_open.size()) return;  // not known yet
      stripped_ = stripped::maybe;
      stripped_word_ = stripped_ws_end_;
      stripped_tokens_ = stripped_final_ = stripped_word_ + stripped_open.size();
    }
    const marker_match h = marker_set::harmony_from(text_, stripped_tokens_, ended_, true);
    stripped_tokens_ = h.at;
    if (h.kind != marker_kind::none) {
      stripped_ = stripped::no;  // a harmony token: never, whatever comes
    } else if (stripped_ == stripped::maybe) {
      const marker_match f = marker_set::find(stripped_close, 0, text_, stripped_final_, ended_);
      stripped_final_ = f.at;
      if (f.kind != marker_kind::none) stripped_ = stripped::yes;
    }
    if (ended_ && stripped_ == stripped::maybe) stripped_ = stripped::no;
    if (reading_ && read_stripped_ != (stripped_ == stripped::yes)) reread();
  }

  // --- markers ---------------------------------------------------------------------------------

  enum class mode : unsigned char { pre, answer, region };
  enum class region_kind : unsigned char { tags, harmony, prompt, stripped, phrase };

  void markers() {
    const std::size_t n = text_.size();
    for (;;) {
      if (frames_.overflowed() != overflow::none) return;  // a limit stopped the reading
      if (mode_ == mode::region) {
        const marker_match c = region_end(marker_pos_);
        part_text(c.at);
        marker_pos_ = c.at;
        if (c.kind == marker_kind::none) break;  // not yet known, or not there
        const std::size_t contexts_from = part_.contexts_from;
        part_end(c.at);
        if (region_ == region_kind::prompt) {
          // Its candidates show the marker that closed it (no marker opened it).
          for (std::size_t k = contexts_from; k < contexts.size(); ++k) {
            contexts[k].marker_at = c.at;
            contexts[k].marker_len = clamp32(c.len);
          }
        }
        // <|start|> and <|channel|> end a message without belonging to it: read them next.
        if (!(region_ == region_kind::harmony && (c.is(harmony::start) || c.is(harmony::channel))))
          marker_pos_ = c.at + c.len;
        mode_ = mode::answer;
        part_begin(false, marker_pos_, none, 0);
        continue;
      }
      // After an Apriel region, `[END FINAL RESPONSE]` cuts the text.
      const bool end_cut = phrase_ == phrase::yes && phrase_pair_ == apriel_phrases;
      const marker_match m = marker_pos_ >= no_marker_from_ && !end_cut
                                 ? marker_match{marker_kind::none, 0, n, 0, true}
                                 : markers_.next(text_, marker_pos_, ended_, true, end_cut);
      part_text(m.at);
      marker_pos_ = m.at;
      if (m.kind == marker_kind::none) break;  // not yet known, or not there
      const std::size_t after = m.at + m.len;
      // A channel's opening marker is `<|channel|>` with its name: the region's text starts
      // after the name, which may still go on (its bytes are read once: channel_name_end).
      std::size_t region_from = after;
      if (m.is(harmony::channel) && !marker_set::is_final(text_, after)) {
        region_from = channel_name_end(after);
        if (region_from == n && !ended_) break;
      }
      if (mode_ == mode::pre) {
        if (m.kind == marker_kind::tag_close) {
          already_open(m);
          continue;
        }
        if ((m.is(harmony::end) || m.is(harmony::call)) && !seen_harmony_) {
          // It ends a region the prompt opened only when a token only harmony uses follows it
          // (Phi-3 ends its turn with <|end|>): the reading waits here until one does or the
          // text ends (one cursor: each byte after it is read once).
          if (harmony_follows(after)) {
            already_open(m);
            continue;
          }
          if (!ended_) break;
        }
        if (marker_set::opens_region(text_, m)) {
          mode_ = mode::answer;
        } else if (m.kind == marker_kind::harmony_token) {
          seen_harmony_ = true;
        }
      }
      if (m.kind == marker_kind::tag_close) {  // a closing tag outside a region is text
        part_text(after);
        marker_pos_ = after;
        continue;
      }
      part_end(m.at);
      marker_pos_ = after;
      if (m.kind == marker_kind::tag_open) {
        mode_ = mode::region;
        region_ = region_kind::tags;
        tag_pair_ = m.index;
        part_begin(true, after, m.at, marker_set::shown_len(m));
      } else if (m.is(harmony::channel) && !marker_set::is_final(text_, after)) {
        mode_ = mode::region;
        region_ = region_kind::harmony;
        marker_pos_ = region_from;
        part_begin(true, region_from, m.at, marker_set::name_end(text_, after) - m.at);
      } else {  // any other harmony token cuts the text
        part_begin(false, after, none, 0);
      }
    }
    if (!ended_) return;
    if (part_.active) part_end(n);
    if (mode_ == mode::region) {  // §4 Truncation: it never closed, the model was thinking
      pending_cut found;
      found.kind = pending_cut::what::region;
      found.offset = part_.marker_at == none ? start_ : part_.marker_at;
      found.marker_at = part_.marker_at == none ? 0 : part_.marker_at;
      found.marker_len = part_.marker_len;
      cut = found;
    }
  }

  /// Where the channel name that starts at `after` ends (§2 Reasoning regions: a run of
  /// letters, digits and `_`, of any length). Remembered between calls, so a name that arrives a
  /// byte at a time is read once.
  std::size_t channel_name_end(std::size_t after) noexcept {
    if (channel_name_from_ != after) {
      channel_name_from_ = after;
      channel_name_to_ = after;
    }
    while (channel_name_to_ < text_.size() && is_word_byte(text_[channel_name_to_]))
      ++channel_name_to_;
    return channel_name_to_;
  }

  /// §2 Already open: whether a harmony token that only harmony uses (`harmony_only`) comes at
  /// or after `from` (after an <|end|> or <|call|>) in the text so far. Remembered between
  /// calls: the bytes after `from` are read once, however the text arrives.
  bool harmony_follows(std::size_t from) noexcept {
    if (follows_from_ != from) {
      follows_from_ = from;
      follows_pos_ = from;
    }
    const marker_match h = marker_set::harmony_in(harmony_only, text_, follows_pos_, ended_);
    follows_pos_ = h.at;
    return h.kind != marker_kind::none;
  }

  /// Where the current region ends, at or after `i`, as `marker_set::next` reports.
  [[nodiscard]] marker_match region_end(std::size_t i) const noexcept {
    switch (region_) {
      case region_kind::phrase: return marker_set::phrase_close(phrase_pair_, text_, i, ended_);
      case region_kind::tags: return markers_.closer_of(tag_pair_, text_, i, ended_);
      case region_kind::harmony: return marker_set::harmony_end(text_, i, ended_);
      case region_kind::stripped:  // known already: the first `assistantfinal`
        return marker_match{marker_kind::tag_close, 0, stripped_final_, stripped_close.size(),
                            true};
      case region_kind::prompt: break;
    }
    // The prompt opened it: the first closing tag of any pair, or harmony <|end|> or <|call|>
    // (`</details>` is none: that pair never starts open).
    for (;;) {
      const marker_match m = markers_.next(text_, i, ended_, /*details=*/false);
      if (m.kind == marker_kind::none || m.kind == marker_kind::tag_close || m.is(harmony::end) ||
          m.is(harmony::call))
        return m;
      i = m.at + 1;
    }
  }

  /// §2 Already open: a closing marker before any opening one ends a region the prompt opened.
  /// What was read so far as answer text is read again, once, as that region.
  void already_open(const marker_match& m) {
    forget_reading();
    mode_ = mode::answer;
    part_begin(true, start_, m.at, m.len);
    part_text(m.at);
    part_end(m.at);
    marker_pos_ = m.at + m.len;
    part_begin(false, marker_pos_, none, 0);
  }

  // --- parts -----------------------------------------------------------------------------------

  struct part_state {
    bool active = false;
    bool region = false;
    std::size_t begin = 0;
    std::size_t records_from = 0;                  // its records are records[records_from..]
    std::size_t contexts_from = 0;                 // and its contexts contexts[contexts_from..]
    std::size_t marker_at = none, marker_len = 0;  // regions: the marker (none: the prompt's)
    std::size_t released = 0;                      // the part's bytes known so far end here
  };

  void part_begin(bool region, std::size_t at, std::size_t marker_at, std::size_t marker_len) {
    part_ = part_state{};
    part_.active = true;
    part_.region = region;
    part_.begin = at;
    part_.marker_at = marker_at;
    part_.marker_len = marker_len;
    part_.records_from = records.size();
    part_.contexts_from = contexts.size();
    part_.released = at;
    if (part_spans_) part_spans_->push_back(part_span{at, marker_at, region});
    if (region) {
      part_watch_.stop();  // §3 Whole parts: answer parts only
    } else {
      part_watch_.start(text_, at, max_depth_);
    }
    // Lines and frames start at the part's first byte, which starts a line.
    line_pos_ = at;
    held_ = false;
    fences_.reset();
    prose_begin(at);
  }

  /// The part's bytes are known up to `upto`.
  void part_text(std::size_t upto) {
    if (!part_.active || upto <= part_.released || frames_.overflowed() != overflow::none) return;
    part_.released = upto;
    if (part_watch_.feed(upto)) return;
    lines(upto, false);  // not one value: its lines and frames catch up from its start
  }

  /// The part ends at `e` (a marker, or the end of the text).
  void part_end(std::size_t e) {
    if (frames_.overflowed() != overflow::none) return finish_part();
    part_text(e);
    const bool at_end = ended_ && e == text_.size();
    if (part_watch_.watching()) {  // still a valid JSON prefix: one value, a cut value, or neither
      switch (part_watch_.finish(e)) {
        case prefix_watch::ending::blank: return finish_part();
        case prefix_watch::ending::value:
          add_record(part_watch_.first(), part_watch_.last(), source::part, where(false));
          return finish_part();
        case prefix_watch::ending::cut:
          if (!at_end) break;  // cut by a marker: its lines and frames read it
          value_cut(part_watch_.first());
          return finish_part();
      }
    }
    lines(e, true);
    if (fences_.in_fence()) {
      note_fence_end(e, e, false);
      fence_body_end(e, at_end, part_.region ? cut_by::reasoning_end : cut_by::marker);
    } else {
      segment_end(e, at_end, part_.region ? cut_by::reasoning_end : cut_by::marker);
    }
    finish_part();
  }

  void finish_part() { part_.active = false; }

  /// Where text of the current part lies: in reasoning or not, in a fence body or not.
  [[nodiscard]] context where(bool in_fence) const noexcept {
    context c;
    c.in_reasoning = part_.region;
    if (part_.region && part_.marker_at != none) {
      c.marker_at = part_.marker_at;
      c.marker_len = clamp32(part_.marker_len);
    }
    if (in_fence) {
      c.in_fence = true;
      c.info_at = info_at_;
      c.info_len = clamp32(info_len_);
    }
    return c;
  }

  static std::uint32_t clamp32(std::size_t n) noexcept {
    return static_cast<std::uint32_t>(std::min<std::size_t>(n, 0xFFFFFFFFU));
  }

  /// A whole value (output, part or fence body), lying in `c`.
  void add_record(std::size_t first, std::size_t last, source src, const context& c) {
    contexts.push_back(c);
    records.push_back(
        record{first, last, static_cast<std::uint32_t>(contexts.size() - 1), src, true, {}});
    frames_.note_record();
  }

  // --- lines and fences --------------------------------------------------------------------

  static constexpr byte_finder fence_bytes{"`~"};  // §2 Fences: a marker run's bytes
  static constexpr byte_finder line_ends{"\n\r"};  // §2 Lines

  /// §2 Lines, §2 Fences over the part's bytes `[line_pos_, upto)`. `part_ended`: `upto` ends
  /// the part.
  void lines(std::size_t upto, bool part_ended) {
    while (line_pos_ < upto) {
      if (held_) {
        // A line that may be a fence line: its fate needs all of it.
        std::size_t eol = line_ends.next(text_, line_pos_, upto);
        std::size_t next = eol;
        if (eol == upto) {
          if (!part_ended) {
            line_pos_ = upto;
            return;
          }
        } else if (text_[eol] == '\r' && eol + 1 == upto && !part_ended) {
          line_pos_ = eol;  // CR then perhaps LF: one more byte tells where the next line starts
          return;
        } else {
          next = eol + (text_[eol] == '\r' && eol + 1 < upto && text_[eol + 1] == '\n' ? 2 : 1);
        }
        held_line(held_at_, eol, next, upto);
        continue;
      }
      // Outside a held line only backticks and tildes matter: a fence line starts, after at
      // most 3 spaces, with 3 of them.
      const std::size_t h = fence_bytes.next(text_, line_pos_, upto);
      if (h == upto) {
        // Nothing to hold, but the last line's start could still become a fence line.
        std::size_t keep = upto;
        if (!part_ended) keep = open_line_start(line_pos_, upto);
        segment_text(keep);
        line_pos_ = keep;
        return;
      }
      const std::size_t s = fence_line_start(h);
      if (s == none) {  // not at a line's start: this line is no fence line
        segment_text(h + 1);
        line_pos_ = h + 1;
        continue;
      }
      // A line start: a fence line if the run is 3 long.
      std::size_t run = h;
      while (run < upto && run - h < 3 && text_[run] == text_[h]) ++run;
      if (run - h < 3 && run == upto && !part_ended) {
        segment_text(s);
        line_pos_ = s;
        return;
      }
      if (run - h < 3) {
        segment_text(run);
        line_pos_ = run;
        continue;
      }
      segment_text(s);
      line_pos_ = s;
      held_at_ = s;
      held_ = true;
    }
    // The part's end ends a line still held.
    if (held_ && part_ended) held_line(held_at_, upto, upto, upto);
  }

  /// If the backtick or tilde at `h` follows at most 3 spaces at the start of a line (of the
  /// part), returns that line's start.
  [[nodiscard]] std::size_t fence_line_start(std::size_t h) const noexcept {
    std::size_t s = h;
    while (s > part_.begin && h - s < 4 && text_[s - 1] == ' ') --s;
    if (h - s > 3) return none;
    if (s == part_.begin || text_[s - 1] == '\n' || text_[s - 1] == '\r') return s;
    return none;
  }

  /// `upto`, or the start of the last line in `[from, upto)` if that line is still too short
  /// to tell whether it is a fence line (at most 3 spaces so far).
  [[nodiscard]] std::size_t open_line_start(std::size_t from, std::size_t upto) const noexcept {
    std::size_t s = upto;
    while (s > from && upto - s < 4 && text_[s - 1] == ' ') --s;
    if (upto - s > 3) return upto;
    if (s == part_.begin || (s > 0 && (text_[s - 1] == '\n' || text_[s - 1] == '\r'))) return s;
    return upto;
  }

  /// The held line `[s, eol)` is complete; the next line starts at `next`.
  void held_line(std::size_t s, std::size_t eol, std::size_t next, std::size_t upto) {
    held_ = false;
    const fence_walker::line_read read = fences_.feed(text_.substr(s, eol - s));
    if (read.kind == fence_walker::line_kind::opens) {
      segment_end(s, false, cut_by::fence_line);
      fence_at_ = s;
      info_at_ = static_cast<std::size_t>(read.info.data() - text_.data());
      info_len_ = read.info.size();
      if (fence_spans_) {
        fence_spans_->push_back(fence_span{s, next, next, next, info_at_, info_len_,
                                           fences_.marker_length(), fences_.marker(), false});
      }
      if (ended_ && !fences_only_ && !part_.region && whole_body(next, upto)) return;
      body_begin(next);
      line_pos_ = next;
      return;
    }
    if (read.kind == fence_walker::line_kind::closes) {
      fence_body_end(s, false, cut_by::closing_line);
      note_fence_end(s, eol, true);
      // The closing line's end: the prose after it starts there (its line ending included).
      prose_begin(eol);
      line_pos_ = eol;
      return;
    }
    segment_text(next);
    line_pos_ = next;
  }

  /// §3 Fence bodies, with all the text there: a fence body of `whole_body_min` bytes or more that
  /// is one object or array, with its closing line, is checked and built in one nlohmann pass (as a
  /// whole output is), and nothing inside it is read again. Returns false (having changed nothing)
  /// when it is not so: the body is then read the usual way. Not in reasoning: no value is built
  /// there, and the validator alone reads a body faster than nlohmann builds it.
  static constexpr std::size_t whole_body_min = 256;
  bool whole_body(std::size_t body, std::size_t upto) {
    std::size_t b = body;
    while (b < upto && is_json_ws(text_[b])) ++b;
    if (b == upto || (text_[b] != '{' && text_[b] != '[')) return false;
    for (std::size_t i = body; (i = fence_bytes.next(text_, i, upto)) < upto;) {
      const std::size_t s = fence_line_start(i);
      const std::size_t eol = line_ends.next(text_, i, upto);
      if (eol == upto) return false;  // the closing line must end before the part does
      if (s == none || !fences_.closes(text_.substr(s, eol - s))) {
        i = eol;
        continue;
      }
      // A small body is read faster the usual way: one nlohmann call costs more than its bytes.
      if (s - b < whole_body_min) return false;
      std::size_t e = s;
      while (e > b && is_json_ws(text_[e - 1])) --e;
      nlohmann::json value;
      if (!parse_whole(text_, body, s, max_depth_, build_values_ ? &value : nullptr)) return false;
      add_record(b, e, source::fence, where(true));
      if (build_values_) built.emplace_back(records.size() - 1, std::move(value));
      fences_.close();
      note_fence_end(s, eol, true);
      prose_begin(eol);  // the closing line's end: the prose after it starts there
      line_pos_ = eol;
      return true;
    }
    return false;
  }

  /// The open fence's body ends at `body_end` and the fence at `end`, for `collect_fences`.
  void note_fence_end(std::size_t body_end, std::size_t end, bool closed) {
    if (!fence_spans_ || fence_spans_->empty()) return;
    fence_span& f = fence_spans_->back();
    f.body_end = body_end;
    f.end = end;
    f.closed = closed;
  }

  // --- segments: prose between fences, and fence bodies ----------------------------------------

  void prose_begin(std::size_t at) {
    in_body_ = false;
    frames_pos_ = at;
    frames_.begin(where(false));
  }

  void body_begin(std::size_t at) {
    in_body_ = true;
    body_begin_ = at;
    body_watch_.start(text_, at, max_depth_);
    frames_pos_ = at;
    frames_.begin(where(true));
  }

  /// The current segment's bytes are known up to `upto`.
  void segment_text(std::size_t upto) {
    if (fences_only_) return;
    // §3 Fence bodies: while the body is a valid JSON prefix, the frames wait; then they catch
    // up from its start.
    if (in_body_ && body_watch_.feed(upto)) return;
    if (upto > frames_pos_) {
      frames_.feed(frames_pos_, upto);
      frames_pos_ = upto;
    }
  }

  void segment_end(std::size_t e, bool at_end, cut_by why) {
    segment_text(e);
    if (std::optional<pending_cut> found = frames_.end(e, at_end, why); found && !cut) cut = found;
  }

  /// A fence body ends at `e` (its closing line, or the end of its part).
  void fence_body_end(std::size_t e, bool at_end, cut_by why) {
    segment_text(e);
    if (body_watch_.watching()) {
      const std::size_t first = body_watch_.first();
      switch (body_watch_.finish(e)) {
        case prefix_watch::ending::blank:
          // `` ```json `` and nothing after it was cut; a bare ``` is a prefilled fence's closer.
          if (at_end && info_len_ > 0) fence_cut("is empty");
          in_body_ = false;
          return;
        case prefix_watch::ending::value:
          add_record(first, body_watch_.last(), source::fence, where(true));
          in_body_ = false;
          return;
        case prefix_watch::ending::cut:
          if (at_end && text_[first] != '{') {
            // An unfinished array or scalar owns all inside it, as an unfinished object does.
            fence_cut(text_[first] == '[' ? "is an unfinished JSON array"
                                          : "is an unfinished JSON value");
            in_body_ = false;
            return;
          }
          segment_text(e);  // catch up: the frames read the body from its start
          break;
      }
    }
    segment_end(e, at_end, why);
    in_body_ = false;
  }

  // --- cuts --------------------------------------------------------------------------------------

  void value_cut(std::size_t first) {
    pending_cut found;
    found.kind = text_[first] == '{'   ? pending_cut::what::object
                 : text_[first] == '[' ? pending_cut::what::array
                                       : pending_cut::what::value;
    found.offset = first;
    cut = found;
  }

  void fence_cut(std::string_view body) {
    pending_cut found;
    found.kind = pending_cut::what::fence;
    found.offset = body_begin_;
    found.fence_offset = fence_at_;
    found.info_at = info_at_;
    found.info_len = info_len_;
    found.body = body;
    cut = found;
  }

  const options& options_;
  std::size_t max_depth_;
  marker_set markers_;
  frame_scanner frames_;
  std::string_view text_;
  bool ended_ = false;

  bool started_ = false;
  std::size_t start_ = 0;

  prefix_watch whole_watch_;    // §3 Whole output
  bool whole_decided_ = false;  // the whole-output rule has decided
  bool whole_value_ = false;    // ... that the text is one value (or a cut one)
  bool reading_ = false;        // the stages below read the text

  mode mode_ = mode::pre;
  region_kind region_ = region_kind::tags;
  std::size_t tag_pair_ = 0;
  std::size_t marker_pos_ = 0;
  bool seen_harmony_ = false;
  std::size_t generation_ = 0;
  std::size_t channel_name_from_ = none, channel_name_to_ = 0;  // channel_name_end's memory
  std::size_t follows_from_ = none, follows_pos_ = 0;           // harmony_follows' memory

  // §2 Phrase pairs: unknown (the bytes so far cannot tell), no, yes (phrase_pairs
  // [phrase_pair_]'s opening phrase at phrase_at_, phrase_len_ bytes).
  enum class phrase : unsigned char { unknown, no, yes };
  phrase phrase_ = phrase::unknown;
  std::size_t phrase_pair_ = 0, phrase_at_ = 0, phrase_len_ = 0;

  // Stripped harmony: unknown (too few bytes yet), no (for good), maybe (`analysis` first, no
  // harmony token, no `assistantfinal` yet), yes (it applies to the text so far).
  enum class stripped : unsigned char { unknown, no, maybe, yes };
  stripped stripped_ = stripped::unknown;
  bool read_stripped_ = false;       // the stages below read the text as stripped harmony
  std::size_t stripped_ws_end_ = 0;  // the white space before the first word ends here so far
                                     // (leading_ws_end; phrase pairs too)
  std::size_t stripped_word_ = 0;    // where `analysis` starts
  std::size_t stripped_tokens_ = 0;  // harmony tokens: none before this byte
  std::size_t stripped_final_ = 0;   // `assistantfinal` starts at none before this byte (yes: here)

  part_state part_;
  prefix_watch part_watch_;  // §3 Whole parts: the current answer part

  bool held_ = false;  // the line from held_at_ may be a fence line: it waits for its end
  std::size_t line_pos_ = 0, held_at_ = 0;
  fence_walker fences_;
  std::vector<fence_span>* fence_spans_ = nullptr;  // collect_fences()
  bool fences_only_ = false;
  std::vector<part_span>* part_spans_ = nullptr;  // collect_parts()
  std::size_t fence_at_ = 0, info_at_ = 0, info_len_ = 0;

  bool in_body_ = false;
  std::size_t body_begin_ = 0;         // the current fence body's
  bool build_values_ = true;           // whole_body builds the values it checks (build_values)
  std::size_t no_marker_from_ = none;  // the whole text has no marker from here on
  prefix_watch body_watch_;            // §3 Fence bodies: the current fence body
  std::size_t frames_pos_ = 0;         // the next byte for the frames
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED
