// llmjson: the tests' one way to build a long hostile input: a unit repeated to a size
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_REPEAT_HPP_INCLUDED
#define LLMJSON_TESTS_REPEAT_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

namespace llmjson_tests {

/// `unit` repeated until the text holds at least `bytes` bytes (a whole number of units).
inline std::string repeat(std::string_view unit, std::size_t bytes) {
  std::string s;
  s.reserve(bytes + unit.size());
  while (s.size() < bytes) s += unit;
  return s;
}

}  // namespace llmjson_tests

#endif  // LLMJSON_TESTS_REPEAT_HPP_INCLUDED
