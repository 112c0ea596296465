// llmjson: <llmjson/result.hpp> alone makes, copies, moves and destroys results, errors and
// candidates without nlohmann's whole header
// SPDX-License-Identifier: MIT
// Built with the tests (llmjson_result_alone in tests/CMakeLists.txt), with no precompiled
// header: it must compile. result.hpp, error.hpp and candidate.hpp only declare nlohmann::json
// (<nlohmann/json_fwd.hpp>): a candidate holds its value behind a std::shared_ptr, so that a file
// that only passes results around does not parse <nlohmann/json.hpp>, most of the umbrella
// header's compile time. Should one of them include it
// again, INCLUDE_NLOHMANN_JSON_HPP_ (nlohmann's include guard) is defined and this file fails.
// Before 3.11.2 nlohmann may install no single-header json_fwd.hpp, and candidate.hpp includes
// the whole header instead: not checked then.
#include <llmjson/result.hpp>

#if defined(INCLUDE_NLOHMANN_JSON_HPP_) && __has_include(<nlohmann/json_fwd.hpp>)
#error "<llmjson/result.hpp> includes <nlohmann/json.hpp>: include <nlohmann/json_fwd.hpp> instead"
#endif

#include <utility>
#include <vector>

namespace {

llmjson::result<int> failed() {
  llmjson::error e;
  e.kind = llmjson::error_kind::no_match;
  e.message = "1 candidate, none qualifies: 1:1 prose: not an object";
  llmjson::candidate c;
  c.text = "[1]";
  c.valid = true;  // its value would be made where <nlohmann/json.hpp> is included
  c.message = "not an object";
  e.candidates.push_back(c);
  e.candidates.push_back(std::move(c));
  return e;
}

}  // namespace

int main() {
  llmjson::result<int> r = failed();
  llmjson::result<int> copy = r;  // copies the error and its candidates' (null) values
  llmjson::result<int> moved = std::move(copy);
  std::vector<llmjson::result<int>> many(3, moved);
  many.emplace_back(42);
  const llmjson::candidate& c = r.error().candidates.front();
  const bool has_value = c.json != nullptr;
  return (!r && many.back().has_value() && !has_value) ? 0 : 1;
}
