// llmjson: the public header of a parent project's library whose interface uses llmjson's types
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TEST_ORDERS_HPP_INCLUDED
#define LLMJSON_TEST_ORDERS_HPP_INCLUDED

#include <llmjson/result.hpp>
#include <nlohmann/json.hpp>

#include <string_view>

namespace parent {
/// Returns the "orders" array of the model's answer in `text`, or why there is none.
llmjson::result<nlohmann::json> orders_in(std::string_view text);
}  // namespace parent

#endif  // LLMJSON_TEST_ORDERS_HPP_INCLUDED
