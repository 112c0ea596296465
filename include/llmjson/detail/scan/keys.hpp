// llmjson: what a valid span is and which keys its top level has, read from its text (no value)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_KEYS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_KEYS_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// The name nlohmann's `type_name()` gives the value of a span the validator accepted, from its
/// first byte: `object`, `array`, `string`, `boolean`, `null`, `number`.
[[nodiscard]] inline const char* type_name_of(std::string_view span) noexcept {
  std::size_t i = 0;
  while (i < span.size() && is_json_ws(span[i])) ++i;
  if (i == span.size()) return "null";
  switch (span[i]) {
    case '{': return "object";
    case '[': return "array";
    case '"': return "string";
    case 't':
    case 'f': return "boolean";
    case 'n': return "null";
    default: return "number";
  }
}

/// Appends what the escape at `s[k]` (a backslash, which the validator took) stands for to
/// `out`; returns the index after it. `\uD83D\uDE00` (a surrogate pair) is one escape here. A
/// backslash before a raw control character (a relaxed string's) stands for that character.
inline std::size_t append_escape(std::string_view s, std::size_t k, std::string& out) {
  if (k + 1 >= s.size()) {  // not valid text: the backslash as it is
    out.push_back('\\');
    return s.size();
  }
  const char e = s[k + 1];
  k += 2;
  switch (e) {
    case 'b': out.push_back('\b'); break;
    case 'f': out.push_back('\f'); break;
    case 'n': out.push_back('\n'); break;
    case 'r': out.push_back('\r'); break;
    case 't': out.push_back('\t'); break;
    case 'u': {
      auto hex4 = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t d = at; d < at + 4 && d < s.size(); ++d) {
          const int h = hex_value(s[d]);
          v = (v << 4) | static_cast<std::uint32_t>(h < 0 ? 0 : h);
        }
        return v;
      };
      std::uint32_t cp = hex4(k);
      k += 4;
      // A high surrogate: the validator required `\uDC..` after it.
      if (cp >= 0xD800 && cp <= 0xDBFF && k + 6 <= s.size() && s[k] == '\\') {
        cp = 0x10000 + ((cp - 0xD800) << 10) + ((hex4(k + 2) - 0xDC00) & 0x3FF);
        k += 6;
      }
      append_utf8(out, cp);
      break;
    }
    default: out.push_back(e);  // '"', '\\', '/', or a raw control character
  }
  return k;
}

/// Appends the string whose text between the quotes is `inner` (which the validator took; raw
/// line feeds, carriage returns or tabs of a span valid with raw controls stand for themselves),
/// unescaped, to `out`.
inline void unescape_string(std::string_view inner, std::string& out) {
  for (std::size_t k = 0; k < inner.size();) {
    if (inner[k] == '\\') {
      k = append_escape(inner, k, out);
    } else {
      out.push_back(inner[k++]);
    }
  }
}

/// Calls `on_key(key)` for each top-level key of the object `span` (which the validator
/// accepted), unescaped, in order, until it returns true; returns whether one did. Reads the
/// span once, its strings 16 or 32 bytes at a time; builds nothing but a key with a backslash.
template <class OnKey>
bool any_top_level_key(std::string_view span, OnKey&& on_key) {
  static constexpr byte_finder string_stops{"\"\\"};
  static constexpr byte_finder nested{"\"{}[]"};
  const std::size_t n = span.size();
  std::size_t i = 0;
  // The end of the string whose opening quote is at `q`: just past its closing quote.
  auto string_end = [&](std::size_t q) {
    std::size_t j = string_stops.next(span, q + 1, n);
    while (j < n && span[j] == '\\') j = string_stops.next(span, j + 2, n);
    return j < n ? j + 1 : n;
  };
  auto skip_ws = [&] {
    while (i < n && is_json_ws(span[i])) ++i;
  };
  skip_ws();
  if (i >= n || span[i] != '{') return false;
  ++i;
  std::string unescaped;
  for (;;) {
    skip_ws();
    if (i >= n || span[i] != '"') return false;  // `}`: no more keys
    const std::size_t end = string_end(i);
    const std::string_view inner = span.substr(i + 1, end - i - 2);
    bool found = false;
    if (inner.find('\\') == std::string_view::npos) {
      found = on_key(inner);
    } else {
      unescaped.clear();
      unescape_string(inner, unescaped);
      found = on_key(std::string_view(unescaped));
    }
    if (found) return true;
    i = end;
    skip_ws();
    ++i;  // ':'
    skip_ws();
    // The member's value: a string, a container (to its matching bracket), or a scalar.
    if (i < n && span[i] == '"') {
      i = string_end(i);
    } else if (i < n && (span[i] == '{' || span[i] == '[')) {
      std::size_t depth = 0;
      for (; (i = nested.next(span, i, n)) < n;) {
        const char c = span[i];
        if (c == '"') {
          i = string_end(i);
          continue;
        }
        if (c == '{' || c == '[') {
          ++depth;
        } else if (--depth == 0) {
          ++i;
          break;
        }
        ++i;
      }
    } else {
      while (i < n && span[i] != ',' && span[i] != '}' && !is_json_ws(span[i])) ++i;
    }
    skip_ws();
    if (i >= n || span[i] != ',') return false;  // `}`
    ++i;
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_KEYS_HPP_INCLUDED
