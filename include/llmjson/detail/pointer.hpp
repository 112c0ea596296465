// llmjson: JSON Pointer (RFC 6901) tokens, for the paths in rejection reasons
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_POINTER_HPP_INCLUDED
#define LLMJSON_DETAIL_POINTER_HPP_INCLUDED

#include <string>
#include <string_view>

namespace llmjson::detail {

/// Returns `key` escaped as a JSON Pointer token: `~` as `~0`, `/` as `~1`.
inline std::string pointer_escape(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_POINTER_HPP_INCLUDED
