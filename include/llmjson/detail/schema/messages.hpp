// llmjson: how schema messages show a key, a value and a type
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_MESSAGES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_MESSAGES_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>

namespace llmjson::detail {

/// Returns a JSON string literal for `s`: `json_quote("a\"b")` is `"a\"b"` with its quotes.
/// Invalid UTF-8 is replaced, never thrown on.
std::string json_quote(std::string_view s);
/// Appends `json_quote(s)` to `out`.
void append_json_quote(std::string& out, std::string_view s);

/// The deepest value `show_value` prints; a deeper one is named ("a deeply nested array").
inline constexpr std::size_t show_value_max_depth = 16;

/// Returns `v` as compact JSON, cut to about `limit` bytes (on a code point boundary, then
/// `...`). A value nested deeper than `show_value_max_depth` is named, not printed: nlohmann's
/// dump recurses.
std::string show_value(const nlohmann::json& v, std::size_t limit = 80);

/// Returns the JSON type name used in messages; an integral number is "integer". Does not throw.
std::string_view json_type_name(const nlohmann::json& v) noexcept;

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/messages-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_MESSAGES_HPP_INCLUDED
