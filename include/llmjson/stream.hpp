// llmjson: stream, the answer of a model output while the model is still writing it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_STREAM_HPP_INCLUDED
#define LLMJSON_STREAM_HPP_INCLUDED

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <memory>
#include <optional>
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
/// cut. The work is linear in the whole text, whatever the chunks: nothing is read twice.
///
/// The stream owns the text it was fed; the candidates' views point into it. A view made
/// before a `feed` may dangle after it (the buffer grows); the result of `finish()` lives as
/// long as the stream. Not thread-safe; one stream per output.
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
template <selector S = any_object>
class stream {
 public:
  explicit stream(S sel = S{}, options opts = {})
      : s_(std::make_unique<state>(std::move(sel), std::move(opts))) {}

  /// Appends `chunk` to the text. The stream reads new bytes once enough have come (64, or
  /// 1/16 of the text so far, at most 4 KB): so 1-byte chunks cost what large ones do, and the
  /// settled answer is seen at most that many bytes late. After `finish()`, asserts.
  void feed(std::string_view chunk) {
    state& s = *s_;
    assert(!s.ended && "llmjson::stream::feed after finish");
    if (s.ended || chunk.empty()) return;
    s.total += chunk.size();
    if (s.total > s.opts.max_input_bytes) {
      // Over the limit: the result is too_large whatever comes; the text is not kept.
      s.over = true;
      s.buf = std::string();
      s.done.clear();
      s.settled.reset();
      return;
    }
    if (s.over) return;
    s.buf.append(chunk);
    const std::size_t unread = s.buf.size() - s.read;
    if (unread >= std::min<std::size_t>(4096, std::max<std::size_t>(64, s.buf.size() / 16)))
      read(false);
  }

  /// Reads the bytes fed but not read yet (feed waits for a few): `settled()` and
  /// `completed()` then see all the text so far.
  void sync() {
    if (!s_->ended && !s_->over) read(false);
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

  /// The candidates read so far that nothing later can drop or change, in document order,
  /// each with its verdict (`qualifies`, `reason`): for a progress display. Their views are
  /// valid until the next `feed`.
  [[nodiscard]] const std::vector<candidate>& completed() const noexcept { return s_->done; }

  /// Under policy `first`: the answer, once it is settled — `extract` on the text so far
  /// followed by any continuation (within `max_input_bytes`) would return this candidate.
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
    std::size_t total = 0;  // bytes fed
    std::size_t read = 0;   // bytes the engine has seen
    bool over = false;      // over max_input_bytes
    bool ended = false;
    std::vector<candidate> done;       // the final candidates so far, judged
    const char* views_into = nullptr;  // buf.data() when done's views were made
    std::size_t generation = 0;
    detail::position_finder positions{std::string_view()};
    bool positions_made = false;
    detail::validator diagnosis;
    std::size_t settle_from = 0;  // done[..settle_from] hold no qualifying candidate
    std::optional<std::size_t> settled;
  };

  void read(bool ended) {
    state& s = *s_;
    if (s.over) return;
    s.engine.advance(s.buf, ended);
    s.read = s.buf.size();
    const std::string_view text = s.buf;
    if (s.engine.generation() != s.generation) {  // the start was reasoning after all
      s.generation = s.engine.generation();
      s.done.clear();
      s.settled.reset();
      s.settle_from = 0;
      s.positions_made = false;
    }
    if (s.views_into != s.buf.data()) {  // the buffer moved: the views follow it
      for (candidate& c : s.done) {
        auto moved = [&](std::string_view v) {
          return v.empty()
                     ? v
                     : text.substr(static_cast<std::size_t>(v.data() - s.views_into), v.size());
        };
        c.text = moved(c.text);
        c.info = moved(c.info);
        c.marker = moved(c.marker);
      }
      s.views_into = s.buf.data();
    }
    const std::size_t stable = s.engine.stable_records();
    if (!s.positions_made && stable > 0) {
      // Made with the first record, when the start is known (a BOM takes no column).
      s.positions = detail::position_finder(text);
      s.positions_made = true;
    }
    s.positions.rebind(text);
    auto position_of = [&](std::size_t offset) { return s.positions.at(offset); };
    if (s.engine.overflowed() != detail::overflow::none) {  // too_large, whatever comes
      s.done.clear();
      s.settled.reset();
      return;
    }
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
    // The first qualifying candidate is the answer of every continuation once nothing before
    // it can change and no closing marker can still make the start reasoning.
    if (s.first && !s.settled && !s.engine.provisional()) {
      for (; s.settle_from < s.done.size(); ++s.settle_from) {
        if (s.done[s.settle_from].qualifies) {
          s.settled = s.settle_from;
          break;
        }
      }
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
