// llmjson: schema, a JSON Schema (draft 7) compiled once and used as a selector
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SCHEMA_HPP_INCLUDED
#define LLMJSON_SCHEMA_HPP_INCLUDED

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/options.hpp>
#include <llmjson/result.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

class schema;
namespace detail {
struct schema_tree;  // detail/schema/tree.hpp: the compiled form, shared by copies
/// Rules §8 Qualifying: `s` on a healed value (a stream's partial answer) with `required`,
/// `minItems` and `minProperties` not applied and `*open_string` (the string being written, in
/// `value`; null when none) exempt from the string keywords, `enum` and `const` passing it when
/// one of their strings begins with it.
verdict judge_partial(const schema& s, const nlohmann::json& value,
                      const nlohmann::json* open_string);
/// The root's `required` keys when `s` checks them first on an object (its root applies no
/// `const` or `enum`, and its `type`, if any, allows an object), else null: an object that
/// lacks one of them fails, whatever else it holds, with `lacks_required(s, k)` for the first
/// `k` of them it lacks. `extract` turns down an object whose text surely lacks the first of
/// them so, without building its value.
const std::vector<std::string>* required_first(const schema& s) noexcept;
/// The verdict `s` gives an object that lacks `key`, the first of `required_first(s)` it lacks.
verdict lacks_required(const schema& s, const std::string& key);
/// `s(value)` for a value extraction built, which nests at most `max_depth_limit` levels (the
/// scan refuses deeper text): without the check of its depth that `s(value)` makes first.
verdict judge_built(const schema& s, const nlohmann::json& value);
}  // namespace detail

/// Thrown by the `schema` constructor, and by `schema_result::value()`, when the schema does not
/// compile; `what()` is the message `schema::compile` returns as `schema_result::error()`.
class schema_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class schema_result;

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
/// `$defs`, and OpenAPI 3.0's `nullable` (`true` adds null to the types `type` lists, only
/// where `type` is given; `enum`, `const` and the others still apply, as OpenAPI 3.0.3 says).
/// Annotations (accepted, no effect): `$schema` (must name draft 7), `$id`, `$comment`, `title`,
/// `description`, `default`, `examples`, `deprecated`, `readOnly`, `writeOnly`, `format`,
/// `contentMediaType`, `contentEncoding` (draft 7 makes these three annotations by default) and
/// OpenAPI's extensions `x-*`.
///
/// Any other keyword is a compile error naming it and its place: a selector that skipped a
/// rule would accept what it should reject. (One exception: an unknown keyword whose value is
/// only a container of schemas reached through `$ref`, like `definitions` under another name.)
/// Beside `$ref`, draft 7 and OpenAPI 3.0 ignore every keyword and 2019-09 applies them: a
/// keyword there that asserts (`maxItems`, `nullable`, `$id`...) is a compile error whose message
/// gives the `allOf` (or, for `nullable`, `anyOf`) form that means the same to every validator;
/// annotations, `definitions`, `$defs`, `$schema` and `$comment` are accepted there.
///
/// `pattern` and `patternProperties` are read as ECMA-262 with the `u` flag (code points,
/// `\p{..}` with Unicode 15.0.0's data, u-mode's strict syntax): a pattern that is not valid
/// there, or holds a backreference, is a compile error naming the construct. llmjson's own
/// engine runs them without backtracking: a search costs at most
/// O(code points of the string × program size), the program is capped at
/// `detail::regex_max_program` (4096) instructions, so no pattern or string can make it
/// exponential or overflow the stack. Lookahead and lookbehind (nested, of any length) keep
/// that bound: each is computed for every position in one pass before the match, which reads
/// the result (see `detail/schema/regex.hpp`).
///
/// Validation recursion is bounded: a `$ref` cycle that never descends into the value is a
/// compile error, and more than `detail::schema_max_evaluation_depth` nested evaluations fail
/// cleanly with "schema evaluation too deep".
///
/// **Example**:
/// ```cpp
/// auto s = llmjson::schema::compile(nlohmann::json::parse(R"({"required": ["orders"]})"));
/// if (!s) std::cerr << s.error() << '\n';
/// llmjson::verdict v = (*s)(nlohmann::json::object());  // "/: required: missing key
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
  friend verdict detail::judge_partial(const schema& s, const nlohmann::json& value,
                                       const nlohmann::json* open_string);
  friend const std::vector<std::string>* detail::required_first(const schema& s) noexcept;
  friend verdict detail::lacks_required(const schema& s, const std::string& key);
  friend verdict detail::judge_built(const schema& s, const nlohmann::json& value);
  explicit schema(std::shared_ptr<const detail::schema_tree> tree) noexcept
      : tree_(std::move(tree)) {}
  std::shared_ptr<const detail::schema_tree> tree_;
};

/// What `schema::compile` returns: the schema, or why it did not compile (one line, `/path: what
/// is wrong`).
///
/// The members are `std::expected<schema, std::string>`'s, as `result<T>`'s are (`has_value()`,
/// `explicit operator bool`, `value()`, `error()`, `*`, `->`, `value_or()`): `value()` on an
/// error throws `schema_error` with the message, as the `schema` constructor does.
class [[nodiscard]] schema_result
    : public detail::expected_base<llmjson::schema, std::string, schema_error> {
  using base = detail::expected_base<llmjson::schema, std::string, schema_error>;

 public:
  using base::base;
};

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/schema-inl.hpp>
#endif

#endif  // LLMJSON_SCHEMA_HPP_INCLUDED
