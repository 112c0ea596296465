// llmjson: rules §8, which candidate is the partial answer: how a healed candidate qualifies,
// the partial made from the candidates so far, and the answer as the last partial
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SELECT_PARTIAL_HPP_INCLUDED
#define LLMJSON_DETAIL_SELECT_PARTIAL_HPP_INCLUDED

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/options.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/result.hpp>
#include <llmjson/select.hpp>

namespace llmjson::detail {

template <class S>
inline constexpr bool is_decode = false;
template <class T, unknown_keys Keys>
inline constexpr bool is_decode<decode<T, Keys>> = true;

/// Whether `S` judges a healed value (a stream's partial answer) with its own call: a selector
/// of the caller's declares `static constexpr bool judges_partial = true` when it may be called
/// on a value still being written (missing members, a string cut short).
template <class S>
concept opts_into_partial = requires {
  { S::judges_partial } -> std::convertible_to<bool>;
}
&&static_cast<bool>(S::judges_partial);

/// The library's selectors, which `healed_qualifies` judges by their type (rules §8
/// Qualifying): a stream must hold them as they are, not through a view.
template <class S>
inline constexpr bool qualifies_healed_by_type =
    std::same_as<S, any_object> || std::same_as<S, any_key> || std::same_as<S, schema> ||
    is_decode<S>;

/// Rules §8 Qualifying: whether `sel` qualifies the healed candidate `h`. `any_object`: an
/// object. `any_key`: one of its keys is a complete member key of the root object (its `:` read;
/// its value may be in progress, or not begun). A schema: `judge_partial` (`required`,
/// `minItems`, `minProperties` not applied; the string being written exempt from the string
/// keywords). `decode<T>`: the decoder on the healed value with missing members of
/// `LLMJSON_DEFINE_TYPE` structs allowed (each member present decodes to its type; unknown keys
/// still fail) and its caller check not run. Another selector: its own call on the healed value
/// when it opts in (`judges_partial`); otherwise a healed candidate never qualifies under it
/// (its complete candidates still do).
template <Selector S>
bool healed_qualifies(const S& sel, const healed_candidate& h) {
  const nlohmann::json& v = *h.c.json;
  if constexpr (std::same_as<S, any_object>) {
    return v.is_object();
  } else if constexpr (std::same_as<S, any_key>) {
    if (!v.is_object()) return false;
    return std::any_of(h.root_keys.begin(), h.root_keys.end(), [&](const std::string& k) {
      return std::find(sel.keys().begin(), sel.keys().end(), k) != sel.keys().end();
    });
  } else if constexpr (std::same_as<S, schema>) {
    return judge_partial(sel, v, h.open_string ? pointer_follow(&v, h.open) : nullptr).ok;
  } else if constexpr (is_decode<S>) {
    partial_judging_scope partial;
    return judge(sel, v).ok;
  } else if constexpr (opts_into_partial<S>) {
    return judge(sel, v).ok;
  } else {
    return false;
  }
}

/// Rules §8: the partial answer from the candidates of the text so far read as if it ended
/// (`first`, the first complete one that qualifies, or null; `qualifying`, how many qualify so
/// far) and the cut one healed: the healed one when no complete one qualifies (its value is then
/// moved out of `healed_one`).
template <Selector S>
std::optional<partial_answer> make_partial(const S& sel, const candidate* first,
                                           std::size_t qualifying,
                                           std::optional<healed_candidate>& healed_one,
                                           bool provisional) {
  const bool healed = healed_one && healed_qualifies(sel, *healed_one);
  if (healed) ++qualifying;
  if (!first && !healed) return std::nullopt;
  partial_answer p;
  const candidate& c = first ? *first : healed_one->c;
  if (first) {
    p.value = *c.json;
  } else {
    // The healed value is no const object (`heal_cut` made it) and nobody else holds it: moved,
    // not copied (a copy would cost as much as healing it).
    p.value = std::move(const_cast<nlohmann::json&>(*c.json));
    p.open = std::move(healed_one->open);
    p.open_string = healed_one->open_string;
  }
  p.provisional = provisional;
  p.offset = c.offset;
  p.prefilled = c.prefilled;
  p.line = c.line;
  p.column = c.column;
  p.source = c.source;
  p.qualifying = qualifying;
  return p;
}

/// Whether a candidate is left out of the partial answer as a number a later byte could extend
/// (a whole output, part or fence body `4` that ends `text`, the output so far: `42`).
inline bool number_in_progress(const candidate& c, std::string_view text) noexcept {
  return !c.text.empty() && c.offset + c.text.size() - c.prefilled == text.size() &&
         c.text.back() >= '0' && c.text.back() <= '9';
}

/// Rules §8 by the book: `text` (the output so far) read again whole (`scanner::so_far`), every
/// candidate judged. What `stream::partial()` returns before the end, whatever the stream reads
/// again or keeps (the tests hold the two equal); the stream itself falls back to it where the
/// end of the text would change more than the candidate it cuts.
template <Selector S>
std::optional<partial_answer> partial_so_far(std::string_view text, const S& sel,
                                             const options& opts) {
  text_so_far t = scanner::so_far(text, opts);
  if (t.in_reasoning || !t.scan.message.empty()) return std::nullopt;
  std::size_t qualifying = 0;
  const candidate* first = nullptr;
  for (candidate& c : t.scan.candidates) {
    if (number_in_progress(c, text)) continue;
    judge_candidate(c, sel);
    if (!c.qualifies) continue;
    ++qualifying;
    if (!first) first = &c;
  }
  return make_partial(sel, first, qualifying, t.healed, t.provisional);
}

/// Rules §8: after the end, the partial answer is the answer `r` (`final`).
inline partial_answer answer_partial(const extraction& r) {
  const candidate& c = r.chosen();
  partial_answer p;
  p.value = r.json();
  p.offset = c.offset;
  p.prefilled = c.prefilled;
  p.line = c.line;
  p.column = c.column;
  p.source = c.source;
  p.qualifying = static_cast<std::size_t>(std::count_if(
      r.candidates.begin(), r.candidates.end(), [](const candidate& k) { return k.qualifies; }));
  p.final = true;
  return p;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SELECT_PARTIAL_HPP_INCLUDED
