// llmjson: the compiled form of a JSON Schema (draft 7): nodes in one vector, children by index
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_TREE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_TREE_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema/regex.hpp>

namespace llmjson::detail {

/// The index that names no node (a keyword that is absent).
inline constexpr std::size_t no_node = static_cast<std::size_t>(-1);

/// JSON type bits of the `type` keyword.
enum type_bit : unsigned {
  type_null = 1U << 0U,
  type_boolean = 1U << 1U,
  type_object = 1U << 2U,
  type_array = 1U << 3U,
  type_number = 1U << 4U,
  type_string = 1U << 5U,
  type_integer = 1U << 6U,
};

/// A `pattern` or one `patternProperties` entry: the source (for messages), the compiled regex,
/// and (`patternProperties`) the schema its matching members must pass.
struct schema_pattern {
  std::string source;
  regex re;
  std::size_t node = no_node;
};

/// One compiled (sub)schema. Child schemas are indices into `schema_tree::nodes`.
struct schema_node {
  enum class form : std::uint8_t { always, never, object };
  form kind = form::object;

  std::size_t ref = no_node;  // $ref target; when set, the other keywords are ignored (draft 7)

  unsigned types = 0;  // 0: no `type` keyword
  std::optional<nlohmann::json> const_value;
  std::optional<nlohmann::json> enum_values;  // an array

  // numbers
  std::optional<nlohmann::json> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  // strings
  std::optional<std::size_t> min_length, max_length;
  std::optional<schema_pattern> pattern;
  // arrays
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
  std::size_t items = no_node;     // `items` as one schema
  std::vector<std::size_t> tuple;  // `items` as an array of schemas
  bool items_is_tuple = false;
  std::size_t additional_items = no_node;
  std::size_t contains = no_node;
  // objects
  std::optional<std::size_t> min_properties, max_properties;
  std::vector<std::pair<std::string, std::size_t>> properties;  // sorted by key
  std::vector<schema_pattern> pattern_properties;
  std::size_t additional_properties = no_node;
  std::size_t property_names = no_node;
  std::vector<std::string> required;
  std::vector<std::pair<std::string, std::vector<std::string>>> dependency_keys;
  std::vector<std::pair<std::string, std::size_t>> dependency_schemas;
  // combinators
  std::vector<std::size_t> all_of, any_of, one_of;
  std::size_t not_ = no_node;
  std::size_t if_ = no_node, then_ = no_node, else_ = no_node;

  // Set once compiled (schema_compiler::mark_applicators); true until then, which is always safe.
  // `combines`: allOf, anyOf, oneOf, not or if is present. `applies_subschemas`: some keyword
  // applies a subschema to the value or to its items or members (`combines`, items, contains,
  // properties, patternProperties, an additionalProperties other than `false`, propertyNames, a
  // dependency's schema); a node without one is judged by its own checks, with no frame.
  bool combines = true;
  bool applies_subschemas = true;

  /// Returns the node of `properties[key]`, or nullptr. Does not throw.
  [[nodiscard]] const std::size_t* find_property(std::string_view key) const noexcept {
    if (properties.size() <= 8) {  // a few: their lengths (compared first) tell most apart
      for (const auto& p : properties) {
        if (std::string_view(p.first) == key) return &p.second;
      }
      return nullptr;
    }
    auto it = std::lower_bound(
        properties.begin(), properties.end(), key,
        [](const auto& p, std::string_view k) { return std::string_view(p.first) < k; });
    return it != properties.end() && it->first == key ? &it->second : nullptr;
  }
};

/// A whole compiled schema: immutable once built, shared by every copy of `llmjson::schema`.
struct schema_tree {
  std::vector<schema_node> nodes;
  std::size_t root = 0;

  /// `node` with its `$ref` chain followed (chains are acyclic: checked when compiling).
  [[nodiscard]] std::size_t resolve(std::size_t node) const noexcept {
    while (nodes[node].ref != no_node) node = nodes[node].ref;
    return node;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_TREE_HPP_INCLUDED
