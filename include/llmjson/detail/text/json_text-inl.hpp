// llmjson: the bodies of json_text.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/minify.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/json_text.hpp>

namespace llmjson {

namespace detail {

/// Copies the string token that starts at `json[i]` (a `"`) into `out`, escapes as written (a
/// raw LF, CR or tab escaped), and returns the index after its closing quote (or `json.size()`
/// when it never closes).
inline std::size_t copy_string_token(std::string_view json, std::size_t i, std::string& out) {
  out += json[i++];
  while (i < json.size() && json[i] != '"') {
    const std::size_t run = plain_run(json.data() + i, json.data() + json.size());
    out.append(json.data() + i, run);  // up to the next quote, backslash or raw LF, CR or tab
    i += run;
    if (i == json.size() || json[i] == '"') break;
    if (json[i] == '\\') {
      out += json.substr(i, 2);  // a text that ends in a lone backslash keeps it
      i += 2;
    } else {
      out += '\\';
      out += raw_control_escape(json[i]);
      ++i;
    }
  }
  if (i < json.size()) out += json[i++];  // the closing quote
  return std::min(i, json.size());
}

}  // namespace detail

LLMJSON_INLINE std::string one_line(std::string_view text) { return detail::one_line(text); }

LLMJSON_INLINE std::string minify(std::string_view json) {
  std::string out;
  detail::append_minified(out, json);
  return out;
}

LLMJSON_INLINE void minify(std::string_view json, std::string& out) {
  detail::append_minified(out, json);
}

LLMJSON_INLINE std::string pretty(std::string_view json, std::size_t indent) {
  std::string out;
  out.reserve(json.size() + json.size() / 2);
  std::size_t depth = 0;
  const auto new_line = [&] {
    out += '\n';
    out.append(depth * indent, ' ');
  };
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {
      i = detail::copy_string_token(json, i, out);
      continue;
    }
    ++i;
    if (detail::is_json_ws(c)) continue;
    if (c == '{' || c == '[') {
      // An empty container stays whole: `{}`, `[]`, as nlohmann's dump writes them.
      std::size_t next = i;
      while (next < json.size() && detail::is_json_ws(json[next])) ++next;
      const char close = c == '{' ? '}' : ']';
      out += c;
      if (next < json.size() && json[next] == close) {
        out += close;
        i = next + 1;
      } else {
        ++depth;
        new_line();
      }
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;  // a text that closes more than it opened is not JSON: keep going
      new_line();
      out += c;
    } else if (c == ',') {
      out += c;
      new_line();
    } else if (c == ':') {
      out += ": ";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_TEXT_JSON_TEXT_INL_HPP_INCLUDED
