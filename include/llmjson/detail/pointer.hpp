// llmjson: JSON Pointer (RFC 6901): the paths in rejection reasons, and $ref fragments
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_POINTER_HPP_INCLUDED
#define LLMJSON_DETAIL_POINTER_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

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

/// Returns the value `pointer` (already percent-decoded: `/definitions/a~1b`) names inside
/// `*from`, or nullptr when it names nothing or is malformed. `""` names `*from` itself.
inline const nlohmann::json* pointer_follow(const nlohmann::json* from, std::string_view pointer) {
  if (pointer.empty()) return from;
  if (pointer[0] != '/') return nullptr;
  const nlohmann::json* cur = from;
  std::size_t pos = 1;
  for (;;) {
    const auto end = pointer.find('/', pos);
    std::string_view raw =
        pointer.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    std::string tok;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        tok.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else if (raw[i] == '~') {
        return nullptr;
      } else {
        tok.push_back(raw[i]);
      }
    }
    if (cur->is_object()) {
      auto it = cur->find(tok);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (cur->is_array()) {
      if (tok.empty() || (tok.size() > 1 && tok[0] == '0')) return nullptr;
      std::size_t idx = 0;
      for (const char c : tok) {
        if (c < '0' || c > '9' || idx > cur->size()) return nullptr;
        idx = idx * 10 + static_cast<std::size_t>(c - '0');
      }
      if (idx >= cur->size()) return nullptr;
      cur = &(*cur)[idx];
    } else {
      return nullptr;
    }
    if (end == std::string_view::npos) return cur;
    pos = end + 1;
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_POINTER_HPP_INCLUDED
