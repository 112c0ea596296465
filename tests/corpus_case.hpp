// llmjson: the options a corpus case states (tests/corpus/README.md §7), for the tests that run it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_CORPUS_CASE_HPP_INCLUDED
#define LLMJSON_TESTS_CORPUS_CASE_HPP_INCLUDED

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include <llmjson/enum_names.hpp>
#include <llmjson/options.hpp>

namespace llmjson_tests {

/// The options of a case's expectation (`NAME.expect.json`): its `policy` (`first`, `unique` or
/// `last`; another name throws `std::invalid_argument`) and its `prefill`, if any.
inline llmjson::options corpus_options(const nlohmann::json& spec) {
  llmjson::options opts;
  const std::string& name = spec.at("policy").get_ref<const std::string&>();
  const auto policy = llmjson::from_string<llmjson::policy>(name);
  if (!policy) throw std::invalid_argument("a corpus case's policy is unknown: " + name);
  opts.policy = *policy;
  opts.prefill = spec.value("prefill", std::string());
  return opts;
}

}  // namespace llmjson_tests

#endif  // LLMJSON_TESTS_CORPUS_CASE_HPP_INCLUDED
