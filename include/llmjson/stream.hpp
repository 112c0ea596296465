// llmjson: stream, the answer of a model output while the model is still writing it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_STREAM_HPP_INCLUDED
#define LLMJSON_STREAM_HPP_INCLUDED

#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/scan/scanner.hpp>
#include <llmjson/detail/select/partial.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/result.hpp>
#include <llmjson/select.hpp>

namespace llmjson {

namespace detail {

struct stream_probe;

}  // namespace detail

/// Extraction while the text arrives: `feed` it the chunks of a model's output, then
/// `finish()`. Under policy `first`, `settled()` says as soon as the answer can no longer
/// change, so the caller can stop the model early.
///
/// `finish()` returns exactly what `extract(text(), selector, options)` returns, whatever the
/// chunks (1-byte chunks included): the same value, candidates, positions, reasons, error and
/// cut. The work is linear in the whole text, whatever the chunks and however often `sync()`
/// is called: nothing is read twice, and every read costs in proportion to the new bytes.
///
/// The stream owns the text it was fed. Every accessor returns views into the current buffer,
/// whatever was called before it. **What `settled()`, `completed()` and `seen()` return stays
/// valid until the next `feed`** (or the stream's end), whatever is called in between: `sync()`,
/// `finish()`, `stop()` and the accessors themselves never move nor free a candidate that one
/// of them returned (a candidate that a later read drops stays readable, with its old verdict,
/// until the next `feed`). `text()` is valid until the next `feed`. The result of `finish()`
/// holds views into the stream, which must outlive it. Not thread-safe; one stream per output.
///
/// **A selector that throws** (a predicate, a decoder's `from_json`): the exception leaves the
/// call that judged (`feed`, `sync`, `completed`, `seen`, `finish`, `stop`), and the candidate
/// stays unjudged: the next call judges it again, and every candidate after it, as `extract`
/// would. The stream stays usable, and a `finish()` or `stop()` that threw may be called again.
/// Otherwise `finish()` or `stop()` is called once: a second call throws `std::logic_error`.
///
/// **A moved-from stream** is empty: `text()` is empty, `size()` 0, `settled()` null,
/// `completed()` and `seen()` empty, `sync()` does nothing; `feed`, `finish` and `stop` throw
/// `std::logic_error` (it has no selector left).
///
/// **The partial answer** (rules §8): `partial()` is the answer as far as it has been written,
/// for display — a form filling in, a list growing — never a reasoning draft; `partial_version()`
/// says cheaply when it may have changed. See `partial()`.
///
/// **The resource limits.** What `settled()` and `completed()` promise holds for every
/// continuation that keeps the whole text within the resource limits (`max_input_bytes`,
/// `max_candidates`, `max_open_frames`). A text that crosses one is `too_large` whatever came
/// before, as `extract` says on it: from then on `settled()` is null and `completed()` and
/// `seen()` are empty. A caller that stops the model once the answer is settled never gets there.
///
/// **Example**:
/// ```cpp
/// llmjson::stream s(llmjson::any_key({"orders"}), {.policy = llmjson::policy::first});
/// for (std::string_view chunk : chunks) {
///   s.feed(chunk);
///   if (s.settled()) break;  // the answer is known: stop the model
/// }
/// auto r = s.stop();  // the model was stopped: not a cut (finish() if it ran to its end)
/// ```
template <Selector S = any_object>
class stream {
 public:
  explicit stream(S sel = S{}, options opts = {})
      : s_(std::make_unique<state>(std::move(sel), std::move(opts))) {}

  /// Appends `chunk` to the text. The stream reads new bytes once enough have come (64, or
  /// 1/16 of the text so far, at most 4 KB), so the settled answer is seen at most that many
  /// bytes late; `sync()` reads them at once. After `finish()`, asserts.
  void feed(std::string_view chunk) {
    state& s = live("feed");
    s.lent = false;  // the views given so far end here
    assert(!s.ended && "llmjson::stream::feed after finish");
    if (s.ended || chunk.empty()) return;
    const bool due = s.scan.feed(chunk);
    if (s.scan.over()) {
      if (!s.over_seen) ++s.version;  // the partial is gone
      s.over_seen = true;
      s.read_since = false;
      s.settled.reset();  // too_large whatever comes: the candidates are gone
      s.judged = 0;
      forget_counts();
      return;
    }
    if (due) read();
  }

  /// Reads the bytes fed but not read yet (feed waits for a few): `settled()`, `completed()`
  /// and `seen()` then see all the text so far. Costs nothing when nothing new came.
  void sync() {
    if (s_ && !s_->ended && s_->scan.unread()) read();
  }

  /// No more text: returns exactly what `extract(text(), selector, options)` returns. The
  /// views of the result point into the stream, which must outlive it. Call it once, when the
  /// model's output ended by itself; when the caller stopped the model, `stop()`.
  [[nodiscard]] result<extraction> finish() & { return end("finish"); }
  /// The result of a temporary stream would dangle: the build fails with a message that says so
  /// (`stop()` likewise).
  template <class Self = stream>
  result<extraction> finish() && {
    static_assert(detail::dependent_false<Self>,
                  "llmjson: finish() or stop() of a temporary stream: the result's views would "
                  "point into the stream's text, destroyed at the end of the statement. Call it "
                  "on a named stream");
    return error{};
  }

  /// The caller stopped the model (usually once `settled()`): returns what `finish()` returns,
  /// except that an answer has no `truncation` and no `later_qualifying`: what follows the answer
  /// is where the caller stopped the text, not the model's whole output, so nothing says "cut
  /// after the answer" and no count of later candidates depends on how far the text got. An
  /// error stays as `finish()` gives it: stopped before the answer settled, the text so far may
  /// well hold no answer (`truncated`, with where it ends).
  [[nodiscard]] result<extraction> stop() & {
    result<extraction> r = end("stop");
    if (r) {
      r->truncation.reset();
      r->later_qualifying.clear();
    }
    return r;
  }
  /// The result of a temporary stream would dangle: the build fails there, as for `finish()`.
  template <class Self = stream>
  result<extraction> stop() && {
    return std::move(*this).template finish<Self>();
  }

  /// The text fed so far (empty once it went over `options::max_input_bytes`).
  [[nodiscard]] std::string_view text() const noexcept {
    return s_ ? s_->scan.text() : std::string_view();
  }
  /// How many bytes were fed.
  [[nodiscard]] std::size_t size() const noexcept { return s_ ? s_->scan.size() : 0; }

  /// The candidates read so far that nothing later can drop or change (within the resource
  /// limits), in document order, each with its verdict (`qualifies`, `message`). While a later
  /// byte could still change how all the text so far is read — under `output_start::unknown`
  /// before any reasoning marker (a `</think>` would make it reasoning), or while a leading
  /// `analysis` could still turn out to be stripped harmony — this holds them all back, as
  /// `settled()` does (`seen()` shows them). Valid until the next `feed`.
  [[nodiscard]] std::span<const candidate> completed() const {
    if (!s_ || s_->scan.provisional()) return {};
    return seen();
  }

  /// Every candidate read so far, in document order, each with its verdict: `completed()`,
  /// and those it holds back because a later byte could still make them reasoning. For a
  /// progress display of drafts as
  /// they come; an entry may later change its verdict, or vanish with the whole list when a
  /// resource limit is crossed. Valid until the next `feed`.
  [[nodiscard]] std::span<const candidate> seen() const {
    if (!s_) return {};
    state& s = *s_;
    s.lent = true;
    if (!s.ended) make(s.scan.stable());  // made when first asked for
    return s.scan.made();
  }

  /// Under policy `first`: the answer, once it is settled — `extract` on the text so far
  /// followed by any continuation within the resource limits would return this candidate.
  /// Null before, and always under `unique` and `last` (a later candidate could change the
  /// answer). Valid until the next `feed`. Whether later candidates also qualify is known only
  /// at the end: `finish()`'s `extraction::later_qualifying`.
  [[nodiscard]] const candidate* settled() const noexcept {
    if (!s_ || !s_->settled) return nullptr;
    s_->lent = true;
    return &s_->scan.made()[*s_->settled];
  }

  /// The partial answer (rules §8, tests/corpus/README.md): the text read so far (as `settled()`
  /// sees it: `sync()` reads what `feed` holds back) read as if the output ended there, and the
  /// first candidate that qualifies, in document order, whatever the policy: a complete one, or
  /// the one the end cuts, **healed** — the string being written closed as written so far (an
  /// incomplete last escape left out); a key without its `:`, a member without its value, a
  /// number, `true`, `false` or `null` a later byte could extend left out with its member or
  /// element; every open array and object closed (`partial_answer::open` says which value is
  /// still being written). A prose-like frame is never healed. `qualifying` counts the candidates
  /// that qualify so far (under `unique` and `last`, more than one says this may not be the
  /// answer). Never the fallback.
  ///
  /// `nullopt` while the text so far ends inside a reasoning region (`<think>{"a":1`), while no
  /// candidate qualifies, after a resource limit (`too_large`), and for a moved-from stream.
  /// `provisional` says whether a later byte could still make the text reasoning (`options::start`
  /// `unknown` and no marker seen yet; a leading `analysis`): with `output_start::answer`, or once
  /// a marker decided the start, it is not.
  ///
  /// How a healed candidate qualifies: `any_object`, an object; `any_key`, once one of its keys is
  /// a complete member key of the root object (its `:` read, its value perhaps not shown yet); a
  /// `schema`, the healed value with `required`, `minItems` and `minProperties` not applied and
  /// the string being written exempt from `minLength`, `maxLength` and `pattern` (and passing
  /// `enum` or `const` when one of their strings begins with it); `decode<T>`, the decoder on the
  /// healed value with the missing members of `LLMJSON_DEFINE_TYPE` structs left default (each
  /// member present decodes to its type, an unknown key still fails; the decoder's caller check
  /// judges the complete `T` only); a caller's predicate or selector only if it declares
  /// `static constexpr bool judges_partial = true` (it is then called on the healed value);
  /// otherwise only complete candidates qualify under it.
  ///
  /// **The promise**: every member, element and scalar the partial shows complete (all but the
  /// `open` path) is, when `finish()`'s answer is the same candidate (same `position()`), in the
  /// answer with an equal value. After `finish()` or `stop()` the partial is the answer
  /// (`final`; `nullopt` when they gave an error; a fallback answer included).
  ///
  /// Cost: when the version changed since the last call, the partial is made from the stream's
  /// own scan: the complete candidates nothing can drop any more are judged once (their verdicts
  /// kept), and the call costs the candidate the end cuts, healed from its start (its span),
  /// plus the complete candidates a later byte could still drop (inside a frame not closed yet)
  /// and the frames still open — not the text before them: a reasoning preamble, the prose and
  /// the answers before, cost nothing again. The text so far is read again (the scan, as
  /// `extract` reads it: linear in the text so far) only where its end would do more than end
  /// the candidate being read: while the whole output is one JSON value or a prefix of one (that
  /// read is the candidate's span anyway), while the text begins with `analysis` (stripped
  /// harmony may still apply), and when it ends in bytes held back because a marker or a fence
  /// line may be starting (`<`, `</thi`, a line's first backticks or spaces) or in an opener
  /// followed by more than 1 KB that the scan has not judged yet. When the version did not change,
  /// the same answer as the last call: kept when it was made by reading the text again, else
  /// made again from the scan (that costs what copying it would, and a UI that reads once per
  /// change pays no copy). A UI reads it when `partial_version()` changed. A selector's
  /// exception propagates (the next call judges again).
  [[nodiscard]] std::optional<partial_answer> partial() {
    if (!s_) return std::nullopt;
    state& s = *s_;
    if (s.done) return s.final_partial;
    refresh_version();
    if (s.partial_of != s.version || s.handed_out) {
      const std::size_t rereads = s.rereads;
      std::optional<partial_answer> p = compute_partial();
      s.partial_of = s.version;
      s.handed_out = s.rereads == rereads;
      if (s.handed_out) {  // made from the scan: made again if asked again, rather than copied
        s.partial.reset();
        return p;
      }
      s.partial = std::move(p);
    }
    return s.partial;
  }

  /// Changes whenever the partial answer may have changed; equal versions: `partial()` is the
  /// same (every field). Starts at 0 (no text read). Constant time, but for the first call after
  /// the stream read new bytes: that one looks at what the partial depends on (the frames still
  /// open, the candidates a later byte could still drop; a stream nobody asks pays nothing).
  ///
  /// It changes when the stream crosses a resource limit, ends, or has read new bytes since the
  /// version was last asked for (a `feed` that reads, a `sync`) and then: a candidate is open at
  /// the end of the text read (the cut one, even if the new bytes were white space inside it); or
  /// what the partial is made of changed — the count of final candidates, the complete candidates a
  /// later byte could still drop (their spans, validity, whether one ends the text), whether the
  /// text ends in reasoning, whether it is provisional; or that is not known without reading the
  /// text again (see `partial()`'s cost), or the text is read again from its start (a later marker
  /// made it reasoning). So it stays the same across bytes that can change none of these: any bytes
  /// inside a reasoning region (but a `<` or another byte where a marker may start), prose before
  /// the answer and after a closed answer (but `{`, `[` and a line that may be a fence line), white
  /// space after a whole part or fence body. A new candidate opening, or a complete one closing,
  /// changes it even when the partial stays the same (the first candidate still qualifies first).
  [[nodiscard]] std::uint64_t partial_version() const noexcept {
    if (!s_) return 0;
    refresh_version();
    return s_->version;
  }

 private:
  struct state {
    state(S sel_, options opts_)
        : sel(std::move(sel_)),
          opts(std::move(opts_)),
          scan(opts, detail::scan_for::selection),
          first(opts.policy.value_or(detail::default_policy_of<S>()) == policy::first) {}

    S sel;
    options opts;
    // Refers to opts: the state stays where it is (on the heap). For selection: every candidate
    // is judged before it is lent out (a selector's throw lends none), so the scan does not word
    // why one in reasoning is malformed.
    detail::scanner scan;
    bool first;  // policy first: the answer can settle
    bool ended = false;
    bool done = false;  // finish() or stop() returned
    bool lent = false;  // settled(), completed() or seen() gave views since the last feed
    std::optional<scan_result> final;  // the whole scan, kept while a selector's throw is retried
    std::size_t settle_from = 0;       // records[..settle_from] hold no qualifying candidate
    std::size_t judged = 0;            // made()[..judged] have their verdicts
    std::optional<std::size_t> settled;
    std::uint64_t version = 0;              // partial_version()
    std::uint64_t partial_of = 0;           // the version `partial` was made at
    std::optional<partial_answer> partial;  // the last partial() made
    // The last partial() made was handed out, not kept: made from the scan, it is made again
    // when asked again at the same version (that costs what copying it would).
    bool handed_out = false;
    std::optional<partial_answer> final_partial;  // after the end: the answer
    // compute_partial: of made()[..counted], how many qualify and the first that does.
    std::size_t counted = 0;
    std::size_t qualifying = 0;
    std::optional<std::size_t> first_qualifying;
    detail::tail_key key;     // what the partial depended on when the version was last set
    bool read_since = false;  // bytes were read since (refresh_version)
    bool gone_since = false;  // ... and the text was read again from its start
    bool over_seen = false;   // the version changed when the text went over the input limit
    std::size_t rereads = 0;  // partials made by reading the text so far again (stream_probe)
  };
  friend struct detail::stream_probe;

  /// Rules §8 over the text read so far: see `partial()`. From the scan so far
  /// (`scanner::tail`): the final candidates judged once (their verdicts counted once, in
  /// `counted`), those a later byte could still drop and the one the end completes judged here,
  /// the cut one healed. Where that is not known without reading the text again, the text so far
  /// is read again (`detail::partial_so_far`).
  std::optional<partial_answer> compute_partial() {
    state& s = *s_;
    if (s.scan.over() || !s.scan.live()) return std::nullopt;
    const std::string_view text = s.scan.text_read();
    std::optional<detail::tail_so_far> t = s.scan.tail();
    if (!t) {
      ++s.rereads;
      return detail::partial_so_far(text, s.sel, s.opts);
    }
    if (t->in_reasoning) return std::nullopt;
    make(t->made);  // judged once: their verdicts stay
    const std::vector<candidate>& made = s.scan.made();
    if (s.counted > t->made) forget_counts();
    for (; s.counted < t->made; ++s.counted) {
      // Final candidates are frames, or whole parts and fence bodies that a marker or a fence
      // line ended: none is a number that ends the text.
      if (!made[s.counted].qualifies) continue;
      if (!s.first_qualifying) s.first_qualifying = s.counted;
      ++s.qualifying;
    }
    std::size_t qualifying = s.qualifying;
    const candidate* first = s.first_qualifying ? &made[*s.first_qualifying] : nullptr;
    for (candidate& c : t->more) {
      if (detail::number_in_progress(c, text)) continue;
      detail::judge_candidate(c, s.sel);
      if (!c.qualifies) continue;
      ++qualifying;
      if (!first) first = &c;
    }
    return detail::make_partial(s.sel, first, qualifying, t->healed, t->provisional);
  }

  /// After reads since the version was last asked for: it changes unless what the partial
  /// depends on is known and the same as then (`scanner::key`), no candidate is cut (new bytes
  /// would extend it) and the text was not read again from its start. Costs what `scanner::key`
  /// does: the open frames, the candidates a later byte could still drop.
  void refresh_version() const noexcept {
    state& s = *s_;
    if (!s.read_since) return;
    detail::tail_key key;
    try {
      key = s.scan.key();
    } catch (...) {  // out of memory: not known, the version changes
      key = detail::tail_key{};
    }
    if (s.gone_since || !key.known || key.cut || key != s.key) ++s.version;
    s.key = std::move(key);
    s.read_since = false;
    s.gone_since = false;
  }

  /// The counts of `compute_partial` start again (the candidates made are gone).
  void forget_counts() const noexcept {
    s_->counted = 0;
    s_->qualifying = 0;
    s_->first_qualifying.reset();
  }

  /// The state, or std::logic_error naming the call when the stream was moved from.
  state& live(const char* call) {
    if (!s_)
      throw std::logic_error(std::string("llmjson::stream::") + call +
                             ": the stream was moved from (it has no selector left)");
    return *s_;
  }

  result<extraction> end(const char* call) {
    state& s = live(call);
    if (s.done)
      throw std::logic_error(std::string("llmjson::stream::") + call +
                             ": the stream has ended already (finish() or stop() is called once)");
    s.ended = true;
    s.read_since = false;  // the end changes the version whatever was read
    s.settled.reset();
    if (auto e = detail::precheck(
            s.scan.size(),
            !s.scan.over() && detail::is_blank(s.scan.text(), s.opts.prefill.empty()), s.opts)) {
      s.done = true;
      ++s.version;
      return std::move(*e);
    }
    if (!s.final) {
      // The candidates judged so far are final: they are taken as they are, with their verdicts.
      std::size_t kept = 0;
      s.final = s.scan.finish(kept, /*keep_made=*/s.lent);
      s.judged = std::min(kept, s.judged);
    }
    // The rest are judged here: a selector's exception leaves the scan kept, and the next
    // finish() or stop() judges that candidate again.
    std::vector<candidate>& all = s.final->candidates;
    for (; s.judged < all.size(); ++s.judged) detail::judge_candidate(all[s.judged], s.sel);
    const std::size_t judged = s.judged;
    scan_result scan = std::move(*s.final);
    s.final.reset();
    s.done = true;
    result<extraction> r = detail::choose(std::move(scan), s.sel, s.opts, judged);
    ++s.version;
    if (r) s.final_partial = detail::answer_partial(*r);  // §8: after the end, the answer
    return r;
  }

  void read() {
    state& s = *s_;
    const bool gone = s.scan.read(/*ended=*/false);
    if (gone) {  // the candidates made so far are gone
      s.settled.reset();
      s.settle_from = 0;
      s.judged = 0;
      forget_counts();
    }
    // Whether the partial answer may have changed is decided when asked (`partial_version()`,
    // `partial()`): a stream nobody asks pays nothing for it.
    s.read_since = true;
    s.gone_since = s.gone_since || gone;
    // The first qualifying candidate is the answer of every continuation once nothing before
    // it can change and no closing marker can still make the start reasoning. Candidates are
    // made here only while that search needs them; `seen()` makes the rest when asked.
    if (!s.first || s.settled || !s.scan.live() || s.scan.provisional()) return;
    const std::size_t stable = s.scan.stable();
    for (; s.settle_from < stable; ++s.settle_from) {
      // A record that is not valid JSON, or lies in reasoning, never qualifies: its candidate
      // is made only when one after it settles, or at the end (a hostile text of invalid spans
      // that ends in too_large costs no candidates, as in extract).
      if (!s.scan.may_qualify(s.settle_from)) continue;
      make(s.settle_from + 1);
      if (s.scan.made()[s.settle_from].qualifies) {
        s.settled = s.settle_from;
        return;
      }
    }
  }

  /// Makes the candidates of the records before `upto` that are not made yet, in document
  /// order, and judges those not judged yet (one a selector's exception left unjudged too).
  void make(std::size_t upto) const {
    state& s = *s_;
    s.scan.make(upto);
    std::vector<candidate>& made = s.scan.made();
    if (s.judged > made.size()) {  // emptied: a resource limit
      s.judged = 0;
      forget_counts();
    }
    for (; s.judged < made.size(); ++s.judged) detail::judge_candidate(made[s.judged], s.sel);
  }

  std::unique_ptr<state> s_;
};

namespace detail {

/// For the tests and the benchmarks: how a stream made its partial answers.
struct stream_probe {
  /// How many partial answers were made by reading the text so far again (`partial_so_far`).
  template <class S>
  static std::size_t rereads(const stream<S>& s) noexcept {
    return s.s_ ? s.s_->rereads : 0;
  }
  /// The text the stream has read (what its partial answer speaks of; `feed` holds a few bytes
  /// back until `sync()`).
  template <class S>
  static std::string_view text_read(const stream<S>& s) noexcept {
    return s.s_ && !s.s_->scan.over() ? s.s_->scan.text_read() : std::string_view();
  }
};

}  // namespace detail

template <class S>
stream(S) -> stream<S>;
template <class S>
stream(S, options) -> stream<S>;

}  // namespace llmjson

#endif  // LLMJSON_STREAM_HPP_INCLUDED
