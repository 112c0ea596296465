// llmjson: the bodies of extract.hpp: sections 5 and 6 of the rules (the answer among judged
// candidates) and the messages of its errors
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_EXTRACT_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_EXTRACT_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llmjson/candidate.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/regions.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/select.hpp>

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
  if (c.marker.size() == 8 && detail::marker_at(c.marker, 0, "analysis")) {
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

/// Signed decimal integers of any length, as digit strings without leading zeros ("0" for zero):
/// the sum of `a` and `b`, exactly (an exponent as written can have any number of digits).
inline std::string signed_sum(bool a_minus, std::string a, bool b_minus, std::string b) {
  auto less = [](const std::string& x, const std::string& y) {
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  };
  auto digit = [](const std::string& x, std::size_t k) {  // the k-th digit from the right
    return k < x.size() ? x[x.size() - 1 - k] - '0' : 0;
  };
  if (a_minus != b_minus && less(a, b)) {
    std::swap(a, b);
    std::swap(a_minus, b_minus);
  }
  std::string out;
  int carry = 0;
  for (std::size_t k = 0; k < std::max(a.size(), b.size()) || carry != 0; ++k) {
    int d = digit(a, k) + (a_minus == b_minus ? digit(b, k) : -digit(b, k)) + carry;
    carry = d < 0 ? -1 : d / 10;
    d = d < 0 ? d + 10 : d % 10;
    out += static_cast<char>('0' + d);
  }
  while (out.size() > 1 && out.back() == '0') out.pop_back();
  std::reverse(out.begin(), out.end());
  return (out == "0" || !a_minus ? "" : "-") + out;
}

/// The canonical text of a number token: `-`, the significant digits, `e` and the exponent
/// (`12`, `12.0`, `1.2e1` are all `12e0`; zero is `0`), exactly, so that equal decimals are
/// equal texts whatever their length and exponent.
inline std::string canonical_number(std::string_view t) {
  std::size_t i = 0;
  const bool minus = i < t.size() && t[i] == '-';
  i += minus ? 1 : 0;
  std::string digits;
  std::size_t fraction = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) digits += t[i];
  if (i < t.size() && t[i] == '.')
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++fraction) digits += t[i];
  bool e_minus = false;
  std::string written = "0";
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    e_minus = i < t.size() && t[i] == '-';
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    written.clear();
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
      if (!written.empty() || t[i] != '0') written += t[i];
    if (written.empty()) written = "0";
  }
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  const std::size_t last = digits.find_last_not_of('0');
  // The value is digits[first..last] × 10^(written − fraction + trailing zeros).
  const std::size_t trailing = digits.size() - 1 - last;
  const bool shift_minus = fraction > trailing;
  const std::size_t shift = shift_minus ? fraction - trailing : trailing - fraction;
  return (minus ? "-" : "") + digits.substr(first, last - first + 1) + "e" +
         signed_sum(e_minus, written, shift_minus, std::to_string(shift));
}

/// Builds the canonical text of a JSON value from nlohmann's SAX events: members sorted by
/// key, strings as their bytes, numbers by `canonical_number` of the token as written. Two valid
/// JSON texts have equal canonical texts exactly when their values are equal as section 7 of the
/// rules compares them (key order aside, numbers as decimals: `12` equals `12.0`, `true` is not
/// `1`), without nlohmann's rounding to a double.
class canonical_sax {
 public:
  using json = nlohmann::json;
  bool null() { return put("n"); }
  bool boolean(bool b) { return put(b ? "t" : "f"); }
  bool number_integer(json::number_integer_t v) { return put(canonical_number(std::to_string(v))); }
  bool number_unsigned(json::number_unsigned_t v) {
    return put(canonical_number(std::to_string(v)));
  }
  bool number_float(json::number_float_t, const json::string_t& token) {
    return put(canonical_number(token));
  }
  bool string(json::string_t& v) { return put(quoted(v)); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(true); }
  bool key(json::string_t& k) {
    open_.back().key = quoted(k);
    return true;
  }
  bool end_object() { return close('{', '}'); }
  bool start_array(std::size_t) { return open(false); }
  bool end_array() { return close('[', ']'); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }
  [[nodiscard]] const std::string& result() const noexcept { return done_; }

 private:
  struct container {
    bool object = false;
    std::string key;                 // the member being read
    std::vector<std::string> items;  // members (`key:value`) or elements, canonical
  };
  static std::string quoted(const std::string& v) {
    std::string out = std::to_string(v.size());  // a length prefix: no escaping needed
    out += '"';
    out += v;
    return out;
  }
  bool put(std::string v) {
    if (open_.empty()) {
      done_ = std::move(v);
    } else if (open_.back().object) {
      open_.back().items.push_back(open_.back().key + ":" + v);
    } else {
      open_.back().items.push_back(std::move(v));
    }
    return true;
  }
  bool open(bool object) {
    open_.push_back(container{object, {}, {}});
    return true;
  }
  bool close(char l, char r) {
    container c = std::move(open_.back());
    open_.pop_back();
    if (c.object) std::sort(c.items.begin(), c.items.end());  // keys are unique
    std::string v(1, l);
    for (std::size_t k = 0; k < c.items.size(); ++k) v += (k ? "," : "") + c.items[k];
    v += r;
    return put(std::move(v));
  }
  std::vector<container> open_;
  std::string done_;
};

LLMJSON_INLINE bool ensure_value(candidate& c) {
  if (!c.valid || c.in_reasoning) return false;
  if (c.json) return true;
  nlohmann::json value;
  const std::string escaped = c.raw_controls ? minify(c.text) : std::string();
  if (build_json(c.raw_controls ? std::string_view(escaped) : c.text, value)) {
    c.json = std::make_shared<const nlohmann::json>(std::move(value));
    return true;
  }
  c.valid = false;  // unreachable: the scan checked its numbers (numbers_fit)
  c.raw_controls = false;
  c.message = "nlohmann/json could not represent the value";
  return false;
}

LLMJSON_INLINE verdict judge_text(const any_object&, std::string_view text) {
  const char* type = type_name_of(text);
  if (type[0] == 'o') return verdict::pass();  // "object"
  return verdict::fail(std::string("not an object (") + type + ")");
}

LLMJSON_INLINE verdict judge_text(const any_key& sel, std::string_view text) {
  const char* type = type_name_of(text);
  if (type[0] != 'o') return verdict::fail(std::string("not an object (") + type + ")");
  const std::vector<std::string>& keys = sel.keys();
  const bool found = any_top_level_key(text, [&](std::string_view k) {
    for (const std::string& want : keys)
      if (want == k) return true;
    return false;
  });
  if (found) return verdict::pass();
  return verdict::fail(sel.missing_);
}

/// Whether two valid candidates have equal values as the rules compare them (§5 `unique`, as §7
/// compares `expect`): nlohmann's `==` first (cheap, and never false for equal values), then,
/// when it says equal, the canonical texts, so that numbers nlohmann rounds alike but that
/// differ (`0.1` and `0.10000000000000001`, two integers beyond 64 bits) are not taken as one.
/// `a_canonical` keeps `a`'s canonical text between calls (comparing many with one).
inline bool same_value(const candidate& a, const candidate& b,
                       std::optional<std::string>& a_canonical) {
  if (!(*a.json == *b.json)) return false;
  auto canonical = [](const candidate& c) {
    const std::string text = c.raw_controls ? minify(c.text) : std::string(c.text);
    canonical_sax sax;
    (void)nlohmann::json::sax_parse(text, &sax);  // valid: the whole text is read
    return sax.result();
  };
  if (!a_canonical) a_canonical = canonical(a);
  return *a_canonical == canonical(b);
}

LLMJSON_INLINE result<extraction> choose_judged(scan_result&& scan, llmjson::policy pol,
                                                bool fallback) {
  if (!scan.message.empty())  // a resource limit stopped the scan: no answer can be trusted
    return error{error_kind::too_large, 0, std::move(scan.message), {}, std::nullopt, {}};
  std::vector<std::size_t> qualifying;
  std::optional<std::size_t> first_valid;
  std::optional<std::size_t> first_free;  // the first valid one no frame encloses
  std::size_t malformed = 0, reasoning = 0, answer_text = 0;
  for (std::size_t i = 0; i < scan.candidates.size(); ++i) {
    const candidate& c = scan.candidates[i];
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
  const bool truncated = scan.truncation.has_value();

  auto fail = [&](error_kind kind, std::size_t offset, std::string message) -> result<extraction> {
    return error{kind,
                 offset,
                 std::move(message),
                 std::move(scan.candidates),
                 std::move(scan.truncation),
                 kind == error_kind::no_json || kind == error_kind::no_match
                     ? std::move(scan.near_misses)
                     : std::vector<near_miss>{}};
  };
  auto take = [&](std::size_t i, bool fell_back) -> result<extraction> {
    std::vector<std::size_t> later;
    if (pol == policy::first && !fell_back && qualifying.size() > 1)
      later.assign(qualifying.begin() + 1, qualifying.end());
    return extraction{std::move(scan.candidates),
                      i,
                      fell_back,
                      pol,
                      std::move(scan.truncation),
                      std::move(later)};
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
    // Qualifying candidates with equal values are one answer (§5): a fence echoed in the
    // closing sentence. One comparison each with the first: linear in their sizes.
    const candidate& first = scan.candidates[qualifying.front()];
    std::optional<std::string> first_canonical;
    const auto other = std::find_if(qualifying.begin() + 1, qualifying.end(), [&](std::size_t k) {
      return !detail::same_value(first, scan.candidates[k], first_canonical);
    });
    if (other == qualifying.end()) return take(qualifying.front(), false);
    std::string m = detail::count_of(qualifying.size(), "candidate") +
                    " qualify with different values, policy unique takes exactly one: ";
    detail::append_candidates(m, scan.candidates, [](const candidate& c) { return c.qualifies; });
    std::size_t at = scan.candidates[*other].offset;
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
  if (fallback && first_free) return take(*first_free, true);
  std::string m = detail::count_of(answer_text, "candidate") + ", none qualifies: ";
  detail::append_candidates(m, scan.candidates, answer_candidate);
  if (fallback)
    m += "; none can be the fallback: every valid one lies inside a frame (a piece of something "
         "bigger)";
  if (reasoning) m += "; " + detail::describe_reasoning(scan.candidates, reasoning);
  if (scan.near_miss_count) m += "; " + detail::describe_near_misses(scan);
  std::size_t at = scan.candidates[*first_valid].offset;
  return fail(error_kind::no_match, at, std::move(m));
}

}  // namespace llmjson::detail

namespace llmjson {

LLMJSON_INLINE result<extraction> extract(std::string_view text, const options& opts) {
  return extract(text, any_object{}, opts);
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCAN_EXTRACT_INL_HPP_INCLUDED
