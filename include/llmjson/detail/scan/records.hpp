// llmjson: the engine's data model: records, their contexts, near misses, cuts, overflow
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_RECORDS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_RECORDS_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <llmjson/candidate.hpp>

namespace llmjson::detail {

/// What cut a frame that never closed inside the text (its record says so: malformed).
enum class cut_by : unsigned char { none, fence_line, closing_line, reasoning_end, marker };

/// The words for `cut_by` in a candidate's message: `a fence line`.
constexpr std::string_view to_string(cut_by c) noexcept {
  switch (c) {
    case cut_by::fence_line: return "a fence line";
    case cut_by::closing_line: return "the fence's closing line";
    case cut_by::reasoning_end: return "the end of the reasoning";
    case cut_by::marker: return "a reasoning or harmony marker";
    case cut_by::none: break;
  }
  return "";
}

/// A candidate as the engine first records it: a span, where it lies (an index into the engine's
/// contexts), and whether it is valid. Positions are offsets (a stream's buffer moves); views,
/// line and column, and messages are made for the result. Four words at most (static_assert
/// below): a hostile text's records stay small.
struct record {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::uint32_t ctx = 0;  // contexts[ctx] says where it lies
  source src = source::prose;
  bool valid = false;         // valid JSON (its value may still be one nlohmann cannot hold)
  cut_by cut = cut_by::none;  // a frame the segment's end cut: malformed, for this reason
  // Found inside a frame (its opener was read with the stack not empty): a piece of something
  // bigger, never the fallback (§5 Selection and policies). Whole outputs, parts and fence bodies
  // never are.
  bool enclosed = false;
  // Valid with raw controls (§3): raw LF, CR or tabs in its strings; its value is read with
  // them escaped.
  bool raw = false;
  // A number in it may be beyond a double (one with an exponent, or 300 bytes long): whether
  // nlohmann can hold its value is checked (`numbers_fit`). The validator that read it knows.
  bool big_number = true;
};
static_assert(sizeof(record) <= 4 * sizeof(std::size_t), "a record is four words at most");

/// A near miss (§3 The scan: `{name: 1}` in prose), as the engine records it.
struct span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// §4 Truncation: where the engine found the output cut, before positions are known.
struct pending_cut {
  enum class what : unsigned char { object, array, value, fence, region };
  what kind = what::object;
  std::size_t offset = 0;
  std::size_t fence_offset = 0;               // fences: where the opening line starts
  std::size_t info_at = 0, info_len = 0;      // fences: the info string
  std::string_view body;                      // fences: "is empty", ... (a literal)
  std::size_t marker_at = 0, marker_len = 0;  // regions: the opening marker (none: the prompt's)
  // What the end of the text cut (rules §8: the healed candidate's source): the whole output,
  // an answer part, a fence body, or a frame of the scan (`prose`).
  source src = source::prose;
};

/// What every record of a segment shares: where it lies.
struct context {
  std::size_t info_at = 0;       // the fence's info string
  std::size_t marker_at = 0;     // the reasoning region's marker
  std::uint32_t info_len = 0;    // (an info string is one line; a marker is at most a few dozen
  std::uint32_t marker_len = 0;  // bytes, or a caller's marker)
  bool in_fence = false;
  bool in_reasoning = false;
};

/// A fence as the engine reads it (§2 Fences), for `fences()`. Offsets, as in a record.
struct fence_span {
  std::size_t begin = 0;       // the opening line
  std::size_t body_begin = 0;  // the line after it
  std::size_t body_end = 0;    // the closing line's start, or the part's end
  std::size_t end = 0;         // the closing line's end (its line ending aside), or the part's end
  std::size_t info_at = 0;
  std::size_t info_len = 0;
  std::size_t fence_length = 0;
  char fence_char = 0;
  bool closed = false;
};

/// Where the engine stopped short, on a resource limit that no real output comes near.
enum class overflow : unsigned char { none, candidates, frames };

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_RECORDS_HPP_INCLUDED
