// llmjson: the reasoning markers (§2 Reasoning regions, §2 Parts) and how they are matched
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_REGIONS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_REGIONS_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// The built-in tag pairs (§2 Reasoning regions). ASCII letters match case-insensitively. Pair
/// `p` is the format `reasoning_format(p)`.
inline constexpr std::array<std::array<std::string_view, 2>, 12> builtin_tag_pairs{{
    {"<think>", "</think>"},
    {"<thinking>", "</thinking>"},
    {"<reasoning>", "</reasoning>"},
    {"[THINK]", "[/THINK]"},
    {"<|START_THINKING|>", "<|END_THINKING|>"},
    {"<|begin_of_thought|>", "<|end_of_thought|>"},
    {"<seed:think>", "</seed:think>"},
    {"\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/think\xE2\x96\xB7"},  // ◁think▷ ◁/think▷
    {"<scratchpad>", "</scratchpad>"},
    {"<thought>", "</thought>"},
    {"<longcat_think>", "</longcat_think>"},
    // Gemma 4: `<|channel>` and `thought` together; `<|channel>` and `<channel|>` each lack one
    // of the pipes of harmony's `<|channel|>`, so none of the three is found inside another.
    {"<|channel>thought", "<channel|>"},
}};
static_assert(builtin_tag_pairs.size() == static_cast<std::size_t>(reasoning_format::details));

/// The phrase pairs (§2 Reasoning regions): ordinary words, matched byte for byte (case
/// included), and an opening phrase only where the text begins. A pair has one or two ways to
/// write each phrase (an empty one is none).
struct phrase_pair {
  reasoning_format format;
  std::array<std::string_view, 2> opens;
  std::array<std::string_view, 2> closes;
};
inline constexpr std::array<phrase_pair, 3> phrase_pairs{{
    {reasoning_format::granite,
     {"Here is my thought process:", "Here's my thought process:"},
     {"Here is my response:", "Here's my response:"}},
    {reasoning_format::apriel,
     {"Here are my reasoning steps:", {}},
     {"[BEGIN FINAL RESPONSE]", {}}},
    {reasoning_format::ollama, {"Thinking...", {}}, {"...done thinking.", {}}},
}};
/// The index of Apriel's pair in `phrase_pairs`.
inline constexpr std::size_t apriel_phrases = 1;
/// After an Apriel region, each one (byte for byte, outside regions) cuts the text as a harmony
/// token does (§2 Parts).
inline constexpr std::string_view apriel_end = "[END FINAL RESPONSE]";

/// Open WebUI's reasoning block: `<details` through the first `>` after it opens a region when
/// the bytes between hold `type="reasoning"`; `</details>` closes it. Never already open.
inline constexpr std::string_view details_open = "<details";
inline constexpr std::string_view details_close = "</details>";
inline constexpr std::string_view details_type = "type=\"reasoning\"";
/// How many bytes of a `<details ...>` opening marker a candidate shows as its marker (the
/// attributes can run long; real ones, `<details type="reasoning" done="true" duration="4">`,
/// fit).
inline constexpr std::size_t details_shown = 64;
/// The pair index of Open WebUI's `<details type="reasoning">`...`</details>`.
inline constexpr std::size_t details_pair = static_cast<std::size_t>(-2);

/// Stripped harmony (gpt-oss served without its special tokens): `analysis...assistantfinal`.
inline constexpr std::string_view stripped_open = "analysis";
inline constexpr std::string_view stripped_close = "assistantfinal";

/// gpt-oss harmony's special tokens.
enum class harmony : unsigned char { start, channel, message, constrain, end, call, ret };
inline constexpr std::array<std::string_view, 7> harmony_tokens{
    "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>",
    "<|end|>",   "<|call|>",    "<|return|>"};

/// How many bytes of a harmony channel name a marker shows (`<|channel|>analysis`).
inline constexpr std::size_t channel_name_shown = 32;

/// Whether `text` holds `marker` at `i`, ASCII letters compared case-insensitively.
constexpr bool marker_at(std::string_view text, std::size_t i, std::string_view marker) noexcept {
  if (marker.empty() || i > text.size() || text.size() - i < marker.size()) return false;
  for (std::size_t k = 0; k < marker.size(); ++k)
    if (ascii_lower(text[i + k]) != ascii_lower(marker[k])) return false;
  return true;
}

/// A built-in format's bit in a set of them (none for a value that names no format).
[[nodiscard]] constexpr std::uint32_t format_bit(reasoning_format f) noexcept {
  const auto k = static_cast<unsigned>(f);
  return k < 32 ? 1U << k : 0U;
}

/// What a marker is. `end_cut`: Apriel's `[END FINAL RESPONSE]`, which only cuts.
enum class marker_kind : unsigned char { none, tag_open, tag_close, harmony_token, end_cut };

/// A set of harmony tokens: bit `h` for `harmony(h)`.
using harmony_set = unsigned;
[[nodiscard]] constexpr harmony_set harmony_bit(harmony h) noexcept {
  return 1U << static_cast<unsigned>(h);
}
/// All seven.
inline constexpr harmony_set all_harmony = (1U << harmony_tokens.size()) - 1U;
/// Those that end a message that is reasoning (§2 Harmony): `<|start|>`, `<|channel|>` (not
/// its own), `<|end|>`, `<|call|>`, `<|return|>`.
inline constexpr harmony_set message_ends =
    all_harmony & ~(harmony_bit(harmony::message) | harmony_bit(harmony::constrain));
/// The tokens only harmony uses (§2 Already open): all but `<|end|>` and `<|call|>`, which
/// other templates (Phi-3, Apriel) end a turn with.
inline constexpr harmony_set harmony_only =
    all_harmony & ~(harmony_bit(harmony::end) | harmony_bit(harmony::call));

/// Whether the rules use a caller's marker pair: one with an empty side is left out (it would
/// match everywhere). The one place this rule is written.
constexpr bool usable(const marker_pair& p) noexcept { return !p.open.empty() && !p.close.empty(); }

/// A marker found in the text.
struct marker_match {
  marker_kind kind = marker_kind::none;
  std::size_t index = 0;  ///< tags: the pair (built-in first); harmony: the token
  std::size_t at = 0;
  std::size_t len = 0;
  bool decided = true;  ///< false: the bytes so far cannot tell what is at `at`
  [[nodiscard]] bool is(harmony h) const noexcept {
    return kind == marker_kind::harmony_token && index == static_cast<std::size_t>(h);
  }
};

/// What `marker_set`'s searches look markers up in: every marker of one set of options once, in
/// the order that breaks ties, grouped by its first two bytes; depends only on the caller's
/// marker pairs and the formats switched off (`off`: bit f for reasoning_format(f)).
struct marker_table {
  struct entry {
    std::uint32_t key;  // the first two bytes, ASCII-lowercased (one-byte markers: one)
    marker_kind kind;
    std::size_t index;
    std::string_view m;
  };

  marker_table(const options& opts, std::uint32_t off) : starts(first_bytes(opts, off)) {
    // Every marker once, in the order that breaks ties: built-in tags (open, then close),
    // harmony, `<details`, `[END FINAL RESPONSE]`, the caller's tags; then grouped by their
    // first two bytes (a stable sort keeps that order within a group). A format switched off
    // has none.
    auto add = [&](marker_kind kind, std::size_t index, std::string_view m) {
      if (!m.empty()) entries.push_back(entry{key_of(m), kind, index, m});
    };
    for (std::size_t p = 0; p < builtin_tag_pairs.size(); ++p) {
      if (!is_on(off, static_cast<reasoning_format>(p))) continue;
      add(marker_kind::tag_open, p, builtin_tag_pairs[p][0]);
      add(marker_kind::tag_close, p, builtin_tag_pairs[p][1]);
    }
    if (is_on(off, reasoning_format::harmony))
      for (std::size_t h = 0; h < harmony_tokens.size(); ++h)
        add(marker_kind::harmony_token, h, harmony_tokens[h]);
    if (is_on(off, reasoning_format::details))  // `</details>` is only its closer
      add(marker_kind::tag_open, details_pair, details_open);
    if (is_on(off, reasoning_format::apriel)) add(marker_kind::end_cut, 0, apriel_end);
    for (std::size_t k = 0; k < opts.reasoning_markers.size(); ++k) {
      const marker_pair& pair = opts.reasoning_markers[k];
      if (!usable(pair)) continue;
      add(marker_kind::tag_open, builtin_tag_pairs.size() + k, pair.open);
      add(marker_kind::tag_close, builtin_tag_pairs.size() + k, pair.close);
    }
    std::stable_sort(entries.begin(), entries.end(),
                     [](const entry& a, const entry& b) { return a.key < b.key; });
    // Which second bytes follow each first byte (lowercased): most `[` and `<` are rejected
    // on these two bytes alone.
    for (const entry& e : entries) {
      has_short = has_short || e.m.size() < 2;
      if (e.m.size() < 2) continue;
      auto& slot = follow[static_cast<unsigned char>(ascii_lower(e.m[0]))];
      if (slot == 0) {
        seconds.emplace_back();
        slot = static_cast<std::uint8_t>(seconds.size());
      }
      seconds[slot - 1U].set(static_cast<unsigned char>(ascii_lower(e.m[1])));
    }
  }

  /// A marker's group: its first two bytes, lowercased (a one-byte marker has a group of its own).
  static std::uint32_t key_of(std::string_view m) noexcept {
    const auto b0 = static_cast<unsigned char>(ascii_lower(m[0]));
    if (m.size() == 1) return 0x10000U | b0;
    return static_cast<std::uint32_t>(b0) << 8 | static_cast<unsigned char>(ascii_lower(m[1]));
  }

  /// The entries whose key is `key`, in tie-breaking order.
  [[nodiscard]] std::pair<std::vector<entry>::const_iterator, std::vector<entry>::const_iterator>
  group(std::uint32_t key) const noexcept {
    return std::equal_range(entries.begin(), entries.end(), entry{key, {}, 0, {}},
                            [](const entry& a, const entry& b) { return a.key < b.key; });
  }

  byte_finder starts;                      // the bytes a marker can start with
  std::vector<entry> entries;              // every marker, grouped by key_of
  std::array<std::uint8_t, 256> follow{};  // a first byte: 1 + its index in seconds, or 0
  std::vector<std::bitset<256>> seconds;   // the second bytes that follow it
  bool has_short = false;                  // a caller's marker is one byte long

 private:
  static constexpr bool is_on(std::uint32_t off, reasoning_format f) noexcept {
    return (off & format_bit(f)) == 0;
  }

  /// Every byte a marker can start with, in both cases for letters.
  static std::string first_bytes(const options& opts, std::uint32_t off) {
    std::string out;
    auto add = [&](std::string_view m) {
      if (m.empty()) return;
      out += ascii_lower(m[0]);
      out += ascii_upper(m[0]);
    };
    for (std::size_t p = 0; p < builtin_tag_pairs.size(); ++p)
      if (is_on(off, static_cast<reasoning_format>(p)))
        add(builtin_tag_pairs[p][0]), add(builtin_tag_pairs[p][1]);
    if (is_on(off, reasoning_format::harmony))
      for (const auto& h : harmony_tokens) add(h);
    if (is_on(off, reasoning_format::details)) add(details_open);
    if (is_on(off, reasoning_format::apriel)) add(apriel_end);
    for (const auto& p : opts.reasoning_markers)
      if (usable(p)) add(p.open), add(p.close);
    return out;
  }
};

/// The markers of one set of options, and the searches the rules make for them, over a text
/// that may still grow: a search stops where the bytes so far cannot decide yet. Does not
/// allocate after construction.
class marker_set {
 public:
  /// The built-in markers' table is made once per process and shared; a caller's markers, or
  /// built-in formats switched off, make a table of this set's own.
  explicit marker_set(const options& opts) : opts_(opts) {
    for (reasoning_format f : opts.reasoning_off) off_ |= format_bit(f);
    // The formats that are entries of the table (stripped harmony and the phrase pairs at the
    // start are not: they are looked for apart).
    constexpr std::uint32_t in_table =
        ~(format_bit(reasoning_format::stripped_harmony) | format_bit(reasoning_format::granite) |
          format_bit(reasoning_format::ollama));
    bool own = (off_ & in_table) != 0;
    for (const auto& p : opts.reasoning_markers) own = own || usable(p);
    if (own) {
      own_.emplace(opts, off_);
      table_ = &*own_;
    } else {
      static const marker_table builtin(options{}, 0);
      table_ = &builtin;
    }
  }

  /// Whether the built-in format `f` is on (not in `options::reasoning_off`).
  [[nodiscard]] bool on(reasoning_format f) const noexcept { return (off_ & format_bit(f)) == 0; }
  marker_set(const marker_set&) = delete;  // table_ may point into own_
  marker_set& operator=(const marker_set&) = delete;

  [[nodiscard]] std::string_view close_of(std::size_t p) const noexcept {
    if (p == details_pair) return details_close;
    return p < builtin_tag_pairs.size()
               ? builtin_tag_pairs[p][1]
               : opts_.reasoning_markers[p - builtin_tag_pairs.size()].close;
  }

  /// The longest marker at `i`. At equal lengths: built-in tags (open, then close), harmony,
  /// `<details ...>`, Apriel's `[END FINAL RESPONSE]`, then the caller's tags. `decided` is false
  /// when the bytes so far cannot tell yet (a marker, or a longer one, may still be completed by
  /// text that has not come), unless `ended`; a channel's name must be there too (to tell `final`,
  /// and to show it), and a `<details`'s `>`. `details`: whether `<details ...>` counts here (it
  /// does not where only closing markers matter: it would only hold the search back). `end_cut`:
  /// whether Apriel's
  /// `[END FINAL RESPONSE]` counts (after an Apriel region; matched byte for byte).
  [[nodiscard]] marker_match here(std::string_view text, std::size_t i, bool ended,
                                  bool details = true, bool end_cut = false) const noexcept {
    marker_match best;
    best.at = i;
    const std::size_t left = text.size() - i;
    bool open = false;  // a marker that matches so far may still be completed
    auto consider = [&](const marker_table::entry& e) {
      if (e.kind == marker_kind::end_cut && !end_cut) return;
      const std::size_t have = std::min(e.m.size(), left);
      // The third byte tells most entries of a group apart (`<|channel|>`, `<|end|>`, ...).
      if (have > 2 && ascii_lower(text[i + 2]) != ascii_lower(e.m[2])) return;
      if (e.kind == marker_kind::end_cut
              ? text.substr(i, have) != e.m.substr(0, have)
              : !marker_at(text.substr(0, i + have), i, e.m.substr(0, have)))
        return;
      const bool is_details = e.kind == marker_kind::tag_open && e.index == details_pair;
      if (is_details && !details) return;
      if (have < e.m.size()) {
        open = true;
        return;
      }
      std::size_t len = e.m.size();
      if (is_details) {  // `<details` through the next `>`, if the bytes between say reasoning
        const std::optional<std::size_t> end = details_end(text, i + len, ended);
        if (!end) {
          open = true;  // no `>` yet
          return;
        }
        if (*end == 0) return;  // not a reasoning block: text
        len = *end - i;
      }
      if (len > best.len) {
        best.kind = e.kind;
        best.index = e.index;
        best.len = len;
      }
    };
    if (left < 2) {
      // One byte left: every marker it could start is still open, unless the text ended.
      if (!ended) {
        best.decided = !table_->starts.contains(text[i]);
        return best;
      }
      for (const marker_table::entry& e : table_->entries) consider(e);
    } else {
      // Most bytes a marker starts with (`[`, `<`) start no marker: two bytes tell.
      const std::uint8_t slot = table_->follow[static_cast<unsigned char>(ascii_lower(text[i]))];
      if (slot != 0 &&
          table_->seconds[slot - 1U].test(static_cast<unsigned char>(ascii_lower(text[i + 1]))))
        for (auto [it, last] = table_->group(marker_table::key_of(text.substr(i, 2))); it != last;
             ++it)
          consider(*it);
      if (table_->has_short)
        for (auto [it, last] = table_->group(marker_table::key_of(text.substr(i, 1))); it != last;
             ++it)
          consider(*it);
    }
    best.decided =
        ended || (!open && (!best.is(harmony::channel) || name_known(text, i + best.len)));
    if (!best.decided) best = marker_match{marker_kind::none, 0, i, 0, false};
    return best;
  }

  /// The first marker that starts at or after `i`; `kind == none` with `decided` false stops
  /// at the first place the bytes so far cannot decide (`at`), with `decided` true means none.
  [[nodiscard]] marker_match next(std::string_view text, std::size_t i, bool ended,
                                  bool details = true, bool end_cut = false) const noexcept {
    for (; (i = table_->starts.next(text, i, text.size())) < text.size(); ++i) {
      // Most bytes a marker starts with start none here (`[[`, `<b>`): two bytes tell, without
      // the call (hostile runs of `[` or `<` are that, byte after byte).
      if (!table_->has_short && i + 1 < text.size()) {
        const std::uint8_t slot = table_->follow[static_cast<unsigned char>(ascii_lower(text[i]))];
        if (slot == 0 ||
            !table_->seconds[slot - 1U].test(static_cast<unsigned char>(ascii_lower(text[i + 1]))))
          continue;
      }
      const marker_match m = here(text, i, ended, details, end_cut);
      if (m.kind != marker_kind::none || !m.decided) return m;
    }
    marker_match none;
    none.at = text.size();
    none.decided = true;
    return none;
  }

  /// The first closing tag of pair `p` at or after `i` (a plain search), as `next` reports.
  [[nodiscard]] marker_match closer_of(std::size_t p, std::string_view text, std::size_t i,
                                       bool ended) const noexcept {
    return find(close_of(p), p, text, i, ended);
  }

  /// The first `close` at or after `i`, ASCII letters case-insensitively (a plain search), as
  /// `next` reports; a match is a closing tag of pair `p`.
  [[nodiscard]] static marker_match find(std::string_view close, std::size_t p,
                                         std::string_view text, std::size_t i,
                                         bool ended) noexcept {
    const char c0 = close[0];
    const char both[2] = {ascii_lower(c0), ascii_upper(c0)};
    const byte_finder first(std::string_view(both, 2));
    for (; (i = first.next(text, i, text.size())) < text.size(); ++i) {
      const std::size_t have = std::min(close.size(), text.size() - i);
      if (!marker_at(text.substr(0, i + have), i, close.substr(0, have))) continue;
      marker_match m{marker_kind::tag_close, p, i, close.size(), true};
      if (have == close.size()) return m;
      if (!ended) return marker_match{marker_kind::none, 0, i, 0, false};
    }
    return marker_match{marker_kind::none, 0, text.size(), 0, true};
  }

  /// Where a harmony message that is reasoning ends, at or after `i`: at `<|end|>`,
  /// `<|call|>`, `<|return|>` (which belong to it), `<|start|>` or `<|channel|>` (which do
  /// not); as `next` reports.
  [[nodiscard]] static marker_match harmony_end(std::string_view text, std::size_t i,
                                                bool ended) noexcept {
    return harmony_from(text, i, ended, false);
  }

  /// The first harmony token at or after `i`, a plain search (`all`: any of the seven; else
  /// those that end a message, as `harmony_end`); as `next` reports.
  [[nodiscard]] static marker_match harmony_from(std::string_view text, std::size_t i, bool ended,
                                                 bool all) noexcept {
    return harmony_in(all ? all_harmony : message_ends, text, i, ended);
  }

  /// The first harmony token of the set `which` at or after `i`, a plain search; as `next`
  /// reports.
  [[nodiscard]] static marker_match harmony_in(harmony_set which, std::string_view text,
                                               std::size_t i, bool ended) noexcept {
    const byte_finder angle("<");
    for (; (i = angle.next(text, i, text.size())) < text.size(); ++i) {
      // Every token starts with `<|`, and its third byte tells most apart.
      if (i + 1 < text.size() && text[i + 1] != '|') continue;
      bool open = false;
      for (std::size_t h = 0; h < harmony_tokens.size(); ++h) {
        if ((which & (1U << h)) == 0) continue;
        const std::string_view t = harmony_tokens[h];
        const std::size_t have = std::min(t.size(), text.size() - i);
        if (have > 2 && ascii_lower(text[i + 2]) != ascii_lower(t[2])) continue;
        if (!marker_at(text.substr(0, i + have), i, t.substr(0, have))) continue;
        if (have == t.size()) return marker_match{marker_kind::harmony_token, h, i, t.size(), true};
        open = true;
      }
      if (open && !ended) return marker_match{marker_kind::none, 0, i, 0, false};
    }
    return marker_match{marker_kind::none, 0, text.size(), 0, true};
  }

  /// What is at the start of the text (`i`: after the BOM and JSON white space) as phrase pairs
  /// go: `kind` `tag_open`, `index` the pair in `phrase_pairs` and `len` the phrase's when an
  /// opening phrase of a pair that is on is there; `none` when none is (`decided` false: the
  /// bytes so far may still become one).
  [[nodiscard]] marker_match phrase_at(std::string_view text, std::size_t i,
                                       bool ended) const noexcept {
    bool open = false;
    for (std::size_t p = 0; p < phrase_pairs.size(); ++p) {
      if (!on(phrase_pairs[p].format)) continue;
      for (std::string_view phrase : phrase_pairs[p].opens) {
        if (phrase.empty()) continue;
        const std::size_t have = std::min(phrase.size(), text.size() - i);
        if (text.substr(i, have) != phrase.substr(0, have)) continue;
        if (have == phrase.size()) return marker_match{marker_kind::tag_open, p, i, have, true};
        open = true;
      }
    }
    return marker_match{marker_kind::none, 0, i, 0, !open || ended};
  }

  /// The first closing phrase of the phrase pair `p` at or after `i`, byte for byte (a plain
  /// search), as `next` reports; a match is a `tag_close` of index `p`.
  [[nodiscard]] static marker_match phrase_close(std::size_t p, std::string_view text,
                                                 std::size_t i, bool ended) noexcept {
    const auto& closes = phrase_pairs[p].closes;
    const char firsts[2] = {closes[0][0], closes[1].empty() ? closes[0][0] : closes[1][0]};
    const byte_finder first(std::string_view(firsts, 2));
    for (; (i = first.next(text, i, text.size())) < text.size(); ++i) {
      bool open = false;
      for (std::string_view phrase : closes) {
        if (phrase.empty()) continue;
        const std::size_t have = std::min(phrase.size(), text.size() - i);
        if (text.substr(i, have) != phrase.substr(0, have)) continue;
        if (have == phrase.size()) return marker_match{marker_kind::tag_close, p, i, have, true};
        open = true;
      }
      if (open && !ended) return marker_match{marker_kind::none, 0, i, 0, false};
    }
    return marker_match{marker_kind::none, 0, text.size(), 0, true};
  }

  /// How many bytes of the opening marker `m` a candidate shows: all, but for a long
  /// `<details ...>`, its first `details_shown` (a channel's name is cut already).
  [[nodiscard]] static std::size_t shown_len(const marker_match& m) noexcept {
    return m.kind == marker_kind::tag_open && m.index == details_pair
               ? std::min(m.len, details_shown)
               : m.len;
  }

  /// Whether the harmony channel name at `i` is `final`, ASCII case-insensitively.
  [[nodiscard]] static bool is_final(std::string_view text, std::size_t i) noexcept {
    return marker_at(text, i, "final") && (i + 5 == text.size() || !is_word_byte(text[i + 5]));
  }

  /// The end of the channel name at `i`, as far as a marker shows it.
  [[nodiscard]] static std::size_t name_end(std::string_view text, std::size_t i) noexcept {
    const std::size_t stop = std::min(text.size(), i + channel_name_shown);
    while (i < stop && is_word_byte(text[i])) ++i;
    return i;
  }

  /// Whether the marker opens a region: an opening tag, or a channel other than `final`.
  [[nodiscard]] static bool opens_region(std::string_view text, const marker_match& m) noexcept {
    return m.kind == marker_kind::tag_open ||
           (m.is(harmony::channel) && !is_final(text, m.at + m.len));
  }

 private:
  /// Where the `<details` whose name ends at `c` ends: just past the first `>` after it when
  /// the bytes between hold `type="reasoning"`, 0 when they do not or no `>` follows (it is
  /// text), nothing when the bytes so far cannot tell (no `>` yet). The bytes after `c` are
  /// looked at once in all, over every call of a left-to-right search (and of a text that
  /// grows): a cache remembers the stretch read, its first `>` and its last `type="reasoning"`.
  [[nodiscard]] std::optional<std::size_t> details_end(std::string_view text, std::size_t c,
                                                       bool ended) const noexcept {
    static constexpr byte_finder quote_or_gt{"\">"};
    details_read& d = details_;
    if (!d.used || c < d.from || c > d.to) d = details_read{true, c, c, false, nowhere};
    if (!d.gt) {
      std::size_t p = d.to;
      for (; (p = quote_or_gt.next(text, p, text.size())) < text.size(); ++p) {
        if (text[p] == '>') {
          d.gt = true;
          break;
        }
        // `type="reasoning"` ends with this quote
        if (p + 1 >= d.from + details_type.size() &&
            marker_at(text, p + 1 - details_type.size(), details_type))
          d.reasoning = p + 1 - details_type.size();
      }
      d.to = p;  // the `>`, or the end of the text so far
    }
    if (!d.gt) return ended ? std::optional<std::size_t>(0) : std::nullopt;
    return d.reasoning != nowhere && d.reasoning >= c ? d.to + 1 : 0;
  }

  static constexpr std::size_t nowhere = static_cast<std::size_t>(-1);

  /// The stretch `[from, to)` after a `<details` read so far: `to` is its first `>` when `gt`.
  struct details_read {
    bool used = false;
    std::size_t from = 0, to = 0;
    bool gt = false;
    std::size_t reasoning = nowhere;  // the start of its last `type="reasoning"`
  };

  /// Whether the bytes after `<|channel|>` at `i` tell its name as a marker shows it.
  static bool name_known(std::string_view text, std::size_t i) noexcept {
    return name_end(text, i) < std::min(text.size(), i + channel_name_shown) ||
           text.size() - i >= channel_name_shown + 1;
  }

  const options& opts_;
  std::uint32_t off_ = 0;                // the formats switched off: bit f for reasoning_format(f)
  std::optional<marker_table> own_;      // the caller's markers' table
  const marker_table* table_ = nullptr;  // the table in use: own_, or the built-in one
  mutable details_read details_;         // what `details_end` read last
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_REGIONS_HPP_INCLUDED
