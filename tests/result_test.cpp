// llmjson: result<T> holds a value or an error, with std::expected's member names
// SPDX-License-Identifier: MIT
#include <llmjson/result.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"

#include <string>

TEST_CASE("a result with a value", "[result]") {
  llmjson::result<int> r = 42;
  CHECK(r.has_value());
  CHECK(static_cast<bool>(r));
  CHECK(*r == 42);
  CHECK(r.value() == 42);
  CHECK(r.value_or(7) == 42);
}

TEST_CASE("a result with an error: value() throws bad_result_access carrying it", "[result]") {
  llmjson::error e;
  e.kind = llmjson::error_kind::ambiguous;
  e.message = "2 candidates qualify";
  llmjson::result<std::string> r = e;
  CHECK_FALSE(r.has_value());
  CHECK(r.error().kind == llmjson::error_kind::ambiguous);
  CHECK(r.value_or("none") == "none");
  try {
    (void)r.value();
    FAIL("value() did not throw");
  } catch (const llmjson::bad_result_access& ex) {
    CHECK(ex.error().message == "2 candidates qualify");
    CHECK(std::string(ex.what()).find("error") != std::string::npos);
  }
}

TEST_CASE("error kinds have stable names that parse back", "[result]") {
  using k = llmjson::error_kind;
  STATIC_REQUIRE(enum_names_check::round_trips<k>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<k>());
  STATIC_REQUIRE(llmjson::to_string(k::no_json) == "no_json");
  STATIC_REQUIRE(llmjson::from_string<k>("too_large") == k::too_large);
  STATIC_REQUIRE_FALSE(llmjson::from_string<k>("unknown").has_value());
  for (auto kind : {k::empty, k::no_json, k::truncated, k::no_match, k::ambiguous, k::too_large})
    CHECK(llmjson::from_string<k>(llmjson::to_string(kind)) == kind);
}

TEST_CASE("arrow and moves reach the value", "[result]") {
  llmjson::result<std::string> r = std::string("abc");
  CHECK(r->size() == 3);
  std::string moved = *std::move(r);
  CHECK(moved == "abc");
}
