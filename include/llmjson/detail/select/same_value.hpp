// llmjson: equal values as the rules compare them (§5 policy unique, §7 expect): numbers as
// decimals, exactly, without nlohmann's rounding to a double
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SELECT_SAME_VALUE_HPP_INCLUDED
#define LLMJSON_DETAIL_SELECT_SAME_VALUE_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/candidate.hpp>
#include <llmjson/json_text.hpp>

namespace llmjson::detail {

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

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SELECT_SAME_VALUE_HPP_INCLUDED
