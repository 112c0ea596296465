// llmjson: what schema evaluation asks of a JSON value: depth, number order, multiples, a hash
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_VALUES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_VALUES_HPP_INCLUDED

#include <cstddef>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>

namespace llmjson::detail {

/// Returns whether `v` nests deeper than `limit` levels (an object or array is one level).
/// Iterative, so it is safe on values too deep for nlohmann's recursive copy.
bool deeper_than(const nlohmann::json& v, std::size_t limit);

/// Compares two JSON numbers exactly when both are integers, else as long double.
/// Returns <0, 0 or >0. Does not throw.
int number_compare(const nlohmann::json& a, const nlohmann::json& b) noexcept;

/// Returns whether `value` is a multiple of `divisor` (> 0): exactly for integers, else by the
/// quotient being within a relative tolerance of a whole number (0.0075 is a multiple of 0.0001).
bool is_multiple(const nlohmann::json& value, const nlohmann::json& divisor) noexcept;

/// A hash of the whole value that agrees with nlohmann's `==` (1 and 1.0 hash alike, objects
/// are ordered maps), so `uniqueItems` compares only items in the same bucket. Iterative.
std::size_t deep_hash(const nlohmann::json& root);

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/values-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_VALUES_HPP_INCLUDED
