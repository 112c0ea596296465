// llmjson: extract(), the one call most users need: the answer, or why there is none
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXTRACT_HPP_INCLUDED
#define LLMJSON_EXTRACT_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/utf8.hpp>
#include <llmjson/error.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/select.hpp>

namespace llmjson {

/// The answer found in a model output, with everything the scan saw.
///
/// `candidates` are all the candidates in document order, each with its verdict
/// (`qualifies`, `message`); `candidates[index]` is the answer. Views point into the caller's text.
struct extraction {
  std::vector<candidate> candidates;
  std::size_t index = 0;                   ///< the answer is `candidates[index]`
  bool fallback = false;                   ///< policy `first` took a candidate that did not qualify
  llmjson::policy policy = policy::first;  ///< the policy that chose
  std::optional<cut> truncation;           ///< the output was cut after the answer (policy `first`)

  /// Returns the chosen candidate.
  [[nodiscard]] const candidate& chosen() const noexcept { return candidates[index]; }
  /// Returns the answer's value.
  [[nodiscard]] const nlohmann::json& value() const noexcept { return candidates[index].value; }
};

/// Returns the one answer of `text` that `sel` qualifies, under `opts.policy` (unset: the
/// selector's default), or the error that says why there is none.
///
/// Errors: `too_large`, `empty`, `truncated`, `no_json`, `no_match`, `ambiguous` (see
/// `error_kind`); each lists the candidates with their reasons. Never throws on any input; only
/// `std::bad_alloc` and exceptions of the caller's own selector (other than nlohmann's, which
/// become reasons) propagate. Linear time in `text.size()` plus the selector's cost.
///
/// **Example**:
/// ```cpp
/// auto r = llmjson::extract(text, llmjson::any_key({"orders"}));
/// if (r) use(r->value()); else log(r.error().message);
/// ```
template <Selector S>
[[nodiscard]] result<extraction> extract(std::string_view text, const S& sel,
                                         const options& opts = {});

/// `extract` with `any_object`: the answer is a JSON object.
[[nodiscard]] inline result<extraction> extract(std::string_view text, const options& opts = {});

/// Returns the one candidate that decodes strictly to a `T` (`decode<T>`), decoded. Policy
/// default: `unique`. See `decode` for what strict means.
///
/// **Example**: `llmjson::result<plan> p = llmjson::extract<plan>(text);`
template <class T>
  requires(!Selector<T>)
[[nodiscard]] result<T> extract(std::string_view text, const options& opts = {});

/// As `extract<T>(text)`, with the caller's check on the decoded `T` (returns `verdict` or `bool`).
template <class T, CheckFor<T> F>
[[nodiscard]] result<T> extract(std::string_view text, F check, const options& opts = {});

/// Extracting from a temporary string would leave the result's views dangling: keep the text in
/// a named string (or use the retry wrapper, which owns the model's replies).
template <Selector S, TemporaryString Str>
result<extraction> extract(Str&&, const S&, const options& = {}) = delete;
template <TemporaryString Str>
result<extraction> extract(Str&&, const options& = {}) = delete;
template <class T, TemporaryString Str>
result<T> extract(Str&&, const options& = {}) = delete;
template <class T, TemporaryString Str, CheckFor<T> F>
result<T> extract(Str&&, F, const options& = {}) = delete;

namespace detail {

/// `3:14 prose`, `1:1 fence "json"`, `1:1 whole output`: how messages name a candidate.
inline std::string describe_place(const candidate& c) {
  std::string s = std::to_string(c.line) + ":" + std::to_string(c.column);
  switch (c.source) {
    case source::whole: return s + " whole output";
    case source::part: return s + " whole part";
    case source::fence: return s + " fence \"" + std::string(c.info) + "\"";
    case source::prose:
      return s + (c.in_fence ? " in fence \"" + std::string(c.info) + "\"" : " prose");
  }
  return s;
}

/// Appends "; "-separated `place: reason` for the candidates picked by `pick`, at most 8.
template <class Pick>
void append_candidates(std::string& out, const std::vector<candidate>& cs, Pick pick) {
  constexpr std::size_t most = 8;
  std::size_t shown = 0, total = 0;
  for (const auto& c : cs) {
    if (!pick(c)) continue;
    ++total;
    if (shown == most) continue;
    out += shown++ ? "; " : "";
    out += describe_place(c);
    if (!c.qualifies) out += ": " + one_line(c.message);
  }
  if (total > shown) out += "; and " + std::to_string(total - shown) + " more";
}

/// `<think>` for a candidate in the region `<think>` opened; `the reasoning before </think>` for
/// one in a region the prompt opened (its marker is the closing one, after the candidate).
inline std::string region_label(const candidate& c) {
  if (c.marker.empty()) return "the reasoning that the prompt opened";
  // Stripped harmony: the region's opening marker is the leading word `analysis` alone.
  if (c.marker.size() == 8 && detail::marker_at(c.marker, 0, "analysis"))
    return "the analysis before assistantfinal (harmony without its special tokens)";
  const bool closing = c.marker.data() >= c.text.data() + c.text.size();
  return (closing ? "the reasoning before " : "") + one_line(c.marker);
}

/// `2 candidates inside <think> at 2:9, 5:1`, or `... inside the reasoning at 2:9 (<think>),
/// 5:1 (<|channel|>analysis)` when the regions' markers differ. At most 8 positions.
inline std::string describe_reasoning(const std::vector<candidate>& cs, std::size_t count) {
  constexpr std::size_t most = 8;
  bool same = true;
  const candidate* first = nullptr;
  for (const candidate& c : cs) {
    if (!c.in_reasoning) continue;
    if (!first) first = &c;
    same = same && region_label(c) == region_label(*first);
  }
  std::string out = std::to_string(count) + (count == 1 ? " candidate" : " candidates") +
                    " inside " + (same ? region_label(*first) : "the reasoning") + " at ";
  std::size_t shown = 0;
  for (const candidate& c : cs) {
    if (!c.in_reasoning || shown == most) continue;
    out += shown++ ? ", " : "";
    out += std::to_string(c.line) + ":" + std::to_string(c.column);
    if (!same) out += " (" + region_label(c) + ")";
  }
  if (count > shown) out += ", and " + std::to_string(count - shown) + " more";
  return out;
}

/// `1 near miss: 2:1 {'city': 'Paris'}: single quotes are not JSON strings`.
inline std::string describe_near_misses(const scan_result& scan) {
  constexpr std::size_t excerpt = 40;
  const std::size_t n = scan.near_miss_count;
  std::string out = std::to_string(n) + (n == 1 ? " near miss: " : " near misses: ");
  for (std::size_t k = 0; k < scan.near_misses.size(); ++k) {
    const near_miss& m = scan.near_misses[k];
    std::string_view text = m.text;
    std::string tail;
    if (text.size() > excerpt) {
      std::size_t cut = excerpt;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = text.substr(0, cut);
      tail = "...";
    }
    out += (k ? "; " : "") + std::to_string(m.line) + ":" + std::to_string(m.column) + " " +
           one_line(text) + tail + ": " + one_line(m.message);
  }
  if (n > scan.near_misses.size())
    out += "; and " + std::to_string(n - scan.near_misses.size()) + " more";
  return out;
}

inline bool is_blank(std::string_view text) noexcept {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  for (char ch : text)
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' && ch != '\v')
      return false;
  return true;
}

inline std::string count_of(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

}  // namespace detail

namespace detail {

/// `too_large` for an output of `size` bytes over the limit, `empty` for a blank one; nothing
/// for an output to scan. `blank`: only ASCII white space after the BOM.
inline std::optional<error> precheck(std::size_t size, bool blank, const options& opts) {
  if (size > opts.max_input_bytes) {
    return error{error_kind::too_large,
                 opts.max_input_bytes,
                 "the output is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(opts.max_input_bytes) + " (options::max_input_bytes)",
                 {},
                 std::nullopt,
                 {}};
  }
  if (blank) {
    return error{error_kind::empty,
                 0,
                 size == 0 ? "the output is empty"
                           : "the output is only white space (" + std::to_string(size) + " bytes)",
                 {},
                 std::nullopt,
                 {}};
  }
  return std::nullopt;
}

/// Gives a candidate its verdict: `qualifies` and `message`. Candidates in reasoning and
/// invalid ones never qualify; the others are what `sel` says.
template <Selector S>
void judge_candidate(candidate& c, const S& sel) {
  c.qualifies = false;
  if (c.in_reasoning) {  // what the model thinks is never its answer
    c.message = "inside " + region_label(c);
  } else if (!c.valid) {
    c.message = "malformed: " + c.message;
  } else {
    verdict v = judge(sel, c.value);
    c.qualifies = v.ok;
    c.message = std::move(v.message);
  }
}

/// Sections 5 and 6 of the rules: the answer among the scan's candidates, or the error. The
/// first `judged` candidates already have their verdicts (a stream judged them as they came).
template <Selector S>
result<extraction> choose(scan_result&& scan, const S& sel, const options& opts,
                          std::size_t judged = 0) {
  if (!scan.message.empty())  // a resource limit stopped the scan: no answer can be trusted
    return error{error_kind::too_large, 0, std::move(scan.message), {}, std::nullopt, {}};
  std::vector<std::size_t> qualifying;
  std::optional<std::size_t> first_valid;
  std::optional<std::size_t> first_free;  // the first valid one no frame encloses
  std::size_t malformed = 0, reasoning = 0, answer_text = 0;
  for (std::size_t i = 0; i < scan.candidates.size(); ++i) {
    candidate& c = scan.candidates[i];
    if (i >= judged) judge_candidate(c, sel);
    if (c.in_reasoning) {
      ++reasoning;
      continue;
    }
    ++answer_text;
    if (!c.valid) {
      ++malformed;
      continue;
    }
    if (!first_valid) first_valid = i;
    if (!first_free && !c.enclosed) first_free = i;
    if (c.qualifies) qualifying.push_back(i);
  }
  const llmjson::policy pol = opts.policy.value_or(default_policy_of<S>());
  const bool truncated = scan.truncation.has_value();

  auto fail = [&](error_kind kind, std::size_t offset, std::string message) -> result<extraction> {
    return error{
        kind,
        offset,
        std::move(message),
        std::move(scan.candidates),
        std::move(scan.truncation),
        kind == error_kind::no_json ? std::move(scan.near_misses) : std::vector<near_miss>{}};
  };
  auto take = [&](std::size_t i, bool fallback) -> result<extraction> {
    return extraction{std::move(scan.candidates), i, fallback, pol, std::move(scan.truncation)};
  };
  auto answer_candidate = [](const candidate& c) { return !c.in_reasoning; };

  if (truncated && (pol != policy::first || qualifying.empty())) {
    std::string m = "the output was cut: " + scan.truncation->message;
    if (!qualifying.empty())
      m += "; " + detail::count_of(qualifying.size(), "earlier candidate") + " qualif" +
           (qualifying.size() == 1 ? "ies" : "y") + ", but under policy " +
           std::string(to_string(pol)) + " the cut value might have been the answer";
    std::size_t at = scan.truncation->offset;
    return fail(error_kind::truncated, at, std::move(m));
  }
  if (pol == policy::unique && qualifying.size() > 1) {
    std::string m = detail::count_of(qualifying.size(), "candidate") +
                    " qualify, policy unique takes exactly one: ";
    detail::append_candidates(m, scan.candidates, [](const candidate& c) { return c.qualifies; });
    std::size_t at = scan.candidates[qualifying[1]].offset;
    return fail(error_kind::ambiguous, at, std::move(m));
  }
  if (!qualifying.empty())
    return take(pol == policy::last ? qualifying.back() : qualifying.front(), false);
  if (!first_valid) {
    std::string m =
        reasoning ? "no JSON value outside the reasoning" : "no JSON value in the output";
    if (malformed) {
      m += "; " + detail::count_of(malformed, "malformed candidate") + ": ";
      detail::append_candidates(m, scan.candidates, answer_candidate);
    }
    if (reasoning) m += "; " + detail::describe_reasoning(scan.candidates, reasoning);
    if (scan.near_miss_count) m += "; " + detail::describe_near_misses(scan);
    std::size_t at = 0;
    for (const candidate& c : scan.candidates)
      if (!c.in_reasoning) {
        at = c.offset;
        break;
      }
    if (!malformed && !scan.near_misses.empty()) at = scan.near_misses.front().offset;
    return fail(error_kind::no_json, at, std::move(m));
  }
  // The fallback (section 5): the first valid candidate that no frame encloses; a piece of
  // something bigger (a dict inside a Python repr, an object inside a blockquote) never is.
  const bool fallback = pol == policy::first && opts.fallback && detail::allows_fallback_of<S>();
  if (fallback && first_free) return take(*first_free, true);
  std::string m = detail::count_of(answer_text, "candidate") + ", none qualifies: ";
  detail::append_candidates(m, scan.candidates, answer_candidate);
  if (fallback)
    m += "; none can be the fallback: every valid one lies inside a frame (a piece of something "
         "bigger)";
  if (reasoning) m += "; " + detail::describe_reasoning(scan.candidates, reasoning);
  std::size_t at = scan.candidates[*first_valid].offset;
  return fail(error_kind::no_match, at, std::move(m));
}

}  // namespace detail

template <Selector S>
result<extraction> extract(std::string_view text, const S& sel, const options& opts) {
  if (auto e = detail::precheck(text.size(), detail::is_blank(text), opts)) return std::move(*e);
  return detail::choose(candidates(text, opts), sel, opts);
}

inline result<extraction> extract(std::string_view text, const options& opts) {
  return extract(text, any_object{}, opts);
}

namespace detail {
template <class T>
result<T> decoded_answer(const decode<T>& d, result<extraction>&& r) {
  if (!r) return std::move(r).error();
  try {
    return d.get(r->value());
  } catch (const nlohmann::json::exception& e) {
    // Only reachable when from_json is not deterministic: say so rather than guess.
    return error{error_kind::no_match,
                 r->chosen().offset,
                 "the chosen candidate no longer decodes: " + describe_json_exception(e),
                 std::move(r->candidates),
                 std::move(r->truncation),
                 {}};
  }
}
}  // namespace detail

template <class T>
  requires(!Selector<T>)
result<T> extract(std::string_view text, const options& opts) {
  decode<T> d;
  return detail::decoded_answer(d, extract(text, d, opts));
}

template <class T, CheckFor<T> F>
result<T> extract(std::string_view text, F check, const options& opts) {
  decode<T> d{std::move(check)};
  return detail::decoded_answer(d, extract(text, d, opts));
}

}  // namespace llmjson

#endif  // LLMJSON_EXTRACT_HPP_INCLUDED
