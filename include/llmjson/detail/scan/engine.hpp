// llmjson: the engine: the extraction rules over a text that may still be growing, in one pass
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/frames.hpp>
#include <llmjson/detail/scan/lines.hpp>
#include <llmjson/detail/scan/marker_walk.hpp>
#include <llmjson/detail/scan/parts.hpp>
#include <llmjson/detail/scan/records.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/scan/scan_state.hpp>
#include <llmjson/detail/scan/segments.hpp>
#include <llmjson/detail/scan/text_start.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// The rules of tests/corpus/README.md §1 to §4 over a text given as it grows. Each `advance`
/// takes all the text so far and goes as far as the bytes seen decide; the last one says the
/// text has ended. Given the whole text at once it yields what `candidates()` lists; given it
/// in pieces, exactly the same records, near misses and cut, whatever the pieces. Linear: each
/// byte is read a few times at most. Allocates the records and the stages' state.
///
/// A pipeline of stages, each reading left to right, each in its own header; a stage hands
/// what it has read to the next (`scan_state` is what they share):
/// - `text_start` (§1 the BOM, §2 phrase pairs and stripped harmony, §3 Whole output): the
///   stages after it wait until the text is known not to be one JSON value (a whole value owns
///   all inside it), then read from the start; when a later byte changes whether stripped
///   harmony applies, the text is read again (twice at most);
/// - `marker_walk` (§2 Reasoning regions, §2 Already open, §2 Parts): markers cut the text into
///   parts, each decided once the bytes it may span are there;
/// - `part_reader` (§2 Parts, §3 Whole parts): an answer part waits while it is a valid JSON
///   prefix;
/// - `line_reader` (§2 Lines, §2 Fences): a line that may be a fence line is held until it
///   ends, then fed to the `fence_walker`; fence lines cut a part into segments;
/// - `segment_reader` (§3 Fence bodies, §3 The scan): a body waits while it is a valid JSON
///   prefix; the `frame_scanner` reads each segment;
/// - `frame_scanner` (`frames.hpp`, §3 The scan): the byte rules that open, settle and close
///   brace and bracket frames, on a `frame_stack` (the open frames, the chain of live JSON-like
///   ones that one `validator` reads, and the records they leave). The validator
///   (`validator.hpp`, §1 Valid JSON) owns its parts: containers and keys, strings, numbers and
///   literals, the wording of a failure (`validator_*.hpp`).
class engine {
 public:
  explicit engine(const options& opts)
      : options_(opts),
        markers_(opts),
        frames_(std::min(opts.max_depth, max_depth_limit), records, contexts, near,
                opts.max_candidates, opts.max_open_frames),
        state_(records, contexts, near, built, cut, frames_,
               std::min(opts.max_depth, max_depth_limit)),
        start_(state_, opts, markers_),
        segments_(state_),
        lines_(state_, segments_),
        parts_(state_, lines_),
        walk_(state_, opts, markers_, start_, parts_) {}

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

  [[nodiscard]] std::size_t max_depth() const noexcept { return state_.max_depth; }

  /// The whole output is known not to be one JSON value (nor a cut one): the stages below
  /// read the text. Before that, no record exists.
  [[nodiscard]] bool reading() const noexcept { return reading_; }
  /// A later byte could change how all the text so far is read (and `generation()` would
  /// change): before any opening marker with the already-open rule on, a later closing marker
  /// would make it reasoning; while the text begins with `analysis` and holds no harmony token,
  /// a later `assistantfinal` would make stripped harmony apply, or a later harmony token would
  /// cancel it.
  [[nodiscard]] bool provisional() const noexcept {
    return reading_ &&
           (walk_.may_be_already_open() || (!state_.ended && start_.stripped_possible()));
  }
  /// Records before this index are final: later text never drops or changes them (unless
  /// `generation()` changes). In a region the prompt opened, none is: its records take the
  /// marker that closes it.
  [[nodiscard]] std::size_t stable_records() const noexcept {
    if (reading_ && walk_.in_prompt_region()) return parts_.current().records_from;
    return frames_.stable_records();
  }
  /// Rules §8: what `advance(text, /*ended=*/true)` would make of the text read so far (`text`,
  /// the same bytes as the last `advance`, perhaps moved), told without reading it again:
  /// nothing when the end would do more than end the part being read — the whole output still a
  /// JSON value or a prefix of one (not `reading()`), a leading `analysis` (stripped harmony may
  /// still apply), bytes held back (a marker or a fence line may be starting), a resource limit
  /// the end would cross. Then the caller reads the text again. Linear in the open frames (and
  /// the span of a frame whose validator has not started).
  [[nodiscard]] std::optional<end_view> would_end(std::string_view text) const {
    if (!reading_ || state_.stopped() || start_.stripped_possible() ||
        read_stripped_ != start_.stripped_applies())
      return std::nullopt;
    end_view out;
    if (!parts_.would_end(text, text.size(), segments_, out)) return std::nullopt;
    if (out.added && records.size() + 1 > options_.max_candidates) return std::nullopt;
    return out;
  }

  /// Changes when the text is read again (the already-open rule, stripped harmony): the records
  /// made before are gone.
  [[nodiscard]] std::size_t generation() const noexcept { return state_.generation; }

  /// From now on, every fence the engine reads (§2 Fences: per part, in document order) is
  /// added to `out`, which must outlive the engine's use; a reading again (`generation()`)
  /// clears it. `only`: the segments are not scanned (the fences stay the same; the records
  /// and the cut do not). For `fences()`: the fences are complete if no limit stops the
  /// reading (`overflowed()`).
  void collect_fences(std::vector<fence_span>& out, bool only) noexcept {
    state_.fence_spans = &out;
    state_.fences_only = only;
  }

  /// From now on, every part the engine reads (§2 Parts, in document order) is added to `out`,
  /// which must outlive the engine's use; a reading again (`generation()`) clears it. A text
  /// that is one value (or a cut one) has no parts: it is all answer.
  void collect_parts(std::vector<part_span>& out) noexcept { state_.part_spans = &out; }

  /// Whether the long fence bodies checked in one pass are built too (`built`): not for a
  /// scan for selection, which builds the values that judging and the answer ask for.
  void build_values(bool yes) noexcept { state_.build_values = yes; }

  /// Takes all the text so far (the bytes given before, and maybe more) and processes what it
  /// can decide. `ended`: no more text will come; the results are then final.
  void advance(std::string_view text, bool ended) {
    state_.text = text;
    state_.ended = ended;
    frames_.rebind(text);
    start_.rebind(text);
    parts_.rebind(text);
    segments_.rebind(text);
    if (state_.stopped()) return;
    if (!start_.advance()) return;
    if (!reading_) {
      begin_reading();
    } else if (read_stripped_ != start_.stripped_applies()) {
      reread();  // a later byte changed whether stripped harmony applies
    }
    if (!options_.reasoning_regions) {
      parts_.text(text.size());
      if (ended && parts_.current().active) parts_.end(text.size());
      return;
    }
    walk_.walk();
  }

 private:
  /// The text is not one value: parts, fences and frames from the start.
  void begin_reading() {
    // Room for the few records most texts hold, once a scan: not 1, 2, 4, 8, an allocation each
    // (1.2% of a batch's instructions), and no test on the hot paths that add them.
    if (records.capacity() == 0) {
      records.reserve(16);
      contexts.reserve(4);
    }
    reading_ = true;
    read_stripped_ = start_.stripped_applies();
    walk_.begin();
  }

  /// All of the text so far is read again from its start (how it is read changed).
  void reread() {
    state_.forget();
    begin_reading();
  }

  const options& options_;
  marker_set markers_;
  frame_scanner frames_;
  scan_state state_;
  // The stages: text_start, then marker_walk, part_reader, line_reader, segment_reader, each
  // holding the next one, which is made before it.
  text_start start_;
  segment_reader segments_;
  line_reader lines_;
  part_reader parts_;
  marker_walk walk_;
  bool reading_ = false;        // the stages after text_start read the text
  bool read_stripped_ = false;  // ... as stripped harmony
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_ENGINE_HPP_INCLUDED
