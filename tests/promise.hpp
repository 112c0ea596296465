// llmjson tests: the promise of a partial answer (rules §8), checked against the answer
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_PROMISE_HPP_INCLUDED
#define LLMJSON_TESTS_PROMISE_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <llmjson/detail/pointer.hpp>

namespace llmjson_tests {

/// Whether everything `shown` (a partial answer's value) shows complete is in `answer`, equal:
/// every member, element and scalar off the `open` path; on it, the objects' and arrays' members
/// and elements so far, and the string being written a prefix of the answer's string (it is
/// closed as written so far). `at`: the JSON Pointer of `shown` being compared ("" at the root).
inline bool kept(const nlohmann::json& shown, const nlohmann::json& answer,
                 const std::optional<std::string>& open, const std::string& at = "") {
  const bool on_path =
      open && (*open == at || (open->size() > at.size() && open->compare(0, at.size(), at) == 0 &&
                               (*open)[at.size()] == '/'));
  if (!on_path) return shown == answer;
  if (*open == at && shown.is_string())  // the string being written: a prefix of the answer's
    return answer.is_string() && answer.get<std::string>().starts_with(shown.get<std::string>());
  if (shown.type() != answer.type()) return false;
  if (shown.is_object()) {
    for (auto it = shown.begin(); it != shown.end(); ++it) {
      if (!answer.contains(it.key())) return false;
      if (!kept(*it, answer.at(it.key()), open,
                at + "/" + llmjson::detail::pointer_escape(it.key())))
        return false;
    }
    return true;
  }
  if (shown.is_array()) {
    if (shown.size() > answer.size()) return false;
    for (std::size_t i = 0; i < shown.size(); ++i)
      if (!kept(shown[i], answer[i], open, at + "/" + std::to_string(i))) return false;
    return true;
  }
  return shown == answer;
}

}  // namespace llmjson_tests

#endif  // LLMJSON_TESTS_PROMISE_HPP_INCLUDED
