// llmjson: the bodies of extract.hpp: sections 5 and 6 of the rules (the answer among judged
// candidates) and the messages of its errors
// SPDX-License-Identifier: MIT
//
// The selection wing (`detail/select/`) may use the text room (`detail/text/`), the scan's
// interface (`detail/scan/interface.hpp`) and the public headers; nothing else of the scan, and
// nothing of the retry wing, which uses it.
#ifndef LLMJSON_DETAIL_SELECT_EXTRACT_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SELECT_EXTRACT_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/interface.hpp>
#include <llmjson/detail/select/same_value.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/select.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson::detail {

/// Appends "; "-separated `place: message` for the candidates picked by `pick`, at most
/// `max_named_candidates`.
LLMJSON_INLINE void append_candidates(std::string& out, const std::vector<candidate>& cs,
                                      bool (*pick)(const candidate&)) {
  constexpr std::size_t most = max_named_candidates;
  std::size_t shown = 0, total = 0;
  for (const auto& c : cs) {
    if (!pick(c)) continue;
    ++total;
    if (shown == most) continue;
    out += shown++ ? "; " : "";
    out += std::to_string(c.line) + ":" + std::to_string(c.column) + " " + llmjson::source_label(c);
    if (!c.qualifies) out += ": " + one_line(c.message);
  }
  if (total > shown) out += "; and " + std::to_string(total - shown) + " more";
}

LLMJSON_INLINE void append_region_label(std::string& out, const candidate& c) {
  if (c.marker.empty()) {
    out += "the reasoning that the prompt opened";
    return;
  }
  // Stripped harmony: the region's opening marker is the leading word `analysis` alone.
  if (opens_stripped_harmony(c.marker)) {
    out += "the analysis before assistantfinal (harmony without its special tokens)";
    return;
  }
  if (c.marker.data() >= c.text.data() + c.text.size()) out += "the reasoning before ";
  // A marker of printable ASCII (`<think>`, `<|channel|>analysis`) is its own one_line: copied
  // as it is, without one_line's string.
  const bool printable = std::all_of(c.marker.begin(), c.marker.end(),
                                     [](char ch) { return ch >= 0x20 && ch < 0x7F; });
  if (printable) {
    out += c.marker;
  } else {
    out += one_line(c.marker);
  }
}

LLMJSON_INLINE std::string region_label(const candidate& c) {
  std::string out;
  append_region_label(out, c);
  return out;
}

/// `2 candidates inside <think> at 2:9, 5:1`, or `... inside the reasoning at 2:9 (<think>),
/// 5:1 (<|channel|>analysis)` when the regions' markers differ. At most `max_named_candidates`
/// positions.
LLMJSON_INLINE std::string describe_reasoning(const std::vector<candidate>& cs, std::size_t count) {
  constexpr std::size_t most = max_named_candidates;
  bool same = true;
  const candidate* first = nullptr;
  std::string first_label, label;  // `label` reused: one string for thousands of drafts
  for (const candidate& c : cs) {
    if (!c.in_reasoning) continue;
    if (!first) {
      first = &c;
      append_region_label(first_label, c);
    } else if (same) {
      label.clear();
      append_region_label(label, c);
      same = label == first_label;
    }
  }
  std::string out = std::to_string(count) + (count == 1 ? " candidate" : " candidates") +
                    " inside " + (same ? first_label : "the reasoning") + " at ";
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
LLMJSON_INLINE std::string describe_near_misses(const scan_result& scan) {
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

LLMJSON_INLINE bool is_blank(std::string_view text, bool bom) noexcept {
  if (bom) text.remove_prefix(bom_length(text));
  for (char ch : text)
    if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\f' && ch != '\v')
      return false;
  return true;
}

LLMJSON_INLINE std::string count_of(std::size_t n, std::string_view one) {
  return std::to_string(n) + " " + std::string(one) + (n == 1 ? "" : "s");
}

LLMJSON_INLINE error too_large_error(std::optional<std::size_t> size, std::size_t limit,
                                     bool prefilled) {
  std::string message = prefilled ? "the prefill and the output are " : "the output is ";
  if (size) message += std::to_string(*size) + " bytes, ";
  message += "over the limit of ";
  message += std::to_string(limit);
  message += size ? " (options::max_input_bytes)" : " bytes (options::max_input_bytes)";
  return error{error_kind::too_large, limit, std::move(message), {}, std::nullopt, {}};
}

LLMJSON_INLINE std::optional<error> precheck(std::size_t size, bool blank, const options& opts) {
  // The limit counts the text read, the prefill included; `empty` looks at the output alone.
  const std::size_t prefill = opts.prefill.size();
  if (size > opts.max_input_bytes || prefill > opts.max_input_bytes - size) {
    return too_large_error(size + prefill, opts.max_input_bytes, prefill > 0);
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

LLMJSON_INLINE verdict judge_text(const any_object&, std::string_view text) {
  const char* type = valid_json_type(text);
  if (type[0] == 'o') return verdict::pass();  // "object"
  return verdict::fail(std::string("not an object (") + type + ")");
}

LLMJSON_INLINE verdict judge_text(const any_key& sel, std::string_view text) {
  const char* type = valid_json_type(text);
  if (type[0] != 'o') return verdict::fail(std::string("not an object (") + type + ")");
  // The usual reject, a draft that holds none of the keys anywhere, is told by a search for
  // each key in quotes, without the walk of its top-level keys.
  if (surely_lacks_keys(text, sel.keys()) || !has_top_level_key(text, sel.keys()))
    return verdict::fail(sel.missing_);
  return verdict::pass();
}

/// The candidates of a scan as sections 5 and 6 count them, in one pass.
struct tally {
  std::vector<std::size_t> qualifying;     // in document order
  std::optional<std::size_t> first_valid;  // outside reasoning
  std::optional<std::size_t> first_free;   // the first valid one no frame encloses
  std::size_t malformed = 0, reasoning = 0, answer_text = 0;
};

inline tally count_candidates(const std::vector<candidate>& cs) {
  tally t;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const candidate& c = cs[i];
    if (c.in_reasoning) {
      ++t.reasoning;
      continue;
    }
    ++t.answer_text;
    if (!c.valid) {
      ++t.malformed;
      continue;
    }
    if (!t.first_valid) t.first_valid = i;
    if (!t.first_free && !c.enclosed) t.first_free = i;
    if (c.qualifies) t.qualifying.push_back(i);
  }
  return t;
}

/// How sections 5 and 6 end for a scan: the answer (no `error`: `candidates[index]`, taken as
/// the fallback or not), or the kind of the error and the byte it names.
struct decision {
  std::optional<error_kind> error;
  std::size_t index = 0;
  bool fallback = false;
  std::size_t offset = 0;  // the error's
};

/// The byte a `no_json` error names: the first candidate of the answer text, or the first near
/// miss when no candidate there is malformed.
inline std::size_t no_json_offset(const scan_result& scan, const tally& t) noexcept {
  if (!t.malformed && !scan.near_misses.empty()) return scan.near_misses.front().offset;
  for (const candidate& c : scan.candidates)
    if (!c.in_reasoning) return c.offset;
  return 0;
}

/// Sections 5 and 6 decided, nothing worded yet. `fallback`: see `choose_judged`.
inline decision decide(const scan_result& scan, const tally& t, llmjson::policy pol,
                       bool fallback) {
  const std::vector<std::size_t>& q = t.qualifying;
  if (scan.truncation && (pol != policy::first || q.empty()))
    return {error_kind::truncated, 0, false, scan.truncation->offset};
  if (pol == policy::unique && q.size() > 1) {
    // Qualifying candidates with equal values are one answer (§5): a fence echoed in the
    // closing sentence. One comparison each with the first: linear in their sizes.
    const candidate& first = scan.candidates[q.front()];
    std::optional<std::string> first_canonical;
    const auto other = std::find_if(q.begin() + 1, q.end(), [&](std::size_t k) {
      return !same_value(first, scan.candidates[k], first_canonical);
    });
    if (other != q.end()) return {error_kind::ambiguous, 0, false, scan.candidates[*other].offset};
    return {std::nullopt, q.front(), false, 0};
  }
  if (!q.empty()) return {std::nullopt, pol == policy::last ? q.back() : q.front(), false, 0};
  if (!t.first_valid) return {error_kind::no_json, 0, false, no_json_offset(scan, t)};
  // The fallback (section 5): the first valid candidate that no frame encloses; a piece of
  // something bigger (a dict inside a Python repr, an object inside a blockquote) never is.
  if (fallback && t.first_free) return {std::nullopt, *t.first_free, true, 0};
  return {error_kind::no_match, 0, false, scan.candidates[*t.first_valid].offset};
}

/// `; 2 candidates inside <think> at ...; 1 near miss: ...`: what the answer text's own
/// candidates leave out, for `no_json` and `no_match`.
inline void append_reasoning_and_near_misses(std::string& m, const scan_result& scan,
                                             const tally& t) {
  if (t.reasoning) m += "; " + describe_reasoning(scan.candidates, t.reasoning);
  if (scan.near_miss_count) m += "; " + describe_near_misses(scan);
}

/// The message of the error `kind` that `decide` chose.
inline std::string error_message(error_kind kind, const scan_result& scan, const tally& t,
                                 llmjson::policy pol, bool fallback) {
  auto answer_candidate = [](const candidate& c) { return !c.in_reasoning; };
  const std::size_t qualifying = t.qualifying.size();
  std::string m;
  switch (kind) {
    case error_kind::truncated:
      m = "the output was cut: " + scan.truncation->message;
      if (qualifying)
        m += "; " + count_of(qualifying, "earlier candidate") + " qualif" +
             (qualifying == 1 ? "ies" : "y") + ", but under policy " + std::string(to_string(pol)) +
             " the cut value might have been the answer";
      return m;
    case error_kind::ambiguous:
      m = count_of(qualifying, "candidate") +
          " qualify with different values, policy unique takes exactly one: ";
      append_candidates(m, scan.candidates, [](const candidate& c) { return c.qualifies; });
      return m;
    case error_kind::no_json:
      m = t.reasoning ? "no JSON value outside the reasoning" : "no JSON value in the output";
      if (t.malformed) {
        m += "; " + count_of(t.malformed, "malformed candidate") + ": ";
        append_candidates(m, scan.candidates, answer_candidate);
      }
      append_reasoning_and_near_misses(m, scan, t);
      return m;
    default:  // no_match, the one other kind `decide` chooses
      m = count_of(t.answer_text, "candidate") + ", none qualifies: ";
      append_candidates(m, scan.candidates, answer_candidate);
      if (fallback)
        m += "; none can be the fallback: every valid one lies inside a frame (a piece of "
             "something bigger)";
      append_reasoning_and_near_misses(m, scan, t);
      return m;
  }
}

LLMJSON_INLINE result<extraction> choose_judged(scan_result&& scan, llmjson::policy pol,
                                                bool fallback) {
  if (!scan.message.empty())  // a resource limit stopped the scan: no answer can be trusted
    return error{error_kind::too_large, 0, std::move(scan.message), {}, std::nullopt, {}};
  const tally t = count_candidates(scan.candidates);
  const decision d = decide(scan, t, pol, fallback);
  if (!d.error) {
    std::vector<std::size_t> later;
    if (pol == policy::first && !d.fallback && t.qualifying.size() > 1)
      later.assign(t.qualifying.begin() + 1, t.qualifying.end());
    return extraction{std::move(scan.candidates), d.index,         d.fallback, pol,
                      std::move(scan.truncation), std::move(later)};
  }
  std::string message = error_message(*d.error, scan, t, pol, fallback);
  const bool near_misses = d.error == error_kind::no_json || d.error == error_kind::no_match;
  return error{*d.error,
               d.offset,
               std::move(message),
               std::move(scan.candidates),
               std::move(scan.truncation),
               near_misses ? std::move(scan.near_misses) : std::vector<near_miss>{}};
}

}  // namespace llmjson::detail

namespace llmjson {

LLMJSON_INLINE result<extraction> extract(std::string_view text, const options& opts) {
  return extract(text, any_object{}, opts);
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SELECT_EXTRACT_INL_HPP_INCLUDED
