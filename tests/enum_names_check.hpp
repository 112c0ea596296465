// llmjson tests: what every public enum's to_string and from_string must do
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_ENUM_NAMES_CHECK_HPP_INCLUDED
#define LLMJSON_TESTS_ENUM_NAMES_CHECK_HPP_INCLUDED

#include <cstddef>
#include <string_view>

#include <llmjson/enum_names.hpp>

namespace enum_names_check {

/// Returns true when `enumerators<E>` is E's values 0, 1, 2... in order, the value after the last
/// has no name of its own (to_string's switch names every enumerator, so none is left out), and
/// every name reads back as its enumerator (so no two share one). Constant: use in static_assert.
template <class E>
constexpr bool round_trips() {
  const auto& all = llmjson::enumerators<E>;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i] != static_cast<E>(i)) return false;
    if (llmjson::from_string<E>(to_string(all[i])) != all[i]) return false;
  }
  return to_string(static_cast<E>(all.size())) == "unknown";
}

/// Returns true when the names of E, changed in ways a person might write them (a trailing
/// space, a letter missing, upper case first, a dash for an underscore), name nothing.
template <class E>
constexpr bool rejects_near_names() {
  for (E e : llmjson::enumerators<E>) {
    const std::string_view name = to_string(e);
    char buffer[32] = {};
    if (name.size() + 1 > sizeof buffer) return false;
    for (std::size_t i = 0; i < name.size(); ++i) buffer[i] = name[i];
    buffer[name.size()] = ' ';
    if (llmjson::from_string<E>({buffer, name.size() + 1})) return false;
    if (llmjson::from_string<E>(name.substr(0, name.size() - 1))) return false;
    buffer[0] = static_cast<char>(buffer[0] - 'a' + 'A');
    if (llmjson::from_string<E>({buffer, name.size()})) return false;
    buffer[0] = name[0];
    for (std::size_t i = 0; i < name.size(); ++i)
      if (buffer[i] == '_') buffer[i] = '-';
    if (name.find('_') != std::string_view::npos && llmjson::from_string<E>({buffer, name.size()}))
      return false;
  }
  return !llmjson::from_string<E>("") && !llmjson::from_string<E>("nope");
}

}  // namespace enum_names_check

#endif  // LLMJSON_TESTS_ENUM_NAMES_CHECK_HPP_INCLUDED
