// llmjson: stream, the answer of a model output while the model is still writing it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_STREAM_HPP_INCLUDED
#define LLMJSON_STREAM_HPP_INCLUDED

#include <algorithm>
#include <cassert>
#include <cstddef>
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
#include <llmjson/detail/scan/scanner.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/select.hpp>

namespace llmjson {

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
      s.settled.reset();  // too_large whatever comes: the candidates are gone
      s.judged = 0;
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
  };

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
    s.settled.reset();
    if (auto e = detail::precheck(
            s.scan.size(),
            !s.scan.over() && detail::is_blank(s.scan.text(), s.opts.prefill.empty()), s.opts)) {
      s.done = true;
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
    return detail::choose(std::move(scan), s.sel, s.opts, judged);
  }

  void read() {
    state& s = *s_;
    if (s.scan.read(/*ended=*/false)) {  // the candidates made so far are gone
      s.settled.reset();
      s.settle_from = 0;
      s.judged = 0;
    }
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
    if (s.judged > made.size()) s.judged = 0;  // emptied: a resource limit
    for (; s.judged < made.size(); ++s.judged) detail::judge_candidate(made[s.judged], s.sel);
  }

  std::unique_ptr<state> s_;
};

template <class S>
stream(S) -> stream<S>;
template <class S>
stream(S, options) -> stream<S>;

}  // namespace llmjson

#endif  // LLMJSON_STREAM_HPP_INCLUDED
