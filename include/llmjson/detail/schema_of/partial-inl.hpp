// llmjson: the bodies of partial.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_INL_HPP_INCLUDED

#include <array>
#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/partial.hpp>

namespace llmjson::detail {

LLMJSON_INLINE const partial_node& absent_node() noexcept {
  static const partial_node none;
  return none;
}

LLMJSON_INLINE bool is_index_token(std::string_view token, std::size_t i) noexcept {
  std::array<char, 24> digits{};
  const auto r = std::to_chars(digits.data(), digits.data() + digits.size(), i);
  return r.ec == std::errc{} &&
         token == std::string_view(digits.data(), static_cast<std::size_t>(r.ptr - digits.data()));
}

LLMJSON_INLINE std::vector<std::string> open_tokens(const nlohmann::json& value,
                                                    std::string_view open) {
  const auto fail = [&](std::string_view why) {
    throw std::invalid_argument("llmjson::partial: the open pointer " +
                                nlohmann::json(std::string(open)).dump() + " " + std::string(why));
  };
  std::vector<std::string> tokens;
  if (open.empty()) return tokens;
  if (open[0] != '/') fail("does not begin with '/' (RFC 6901)");
  std::string token;
  for (std::size_t i = 1; i <= open.size(); ++i) {
    if (i == open.size() || open[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (open[i] != '~') {
      token.push_back(open[i]);
    } else if (i + 1 < open.size() && (open[i + 1] == '0' || open[i + 1] == '1')) {
      token.push_back(open[++i] == '0' ? '~' : '/');
    } else {
      fail("has a '~' not followed by '0' or '1' (RFC 6901)");
    }
  }
  const nlohmann::json* at = &value;
  for (const std::string& t : tokens) {
    const nlohmann::json* next = nullptr;
    if (at->is_object()) {
      const auto it = at->find(t);
      if (it != at->end()) next = &*it;
    } else if (at->is_array()) {
      std::size_t i = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), i);
      if (r.ec == std::errc{} && r.ptr == t.data() + t.size() && is_index_token(t, i) &&
          i < at->size())
        next = &(*at)[i];
    }
    if (!next) fail("names nothing in the partial value");
    at = next;
  }
  return tokens;
}

LLMJSON_INLINE void throw_undeclared_member(std::string_view type) {
  throw std::invalid_argument("llmjson::partial<" + std::string(type) +
                              ">: the member pointer given is not one of the members that "
                              "LLMJSON_DEFINE_TYPE(" +
                              std::string(type) + ", ...) declares");
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_INL_HPP_INCLUDED
