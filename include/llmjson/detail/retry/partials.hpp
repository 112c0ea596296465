// llmjson: what one streaming attempt shows to retry_options::on_partial, and its retraction
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_RETRY_PARTIALS_HPP_INCLUDED
#define LLMJSON_DETAIL_RETRY_PARTIALS_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include <llmjson/partial_answer.hpp>
#include <llmjson/retry_types.hpp>

namespace llmjson::detail {

/// Whether two partial answers show the same thing: every member equal but `source` (the same
/// candidate is read as the whole output, then as prose once text follows it: nothing a display
/// shows changed). Does not throw (but `std::bad_alloc`).
inline bool same_partial(const partial_answer& a, const partial_answer& b) {
  return a.open == b.open && a.open_string == b.open_string && a.provisional == b.provisional &&
         a.offset == b.offset && a.prefilled == b.prefilled && a.line == b.line &&
         a.column == b.column && a.qualifying == b.qualifying && a.final == b.final &&
         a.value == b.value;
}

/// A watch that has a partial answer (the extraction finder's; `complete`'s has none).
template <class W>
concept partial_watch = requires(W& w) {
  { w.partial_version() } -> std::convertible_to<std::uint64_t>;
  { w.partial() } -> std::same_as<std::optional<partial_answer>>;
};

/// What one streaming attempt has shown to `retry_options::on_partial` (`to`), and the events
/// that keep the caller's display right: `look` after each chunk (`shown`, `cleared`), then
/// `show_answer` or `retract` once the attempt ended. Does nothing when `to` is empty: then no
/// partial answer is ever computed.
class partial_shows {
 public:
  /// `to`: the caller's callback (null, or empty: nothing is shown); `attempt`: its number.
  partial_shows(const std::function<void(const partial_event&)>* to, std::size_t attempt) noexcept
      : to_(to && *to ? to : nullptr), attempt_(attempt) {}

  /// Whether there is a callback to tell.
  [[nodiscard]] bool active() const noexcept { return to_ != nullptr; }

  /// After a feed: shows `w`'s partial answer when it changed since the last one shown, or says
  /// it is gone. Reads the partial only when `w`'s `partial_version()` moved. Throws what the
  /// callback or the selector throws.
  template <partial_watch W>
  void look(W& w) {
    if (!to_) return;
    const std::uint64_t version = w.partial_version();
    if (version == version_) return;
    version_ = version;
    std::optional<partial_answer> now = w.partial();
    if (!now) {
      if (!shown_) return;
      shown_.reset();
      tell(partial_change::cleared, nullptr);
      return;
    }
    if (shown_ && same_partial(*shown_, *now)) return;
    show(std::move(*now));
  }

  /// The attempt gave the answer: shows it (`w`'s partial after `finish()`, `final`). Should the
  /// callback throw, the attempt is retracted (that exception wins) and it is rethrown.
  template <partial_watch W>
  void show_answer(W& w) {
    if (!to_) return;
    std::optional<partial_answer> answer = w.partial();
    if (!answer) return;  // never: after an answer, the stream's partial is the answer
    try {
      show(std::move(*answer));
    } catch (...) {
      retract_quietly();
      throw;
    }
  }

  /// The attempt ended without being the answer: `retracted`, once, if it showed anything.
  /// Throws what the callback throws.
  void retract() {
    if (!to_ || !showed_ || retracted_) return;
    retracted_ = true;
    shown_.reset();
    tell(partial_change::retracted, nullptr);
  }

  /// As `retract`, while another exception is on its way out: the callback's is dropped.
  void retract_quietly() noexcept {
    try {
      retract();
    } catch (...) {
    }
  }

 private:
  void show(partial_answer&& p) {
    shown_ = std::move(p);
    showed_ = true;
    tell(partial_change::shown, &*shown_);
  }

  void tell(partial_change change, const partial_answer* p) const {
    (*to_)(partial_event{attempt_, change, p});
  }

  const std::function<void(const partial_event&)>* to_;
  std::size_t attempt_;
  std::uint64_t version_ = 0;            // the watch's partial_version() last looked at
  std::optional<partial_answer> shown_;  // what the caller shows now, if anything
  bool showed_ = false;                  // a `shown` was told: the attempt is retracted if it fails
  bool retracted_ = false;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_RETRY_PARTIALS_HPP_INCLUDED
