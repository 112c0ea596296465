// llmjson: the bodies of schema.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_SCHEMA_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_SCHEMA_INL_HPP_INCLUDED

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema/compiler.hpp>
#include <llmjson/detail/schema/evaluator.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/tree.hpp>
#include <llmjson/detail/schema/values.hpp>
#include <llmjson/options.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

static_assert(detail::regex_max_program == 4096, "schema.hpp's documentation quotes the cap");

LLMJSON_INLINE schema_result schema::compile(const nlohmann::json& source) {
  detail::schema_compiler c(source);
  if (!c.run()) return schema_result(c.message());
  return schema_result(schema(std::make_shared<const detail::schema_tree>(c.take())));
}

LLMJSON_INLINE schema::schema(const nlohmann::json& source) {
  *this = compile(source).value();  // throws schema_error with the message
}

LLMJSON_INLINE verdict schema::operator()(const nlohmann::json& value) const {
  // nlohmann's == (enum, const, uniqueItems) recurses: no deeper value may reach it. Values from
  // extraction are never this deep; a value built by the caller may be.
  if (detail::deeper_than(value, max_depth_limit))
    return verdict::fail("/: the value nests deeper than " + std::to_string(max_depth_limit) +
                         " levels");
  return detail::judge_built(*this, value);
}

namespace detail {

LLMJSON_INLINE verdict judge_partial(const schema& s, const nlohmann::json& value,
                                     const nlohmann::json* open_string) {
  if (deeper_than(value, max_depth_limit))
    return verdict::fail("/: the value nests deeper than " + std::to_string(max_depth_limit) +
                         " levels");
  schema_evaluator e(*s.tree_);
  e.partial(open_string);
  if (e.run(value)) return verdict::pass();
  return verdict::fail(std::move(e.message()));
}

LLMJSON_INLINE const std::vector<std::string>* required_first(const schema& s) noexcept {
  return schema_evaluator::required_first(*s.tree_);
}

LLMJSON_INLINE verdict judge_built(const schema& s, const nlohmann::json& value) {
  schema_evaluator e(*s.tree_);
  if (e.run(value)) return verdict::pass();
  return verdict::fail(std::move(e.message()));
}

LLMJSON_INLINE verdict lacks_required(const schema& s, const std::string& key) {
  schema_evaluator e(*s.tree_);
  return verdict::fail(std::move(e.lacks(key)));
}

}  // namespace detail

}  // namespace llmjson

#endif  // LLMJSON_DETAIL_SCHEMA_SCHEMA_INL_HPP_INCLUDED
