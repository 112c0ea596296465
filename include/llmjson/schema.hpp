// llmjson: schema, a JSON Schema (draft 7) compiled once and used as a selector
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SCHEMA_HPP_INCLUDED
#define LLMJSON_SCHEMA_HPP_INCLUDED

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema_compile.hpp>
#include <llmjson/detail/schema_eval.hpp>
#include <llmjson/options.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

/// Thrown by the `schema` constructor when the schema does not compile; `what()` is the same
/// message `schema::compile` returns in `schema_result::message`.
class schema_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct schema_result;

/// A JSON Schema (draft 7) compiled once, usable wherever a selector is.
///
/// Calling it on a value returns `verdict::pass()` or a verdict whose reason names the place in
/// the value, the rule and what it expected, e.g. `/steps/2/eta: type: expected integer, got
/// string`, `/: required: missing key "orders"`, `/: additionalProperties: unexpected key "draft"`.
/// Only the first failing rule is reported.
///
/// Copies share the compiled tree (a `shared_ptr` to immutable data): pass it by value, use it
/// from several threads at once.
///
/// Keywords: `type`, `enum`, `const`, `properties`, `required`, `additionalProperties`,
/// `patternProperties`, `propertyNames`, `dependencies`, `minProperties`, `maxProperties`,
/// `items` (schema or array), `additionalItems`, `contains`, `minItems`, `maxItems`,
/// `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`,
/// `minLength`, `maxLength` (in code points), `pattern`, `allOf`, `anyOf`, `oneOf`, `not`,
/// `if`/`then`/`else`, `$ref` (local: `#`, `#/definitions/...`, `#/$defs/...`, `$id`-named
/// resources and `#name` anchors inside the same document, recursion included), `definitions`,
/// `$defs`. Annotations (accepted, no effect): `$schema` (must name draft 7), `$id`, `$comment`,
/// `title`, `description`, `default`, `examples`, `format`.
///
/// Any other keyword is a compile error naming it and its place: a selector that skipped a
/// rule would accept what it should reject. (One exception: an unknown keyword whose value is
/// only a container of schemas reached through `$ref`, like `definitions` under another name.)
/// As draft 7 says, keywords beside `$ref` are ignored (they must still be known).
///
/// `pattern` and `patternProperties` use llmjson's own ECMAScript-subset regex (no
/// backreferences or lookaround: a compile error), run without backtracking: a search costs at
/// most O(code points of the string × program size), the program is capped at
/// `detail::regex_max_program` (4096) instructions, so no pattern or string can make it
/// exponential or overflow the stack.
///
/// Validation recursion is bounded: a `$ref` cycle that never descends into the value is a
/// compile error, and more than `detail::schema_max_evaluation_depth` nested evaluations fail
/// cleanly with "schema evaluation too deep".
///
/// **Example**:
/// ```cpp
/// auto s = llmjson::schema::compile(nlohmann::json::parse(R"({"required": ["orders"]})"));
/// if (!s) std::cerr << s.message << '\n';
/// llmjson::verdict v = (*s.value)(nlohmann::json::object());  // "/: required: missing key
/// \"orders\""
/// ```
class schema {
 public:
  /// Strict selectors want exactly one passing candidate.
  static constexpr llmjson::policy default_policy = llmjson::policy::unique;

  /// Returns the compiled schema, or an error naming the place and the keyword:
  /// `/properties/a: unsupported keyword "unevaluatedProperties"`,
  /// `/items/$ref: remote reference "http://example.com/s.json" is not supported`.
  /// Does not throw (except `std::bad_alloc`). The source is not referenced afterwards.
  [[nodiscard]] static schema_result compile(const nlohmann::json& source);

  /// Compiles `source`. Throws `schema_error` (with `compile`'s message) when it does not compile.
  explicit schema(const nlohmann::json& source);

  /// Returns `verdict::pass()` when `value` is valid, else a verdict with a one-line reason.
  /// Allocates; does not throw (except `std::bad_alloc`).
  [[nodiscard]] verdict operator()(const nlohmann::json& value) const;

 private:
  explicit schema(std::shared_ptr<const detail::schema_tree> tree) noexcept
      : tree_(std::move(tree)) {}
  std::shared_ptr<const detail::schema_tree> tree_;
};

/// What `schema::compile` returns: the schema, or why it did not compile.
struct schema_result {
  std::optional<llmjson::schema> value;  ///< the compiled schema, when it compiled
  std::string message;                   ///< when it did not: "/path: what is wrong"

  /// Returns whether the schema compiled.
  [[nodiscard]] bool has_value() const noexcept { return value.has_value(); }
  /// Returns whether the schema compiled.
  explicit operator bool() const noexcept { return value.has_value(); }
};

// --- implementation --------------------------------------------------------------------------

inline schema_result schema::compile(const nlohmann::json& source) {
  detail::schema_compiler c(source);
  if (!c.run()) return schema_result{std::nullopt, c.error()};
  return schema_result{schema(std::make_shared<const detail::schema_tree>(c.take())), {}};
}

inline schema::schema(const nlohmann::json& source) {
  schema_result r = compile(source);
  if (!r) throw schema_error(r.message);
  *this = std::move(*r.value);
}

inline verdict schema::operator()(const nlohmann::json& value) const {
  // nlohmann's == (enum, const, uniqueItems) recurses: no deeper value may reach it. Values from
  // extraction are never this deep; a value built by the caller may be.
  if (detail::deeper_than(value, max_depth_limit))
    return verdict::fail("/: the value nests deeper than " + std::to_string(max_depth_limit) +
                         " levels");
  detail::schema_evaluator e(*tree_);
  if (e.run(value)) return verdict::pass();
  return verdict::fail(std::move(e.reason()));
}

}  // namespace llmjson

#endif  // LLMJSON_SCHEMA_HPP_INCLUDED
