// llmjson: the engine's first stage: where the text starts, and whether it is one JSON value
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_TEXT_START_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_TEXT_START_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <string_view>

#include <llmjson/detail/scan/prefix_watch.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/scan_state.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// The engine's first stage: what the start of the text decides, as its bytes come
/// (tests/corpus/README.md): §1 Valid JSON (one leading UTF-8 BOM is no part of the text),
/// §2 Reasoning regions' phrase pairs (an opening phrase where the text begins), §2 Stripped
/// harmony (watched by two cursors to the end of the text: a later byte may change whether it
/// applies), and §3 Whole output (a `prefix_watch` while the text is a valid JSON prefix). The
/// stages after it wait until it has decided (`advance`).
class text_start {
 public:
  text_start(scan_state& s, const options& opts, const marker_set& markers) noexcept
      : s_(s), options_(opts), markers_(markers) {}

  void rebind(std::string_view text) noexcept { whole_watch_.rebind(text); }

  /// Reads what the text so far tells of its start. Returns whether the stages after it may
  /// read the text (from its start): the whole output is not one value (nor a cut one), and
  /// the phrase pairs have decided (the text waits a few dozen bytes at most after the white
  /// space, none of them JSON).
  bool advance() {
    if (!started_ && !find_start()) return false;
    if (stripped_ != stripped::no) stripped_harmony();
    if (phrase_ == phrase::unknown) phrase_start();
    return whole_output() && phrase_ != phrase::unknown;
  }

  /// Where the text starts: after the BOM.
  [[nodiscard]] std::size_t start() const noexcept { return start_; }
  /// An opening phrase begins the text: `kind` `tag_open`, `index` its pair in `phrase_pairs`.
  [[nodiscard]] const marker_match* opening_phrase() const noexcept {
    return phrase_ == phrase::yes ? &phrase_match_ : nullptr;
  }
  /// Stripped harmony applies to the text so far.
  [[nodiscard]] bool stripped_applies() const noexcept { return stripped_ == stripped::yes; }
  /// A later byte may still make stripped harmony apply, or cancel it.
  [[nodiscard]] bool stripped_possible() const noexcept { return stripped_ != stripped::no; }
  /// Where `analysis` starts, when stripped harmony applies.
  [[nodiscard]] std::size_t stripped_word() const noexcept { return stripped_word_; }
  /// Where the first `assistantfinal` starts, when stripped harmony applies.
  [[nodiscard]] std::size_t stripped_final() const noexcept { return stripped_final_; }

 private:
  /// §1 Valid JSON: one leading UTF-8 BOM is no part of the text. Returns false while the bytes
  /// so far may still be the start of one.
  bool find_start() {
    const std::string_view text = s_.text;
    const std::size_t n = std::min(text.size(), utf8_bom.size());
    if (text.substr(0, n) == utf8_bom.substr(0, n) && n < utf8_bom.size() && !s_.ended)
      return false;
    start_ = bom_length(text);
    started_ = true;
    ws_end_ = start_;
    if (!options_.reasoning_regions || !markers_.on(reasoning_format::stripped_harmony))
      stripped_ = stripped::no;
    if (!options_.reasoning_regions) phrase_ = phrase::no;
    whole_watch_.start(text, start_, s_.max_depth);
    return true;
  }

  /// §3 Whole output. Returns whether the stages after this one may run.
  bool whole_output() {
    if (whole_decided_) return !whole_value_;
    if (whole_watch_.feed(s_.text.size())) {
      if (!s_.ended) return false;
      whole_decided_ = true;
      switch (whole_watch_.finish(s_.text.size())) {
        case prefix_watch::ending::value:
          whole_value_ = true;
          s_.add_record(whole_watch_.first(), whole_watch_.last(), source::whole, context{},
                        whole_watch_.big_number());
          return false;
        case prefix_watch::ending::cut:
          whole_value_ = true;
          s_.value_cut(whole_watch_.first(), source::whole);
          return false;
        case prefix_watch::ending::blank: break;  // a region the prompt opened may hold it
      }
    }
    whole_decided_ = true;  // not one value
    return true;
  }

  /// Where the JSON white space after the BOM ends, as far as the text so far shows (read once).
  std::size_t leading_ws_end() noexcept {
    while (ws_end_ < s_.text.size() && is_json_ws(s_.text[ws_end_])) ++ws_end_;
    return ws_end_;
  }

  /// §2 Phrase pairs: whether the text begins, after the BOM and JSON white space, with an
  /// opening phrase (of a pair that is on). Decided by a few dozen bytes at most: the stages
  /// after this one wait for it.
  void phrase_start() {
    const std::size_t at = leading_ws_end();
    if (at == s_.text.size() && !s_.ended) return;  // white space so far
    const marker_match m = markers_.phrase_at(s_.text, at, s_.ended);
    if (!m.decided) return;
    if (m.kind == marker_kind::none) {
      phrase_ = phrase::no;
      return;
    }
    phrase_ = phrase::yes;
    phrase_match_ = m;
  }

  /// §2 Stripped harmony: whether it applies to the text so far: it begins, after the BOM
  /// and JSON white space, with `analysis`, holds `assistantfinal` after it, and holds none of
  /// the seven harmony tokens. Each cursor reads each byte once (a token or word cut by the end
  /// of the text so far is looked at again, a few bytes). When the answer changes, and the
  /// stages after this one read already, they read again (`engine::advance`).
  void stripped_harmony() {
    const std::string_view text = s_.text;
    const bool ended = s_.ended;
    if (stripped_ == stripped::unknown) {
      leading_ws_end();
      const std::size_t have = std::min(stripped_open.size(), text.size() - ws_end_);
      if (have == 0 && !ended) return;  // white space so far
      if (have == 0 ||
          !marker_at(text.substr(0, ws_end_ + have), ws_end_, stripped_open.substr(0, have)) ||
          (have < stripped_open.size() && ended)) {
        stripped_ = stripped::no;  // not `analysis` first: never
        return;
      }
      if (have < stripped_open.size()) return;  // not known yet
      stripped_ = stripped::maybe;
      stripped_word_ = ws_end_;
      stripped_tokens_ = stripped_final_ = stripped_word_ + stripped_open.size();
    }
    const marker_match h = marker_set::harmony_from(text, stripped_tokens_, ended, true);
    stripped_tokens_ = h.at;
    if (h.kind != marker_kind::none) {
      stripped_ = stripped::no;  // a harmony token: never, whatever comes
    } else if (stripped_ == stripped::maybe) {
      const marker_match f = marker_set::find(stripped_close, 0, text, stripped_final_, ended);
      stripped_final_ = f.at;
      if (f.kind != marker_kind::none) stripped_ = stripped::yes;
    }
    if (ended && stripped_ == stripped::maybe) stripped_ = stripped::no;
  }

  scan_state& s_;
  const options& options_;
  const marker_set& markers_;

  bool started_ = false;
  std::size_t start_ = 0;
  std::size_t ws_end_ = 0;  // the white space before the first word ends here so far

  prefix_watch whole_watch_;    // §3 Whole output
  bool whole_decided_ = false;  // the whole-output rule has decided
  bool whole_value_ = false;    // ... that the text is one value (or a cut one)

  // §2 Phrase pairs: unknown (the bytes so far cannot tell), no, yes (phrase_match_: the opening
  // phrase, `index` its pair in phrase_pairs).
  enum class phrase : unsigned char { unknown, no, yes };
  phrase phrase_ = phrase::unknown;
  marker_match phrase_match_;

  // Stripped harmony: unknown (too few bytes yet), no (for good), maybe (`analysis` first, no
  // harmony token, no `assistantfinal` yet), yes (it applies to the text so far).
  enum class stripped : unsigned char { unknown, no, maybe, yes };
  stripped stripped_ = stripped::unknown;
  std::size_t stripped_word_ = 0;    // where `analysis` starts
  std::size_t stripped_tokens_ = 0;  // harmony tokens: none before this byte
  std::size_t stripped_final_ = 0;   // `assistantfinal` starts at none before this byte (yes: here)
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_TEXT_START_HPP_INCLUDED
