// llmjson: stream, the answer of a model output while the model is still writing it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_STREAM_HPP_INCLUDED
#define LLMJSON_STREAM_HPP_INCLUDED

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
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
/// whatever was called before it: the views of `settled()`, `completed()` and `seen()` follow
/// the buffer when a `feed` moves it, and stay valid until the next `feed`. The result of
/// `finish()` lives as long as the stream. Not thread-safe; one stream per output.
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
/// auto r = s.finish();
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
    state& s = *s_;
    assert(!s.ended && "llmjson::stream::feed after finish");
    if (s.ended || chunk.empty()) return;
    s.total += chunk.size();
    if (s.over) return;
    if (s.total > s.opts.max_input_bytes) {
      // Over the limit: the result is too_large whatever comes; the text is not kept.
      s.over = true;
      s.buf = std::string();
      s.done.clear();
      s.settled.reset();
      return;
    }
    if (chunk.size() > s.buf.capacity() - s.buf.size()) {
      // The buffer moves: grown here (doubling, as append would), so that the views follow
      // it exactly when it moves. A chunk taken from the stream's own text is copied first.
      const std::less<const char*> before;
      std::string own;
      if (!before(chunk.data(), s.buf.data()) && before(chunk.data(), s.buf.data() + s.buf.size()))
        chunk = own.assign(chunk);
      s.buf.reserve(std::max(s.buf.size() + chunk.size(), 2 * s.buf.capacity()));
      follow_buffer();
      s.buf.append(chunk);
    } else {
      s.buf.append(chunk);
    }
    if (s.buf.size() >= s.read_at) read(false);
  }

  /// Reads the bytes fed but not read yet (feed waits for a few): `settled()`, `completed()`
  /// and `seen()` then see all the text so far. Costs nothing when nothing new came.
  void sync() {
    if (!s_->ended && !s_->over && s_->read < s_->buf.size()) read(false);
  }

  /// No more text: returns exactly what `extract(text(), selector, options)` returns. The
  /// views of the result point into the stream, which must outlive it.
  [[nodiscard]] result<extraction> finish() & {
    state& s = *s_;
    s.ended = true;
    if (auto e = detail::precheck(s.total, !s.over && detail::is_blank(s.buf), s.opts))
      return std::move(*e);
    read(true);
    // The candidates made so far are final: they are taken as they are, with their verdicts.
    std::size_t judged = s.done.size();
    scan_result scan = detail::make_scan_result(s.buf, s.engine, s.opts, std::move(s.done));
    s.done.clear();
    s.settled.reset();
    return detail::choose(std::move(scan), s.sel, s.opts, judged);
  }
  /// The result of a temporary stream would dangle.
  result<extraction> finish() && = delete;

  /// The text fed so far (empty once it went over `options::max_input_bytes`).
  [[nodiscard]] std::string_view text() const noexcept { return s_->buf; }
  /// How many bytes were fed.
  [[nodiscard]] std::size_t size() const noexcept { return s_->total; }

  /// The candidates read so far that nothing later can drop or change (within the resource
  /// limits), in document order, each with its verdict (`qualifies`, `message`). While a later
  /// byte could still change how all the text so far is read — under `output_start::unknown`
  /// before any reasoning marker (a `</think>` would make it reasoning), or while a leading
  /// `analysis` could still turn out to be stripped harmony — this holds them all back, as
  /// `settled()` does (`seen()` shows them). Valid until the next `feed`.
  [[nodiscard]] std::span<const candidate> completed() const {
    if (s_->engine.provisional()) return {};
    return seen();
  }

  /// Every candidate read so far, in document order, each with its verdict: `completed()`,
  /// and those it holds back because a later byte could still make them reasoning. For a
  /// progress display of drafts as
  /// they come; an entry may later change its verdict, or vanish with the whole list when a
  /// resource limit is crossed. Valid until the next `feed`.
  [[nodiscard]] std::span<const candidate> seen() const {
    state& s = *s_;
    if (!s.ended && !s.over && s.engine.overflowed() == detail::overflow::none)
      make_candidates(s.engine.stable_records());  // made when first asked for
    return s.done;
  }

  /// Under policy `first`: the answer, once it is settled — `extract` on the text so far
  /// followed by any continuation within the resource limits would return this candidate.
  /// Null before, and always under `unique` and `last` (a later candidate could change the
  /// answer). Valid until the next `feed`.
  [[nodiscard]] const candidate* settled() const noexcept {
    return s_->settled ? &s_->done[*s_->settled] : nullptr;
  }

 private:
  struct state {
    state(S sel_, options opts_)
        : sel(std::move(sel_)),
          opts(std::move(opts_)),
          engine(opts),
          first(opts.policy.value_or(detail::default_policy_of<S>()) == policy::first) {}

    S sel;
    options opts;
    detail::engine engine;  // refers to opts: the state stays where it is (on the heap)
    bool first;             // policy first: the answer can settle
    std::string buf;
    std::size_t total = 0;    // bytes fed
    std::size_t read = 0;     // bytes the engine has seen
    std::size_t read_at = 0;  // feed reads once the text is this long
    bool over = false;        // over max_input_bytes
    bool ended = false;
    std::vector<candidate> done;       // the final candidates so far, judged
    const char* views_into = nullptr;  // buf.data() when done's views were made
    std::size_t generation = 0;
    detail::position_finder positions{std::string_view()};
    bool positions_made = false;
    detail::validator diagnosis;
    std::size_t settle_from = 0;  // records[..settle_from] hold no qualifying candidate
    std::optional<std::size_t> settled;
  };

  /// The buffer moved: the views of the candidates follow it. The buffer grows geometrically,
  /// so this costs O(1) a byte in all.
  void follow_buffer() {
    state& s = *s_;
    const std::string_view text = s.buf;
    for (candidate& c : s.done) {
      auto moved = [&](std::string_view v) {
        return v.empty() ? v
                         : text.substr(static_cast<std::size_t>(v.data() - s.views_into), v.size());
      };
      c.text = moved(c.text);
      c.info = moved(c.info);
      c.marker = moved(c.marker);
    }
    s.views_into = s.buf.data();
  }

  void read(bool ended) {
    state& s = *s_;
    if (s.over) return;
    s.engine.advance(s.buf, ended);
    s.read = s.buf.size();
    s.read_at = s.read + std::min<std::size_t>(4096, std::max<std::size_t>(64, s.read / 16));
    if (s.engine.overflowed() != detail::overflow::none) {  // too_large, whatever comes
      s.done.clear();
      s.settled.reset();
      return;
    }
    if (s.engine.generation() != s.generation) {  // the start was reasoning after all
      s.generation = s.engine.generation();
      s.done.clear();
      s.settled.reset();
      s.settle_from = 0;
      s.positions_made = false;
    }
    // The first qualifying candidate is the answer of every continuation once nothing before
    // it can change and no closing marker can still make the start reasoning. Candidates are
    // made here only while that search needs them; `seen()` makes the rest when asked.
    if (!s.first || s.settled || s.engine.provisional()) return;
    const std::size_t stable = s.engine.stable_records();
    for (; s.settle_from < stable; ++s.settle_from) {
      // A record that is not valid JSON, or lies in reasoning, never qualifies: its candidate
      // is made only when one after it settles, or at the end (a hostile text of invalid spans
      // that ends in too_large costs no candidates, as in extract).
      const detail::record& r = s.engine.records[s.settle_from];
      if (!r.valid || s.engine.contexts[r.ctx].in_reasoning) continue;
      make_candidates(s.settle_from + 1);
      if (s.done[s.settle_from].qualifies) {
        s.settled = s.settle_from;
        return;
      }
    }
  }

  /// Makes the candidates of the records before `stable` that are not made yet, in document
  /// order, judged.
  void make_candidates(std::size_t stable) const {
    state& s = *s_;
    if (s.done.size() >= stable) return;
    const std::string_view text = s.buf;
    if (!s.positions_made) {
      // Made with the first record, when the start is known (a BOM takes no column).
      s.positions = detail::position_finder(text);
      s.positions_made = true;
    }
    s.positions.rebind(text);
    auto position_of = [&](std::size_t offset) { return s.positions.at(offset); };
    s.views_into = s.buf.data();
    while (s.done.size() < stable) {
      const detail::record& r = s.engine.records[s.done.size()];
      std::size_t at = 0;
      std::string why;
      detail::diagnose(r, s.diagnosis, text, s.engine.max_depth(), at, why);
      candidate c = detail::make_candidate(text, r, s.engine.contexts[r.ctx], at, std::move(why),
                                           position_of);
      detail::judge_candidate(c, s.sel);
      s.done.push_back(std::move(c));
    }
  }

  std::unique_ptr<state> s_;
};

template <class S>
stream(S) -> stream<S>;
template <class S>
stream(S, options) -> stream<S>;

}  // namespace llmjson

#endif  // LLMJSON_STREAM_HPP_INCLUDED
