// llmjson: the bodies of detail/schema/messages.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_MESSAGES_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_MESSAGES_INL_HPP_INCLUDED

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/messages.hpp>
#include <llmjson/detail/schema/values.hpp>

namespace llmjson::detail {

LLMJSON_INLINE void append_json_quote(std::string& out, std::string_view s) {
  // Printable ASCII but `"` and `\` (most keys) is written as it is, between quotes, as
  // nlohmann writes it; the rest by nlohmann (a serializer asks the C locale first).
  const bool plain = std::all_of(
      s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; });
  if (plain) {  // the caller reserves (a reserve here would undo a growing string's doubling)
    out += '"';
    out += s;
    out += '"';
    return;
  }
  out +=
      nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

LLMJSON_INLINE std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_json_quote(out, s);
  return out;
}

LLMJSON_INLINE std::string show_value(const nlohmann::json& v, std::size_t limit) {
  if (deeper_than(v, show_value_max_depth))
    return v.is_array() ? "a deeply nested array" : "a deeply nested object";
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > limit) {
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0U) == 0x80U) --cut;
    s.resize(cut);
    s += "...";
  }
  return s;
}

LLMJSON_INLINE std::string_view json_type_name(const nlohmann::json& v) noexcept {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::object: return "object";
    case nlohmann::json::value_t::array: return "array";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "integer";
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? "integer" : "number";
    }
    default: return "unknown";
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_MESSAGES_INL_HPP_INCLUDED
