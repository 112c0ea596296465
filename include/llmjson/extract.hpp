// llmjson: extract(), the one call most users need: the answer, or why there is none
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXTRACT_HPP_INCLUDED
#define LLMJSON_EXTRACT_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/error.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/select.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

/// The answer found in a model output, with everything the scan saw.
///
/// `candidates` are all the candidates in document order, each with its verdict
/// (`qualifies`, `message`); `candidates[index]` is the answer. Views point into the caller's text.
/// The answer and every candidate that qualifies have their values (`candidate::json`); the others
/// have one only when the selector judged them by it (`any_object` and `any_key` read the text).
struct extraction {
  std::vector<candidate> candidates;
  std::size_t index = 0;                   ///< the answer is `candidates[index]`
  bool fallback = false;                   ///< policy `first` took a candidate that did not qualify
  llmjson::policy policy = policy::first;  ///< the policy that chose
  std::optional<cut> truncation;           ///< the output was cut after the answer (policy `first`)
  /// Under policy `first`: the indices in `candidates` of the qualifying candidates after the
  /// answer, in document order (`candidates[k].line`, `.column` say where). When there are
  /// some, the answer taken may be a draft or an example before the real one: worth a look (the
  /// `llmjson` tool notes it). Empty under `unique` (more, with different values, would be
  /// `ambiguous`; equal ones are one answer, rules §5), under
  /// `last` (there are none after it) and for the fallback (none qualifies). A stream's
  /// `settled()` answer cannot know them: `finish()` gives them.
  std::vector<std::size_t> later_qualifying;

  /// Returns the chosen candidate.
  [[nodiscard]] const candidate& chosen() const noexcept { return candidates[index]; }
  /// The answer is valid with raw controls (rules §3): its text holds raw line feeds, carriage
  /// returns or tabs in strings, which JSON forbids, and its value has them escaped. Worth a
  /// note, as a fallback is (the `llmjson` tool prints one); `minify(text())` is the JSON meant.
  [[nodiscard]] bool raw_controls() const noexcept { return candidates[index].raw_controls; }
  /// Returns the answer's value. It is nlohmann's reading of the text: see `text()` for what it
  /// changes. Null only where `options::answer_value` was off and no selector built it (the
  /// chosen candidate is valid: otherwise its value is always built).
  [[nodiscard]] const nlohmann::json& json() const noexcept {
    static const nlohmann::json unbuilt;
    const auto& value = candidates[index].json;
    return value ? *value : unbuilt;
  }
  /// The name `json()` had: `r->value()` read too much like `r.value()`, the extraction.
  [[deprecated(
      "renamed json(): r->json() is the answer's value, r.value() the "
      "extraction")]] [[nodiscard]] const nlohmann::json&
  value() const noexcept {
    return json();
  }
  /// Returns the answer as the model wrote it: the chosen candidate's text, a view into the
  /// caller's text (or into the candidate's own copy, when it starts in `options::prefill`).
  /// `llmjson::minify(r->text())` is the answer on one line with every token as written; the value
  /// differs from it where nlohmann's reading does (keys sorted, `1.10` read as `1.1`, integers
  /// beyond 64 bits as doubles; duplicate keys cannot occur, they make a candidate invalid).
  [[nodiscard]] std::string_view text() const noexcept { return candidates[index].text; }
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
/// if (r) use(r->json()); else log(r.error().message);
/// ```
template <Selector S>
[[nodiscard]] result<extraction> extract(std::string_view text, const S& sel,
                                         const options& opts = {});

/// `extract` with `any_object`: the answer is a JSON object.
[[nodiscard]] result<extraction> extract(std::string_view text, const options& opts = {});

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

/// `extract<T>` of a temporary string (`extract<plan>(read_reply())`): allowed, since the
/// result owns the decoded `T`. An error keeps its kind, message, offsets and the candidates'
/// verdicts, but not its views into the text, which is gone when the statement ends: the
/// candidates' `text`, `info` and `marker` and the near misses' `text` are empty. Keep the text
/// in a named string to read them.
template <class T, TemporaryString Str>
  requires(!Selector<T>)
[[nodiscard]] result<T> extract(Str&& text, const options& opts = {});

/// As `extract<T>(temporary)`, with the caller's check on the decoded `T`.
template <class T, TemporaryString Str, CheckFor<T> F>
[[nodiscard]] result<T> extract(Str&& text, F check, const options& opts = {});

/// `extract(temporary)` and `extract(temporary, selector)` do not compile: the extraction's views
/// (`r->text()`, the candidates) would point into a string destroyed at the end of the statement.
/// The build fails with a message that says so and names the fixes: a named string, or
/// `extract<T>`, whose result owns its value (or the retry wrapper, which owns the replies).
template <Selector S, TemporaryString Str>
result<extraction> extract(Str&&, const S&, const options& = {}) {
  static_assert(detail::dependent_false<Str>,
                "llmjson: extract() of a temporary std::string: the result's views (r->text(), "
                "the candidates) would point into a string destroyed at the end of the "
                "statement. Keep the text in a named variable, or call extract<T>(...), whose "
                "result owns its value");
  return error{};
}
template <TemporaryString Str>
result<extraction> extract(Str&& text, const options& opts = {}) {
  return extract(std::forward<Str>(text), any_object{}, opts);  // fails there, with the message
}

/// A key or a list of keys where a selector belongs (`extract(text, "orders")`,
/// `extract(text, {"orders", "items"})`) does not compile: it could mean "the object with this
/// key", "the value under it" or, for a list, "all of them". The build fails with a message
/// that names `any_key`, the selector for an object with any of the keys.
template <class K>
  requires(!Selector<K> && std::convertible_to<const K&, std::string_view>)
result<extraction> extract(std::string_view, const K&, const options& = {}) {
  static_assert(detail::dependent_false<K>,
                "llmjson: extract(text, \"key\"): a key is not a selector. For the object that "
                "has the key, write llmjson::extract(text, llmjson::any_key({\"key\"})); its "
                "value is then r->json()[\"key\"]");
  return error{};
}
template <std::size_t N>
result<extraction> extract(std::string_view, const char* const (&)[N], const options& = {}) {
  static_assert(detail::dependent_false<char[N]>,
                "llmjson: extract(text, {\"a\", \"b\"}): a list of keys is not a selector. For "
                "an object with any of the keys, write llmjson::extract(text, "
                "llmjson::any_key({\"a\", \"b\"})); for one with all of them, a JSON Schema "
                "with \"required\" (llmjson::schema)");
  return error{};
}

/// `llmjson::schema` where `<llmjson/schema.hpp>` is not included (the umbrella header leaves it
/// out): the build fails with a message that names the header.
template <std::same_as<schema> S>
  requires(!Selector<S>)
result<extraction> extract(std::string_view, const S&, const options& = {}) {
  static_assert(detail::dependent_false<S>,
                "llmjson: llmjson::schema is defined in <llmjson/schema.hpp>, which "
                "<llmjson/llmjson.hpp> leaves out: #include <llmjson/schema.hpp> where you use it");
  return error{};
}

namespace detail {

/// How many candidates an error message names (`; and 12 more` for the rest).
inline constexpr std::size_t max_named_candidates = 8;

/// The `too_large` error for an output over `limit` bytes: `the output is 70 bytes, over the
/// limit of 64 (options::max_input_bytes)`; without `size` (reading stopped at the limit), `the
/// output is over the limit of 64 bytes (options::max_input_bytes)`; `prefilled`: the size counts
/// `options::prefill` too (`the prefill and the output are 70 bytes, ...`). Allocates.
error too_large_error(std::optional<std::size_t> size, std::size_t limit, bool prefilled = false);

/// `too_large` for an output of `size` bytes over the limit (`options::prefill` counted too),
/// `empty` for a blank one; nothing for an output to scan. `blank`: the output alone is only
/// ASCII white space (`is_blank`).
std::optional<error> precheck(std::size_t size, bool blank, const options& opts);

/// Whether `text` is empty or only ASCII white space after one leading BOM (`bom`: a BOM of the
/// text read, which a prefill puts before the output, rules §1).
/// Does not throw.
bool is_blank(std::string_view text, bool bom = true) noexcept;

/// `1 candidate`, `3 candidates`: `n` and the word `one`, plural when `n` is not 1.
std::string count_of(std::size_t n, std::string_view one);

/// `<think>` for a candidate in the region `<think>` opened; `the reasoning before </think>` for
/// one in a region the prompt opened (its marker is the closing one, after the candidate).
std::string region_label(const candidate& c);

/// Appends `region_label(c)` to `out`, without a string of its own: every candidate in
/// reasoning is judged `inside <think>`, and a thinking model writes thousands of drafts.
void append_region_label(std::string& out, const candidate& c);

/// Sections 5 and 6 of the rules over judged candidates: the answer under policy `pol`, or the
/// error with its message. `fallback`: policy `first` may fall back to a valid candidate that
/// does not qualify (`options::fallback` and the selector allow it).
result<extraction> choose_judged(scan_result&& scan, llmjson::policy pol, bool fallback);

/// What `any_object` and `any_key` say of a valid candidate, read from its text alone (its type
/// and its top-level keys): the same verdict, word for word, as on its value, which is not built.
verdict judge_text(const any_object& sel, std::string_view text);
verdict judge_text(const any_key& sel, std::string_view text);

/// The selectors that judge a candidate from its text (`judge_text`), without its value.
template <class S>
inline constexpr bool judges_text = std::same_as<S, any_object> || std::same_as<S, any_key>;

/// What a schema says of a valid candidate from its text alone, when that decides it: an
/// object that surely lacks the first of the keys the schema's root requires first
/// (`required_first`: the usual draft, a different object) fails by it, word for word as on
/// its value. Null: its value must be judged.
template <class S>
std::optional<verdict> judge_keys(const S& sel, std::string_view text) {
  if constexpr (std::same_as<S, schema>) {
    const std::vector<std::string>* required = required_first(sel);
    if (required != nullptr && valid_json_type(text)[0] == 'o' &&  // "object"
        surely_lacks_keys(text, std::span(*required).first(1)))
      return lacks_required(sel, required->front());
  }
  return std::nullopt;
}

/// Gives a candidate its verdict: `qualifies` and `message`. Candidates in reasoning and
/// invalid ones never qualify; the others are what `sel` says. A candidate that qualifies gets
/// its value (`ensure_value`) unless `values` is false, and every one a selector judges by its
/// value gets it; `any_object` and `any_key` judge from the text alone, and a schema rejects an
/// object that surely lacks the first key its root requires from the text alone (`judge_keys`):
/// those it rejects so have no value.
template <Selector S>
void judge_candidate(candidate& c, const S& sel, bool values = true) {
  c.qualifies = false;
  if (c.in_reasoning) {           // what the model thinks is never its answer
    c.message.assign("inside ");  // `inside <think>` fits the string's own buffer
    append_region_label(c.message, c);
    return;
  }
  verdict v;
  if (c.valid) {
    if constexpr (judges_text<S>) {
      v = judge_text(sel, c.text);
      if (v.ok && values) {
        ensure_value(c);
      } else {
        c.json.reset();  // one the engine built: whether it has one never depends on the path
      }
    } else if (std::optional<verdict> by_keys = judge_keys(sel, c.text)) {
      v = std::move(*by_keys);
      c.json.reset();  // as above
    } else if (ensure_value(c)) {
      if constexpr (std::same_as<S, schema>) {
        v = judge_built(sel, *c.json);  // the scan bounded its depth: no walk to check it
      } else {
        v = judge(sel, *c.json);
      }
    }
  }
  if (!c.valid) {
    c.message = "malformed: " + c.message;
  } else {
    c.qualifies = v.ok;
    c.message = std::move(v.message);
  }
}

/// The answer among the scan's candidates under `sel`, or the error. The first `judged`
/// candidates already have their verdicts (a stream judged them as they came). With `values`
/// false (`options::answer_value`), no value is built that `sel` and the policy do not read.
template <Selector S>
result<extraction> choose(scan_result&& scan, const S& sel, const options& opts,
                          std::size_t judged = 0, bool values = true) {
  const llmjson::policy pol = opts.policy.value_or(default_policy_of<S>());
  values = values || pol == policy::unique;  // `unique` compares the qualifying values
  for (std::size_t i = judged; i < scan.candidates.size(); ++i)
    judge_candidate(scan.candidates[i], sel, values);
  result<extraction> r = choose_judged(
      std::move(scan), pol, pol == policy::first && opts.fallback && allows_fallback_of<S>());
  // A fallback has not qualified: its value is built now (a qualifying answer has it).
  if (r && values && !ensure_value(r->candidates[r->index]))
    return error{error_kind::no_match,
                 r->chosen().offset,
                 "the chosen candidate's value cannot be built: " + r->chosen().message,
                 std::move(r->candidates),
                 std::move(r->truncation),
                 {}};
  return r;
}

}  // namespace detail

template <Selector S>
result<extraction> extract(std::string_view text, const S& sel, const options& opts) {
  if (auto e = detail::precheck(text.size(), detail::is_blank(text, opts.prefill.empty()), opts))
    return std::move(*e);
  // Judging overwrites the message of every candidate in reasoning: the scan does not word it.
  return detail::choose(detail::scanner::scan(text, opts, detail::scan_for::selection), sel, opts,
                        0, opts.answer_value);
}

namespace detail {
template <class T>
result<T> decoded_answer(const decode<T>& d, result<extraction>&& r) {
  if (!r) return std::move(r).error();
  try {
    return d.get(r->json());
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

// A T that decode<T> cannot take (no from_json, or no to_json) fails the build here, first.
template <class T>
  requires(!Selector<T>)
result<T> extract(std::string_view text, const options& opts) {
  if constexpr (detail::decodable<T, unknown_keys::reject>) {
    decode<T> d;
    return detail::decoded_answer(d, extract(text, d, opts));
  } else {
    detail::explain_decode<T, unknown_keys::reject>();
    throw;  // never reached
  }
}

template <class T, CheckFor<T> F>
result<T> extract(std::string_view text, F check, const options& opts) {
  if constexpr (detail::decodable<T, unknown_keys::reject>) {
    decode<T> d{std::move(check)};
    return detail::decoded_answer(d, extract(text, d, opts));
  } else {
    detail::explain_decode<T, unknown_keys::reject>();
    throw;  // never reached
  }
}

namespace detail {
/// The error of an extraction from a temporary string, without its views into the text (the
/// text is destroyed at the end of the caller's statement).
template <class T>
result<T> without_views(result<T> r) {
  if (r) return r;
  error& e = r.error();
  for (candidate& c : e.candidates) {
    c.text = {};
    c.info = {};
    c.marker = {};
  }
  for (near_miss& m : e.near_misses) m.text = {};
  return r;
}
}  // namespace detail

template <class T, TemporaryString Str>
  requires(!Selector<T>)
result<T> extract(Str&& text, const options& opts) {
  return detail::without_views(extract<T>(std::string_view(text), opts));
}

template <class T, TemporaryString Str, CheckFor<T> F>
result<T> extract(Str&& text, F check, const options& opts) {
  return detail::without_views(extract<T>(std::string_view(text), std::move(check), opts));
}

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/select/extract-inl.hpp>
#endif

#endif  // LLMJSON_EXTRACT_HPP_INCLUDED
