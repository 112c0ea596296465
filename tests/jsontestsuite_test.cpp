// llmjson: JSONTestSuite's parsing files (tests/fuzz/seeds/, MIT, their licence beside them)
// SPDX-License-Identifier: MIT
#include <llmjson/candidate.hpp>
#include <llmjson/scan.hpp>

#include "catch_compat.hpp"
#include "read_file.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#ifndef LLMJSON_JSONTESTSUITE_DIR
#error "LLMJSON_JSONTESTSUITE_DIR must name the folder of JSONTestSuite's test_parsing files"
#endif

namespace llmjson_tests::jsontestsuite_test {

namespace {

using llmjson_tests::read_file;

// The files whose name starts with `prefix` (`y_`, `n_`, `i_`), sorted.
std::vector<std::filesystem::path> files(std::string_view prefix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_JSONTESTSUITE_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 5 && name.starts_with(prefix) && name.ends_with(".json"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The text without one leading BOM and without JSON white space around it.
std::string_view trimmed(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const auto first = text.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n\r") - first + 1);
}

// The number of valid candidates that are the whole text.
std::size_t whole_valid(const std::string& text) {
  const auto scan = llmjson::candidates(text);
  return static_cast<std::size_t>(
      std::count_if(scan.candidates.begin(), scan.candidates.end(), [&](const auto& c) {
        return c.valid && c.source == llmjson::source::whole && c.text == trimmed(text);
      }));
}

}  // namespace

// Every y_ file but the two with a key twice: llmjson's valid JSON has unique keys (the README).
TEST_CASE("JSONTestSuite: every y_ file is valid as a whole, but for duplicate keys",
          "[jsontestsuite]") {
  const std::set<std::string> duplicate_keys = {"y_object_duplicated_key.json",
                                                "y_object_duplicated_key_and_value.json"};
  const auto ys = files("y_");
  REQUIRE(ys.size() == 95);
  for (const auto& p : ys) {
    const std::string name = p.filename().string();
    INFO(name);
    CHECK(whole_valid(read_file(p)) == (duplicate_keys.count(name) ? 0u : 1u));
  }
}

TEST_CASE("JSONTestSuite: no n_ file is valid JSON as a whole", "[jsontestsuite]") {
  const auto ns = files("n_");
  REQUIRE(ns.size() == 188);
  for (const auto& p : ns) {
    INFO(p.filename().string());
    CHECK(whole_valid(read_file(p)) == 0);
  }
}

// The README's rules decide: RFC 8259's grammar, numbers a double can hold (integers beyond 64
// bits become doubles, an underflow is 0), strings in valid UTF-8 without unpaired \u surrogates,
// one leading BOM removed, at most 512 levels of nesting.
TEST_CASE("JSONTestSuite: i_ files, valid exactly when the README's rules say so",
          "[jsontestsuite]") {
  const std::set<std::string> valid = {
      "i_number_double_huge_neg_exp.json",       "i_number_real_underflow.json",
      "i_number_too_big_neg_int.json",           "i_number_too_big_pos_int.json",
      "i_number_very_big_negative_int.json",     "i_structure_500_nested_arrays.json",
      "i_structure_UTF-8_BOM_empty_object.json",
  };
  const auto is = files("i_");
  REQUIRE(is.size() == 35);
  for (const auto& p : is) {
    const std::string name = p.filename().string();
    INFO(name);
    CHECK(whole_valid(read_file(p)) == (valid.count(name) ? 1u : 0u));
  }
}

}  // namespace llmjson_tests::jsontestsuite_test
