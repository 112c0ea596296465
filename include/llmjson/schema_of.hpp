// llmjson: LLMJSON_DEFINE_TYPE and schema_of<T>(), the JSON Schema of a C++ type and its strict
// decoding, from one declaration
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SCHEMA_OF_HPP_INCLUDED
#define LLMJSON_SCHEMA_OF_HPP_INCLUDED

#include <array>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema_of/build.hpp>
#include <llmjson/detail/schema_of/for_each.hpp>
#include <llmjson/detail/schema_of/members.hpp>
#include <llmjson/enum_names.hpp>

namespace llmjson {

/// Which JSON Schema `schema_of<T>()` writes.
enum class schema_style {
  /// JSON Schema draft 7 that accepts exactly what the generated `from_json` accepts: integer
  /// ranges, float's range, std::array sizes, optional members not required (null allowed).
  draft7,
  /// The subset OpenAI's strict structured outputs accept: the root is a struct, every member
  /// is required (a std::optional one as a `null` union), no `minimum`, `maximum`, `minItems`,
  /// `maxItems`, `$schema`; no maps.
  openai_strict,
};

/// Returns the style's name: `"openai_strict"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(schema_style s) noexcept {
  switch (s) {
    case schema_style::draft7: return "draft7";
    case schema_style::openai_strict: return "openai_strict";
  }
  return "unknown";
}

/// Every `schema_style`: `from_string<schema_style>("draft7") == schema_style::draft7`.
template <>
inline constexpr std::array enumerators<schema_style>{schema_style::draft7,
                                                      schema_style::openai_strict};

/// Returns the JSON Schema of `T`, derived from its declaration: the schema the generated
/// `from_json` agrees with.
///
/// `T` is a struct declared with `LLMJSON_DEFINE_TYPE`, or any supported member type (a
/// `std::vector<step>`, an `int`, an enum declared with `LLMJSON_DEFINE_ENUM`...). Per member
/// type, in the `draft7` style:
///
/// - `bool`: `{"type": "boolean"}`;
/// - integers (`int`, `std::uint8_t`, `std::int64_t`, ...): `{"type": "integer"}` with the
///   type's `minimum` and `maximum`;
/// - `float`: `{"type": "number"}` with float's finite range; `double`: `{"type": "number"}`;
/// - `std::string`: `{"type": "string"}`;
/// - `std::optional<X>`: X or null (`"type": [X, "null"]`, or `anyOf`); as a member, not required;
/// - `std::vector<X>`: `{"type": "array", "items": X}`; `std::array<X, N>`: the same with
///   `"minItems": N, "maxItems": N`;
/// - `std::map` or `std::unordered_map<std::string, X>`: `{"type": "object",
///   "additionalProperties": X}`;
/// - a declared struct: `{"type": "object", "properties": ..., "required": [...],
///   "additionalProperties": false}`; a declared enum: `{"type": "string", "enum": [names]}`.
///
/// A member's description becomes its `"description"`. Structs are written inline; a struct
/// that contains itself (`struct node { std::vector<node> children; }`) is written once under
/// `definitions` (draft7) or `$defs` (openai_strict) and referred to by `$ref`, or by `"#"`
/// when it is the root. The draft7 schema carries `"$schema"`.
///
/// The `openai_strict` style lists every property in `required` (an optional member is
/// `null`-able instead), and leaves out `minimum`, `maximum`, `minItems` and `maxItems`
/// (providers differ on them) and the description beside a `$ref`: the decoding still checks
/// ranges and sizes, so a reply that breaks them is a `no_match` that `llmjson::retrying` asks
/// again. Throws `std::invalid_argument` when `T` is not a declared struct (OpenAI wants an
/// object at the root), or when a member is a map (OpenAI requires `additionalProperties: false`
/// on every object), naming the member: `plan.tags`.
///
/// Returns an `nlohmann::ordered_json`: `properties` and `required` list the members in
/// declaration order, which is the order a model writes them in under structured outputs (put
/// a reasoning member before the decision it leads to). It converts to `nlohmann::json` where
/// one is wanted (`llmjson::schema(schema_of<T>())`), with its keys sorted then: send the
/// ordered one. Allocates; throws nothing else.
///
/// **Example**:
/// ```cpp
/// struct step { std::string action; int minutes = 0; };
/// LLMJSON_DEFINE_TYPE(step, (action, "what to do"), (minutes))
/// nlohmann::ordered_json s = llmjson::schema_of<step>();  // {"$schema": ..., "type": ...}
/// auto r = llmjson::extract(text, llmjson::schema(s));  // the same as extract<step>(text)
/// ```
template <class T>
[[nodiscard]] nlohmann::ordered_json schema_of(schema_style style = schema_style::draft7) {
  detail::explain_member<T>();
  detail::schema_build b;
  b.openai_strict = style == schema_style::openai_strict;
  std::string root_name = "the root";
  if constexpr (detail::declared_record<T>) {
    b.root = &detail::type_key<T>;
    root_name = std::string(detail::type_name_of<T>());
    return detail::finish_schema(b, detail::record_body<T>(b, root_name, root_name));
  } else {
    if (b.strict()) detail::throw_strict_root();
    return detail::finish_schema(b, detail::schema_for<T>(b, root_name, root_name));
  }
}

namespace detail {
/// Returns `type_name` with any character but ASCII letters, digits, `_` and `-` made `_`, cut
/// to 64 characters.
std::string schema_name(std::string_view type_name);
/// Returns the `response_format` object; throws std::invalid_argument for a bad `name`.
nlohmann::ordered_json response_format(const std::string& name, nlohmann::ordered_json schema);
}  // namespace detail

/// Returns OpenAI's `response_format` for `T`:
/// `{"type": "json_schema", "json_schema": {"name": name, "strict": true, "schema":
/// schema_of<T>(schema_style::openai_strict)}}`.
///
/// `name` defaults to T's name as declared, with any character but ASCII letters, digits, `_`
/// and `-` made `_` (OpenAI's rule for the name, at most 64 characters). Throws
/// `std::invalid_argument` when the name given breaks that rule, or as `schema_of` does.
///
/// **Example**: `request["response_format"] = llmjson::openai_response_format<plan>();`
template <detail::declared_record T>
[[nodiscard]] nlohmann::ordered_json openai_response_format(std::string_view name = {}) {
  return detail::response_format(
      name.empty() ? detail::schema_name(detail::type_name_of<T>()) : std::string(name),
      schema_of<T>(schema_style::openai_strict));
}

}  // namespace llmjson

/// Declares the struct `Type` to llmjson and nlohmann: `to_json`, a strict `from_json`, and the
/// field table `llmjson::schema_of<Type>()` reads. Used at namespace scope after the struct, in
/// its namespace, as `NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE` is (and instead of it).
///
/// Each member is `name` or `(name, "description")`; the JSON key is the member's name. At most
/// `LLMJSON_MAX_MEMBERS` (64): more is a compile error saying so. A member's type must be
/// supported (see `schema_of`), and a struct or enum member must be declared before `Type`; any
/// other is a compile error naming the problem (a pointer, a map with non-string keys, ...).
/// The description is a string literal.
///
/// The generated `from_json` accepts exactly what `schema_of<Type>()` does, and throws a
/// `nlohmann::json::exception` with the JSON Pointer of the place otherwise:
/// `type_error` (302) for a value of the wrong JSON type (`/steps/2/eta: expected an integer
/// in [-2147483648, 2147483647], got string "5"`), `out_of_range` (403) for a missing member
/// (`/steps/2: missing key "eta"`, naming the unknown key beside it if any), `out_of_range`
/// (406) for a value out of the member's range (`got 1.5`, `got 300`), a std::array of another
/// size, an unknown enum name, an unknown key. An integer member takes a JSON number with no
/// fraction (`3`, `3.0`, `3e2`: JSON Schema's "integer") within its type's range; a floating
/// point member any number (`float`: within its finite range, else an error rather than
/// infinity); a bool only `true`/`false`; a std::string only a string; a std::optional member
/// may be absent or null (`std::nullopt`). So `llmjson::decode<Type>` (and `extract<Type>`)
/// report these reasons.
///
/// `to_json` writes every member, a std::optional without a value as `null`. It throws
/// `nlohmann::json::out_of_range` (406) for a NaN or infinite floating point value and for an
/// enum value that has no name: JSON has no such value.
///
/// **Example**:
/// ```cpp
/// struct step { std::string action; std::optional<int> minutes; };
/// LLMJSON_DEFINE_TYPE(step, (action, "what to do, in a few words"), minutes)
/// ```
#define LLMJSON_DEFINE_TYPE(Type, ...) LLMJSON_DETAIL_DEFINE_TYPE(inline, Type, __VA_ARGS__)

/// `LLMJSON_DEFINE_TYPE` inside the struct, for private members: the functions are hidden
/// friends (found through `Type` only), as `NLOHMANN_DEFINE_TYPE_INTRUSIVE` makes them.
#define LLMJSON_DEFINE_TYPE_INTRUSIVE(Type, ...) \
  LLMJSON_DETAIL_DEFINE_TYPE(friend, Type, __VA_ARGS__)

/// Declares the enum `Enum` to llmjson and nlohmann: each enumerator is the JSON string of its
/// name as written (`LLMJSON_DEFINE_ENUM(level, low, high)`: `"low"`, `"high"`), and
/// `schema_of` writes `{"type": "string", "enum": ["low", "high"]}`. At namespace scope after the
/// enum, in its namespace; at most `LLMJSON_MAX_MEMBERS` (64) enumerators.
///
/// Strict both ways, unlike `NLOHMANN_JSON_SERIALIZE_ENUM` (which reads an unknown string as the
/// first enumerator and writes an unlisted value as the first string): `from_json` throws
/// `type_error` (302) for a value that is not a string and `out_of_range` (406) for an unknown
/// name (`expected one of "low", "high", got "medium"`); `to_json` throws `out_of_range` (406)
/// for a value not listed.
#define LLMJSON_DEFINE_ENUM(Enum, ...)                                                        \
  [[maybe_unused]] constexpr std::string_view llmjson_type_name(const Enum*) noexcept {       \
    return #Enum;                                                                             \
  }                                                                                           \
  [[maybe_unused]] constexpr auto llmjson_enum_names(const Enum*) noexcept {                  \
    return std::array{LLMJSON_DETAIL_FOR_EACH(LLMJSON_DETAIL_ENUMERATOR, Enum, __VA_ARGS__)}; \
  }                                                                                           \
  [[maybe_unused]] inline void to_json(nlohmann::json& j, const Enum& e) {                    \
    j = std::string(::llmjson::detail::enum_to_name(e, nullptr));                             \
  }                                                                                           \
  [[maybe_unused]] inline void from_json(const nlohmann::json& j, Enum& e) {                  \
    ::llmjson::detail::read_enum(j, e, nullptr);                                              \
  }

#define LLMJSON_DETAIL_ENUMERATOR(E, v) \
  ::llmjson::detail::enum_name<E> { E::v, #v }

#define LLMJSON_DETAIL_DEFINE_TYPE(how, Type, ...)                                          \
  [[maybe_unused]] how constexpr std::string_view llmjson_type_name(const Type*) noexcept { \
    return #Type;                                                                           \
  }                                                                                         \
  [[maybe_unused]] how constexpr auto llmjson_fields(const Type*) noexcept {                \
    return std::make_tuple(                                                                 \
        __VA_OPT__(LLMJSON_DETAIL_FOR_EACH(LLMJSON_DETAIL_FIELD, Type, __VA_ARGS__)));      \
  }                                                                                         \
  [[maybe_unused]] how void to_json(nlohmann::json& j, const Type& v) {                     \
    ::llmjson::detail::write_record(j, v, nullptr);                                         \
  }                                                                                         \
  [[maybe_unused]] how void from_json(const nlohmann::json& j, Type& v) {                   \
    ::llmjson::detail::read_record(j, v, nullptr);                                          \
  }

#define LLMJSON_DETAIL_FIELD(T, m) \
  LLMJSON_DETAIL_CAT(LLMJSON_DETAIL_FIELD_, LLMJSON_DETAIL_IS_PAREN(m))(T, m)
#define LLMJSON_DETAIL_FIELD_0(T, m) ::llmjson::detail::make_field(&T::m, #m)
#define LLMJSON_DETAIL_FIELD_1(T, m) LLMJSON_DETAIL_FIELD_P(T, LLMJSON_DETAIL_UNPAREN m)
#define LLMJSON_DETAIL_FIELD_P(T, ...) LLMJSON_DETAIL_FIELD_Q(T, __VA_ARGS__)
#define LLMJSON_DETAIL_FIELD_Q(T, m, ...) \
  ::llmjson::detail::make_field(&T::m, #m __VA_OPT__(, ) __VA_ARGS__)

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema_of/schema_of-inl.hpp>
#endif

#endif  // LLMJSON_SCHEMA_OF_HPP_INCLUDED
