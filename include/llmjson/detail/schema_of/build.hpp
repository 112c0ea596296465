// llmjson: the JSON Schema of a member type, as schema_of<T>() builds it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_OF_BUILD_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_OF_BUILD_HPP_INCLUDED

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema_of/members.hpp>

namespace llmjson::detail {

/// What `schema_of` writes: an ordered object, so that properties come in declaration order.
using schema_json = nlohmann::ordered_json;

/// A distinct address per type: how the builder tells declared structs apart.
template <class T>
inline constexpr char type_key = 0;

/// The state of one `schema_of` call: the style, and the structs being built or written under
/// the definitions (those that contain themselves).
struct schema_build {
  struct def {
    const void* key = nullptr;
    std::string type_name;  ///< as declared
    std::string name;       ///< its name under the definitions, once it needs one
    bool open = true;       ///< being built: met again, it is recursive
    bool recursive = false;
    schema_json body;  ///< its schema, once written
  };

  bool openai_strict = false;  ///< the style: schema_style::openai_strict, else draft7
  const void* root = nullptr;  ///< the root struct (referred to as "#"), if the root is one
  std::vector<def> defs;

  [[nodiscard]] bool strict() const noexcept { return openai_strict; }
  /// Returns the index of the entry of `key`, or defs.size().
  [[nodiscard]] std::size_t find(const void* key) const noexcept;
  /// Marks entry `i` recursive (naming it) and returns a reference to it.
  schema_json refer(std::size_t i);
};

/// Returns `s` that also accepts null: `"type": [t, "null"]` for a schema of one scalar type
/// (boolean, integer, number, string) without `enum`, else `anyOf: [s, {"type": "null"}]`.
schema_json nullable(schema_json s);

/// Adds the definitions (draft7: `definitions`; openai_strict: `$defs`) and, for draft7,
/// `$schema` to the root schema `s`.
schema_json finish_schema(const schema_build& b, schema_json s);

/// Throws std::invalid_argument: a map member in the openai_strict style.
[[noreturn]] void throw_strict_map(std::string_view root, const std::string& where);
/// Throws std::invalid_argument: the openai_strict style of a root that is not a struct.
[[noreturn]] void throw_strict_root();

template <class M>
schema_json schema_for(schema_build& b, std::string_view root, const std::string& where);
template <class T>
schema_json record_body(schema_build& b, std::string_view root, const std::string& where);

/// The schema of a declared struct: inline, or a `$ref` when it contains itself.
template <class T>
schema_json record_schema(schema_build& b, std::string_view root) {
  const void* key = &type_key<T>;
  if (key == b.root) return schema_json{{"$ref", "#"}};
  const std::size_t found = b.find(key);
  if (found < b.defs.size()) return b.refer(found);  // open (recursion) or already written
  b.defs.push_back({key, std::string(type_name_of<T>()), {}, true, false, {}});
  const std::size_t self = b.defs.size() - 1;
  schema_json s = record_body<T>(b, root, std::string(type_name_of<T>()));
  if (!b.defs[self].recursive) {
    b.defs.erase(b.defs.begin() + static_cast<std::ptrdiff_t>(self));
    return s;
  }
  b.defs[self].open = false;
  b.defs[self].body = std::move(s);
  return b.refer(self);
}

/// The object schema of a declared struct's members.
template <class T>
schema_json record_body(schema_build& b, std::string_view root, const std::string& where) {
  schema_json properties = schema_json::object();
  schema_json required = schema_json::array();
  for_each_field<T>([&](const auto& fd) {
    using M = typename std::remove_cvref_t<decltype(fd)>::member_type;
    schema_json s = schema_for<M>(b, root, where + "." + std::string(fd.name));
    if (!fd.description.empty() && !(b.strict() && s.contains("$ref")))
      s["description"] = fd.description;
    properties[std::string(fd.name)] = std::move(s);
    if (!is_optional<M>::value || b.strict()) required.push_back(fd.name);
  });
  schema_json s = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty() || b.strict()) s["required"] = std::move(required);
  s["additionalProperties"] = false;
  return s;
}

template <class M>
schema_json schema_for(schema_build& b, std::string_view root, const std::string& where) {
  if constexpr (std::is_same_v<M, bool>) {
    return {{"type", "boolean"}};
  } else if constexpr (is_json_integer<M>) {
    schema_json s = {{"type", "integer"}};
    if (!b.strict()) {
      s["minimum"] = std::numeric_limits<M>::min();
      s["maximum"] = std::numeric_limits<M>::max();
    }
    return s;
  } else if constexpr (std::is_floating_point_v<M>) {
    schema_json s = {{"type", "number"}};
    if constexpr (std::numeric_limits<M>::max() < std::numeric_limits<double>::max()) {
      if (!b.strict()) {
        s["minimum"] = -static_cast<double>(std::numeric_limits<M>::max());
        s["maximum"] = static_cast<double>(std::numeric_limits<M>::max());
      }
    }
    return s;
  } else if constexpr (std::is_same_v<M, std::string>) {
    return {{"type", "string"}};
  } else if constexpr (is_optional<M>::value) {
    return nullable(schema_for<typename M::value_type>(b, root, where));
  } else if constexpr (is_vector<M>::value || is_std_array<M>::value) {
    schema_json s = {{"type", "array"},
                     {"items", schema_for<typename M::value_type>(b, root, where + "[]")}};
    if constexpr (is_std_array<M>::value) {
      if (!b.strict()) {
        s["minItems"] = std::tuple_size_v<M>;
        s["maxItems"] = std::tuple_size_v<M>;
      }
    }
    return s;
  } else if constexpr (is_map<M>::value) {
    if (b.strict()) throw_strict_map(root, where);
    return {{"type", "object"},
            {"additionalProperties", schema_for<typename M::mapped_type>(b, root, where + "[]")}};
  } else if constexpr (declared_record<M>) {
    return record_schema<M>(b, root);
  } else if constexpr (declared_enum<M>) {
    static constexpr auto names = enum_names_of<M>();
    schema_json values = schema_json::array();
    for (const auto& n : names) values.push_back(n.name);
    return {{"type", "string"}, {"enum", std::move(values)}};
  } else {
    explain_member<M>();
    return nullptr;
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_OF_BUILD_HPP_INCLUDED
