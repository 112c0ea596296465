// llmjson: what the engine's stages share: the text so far, the results, the frame scanner
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SCAN_STATE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SCAN_STATE_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/frames.hpp>
#include <llmjson/detail/scan/records.hpp>

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

/// Rules §8, what the engine's `advance(text, /*ended=*/true)` would make of the text read so
/// far, told without reading it (`engine::would_end`): which records stay, the record the end
/// completes, the candidate it cuts.
struct end_view {
  /// The text ends inside a reasoning region: the cut is that region (no partial answer).
  bool in_reasoning = false;
  /// The records before `keep` stay; of those from `keep` to `upto`, the ones that start in none
  /// of `drops` stay too; the rest go.
  std::size_t keep = 0;
  std::size_t upto = 0;
  std::vector<span> drops;
  /// A whole part or fence body that the end makes one value (after the records that stay).
  std::optional<record> added;
  context added_where;
  /// The candidate the end cuts (not a region): `offset`, `src`, `kind` as the engine's cut.
  std::optional<pending_cut> cut;
};

/// §4 Truncation: the cut of a whole output or answer part (`src`) whose value starts at `first`
/// of `text` and is cut by the end: an object, an array or another value by its first byte.
[[nodiscard]] inline pending_cut value_cut_at(std::string_view text, std::size_t first,
                                              source src) noexcept {
  pending_cut found;
  found.kind = text[first] == '{'   ? pending_cut::what::object
               : text[first] == '[' ? pending_cut::what::array
                                    : pending_cut::what::value;
  found.offset = first;
  found.src = src;
  return found;
}

/// A size as a context's 32-bit field holds it (a marker or an info string is never near 4 GB).
[[nodiscard]] inline std::uint32_t clamp32(std::size_t n) noexcept {
  return static_cast<std::uint32_t>(std::min<std::size_t>(n, 0xFFFFFFFFU));
}

/// What the `engine`'s stages share (tests/corpus/README.md §1 to §4): the text so far and
/// whether it has ended, the results they add to (the engine owns them: these are references),
/// the frame scanner (§3 The scan) they hand segments and records to, and what the caller asked
/// to collect. Each stage holds a reference to the engine's one `scan_state`.
struct scan_state {
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  scan_state(std::vector<record>& r, std::vector<context>& c, std::vector<span>& n,
             std::vector<std::pair<std::size_t, nlohmann::json>>& b,
             std::optional<pending_cut>& cut_to, frame_scanner& f, std::size_t depth) noexcept
      : max_depth(depth), records(r), contexts(c), near(n), built(b), cut(cut_to), frames(f) {}

  std::string_view text;  // all the text so far
  bool ended = false;     // no more will come
  std::size_t max_depth;
  std::vector<record>& records;
  std::vector<context>& contexts;
  std::vector<span>& near;
  std::vector<std::pair<std::size_t, nlohmann::json>>& built;
  std::optional<pending_cut>& cut;
  frame_scanner& frames;

  std::vector<fence_span>* fence_spans = nullptr;  // engine::collect_fences
  bool fences_only = false;                        // ... and the segments are not scanned
  std::vector<part_span>* part_spans = nullptr;    // engine::collect_parts
  bool build_values = true;                        // engine::build_values
  std::size_t generation = 0;                      // engine::generation

  /// A resource limit stopped the reading: nothing more is read.
  [[nodiscard]] bool stopped() const noexcept { return frames.overflowed() != overflow::none; }

  /// A whole value (output, part or fence body), lying in `c`. `big_number`: a number in it may
  /// be beyond a double (what its validator saw), so its candidate checks them (`numbers_fit`).
  void add_record(std::size_t first, std::size_t last, source src, const context& c,
                  bool big_number) {
    contexts.push_back(c);
    records.push_back(record{first,
                             last,
                             static_cast<std::uint32_t>(contexts.size() - 1),
                             src,
                             true,
                             {},
                             false,
                             false,
                             big_number});
    frames.note_record();
  }

  /// §4 Truncation: a whole output or answer part (`src`) that is a cut value starting at
  /// `first`.
  void value_cut(std::size_t first, source src) { cut = value_cut_at(text, first, src); }

  /// What the stages made of the text so far is dropped: it is about to be read again
  /// (`generation` changes).
  void forget() {
    ++generation;
    records.clear();
    built.clear();
    contexts.clear();
    near.clear();
    cut.reset();
    if (fence_spans) fence_spans->clear();
    if (part_spans) part_spans->clear();
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_SCAN_STATE_HPP_INCLUDED
