// llmjson: the engine's marker walk: reasoning markers cut the text into parts
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_MARKER_WALK_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_MARKER_WALK_HPP_INCLUDED

#include <cstddef>
#include <optional>

#include <llmjson/detail/scan/parts.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/scan_state.hpp>
#include <llmjson/detail/scan/text_start.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// The engine's stage for tests/corpus/README.md §2 Reasoning regions, §2 Already open and §2
/// Parts, and §4 Truncation's region never closed: it walks the markers left to right and tells
/// the `part_reader` where each part begins and ends, each decided once the bytes it may span
/// are there. Before any opening marker the text is read as answer text; a closing marker then
/// (already open) makes it reasoning, read again once (a harmony <|end|> or <|call|> then holds
/// the reading until a token only harmony uses follows it, or the text ends). How the text
/// starts (a phrase pair, stripped harmony, `options::start`) comes from the `text_start`.
class marker_walk {
 public:
  marker_walk(scan_state& s, const options& opts, const marker_set& markers,
              const text_start& start, part_reader& parts) noexcept
      : s_(s), options_(opts), markers_(markers), start_(start), parts_(parts) {}

  /// A later closing marker could still make the start of the text reasoning (§2 Already open).
  [[nodiscard]] bool may_be_already_open() const noexcept { return mode_ == mode::pre; }
  /// The walk is in a region the prompt opened: its records take the marker that closes it.
  [[nodiscard]] bool in_prompt_region() const noexcept {
    return mode_ == mode::region && region_ == region_kind::prompt;
  }

  /// The first part: the text is read from its start (again, after the stripped-harmony rule
  /// changed its answer).
  void begin() {
    seen_harmony_ = false;
    marker_pos_ = start_.start();
    const marker_match* phrase = start_.opening_phrase();
    end_cut_ = phrase && phrase->index == apriel_phrases;
    if (phrase) {
      // A phrase pair decides the start, whatever options::start says: one region from the
      // opening phrase through the first closing phrase of its pair.
      mode_ = mode::region;
      region_ = region_kind::phrase;
      phrase_pair_ = phrase->index;
      marker_pos_ = phrase->at + phrase->len;
      parts_.begin(true, marker_pos_, phrase->at, phrase->len);
    } else if (start_.stripped_applies()) {
      // Stripped harmony decides the start, whatever options::start says: one region from
      // the start (its part after `analysis`) through the first `assistantfinal`.
      mode_ = mode::region;
      region_ = region_kind::stripped;
      marker_pos_ = start_.stripped_word() + stripped_open.size();
      parts_.begin(true, marker_pos_, start_.stripped_word(), stripped_open.size());
    } else if (!options_.reasoning_regions || options_.start == output_start::answer) {
      mode_ = mode::answer;
      parts_.begin(false, start_.start(), none, 0);
    } else if (options_.start == output_start::reasoning) {
      mode_ = mode::region;
      region_ = region_kind::prompt;
      parts_.begin(true, start_.start(), none, 0);
    } else {
      mode_ = mode::pre;
      parts_.begin(false, start_.start(), none, 0);
      // The whole text is here: when a closing marker comes before any opening one (§2
      // Already open), the reading starts as that region at once, instead of reading the
      // reasoning as answer text first and then again (a thinking model's whole reasoning).
      if (s_.ended) {
        if (const std::optional<marker_match> m = first_already_open()) already_open(*m);
      }
    }
  }

  /// Walks the markers in the text so far, as far as its bytes decide.
  void walk() {
    for (;;) {
      if (s_.stopped()) return;  // a limit stopped the reading
      if (!(mode_ == mode::region ? region_marker() : outside_marker())) break;
    }
    if (s_.ended) text_end();
  }

 private:
  static constexpr std::size_t none = scan_state::none;

  enum class mode : unsigned char { pre, answer, region };
  enum class region_kind : unsigned char { tags, harmony, prompt, stripped, phrase };

  /// In a region: where it ends, as far as the text so far shows. Returns false when the walk
  /// waits (the end is not there yet, or not yet known). Inline, as `outside_marker`: `walk`
  /// alternates the two once per marker, which a call each would cost (hostile runs of markers).
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::always_inline]]
#endif
  bool
  region_marker() {
    const marker_match c = region_end(marker_pos_);
    parts_.text(c.at);
    marker_pos_ = c.at;
    if (c.kind == marker_kind::none) return false;  // not yet known, or not there
    const std::size_t contexts_from = parts_.current().contexts_from;
    parts_.end(c.at);
    if (region_ == region_kind::prompt) {
      // Its candidates show the marker that closed it (no marker opened it).
      for (std::size_t k = contexts_from; k < s_.contexts.size(); ++k) {
        s_.contexts[k].marker_at = c.at;
        s_.contexts[k].marker_len = clamp32(c.len);
      }
    }
    // <|start|> and <|channel|> end a message without belonging to it: read them next.
    if (!(region_ == region_kind::harmony && (c.is(harmony::start) || c.is(harmony::channel))))
      marker_pos_ = c.at + c.len;
    mode_ = mode::answer;
    parts_.begin(false, marker_pos_, none, 0);
    return true;
  }

  /// Outside regions: the next marker, and what it does. Returns false when the walk waits
  /// (no marker yet, or the bytes so far cannot tell what it does).
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::always_inline]]
#endif
  bool
  outside_marker() {
    const std::size_t n = s_.text.size();
    // After an Apriel region, `[END FINAL RESPONSE]` cuts the text.
    const marker_match m = marker_pos_ >= no_marker_from_ && !end_cut_
                               ? marker_match{marker_kind::none, 0, n, 0, true}
                               : markers_.next(s_.text, marker_pos_, s_.ended, true, end_cut_);
    parts_.text(m.at);
    marker_pos_ = m.at;
    if (m.kind == marker_kind::none) return false;  // not yet known, or not there
    const std::size_t after = m.at + m.len;
    // A channel's opening marker is `<|channel|>` with its name: the region's text starts
    // after the name, which may still go on (its bytes are read once: channel_name_end).
    const bool channel_opens = m.is(harmony::channel) && !marker_set::is_final(s_.text, after);
    std::size_t region_from = after;
    if (channel_opens) {
      region_from = channel_name_end(after);
      if (region_from == n && !s_.ended) return false;
    }
    if (mode_ == mode::pre) {
      switch (before_regions(m, after)) {
        case step::read_on: return true;
        case step::wait: return false;
        case step::go_on: break;
      }
    }
    if (m.kind == marker_kind::tag_close) {  // a closing tag outside a region is text
      parts_.text(after);
      marker_pos_ = after;
      return true;
    }
    parts_.end(m.at);
    marker_pos_ = after;
    if (m.kind == marker_kind::tag_open) {
      mode_ = mode::region;
      region_ = region_kind::tags;
      tag_pair_ = m.index;
      parts_.begin(true, after, m.at, marker_set::shown_len(m));
    } else if (channel_opens) {
      mode_ = mode::region;
      region_ = region_kind::harmony;
      marker_pos_ = region_from;
      parts_.begin(true, region_from, m.at, marker_set::name_end(s_.text, after) - m.at);
    } else {  // any other harmony token cuts the text
      parts_.begin(false, after, none, 0);
    }
    return true;
  }

  /// What a marker before any opening marker does: `read_on`, the reading starts again as a
  /// region already open (the walk reads on from its end); `wait`, the bytes so far cannot tell;
  /// `go_on`, it does what it does outside regions.
  enum class step : unsigned char { read_on, wait, go_on };
  step before_regions(const marker_match& m, std::size_t after) {
    if (m.kind == marker_kind::tag_close) {
      already_open(m);
      return step::read_on;
    }
    if ((m.is(harmony::end) || m.is(harmony::call)) && !seen_harmony_) {
      // It ends a region the prompt opened only when a token only harmony uses follows it
      // (Phi-3 ends its turn with <|end|>): the reading waits here until one does or the
      // text ends (one cursor: each byte after it is read once).
      if (harmony_follows(after)) {
        already_open(m);
        return step::read_on;
      }
      if (!s_.ended) return step::wait;
    }
    if (marker_set::opens_region(s_.text, m)) {
      mode_ = mode::answer;
    } else if (m.kind == marker_kind::harmony_token) {
      seen_harmony_ = true;
    }
    return step::go_on;
  }

  /// The text has ended: the last part ends with it.
  void text_end() {
    if (parts_.current().active) parts_.end(s_.text.size());
    if (mode_ == mode::region) {  // §4 Truncation: it never closed, the model was thinking
      const part_reader::part_state& part = parts_.current();
      pending_cut found;
      found.kind = pending_cut::what::region;
      found.offset = part.marker_at == none ? start_.start() : part.marker_at;
      found.marker_at = part.marker_at == none ? 0 : part.marker_at;
      found.marker_len = part.marker_len;
      s_.cut = found;
    }
  }

  /// With the whole text: the marker at which the walk in mode `pre` would find the region
  /// already open (a closing tag before any opening marker, or an `<|end|>`/`<|call|>` before
  /// any other harmony token with a token only harmony uses after it), as `outside_marker`
  /// decides it; nothing when it would decide the start is answer text. Only looks at markers.
  /// Where it finds no marker at all, the walk does not look again (`no_marker_from_`).
  [[nodiscard]] std::optional<marker_match> first_already_open() {
    bool seen_harmony = false;
    for (std::size_t pos = start_.start();;) {
      const marker_match m = markers_.next(s_.text, pos, /*ended=*/true);
      if (m.kind == marker_kind::none) {
        no_marker_from_ = pos;
        return std::nullopt;
      }
      const std::size_t after = m.at + m.len;
      if (m.kind == marker_kind::tag_close) return m;
      if ((m.is(harmony::end) || m.is(harmony::call)) && !seen_harmony &&
          marker_set::harmony_in(harmony_only, s_.text, after, true).kind != marker_kind::none)
        return m;
      if (marker_set::opens_region(s_.text, m)) return std::nullopt;
      if (m.kind == marker_kind::harmony_token) seen_harmony = true;
      pos = after;
    }
  }

  /// §2 Already open: a closing marker before any opening one ends a region the prompt opened.
  /// What was read so far as answer text is read again, once, as that region.
  void already_open(const marker_match& m) {
    s_.forget();
    mode_ = mode::answer;
    parts_.begin(true, start_.start(), m.at, m.len);
    parts_.text(m.at);
    parts_.end(m.at);
    marker_pos_ = m.at + m.len;
    parts_.begin(false, marker_pos_, none, 0);
  }

  /// Where the channel name that starts at `after` ends (§2 Reasoning regions: a run of
  /// letters, digits and `_`, of any length). Remembered between calls, so a name that arrives a
  /// byte at a time is read once.
  std::size_t channel_name_end(std::size_t after) noexcept {
    if (channel_name_from_ != after) {
      channel_name_from_ = after;
      channel_name_to_ = after;
    }
    while (channel_name_to_ < s_.text.size() && is_word_byte(s_.text[channel_name_to_]))
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
    const marker_match h = marker_set::harmony_in(harmony_only, s_.text, follows_pos_, s_.ended);
    follows_pos_ = h.at;
    return h.kind != marker_kind::none;
  }

  /// Where the current region ends, at or after `i`, as `marker_set::next` reports.
  [[nodiscard]] marker_match region_end(std::size_t i) const noexcept {
    switch (region_) {
      case region_kind::phrase: return marker_set::phrase_close(phrase_pair_, s_.text, i, s_.ended);
      case region_kind::tags: return markers_.closer_of(tag_pair_, s_.text, i, s_.ended);
      case region_kind::harmony: return marker_set::harmony_end(s_.text, i, s_.ended);
      case region_kind::stripped:  // known already: the first `assistantfinal`
        return marker_match{marker_kind::tag_close, 0, start_.stripped_final(),
                            stripped_close.size(), true};
      case region_kind::prompt: break;
    }
    // The prompt opened it: the first closing tag of any pair, or harmony <|end|> or <|call|>
    // (`</details>` is none: that pair never starts open).
    for (;;) {
      const marker_match m = markers_.next(s_.text, i, s_.ended, /*details=*/false);
      if (m.kind == marker_kind::none || m.kind == marker_kind::tag_close || m.is(harmony::end) ||
          m.is(harmony::call))
        return m;
      i = m.at + 1;
    }
  }

  scan_state& s_;
  const options& options_;
  const marker_set& markers_;
  const text_start& start_;
  part_reader& parts_;

  mode mode_ = mode::pre;
  region_kind region_ = region_kind::tags;
  std::size_t tag_pair_ = 0;     // tags: the pair
  std::size_t phrase_pair_ = 0;  // phrases: the pair in phrase_pairs
  bool end_cut_ = false;         // `[END FINAL RESPONSE]` cuts the text (after an Apriel region)
  std::size_t marker_pos_ = 0;
  bool seen_harmony_ = false;
  std::size_t no_marker_from_ = none;  // the whole text has no marker from here on
  std::size_t channel_name_from_ = none, channel_name_to_ = 0;  // channel_name_end's memory
  std::size_t follows_from_ = none, follows_pos_ = 0;           // harmony_follows' memory
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_MARKER_WALK_HPP_INCLUDED
