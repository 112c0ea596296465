// llmjson: the bodies of select.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SELECT_SELECT_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SELECT_SELECT_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/select.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

namespace detail {

LLMJSON_INLINE std::string describe_json_exception(const nlohmann::json::exception& e) {
  std::string_view m = e.what();
  if (auto close = m.find("] "); m.substr(0, 1) == "[" && close != std::string_view::npos)
    m.remove_prefix(close + 2);
  constexpr std::string_view key_prefix = "key '", key_suffix = "' not found";
  if (m.size() > key_prefix.size() + key_suffix.size() &&
      m.substr(0, key_prefix.size()) == key_prefix &&
      m.substr(m.size() - key_suffix.size()) == key_suffix) {
    auto key = m.substr(key_prefix.size(), m.size() - key_prefix.size() - key_suffix.size());
    return "missing key \"" + std::string(key) + "\"";
  }
  return std::string(m);
}

LLMJSON_INLINE std::string first_unknown_key(const nlohmann::json& given,
                                             const nlohmann::json& encoded) {
  struct item {
    const nlohmann::json* given;
    const nlohmann::json* encoded;
    std::string path;
  };
  std::vector<item> todo{{&given, &encoded, std::string{}}};
  while (!todo.empty()) {
    item it = std::move(todo.back());
    todo.pop_back();
    if (it.given->is_object() && it.encoded->is_object()) {
      // Visit in document order: push in reverse so the first key is reported first.
      std::vector<item> children;
      for (auto kv = it.given->begin(); kv != it.given->end(); ++kv) {
        auto found = it.encoded->find(kv.key());
        if (found == it.encoded->end()) {
          if (kv.value().is_null()) continue;  // an absent optional that to_json omits
          std::string where = it.path.empty() ? std::string{} : it.path + ": ";
          return where + "unknown key \"" + kv.key() + "\"";
        }
        children.push_back({&kv.value(), &*found, it.path + "/" + pointer_escape(kv.key())});
      }
      for (auto c = children.rbegin(); c != children.rend(); ++c) todo.push_back(std::move(*c));
    } else if (it.given->is_array() && it.encoded->is_array()) {
      std::size_t n = std::min(it.given->size(), it.encoded->size());
      for (std::size_t i = n; i-- > 0;)
        todo.push_back({&(*it.given)[i], &(*it.encoded)[i], it.path + "/" + std::to_string(i)});
    }
  }
  return {};
}

}  // namespace detail

LLMJSON_INLINE verdict any_object::operator()(const nlohmann::json& v) const {
  if (v.is_object()) return verdict::pass();
  return verdict::fail(std::string("not an object (") + v.type_name() + ")");
}

LLMJSON_INLINE verdict any_key::operator()(const nlohmann::json& v) const {
  if (!v.is_object()) return verdict::fail(std::string("not an object (") + v.type_name() + ")");
  for (const auto& k : keys_)
    if (v.contains(k)) return verdict::pass();
  return verdict::fail(missing_);
}

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SELECT_SELECT_INL_HPP_INCLUDED
