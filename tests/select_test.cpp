// llmjson: selectors: any_object, any_key, the strict decode<T>, and callables
// SPDX-License-Identifier: MIT
#include <llmjson/select.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace llmjson_tests::select_test {

namespace {

using json = nlohmann::json;

struct step {
  std::string station;
  std::string action;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(step, station, action)

struct plan {
  std::vector<step> orders;
  int eta = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, orders, eta)

struct decode_only {
  int a = 0;
};
void from_json(const json& j, decode_only& d) { j.at("a").get_to(d.a); }

}  // namespace

TEST_CASE("any_object qualifies objects only", "[select]") {
  llmjson::any_object sel;
  CHECK(sel(json::object()).ok);
  CHECK(sel(json::parse("[1]")).message == "not an object (array)");
}

TEST_CASE("any_key: at least one of the top-level keys, compared after unescaping", "[select]") {
  llmjson::any_key sel{"orders", "helm"};
  CHECK(sel(json::parse(R"({"helm": 1})")).ok);
  CHECK(sel(json::parse(R"({"\u006frders": []})")).ok);
  CHECK_FALSE(sel(json::parse(R"({"x": {"orders": 1}})")).ok);  // top level only
  CHECK(sel(json::parse(R"({"x": 1})")).message == R"(has none of the keys "orders", "helm")");
  CHECK(sel(json::parse(R"("orders")")).message == "not an object (string)");
  const std::vector<std::string> owned{"a"};
  CHECK(llmjson::any_key(owned)(json::parse(R"({"a": 0})")).ok);
}

TEST_CASE("decode<T> qualifies what decodes to a T with no unknown key", "[select]") {
  llmjson::decode<plan> sel;
  CHECK(sel(json::parse(R"({"orders": [{"station": "helm", "action": "turn"}], "eta": 4})")).ok);
  CHECK(sel(json::parse(R"({"eta": 4})")).message == R"(missing key "orders")");
  CHECK(sel(json::parse(R"({"orders": [], "eta": "soon"})")).message ==
        "type must be number, but is string");
  CHECK(sel(json::parse(R"({"orders": [], "eta": 1, "draft": true})")).message ==
        R"(unknown key "draft")");
  // Unknown keys are found at any depth, in arrays of structs too.
  CHECK(
      sel(json::parse(
              R"({"orders": [{"station": "a", "action": "b"}, {"station": "c", "action": "d", "eta_min": 3}], "eta": 1})"))
          .message == R"(/orders/1: unknown key "eta_min")");
  // A null under a key the encoding lacks is an absent optional, not an unknown key.
  CHECK(sel(json::parse(R"({"orders": [], "eta": 1, "note": null})")).ok);
  CHECK(llmjson::decode<plan>::default_policy == llmjson::policy::unique);
}

TEST_CASE("decode<T> runs the caller's check on the decoded value", "[select]") {
  const std::string want = "helm";
  llmjson::decode<step> sel{[&](const step& s) {
    return s.station == want ? llmjson::verdict::pass()
                             : llmjson::verdict::fail("station: expected \"" + want + "\", got \"" +
                                                      s.station + "\"");
  }};
  CHECK(sel(json::parse(R"({"station": "helm", "action": "x"})")).ok);
  CHECK(sel(json::parse(R"({"station": "tac", "action": "x"})")).message ==
        R"(station: expected "helm", got "tac")");
  llmjson::decode<step> by_bool{[](const step& s) { return !s.action.empty(); }};
  CHECK(by_bool(json::parse(R"({"station": "a", "action": ""})")).message ==
        "rejected by the check");
}

TEST_CASE("decode<T> without to_json is a build error unless unknown keys are allowed",
          "[select]") {
  using llmjson::unknown_keys;
  // The strict decoder is refused at compile time (tests/compile_fail.cpp has the message).
  STATIC_REQUIRE_FALSE(llmjson::detail::decodable<decode_only, unknown_keys::reject>);
  STATIC_REQUIRE(llmjson::detail::decodable<decode_only, unknown_keys::allow>);
  STATIC_REQUIRE(llmjson::detail::decodable<plan, unknown_keys::reject>);
  // allow_unknown_keys() makes the lax decoder, its check included; the strict one is unchanged.
  const llmjson::decode<decode_only> strict{[](const decode_only& d) { return d.a > 0; }};
  llmjson::decode<decode_only, unknown_keys::allow> lax = strict.allow_unknown_keys();
  CHECK(lax(json::parse(R"({"a": 1, "b": 2})")).ok);
  CHECK(lax(json::parse(R"({"a": 0})")).message == "rejected by the check");
  CHECK(lax.get(json::parse(R"({"a": 7})")).a == 7);
  auto lax_step = llmjson::decode<step>{}.allow_unknown_keys();
  CHECK(lax_step(json::parse(R"({"station": "a", "action": "b", "draft": 1})")).ok);
  STATIC_REQUIRE(llmjson::Selector<decltype(lax)>);
  STATIC_REQUIRE(decltype(lax)::default_policy == llmjson::policy::unique);
}

TEST_CASE("what decode<T> needs is found in containers, pairs and tuples too", "[select]") {
  using llmjson::detail::json_decodes;
  using llmjson::detail::json_encodes;
  struct none {};
  // nlohmann declares get<T>() for these whatever the element; llmjson looks inside.
  STATIC_REQUIRE_FALSE(json_decodes<none>::value);
  STATIC_REQUIRE_FALSE(json_decodes<std::map<std::string, none>>::value);
  STATIC_REQUIRE_FALSE(json_decodes<std::pair<int, none>>::value);
  STATIC_REQUIRE_FALSE(json_decodes<std::tuple<int, none>>::value);
  STATIC_REQUIRE_FALSE(json_decodes<std::vector<std::map<std::string, none>>>::value);
  STATIC_REQUIRE_FALSE(json_encodes<std::map<std::string, none>>::value);
  STATIC_REQUIRE(json_decodes<std::map<std::string, plan>>::value);
  STATIC_REQUIRE(json_decodes<std::vector<std::pair<int, step>>>::value);
  STATIC_REQUIRE(json_encodes<std::vector<std::pair<int, step>>>::value);
  STATIC_REQUIRE(json_decodes<std::vector<decode_only>>::value);
  STATIC_REQUIRE_FALSE(json_encodes<std::vector<decode_only>>::value);
  STATIC_REQUIRE(json_decodes<json>::value);
  STATIC_REQUIRE(json_encodes<json>::value);
  STATIC_REQUIRE(json_decodes<std::string>::value);
}

TEST_CASE("judge: bool selectors, nlohmann exceptions become reasons, others propagate",
          "[select]") {
  auto by_bool = [](const json& v) { return v.contains("x"); };
  CHECK(llmjson::detail::judge(by_bool, json::parse(R"({"x": 1})")).ok);
  CHECK(llmjson::detail::judge(by_bool, json::parse(R"({"y": 1})")).message ==
        "rejected by the selector");
  auto at = [](const json& v) { return v.at("needed").get<int>() > 0; };
  CHECK(llmjson::detail::judge(at, json::parse(R"({"y": 1})")).message ==
        R"(missing key "needed")");
  auto throws = [](const json&) -> bool { throw std::runtime_error("mine"); };
  CHECK_THROWS_AS(llmjson::detail::judge(throws, json::object()), std::runtime_error);
  static_assert(llmjson::Selector<decltype(by_bool)>);
  static_assert(llmjson::Selector<llmjson::any_key>);
  static_assert(llmjson::Selector<llmjson::decode<plan>>);
  static_assert(!llmjson::Selector<int>);
}

TEST_CASE("policies and output starts have names that parse back", "[select]") {
  using llmjson::output_start;
  using llmjson::policy;
  STATIC_REQUIRE(enum_names_check::round_trips<policy>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<policy>());
  STATIC_REQUIRE(llmjson::from_string<policy>("unique") == policy::unique);
  STATIC_REQUIRE_FALSE(llmjson::from_string<policy>("unknown").has_value());
  STATIC_REQUIRE(enum_names_check::round_trips<output_start>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<output_start>());
  // `unknown` is an enumerator here, the default, not the fallback name of a value out of range.
  STATIC_REQUIRE(llmjson::from_string<output_start>("unknown") == output_start::unknown);
  STATIC_REQUIRE_FALSE(llmjson::from_string<output_start>("auto").has_value());
}

TEST_CASE("unknown_keys has names that parse back, as every public enum does", "[select]") {
  using llmjson::unknown_keys;
  STATIC_REQUIRE(enum_names_check::round_trips<unknown_keys>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<unknown_keys>());
  STATIC_REQUIRE(llmjson::to_string(unknown_keys::allow) == "allow");
  STATIC_REQUIRE(llmjson::from_string<unknown_keys>("reject") == unknown_keys::reject);
}

}  // namespace llmjson_tests::select_test
