// llmjson: detail::scanner, the rules of sections 1 to 4 made into candidates, in one piece or
// in many
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_SCANNER_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_SCANNER_HPP_INCLUDED

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

/// Who reads a scan. `listing`: `candidates()`, every field as documented. `selection`:
/// `extract`, the stream and the retry wrapper, which judge every candidate before anyone reads
/// it, and judging gives a candidate in reasoning the message `inside <think>` whatever it held.
/// For them, why a candidate in reasoning is not valid JSON is neither found again (the validator
/// over its span) nor worded, nor its position looked up: a thinking model's malformed drafts
/// cost what its valid ones do.
enum class scan_for : unsigned char { listing, selection };

/// The candidate that the end of the text so far cuts, healed (rules §8 Healing).
struct healed_candidate {
  /// `offset`, `prefilled`, `line`, `column` (of its first byte that is not JSON white space),
  /// `source`, `valid` (true), `json` (the healed value, made here: not a const object, so its
  /// owner may move it out); `text` is empty.
  candidate c;
  /// The JSON pointer of the innermost value still being written (see `partial_answer::open`).
  std::string open;
  bool open_string = false;  ///< `open` names the string being written
  /// The root object's member keys whose `:` was read (a key set qualifies on them).
  std::vector<std::string> root_keys;
};

/// The text so far read as if it ended there (rules §8): what `scan` returns of it, the
/// candidate that the end cuts, healed, if there is one, and whether a later byte could still
/// make the text so far reasoning.
struct text_so_far {
  scan_result scan;
  std::optional<healed_candidate> healed;
  /// The text ends inside a reasoning region (the scan's cut is one): no partial answer.
  bool in_reasoning = false;
  /// Rules §8 Provisional: a later byte could make the text so far reasoning (the already-open
  /// rule could still apply, or stripped harmony).
  bool provisional = false;
};

/// Rules §8 from a scanner fed in pieces (a stream's): the text read so far read as if it ended
/// there, as `scanner::so_far` reads it, told from the scan so far without reading the text again
/// (`scanner::tail`). `so_far`'s candidates are the first `made` of `made()` (final: the caller
/// makes and judges them once), then `more`; the healed candidate is as `so_far`'s.
struct tail_so_far {
  bool in_reasoning = false;  ///< as `text_so_far::in_reasoning` (then nothing else is filled)
  bool provisional = false;   ///< as `text_so_far::provisional`
  std::size_t made = 0;
  /// Candidates a later byte could still drop (inside a frame that is not closed), and the whole
  /// part or fence body the end completes: unjudged, made again at each call.
  std::vector<candidate> more;
  std::optional<healed_candidate> healed;
};

/// What `scanner::tail` depends on but the bytes of the candidate the end cuts: two reads with
/// equal keys and no cut (`cut` false) give the same `tail` (and so the same partial answer).
/// Not `known`: the tail is not known without reading the text again (`so_far`).
struct tail_key {
  /// Past this many candidates a later byte could drop, the key is not `known` (its cost stays
  /// small at every read).
  static constexpr std::size_t most = 64;
  bool known = false;
  bool in_reasoning = false;
  bool provisional = false;
  std::size_t made = 0;
  /// Begin, end, and validity (1) and ending the text (2) of each record of `more`, in turn.
  std::vector<std::size_t> more;
  bool cut = false;
  std::size_t cut_at = 0;
  bool operator==(const tail_key&) const = default;
};

/// The scan of tests/corpus/README.md (sections 1 to 4) behind `candidates()` and `stream<S>`:
/// the engine, the whole-output fast path, candidate assembly (views, positions, values, why a
/// span is not JSON), near misses, and the words for a cut and for a resource limit. Judging the
/// candidates (the selector) is the caller's. Not a template: with LLMJSON_SEPARATE_COMPILATION
/// its bodies (scanner-inl.hpp) are compiled once, and this header parses no scanner internals.
///
/// A whole text: `scan(text, opts)`. A text in pieces: `feed` the chunks (the scanner keeps the
/// text), `read` when `feed` says so, `make` the candidates of the records `stable()` says are
/// final, then `finish()`; `finish()` returns exactly what `scan(text(), opts)` returns. Either
/// way, when the text has ended and the engine has not begun reading it (the whole output is a
/// JSON value or a prefix of one), the whole-output fast path answers instead of the engine.
///
/// `opts` must outlive the scanner. Not copyable; not thread-safe.
class scanner {
 public:
  /// Returns every candidate of `text`, with positions, values, what is wrong with the invalid
  /// ones, near misses and the cut: `candidates()`. Views point into `text`.
  /// With `options::prefill`, the scan reads the prefill, then `text` (§2 The text): positions
  /// are in `text`, and a candidate that starts in the prefill owns its text.
  /// `purpose`: who reads the result (`scan_for::selection` leaves the messages of candidates in
  /// reasoning empty).
  static scan_result scan(std::string_view text, const options& opts,
                          scan_for purpose = scan_for::listing);

  /// Rules §8: `text` (the output so far; `options::prefill` before it) read as if it ended
  /// there, for selection (`scan_for::selection`), with the cut candidate healed. Linear in the
  /// text: one reading, then the healing of the cut span. Views point into `text` (a healed
  /// candidate has none).
  static text_so_far so_far(std::string_view text, const options& opts);

  /// `purpose`: who reads the candidates made (`scan_for::selection` leaves the messages of
  /// candidates in reasoning empty: the caller judges every one before lending it out).
  explicit scanner(const options& opts, scan_for purpose = scan_for::listing);

  /// Appends `chunk` to the text. Returns true when enough new bytes came to read them now.
  /// Past `options::max_input_bytes` the text is dropped and `over()` is true for good. When the
  /// buffer moves, the views of `made()` follow it.
  ///
  /// **Lifetimes.** Only `feed` ends references into `made()` (its elements and the views in
  /// them): `read`, `make` and `finish` never move nor free a candidate made before them — what
  /// replaces `made()`'s storage is kept until the next `feed`.
  bool feed(std::string_view chunk);
  /// Reads the bytes fed since the last read; `ended`: no more text will come. Returns true when
  /// `made()` was emptied: the text is read again from its start (a later marker changed how it
  /// is read), or a resource limit stopped the scan.
  bool read(bool ended);
  /// Bytes were fed that were not read yet.
  [[nodiscard]] bool unread() const noexcept;
  /// The text fed so far, the prefill aside (empty once `over()`). Candidates' views may start
  /// in the prefill, just before it: the scanner keeps both in one buffer.
  [[nodiscard]] std::string_view text() const noexcept;
  /// The part of `text()` that `read` has read (what `stable()`, `made()` and `provisional()`
  /// speak of).
  [[nodiscard]] std::string_view text_read() const noexcept;
  /// How many bytes were fed.
  [[nodiscard]] std::size_t size() const noexcept;
  /// The bytes fed went over `options::max_input_bytes`.
  [[nodiscard]] bool over() const noexcept;
  /// The text is still being read: not over the input limit, not stopped by a resource limit
  /// (`max_candidates`, `max_open_frames`), not finished.
  [[nodiscard]] bool live() const noexcept;
  /// A later byte could still change how all the text so far is read (the engine's
  /// `provisional()`): no candidate is final yet.
  [[nodiscard]] bool provisional() const noexcept;
  /// The records before this index are final (unless `read` empties `made()`).
  [[nodiscard]] std::size_t stable() const noexcept;
  /// Record `k` is valid JSON outside reasoning: its candidate may qualify.
  [[nodiscard]] bool may_qualify(std::size_t k) const noexcept;
  /// Makes the candidates of the records before `upto` that are not made yet, in document order,
  /// as `candidates()` gives them (unjudged: `message` says only what is wrong with an invalid
  /// one). Views point into `text()`.
  void make(std::size_t upto);
  /// The candidates made so far, in document order; the caller may judge them in place.
  [[nodiscard]] std::vector<candidate>& made() noexcept;

  /// Rules §8: the text read so far (`text_read()`) read as if it ended there, from the scan so
  /// far: see `tail_so_far`. Costs the candidates a later byte could still drop, the healing of
  /// the cut one (its span) and the open frames; nothing before them is read again. `nullopt`
  /// when that is not known without reading the text again (`engine::would_end` says when; then
  /// `so_far`), or when the scan is not live.
  std::optional<tail_so_far> tail();
  /// What `tail()` depends on, cheaply (no candidate made, nothing healed): see `tail_key`.
  [[nodiscard]] tail_key key() const;

  /// No more text: reads the rest and returns the scan of all of it. Its first `kept`
  /// candidates are those `made()` held (taken as they are, verdicts included); `made()` is
  /// then empty. `keep_made`: views of `made()` are still out, so the result gets a copy and
  /// `made()`'s storage is kept (until the scanner goes); otherwise it is moved into the result.
  scan_result finish(std::size_t& kept, bool keep_made = true);

 private:
  /// `scan` of a text read whose first `base` bytes are the prefill; views point into `text`.
  static scan_result scan(std::string_view text, const options& opts, std::size_t base,
                          scan_for purpose);
  struct state;
  struct state_deleter {
    void operator()(state* s) const noexcept;
  };
  std::unique_ptr<state, state_deleter> s_;
};

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/scan/scanner-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCAN_SCANNER_HPP_INCLUDED
