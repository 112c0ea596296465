// llmjson: LLMJSON_DEFINE_TYPE, LLMJSON_DEFINE_ENUM and sorted_schema_of<T>(): golden schemas, and
// the generated schema and decode<T> agreeing on every sample and every single mutation of it
// SPDX-License-Identifier: MIT
#include <llmjson/schema_of.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"
#include "sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/extract.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/select.hpp>

namespace llmjson_tests::schema_of_test {

namespace schema_of_types {

enum class color { red, green, blue };
LLMJSON_DEFINE_ENUM(color, red, green, blue)

enum legacy { alpha = 3, beta = 7 };  // unscoped, values that are not 0, 1
LLMJSON_DEFINE_ENUM(legacy, alpha, beta)

struct ints {
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int16_t i16 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  long l = 0;
  unsigned short us = 0;
};
LLMJSON_DEFINE_TYPE(ints, i8, u8, i16, u16, i32, u32, i64, u64, l, us)

struct scalars {
  bool flag = false;
  float f = 0;
  double d = 0;
  std::string s;
  color c = color::red;
  legacy g = alpha;
};
LLMJSON_DEFINE_TYPE(scalars, (flag, "a yes or no"), f, d, (s, "any text"), (c), g)

struct inner {
  std::string name;
  std::optional<int> count;
};
LLMJSON_DEFINE_TYPE(inner, (name, "who"), (count, "how many, if known"))

struct containers {
  std::vector<int> v;
  std::array<std::int16_t, 3> a{};
  std::map<std::string, double> m;
  std::unordered_map<std::string, inner> um;
  std::vector<std::optional<std::string>> vo;
  std::vector<std::vector<std::uint8_t>> vv;
  std::array<inner, 1> ai{};
  std::vector<bool> vb;
  std::vector<color> vc;
};
LLMJSON_DEFINE_TYPE(containers, v, a, m, um, vo, vv, ai, vb, vc)

struct optionals {
  std::optional<bool> b;
  std::optional<std::uint64_t> u;
  std::optional<float> f;
  std::optional<std::string> s;
  std::optional<color> c;
  std::optional<inner> in;
  std::optional<std::vector<int>> v;
  std::optional<std::array<int, 2>> a;
};
LLMJSON_DEFINE_TYPE(optionals, b, u, f, s, c, in, v, a)

struct node {
  std::string label;
  std::vector<node> children;
};
LLMJSON_DEFINE_TYPE(node, label, children)

struct forest {
  std::vector<node> trees;
  node first;
  std::optional<int> size;
};
LLMJSON_DEFINE_TYPE(forest, trees, first, size)

struct task {
  std::string title;
  color tag = color::red;
  std::optional<std::uint8_t> priority;
};
LLMJSON_DEFINE_TYPE(task, (title, "a few words"), (tag, "the label's color"), priority)

class secret {
 public:
  secret() = default;
  secret(int code, std::string word) : code_(code), word_(std::move(word)) {}
  [[nodiscard]] int code() const { return code_; }
  [[nodiscard]] const std::string& word() const { return word_; }

 private:
  int code_ = 0;
  std::string word_;

 public:
  LLMJSON_DEFINE_TYPE_INTRUSIVE(secret, code_, (word_, "the password"))
};

struct empty {};
LLMJSON_DEFINE_TYPE(empty)

// The most members a declaration takes.
struct wide {
  int m0 = 0, m1 = 1, m2 = 2, m3 = 3, m4 = 4, m5 = 5, m6 = 6, m7 = 7;
  int m8 = 8, m9 = 9, m10 = 10, m11 = 11, m12 = 12, m13 = 13, m14 = 14, m15 = 15;
  int m16 = 16, m17 = 17, m18 = 18, m19 = 19, m20 = 20, m21 = 21, m22 = 22, m23 = 23;
  int m24 = 24, m25 = 25, m26 = 26, m27 = 27, m28 = 28, m29 = 29, m30 = 30, m31 = 31;
  int m32 = 32, m33 = 33, m34 = 34, m35 = 35, m36 = 36, m37 = 37, m38 = 38, m39 = 39;
  int m40 = 40, m41 = 41, m42 = 42, m43 = 43, m44 = 44, m45 = 45, m46 = 46, m47 = 47;
  int m48 = 48, m49 = 49, m50 = 50, m51 = 51, m52 = 52, m53 = 53, m54 = 54, m55 = 55;
  int m56 = 56, m57 = 57, m58 = 58, m59 = 59, m60 = 60, m61 = 61, m62 = 62, m63 = 63;
};
LLMJSON_DEFINE_TYPE(wide, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16,
                    m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31, m32,
                    m33, m34, m35, m36, m37, m38, m39, m40, m41, m42, m43, m44, m45, m46, m47, m48,
                    m49, m50, m51, m52, m53, m54, m55, m56, m57, m58, m59, m60, m61, m62,
                    (m63, "the last"))

}  // namespace schema_of_types

namespace {

using nlohmann::json;
using namespace schema_of_types;
using llmjson::schema_style;

// llmjson::schema_of<T>() read as nlohmann::json, for comparing with golden values whatever the key
// order (the order is checked on its own, in "properties come in declaration order").
template <class T>
json sorted_schema_of(schema_style style = schema_style::draft7) {
  return json(llmjson::schema_of<T>(style));
}

// Returns the reason decode<T> gives for `value` ("" when it passes).
template <class T>
std::string decode_reason(const json& value) {
  const llmjson::verdict v = llmjson::decode<T>{}(value);
  return v.ok ? std::string() : v.message;
}

// Every place in `v`, root first, as JSON Pointers.
void places(const json& v, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) places(it.value(), at / it.key(), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) places(v[i], at / i, out);
  }
}

// Values that each place is replaced with: one of each JSON type, integers at and past every
// width's bounds, as integers and as floats, numbers with a fraction, strings that are and are
// not enum names.
std::vector<json> replacements(const json& current) {
  std::vector<json> out = {nullptr,
                           true,
                           false,
                           0,
                           -1,
                           1,
                           1.5,
                           -0.5,
                           2.0,
                           1e300,
                           -1e300,
                           3.5e38,
                           "",
                           "1",
                           "red",
                           "Red",
                           "purple",
                           json::array(),
                           json::array({1}),
                           json::object(),
                           json{{"label", "x"}, {"children", json::array()}},
                           std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max(),
                           std::numeric_limits<std::uint64_t>::max(),
                           -9223372036854777856.0,  // the double just below -2^63
                           9223372036854775808.0,   // 2^63
                           18446744073709551616.0,  // 2^64
                           1e19};
  for (long long bound : {-128LL, 127LL, 255LL, -32768LL, 32767LL, 65535LL, -2147483648LL,
                          2147483647LL, 4294967295LL}) {
    for (long long d : {-1LL, 0LL, 1LL}) {
      out.emplace_back(bound + d);
      out.emplace_back(static_cast<double>(bound + d));
    }
  }
  // The current value changed a little: one past, a fraction, a float of the same value.
  if (current.is_number_unsigned()) {
    const auto u = current.get<std::uint64_t>();
    out.emplace_back(u == std::numeric_limits<std::uint64_t>::max() ? json(18446744073709551616.0)
                                                                    : json(u + 1));
    if (u > 0) out.emplace_back(u - 1);
    out.emplace_back(static_cast<double>(u) + 0.5);
  } else if (current.is_number_integer()) {
    const auto s = current.get<std::int64_t>();
    out.emplace_back(s == std::numeric_limits<std::int64_t>::min() ? json(-9223372036854777856.0)
                                                                   : json(s - 1));
    out.emplace_back(static_cast<double>(s) - 0.5);
  } else if (current.is_number_float()) {
    const double bigger = current.get<double>() * 1e40;  // JSON has no infinity: keep it finite
    if (std::isfinite(bigger)) out.emplace_back(bigger);
  } else if (current.is_string()) {
    out.emplace_back(current.get<std::string>() + "x");
  }
  return out;
}

// Every single mutation of `v`: each place replaced by each of `replacements`, each key dropped,
// an unknown key added to each object, each array one shorter, one longer and empty.
std::vector<json> mutations(const json& v) {
  std::vector<json::json_pointer> at;
  places(v, json::json_pointer(), at);
  std::vector<json> out;
  for (const auto& p : at) {
    for (const json& r : replacements(v.at(p))) {
      json m = v;
      m[p] = r;
      out.push_back(std::move(m));
    }
    const json& here = v.at(p);
    if (here.is_object()) {
      json m = v;
      m[p]["zz_unknown"] = 1;
      out.push_back(std::move(m));
      for (auto it = here.begin(); it != here.end(); ++it) {
        json d = v;
        d[p].erase(it.key());
        out.push_back(std::move(d));
      }
    } else if (here.is_array()) {
      if (!here.empty()) {
        json shorter = v, longer = v;
        shorter[p].erase(shorter[p].size() - 1);
        longer[p].push_back(here.back());
        out.push_back(std::move(shorter));
        out.push_back(std::move(longer));
      }
      json emptied = v;
      emptied[p] = json::array();
      out.push_back(std::move(emptied));
    }
  }
  return out;
}

struct tally {
  std::size_t accepted = 0, rejected = 0;
};

// Checks that the draft7 schema of T accepts the to_json of each sample (which decodes back to
// the same JSON), and that for every single mutation decode<T> and the schema agree.
template <class T>
tally agrees(const std::vector<T>& samples) {
  const llmjson::schema s(sorted_schema_of<T>());
  tally t;
  for (const T& sample : samples) {
    const json v = sample;
    INFO("sample " << v.dump());
    REQUIRE(s(v).ok);
    REQUIRE(decode_reason<T>(v).empty());
    REQUIRE(json(v.get<T>()) == v);
    const std::vector<json> all = mutations(v);
    for (std::size_t i = 0; i < all.size(); ++i) {
      // LLMJSON_TEST_SWEEP_STEP: a sample's first and last 16 mutations, one in the step between.
      if (i >= 16 && i + 16 < all.size() && !in_sweep(i)) continue;
      const json& m = all[i];
      const llmjson::verdict by_schema = s(m);
      const llmjson::verdict by_decode = llmjson::decode<T>{}(m);
      INFO("mutation " << m.dump() << "\nschema: " << by_schema.message
                       << "\ndecode: " << by_decode.message);
      REQUIRE(by_schema.ok == by_decode.ok);
      ++(by_decode.ok ? t.accepted : t.rejected);
    }
  }
  // A thinned sweep (LLMJSON_TEST_SWEEP_STEP) may skip the few mutations a sample accepts.
  if (sweep_step() == 1) CHECK(t.accepted > 0);
  CHECK(t.rejected > 0);
  return t;
}

// The keywords the openai_strict style must not write.
bool has_banned_keyword(const json& s, std::string& where) {
  static const char* const banned[] = {"minimum",
                                       "maximum",
                                       "exclusiveMinimum",
                                       "exclusiveMaximum",
                                       "minItems",
                                       "maxItems",
                                       "$schema",
                                       "definitions",
                                       "patternProperties",
                                       "uniqueItems",
                                       "minLength",
                                       "maxLength",
                                       "pattern",
                                       "oneOf",
                                       "allOf",
                                       "not",
                                       "if",
                                       "format"};
  if (s.is_array()) {
    for (const auto& e : s)
      if (has_banned_keyword(e, where)) return true;
    return false;
  }
  if (!s.is_object()) return false;
  for (auto it = s.begin(); it != s.end(); ++it) {
    for (const char* b : banned) {
      if (it.key() == b) {
        where = s.dump();
        return true;
      }
    }
    // Under "properties" and "$defs" the keys are names, not keywords.
    if (it.key() == "properties" || it.key() == "$defs") {
      for (const auto& sub : it.value())
        if (has_banned_keyword(sub, where)) return true;
    } else if (has_banned_keyword(it.value(), where)) {
      return true;
    }
  }
  return false;
}

// Checks OpenAI's rules on every object schema in `s`: every property required, and
// additionalProperties false; and that every object schema has both.
void check_strict_objects(const json& s) {
  if (s.is_array()) {
    for (const auto& e : s) check_strict_objects(e);
    return;
  }
  if (!s.is_object()) return;
  if (s.contains("type") && s["type"] == "object") {
    INFO(s.dump());
    REQUIRE(s.contains("properties"));
    REQUIRE(s.value("additionalProperties", json()) == json(false));
    json keys = json::array();
    for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it)
      keys.push_back(it.key());
    json required = s.value("required", json::array());
    std::sort(required.begin(), required.end());
    CHECK(required == keys);
  }
  for (auto it = s.begin(); it != s.end(); ++it) {
    if (it.key() == "properties" || it.key() == "$defs") {
      for (const auto& sub : it.value()) check_strict_objects(sub);
    } else {
      check_strict_objects(it.value());
    }
  }
}

// Checks the openai_strict schema of T: the rules above, no banned keyword, and it accepts
// the to_json of each sample.
template <class T>
void strict_accepts(const std::vector<T>& samples) {
  const json schema = sorted_schema_of<T>(schema_style::openai_strict);
  INFO(schema.dump());
  REQUIRE(schema["type"] == "object");
  std::string where;
  CHECK_FALSE(has_banned_keyword(schema, where));
  INFO("banned keyword in " << where);
  check_strict_objects(schema);
  const llmjson::schema s(schema);
  for (const T& sample : samples) {
    const json v = sample;
    INFO("sample " << v.dump());
    CHECK(s(v).ok);
  }
}

inner make_inner(std::string name, std::optional<int> count) {
  inner i;
  i.name = std::move(name);
  i.count = count;
  return i;
}

std::vector<ints> ints_samples() {
  ints zero, low, high;
  low.i8 = -128;
  low.u8 = 0;
  low.i16 = -32768;
  low.u16 = 0;
  low.i32 = std::numeric_limits<std::int32_t>::min();
  low.u32 = 0;
  low.i64 = std::numeric_limits<std::int64_t>::min();
  low.u64 = 0;
  low.l = std::numeric_limits<long>::min();
  high.i8 = 127;
  high.u8 = 255;
  high.i16 = 32767;
  high.u16 = 65535;
  high.i32 = std::numeric_limits<std::int32_t>::max();
  high.u32 = std::numeric_limits<std::uint32_t>::max();
  high.i64 = std::numeric_limits<std::int64_t>::max();
  high.u64 = std::numeric_limits<std::uint64_t>::max();
  high.l = std::numeric_limits<long>::max();
  high.us = 65535;
  return {zero, low, high};
}

std::vector<scalars> scalars_samples() {
  scalars a, b;
  a.flag = true;
  a.f = std::numeric_limits<float>::max();
  a.d = -1e300;
  a.s = "héllo \"quoted\"";
  a.c = color::blue;
  a.g = beta;
  b.f = -std::numeric_limits<float>::max();
  b.d = 0.25;
  return {a, b};
}

std::vector<containers> containers_samples() {
  containers a, b;
  a.v = {1, -2, 3};
  a.a = {-32768, 0, 32767};
  a.m = {{"pi", 3.14}, {"a/b~c", -1}};
  a.um = {{"k", make_inner("x", 2)}, {"", make_inner("", std::nullopt)}};
  a.vo = {"a", std::nullopt, ""};
  a.vv = {{}, {0, 255}};
  a.ai = {make_inner("only", 0)};
  a.vb = {true, false};
  a.vc = {color::green, color::red};
  b.ai = {make_inner("", std::nullopt)};
  return {a, b};
}

std::vector<optionals> optionals_samples() {
  optionals none, all;
  all.b = false;
  all.u = std::numeric_limits<std::uint64_t>::max();
  all.f = 1.5F;
  all.s = "";
  all.c = color::green;
  all.in = make_inner("in", 7);
  all.v = std::vector<int>{};
  all.a = std::array<int, 2>{1, 2};
  return {none, all};
}

std::vector<node> node_samples() {
  node leaf{"leaf", {}};
  node mid{"mid", {leaf, leaf}};
  return {leaf, node{"root", {mid, node{"other", {}}}}};
}

std::vector<forest> forest_samples() {
  forest f;
  f.trees = node_samples();
  f.first = node{"first", {node{"child", {}}}};
  forest g;
  g.size = -4;
  return {f, g};
}

}  // namespace

TEST_CASE("schema_style: to_string and from_string round-trip", "[schema_of]") {
  STATIC_REQUIRE(enum_names_check::round_trips<schema_style>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<schema_style>());
  STATIC_REQUIRE(to_string(schema_style::openai_strict) == "openai_strict");
}

TEST_CASE("schema_of: golden draft-7 schemas", "[schema_of]") {
  CHECK(sorted_schema_of<task>() == json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
      "title": {"type": "string", "description": "a few words"},
      "tag": {"type": "string", "enum": ["red", "green", "blue"],
              "description": "the label's color"},
      "priority": {"type": ["integer", "null"], "minimum": 0, "maximum": 255}
    },
    "required": ["title", "tag"],
    "additionalProperties": false})"));
  // A recursive root refers to itself as "#".
  CHECK(sorted_schema_of<node>() == json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
      "label": {"type": "string"},
      "children": {"type": "array", "items": {"$ref": "#"}}
    },
    "required": ["label", "children"],
    "additionalProperties": false})"));
  // A recursive member type is written once, under definitions.
  CHECK(sorted_schema_of<forest>() == json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "definitions": {"node": {
      "type": "object",
      "properties": {
        "label": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/definitions/node"}}
      },
      "required": ["label", "children"],
      "additionalProperties": false}},
    "properties": {
      "trees": {"type": "array", "items": {"$ref": "#/definitions/node"}},
      "first": {"$ref": "#/definitions/node"},
      "size": {"type": ["integer", "null"], "minimum": -2147483648, "maximum": 2147483647}
    },
    "required": ["trees", "first"],
    "additionalProperties": false})"));
  CHECK(sorted_schema_of<empty>() == json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object", "properties": {}, "additionalProperties": false})"));
  // Not only structs: any supported type.
  CHECK(sorted_schema_of<std::vector<std::optional<std::array<std::uint64_t, 2>>>>() ==
        json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "array",
    "items": {"anyOf": [
      {"type": "array", "minItems": 2, "maxItems": 2,
       "items": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615}},
      {"type": "null"}]}})"));
  CHECK(sorted_schema_of<std::map<std::string, color>>() == json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "additionalProperties": {"type": "string", "enum": ["red", "green", "blue"]}})"));
  const json f = sorted_schema_of<scalars>()["properties"]["f"];
  CHECK(f == json::parse(R"({"type": "number", "minimum": -3.4028234663852886e+38,
                                               "maximum": 3.4028234663852886e+38})"));
  CHECK(sorted_schema_of<scalars>()["properties"]["d"] == json::parse(R"({"type": "number"})"));
  CHECK(sorted_schema_of<ints>()["properties"]["i64"] ==
        json::parse(R"({"type": "integer", "minimum": -9223372036854775808,
                        "maximum": 9223372036854775807})"));
  CHECK(sorted_schema_of<secret>()["properties"]["word_"]["description"] == "the password");
  CHECK(sorted_schema_of<wide>()["required"].size() == 64);
  CHECK(sorted_schema_of<wide>()["properties"]["m63"]["description"] == "the last");
}

TEST_CASE("schema_of: properties come in declaration order", "[schema_of]") {
  // Under structured outputs a model writes the keys in the schema's order: the declaration's
  // (here not the alphabetical one: priority, tag, title).
  auto keys = [](const nlohmann::ordered_json& object) {
    std::vector<std::string> out;
    for (const auto& [key, value] : object.items()) out.push_back(key);
    return out;
  };
  const std::vector<std::string> declared = {"title", "tag", "priority"};
  const nlohmann::ordered_json draft7 = llmjson::schema_of<task>();
  CHECK(keys(draft7["properties"]) == declared);
  CHECK(keys(draft7).front() == "$schema");
  CHECK(draft7["required"] == nlohmann::ordered_json::array({"title", "tag"}));
  const nlohmann::ordered_json strict = llmjson::schema_of<task>(schema_style::openai_strict);
  CHECK(keys(strict["properties"]) == declared);
  CHECK(strict["required"] == nlohmann::ordered_json::array({"title", "tag", "priority"}));
  const std::string sent = llmjson::openai_response_format<task>().dump();
  CHECK(sent.find("\"title\"") < sent.find("\"tag\""));
  CHECK(sent.find("\"tag\"") < sent.find("\"priority\""));
  // Read as nlohmann::json (sorted keys), it is the same schema.
  CHECK(json(draft7) == sorted_schema_of<task>());
}

TEST_CASE("schema_of: golden openai_strict schema and response_format", "[schema_of]") {
  CHECK(sorted_schema_of<forest>(schema_style::openai_strict) == json::parse(R"({
    "type": "object",
    "$defs": {"node": {
      "type": "object",
      "properties": {
        "label": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
      },
      "required": ["label", "children"],
      "additionalProperties": false}},
    "properties": {
      "trees": {"type": "array", "items": {"$ref": "#/$defs/node"}},
      "first": {"$ref": "#/$defs/node"},
      "size": {"type": ["integer", "null"]}
    },
    "required": ["trees", "first", "size"],
    "additionalProperties": false})"));
  CHECK(json(llmjson::openai_response_format<task>()) == json::parse(R"({
    "type": "json_schema",
    "json_schema": {"name": "task", "strict": true, "schema": {
      "type": "object",
      "properties": {
        "title": {"type": "string", "description": "a few words"},
        "tag": {"type": "string", "enum": ["red", "green", "blue"],
                "description": "the label's color"},
        "priority": {"type": ["integer", "null"]}
      },
      "required": ["title", "tag", "priority"],
      "additionalProperties": false}}})"));
  CHECK(llmjson::openai_response_format<task>("my-task_2")["json_schema"]["name"] == "my-task_2");
  CHECK_THROWS_AS(llmjson::openai_response_format<task>("my task"), std::invalid_argument);
  CHECK_THROWS_AS(llmjson::openai_response_format<task>(std::string(65, 'a')),
                  std::invalid_argument);
  CHECK(llmjson::detail::schema_name("ns::plan<int>") == "ns__plan_int_");
}

TEST_CASE("schema_of: openai_strict refuses maps and a root that is not a struct", "[schema_of]") {
  try {
    (void)sorted_schema_of<containers>(schema_style::openai_strict);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "llmjson::schema_of<containers>(schema_style::openai_strict): containers.m is a map "
          "(an object with any keys), which OpenAI's strict mode cannot express: it requires "
          "\"additionalProperties\": false on every object. Use a std::vector of a struct with a "
          "key member, or schema_style::draft7");
  }
  CHECK_THROWS_AS(sorted_schema_of<std::vector<task>>(schema_style::openai_strict),
                  std::invalid_argument);
  CHECK_THROWS_AS(sorted_schema_of<int>(schema_style::openai_strict), std::invalid_argument);
}

TEST_CASE("schema_of: the draft-7 schema and decode<T> agree on every mutation", "[schema_of]") {
  // Each call checks its samples and every single mutation of them, both directions.
  const tally counts[] = {agrees(ints_samples()),
                          agrees(scalars_samples()),
                          agrees(containers_samples()),
                          agrees(optionals_samples()),
                          agrees(node_samples()),
                          agrees(forest_samples()),
                          agrees(std::vector<task>{task{"t", color::green, 3}, task{}}),
                          agrees(std::vector<secret>{secret(-5, "pw"), secret()}),
                          agrees(std::vector<empty>{empty{}}),
                          agrees(std::vector<wide>{wide{}})};
  std::size_t total = 0;
  for (const tally& t : counts) total += t.accepted + t.rejected;
  CHECK(total * sweep_step() > 10000);
  // Not only structs at the root: a vector of declared enums decodes through nlohmann's vector
  // and the enum's strict from_json (a vector of int would not: nlohmann's own get<int> is lax).
  agrees(std::vector<std::vector<color>>{{color::red, color::blue}, {}});
}

TEST_CASE("schema_of: the openai_strict schema accepts every sample, null optionals included",
          "[schema_of]") {
  strict_accepts(ints_samples());
  strict_accepts(scalars_samples());
  strict_accepts(optionals_samples());
  strict_accepts(node_samples());
  strict_accepts(forest_samples());
  strict_accepts(std::vector<task>{task{"t", color::green, 3}, task{}});
  strict_accepts(std::vector<secret>{secret(1, "x")});
  strict_accepts(std::vector<empty>{empty{}});
  strict_accepts(std::vector<wide>{wide{}});
  // It is stricter than decode<T>: an absent optional is missing, but the decoding takes it.
  const llmjson::schema s(sorted_schema_of<task>(schema_style::openai_strict));
  const json no_priority = {{"title", "t"}, {"tag", "red"}};
  CHECK_FALSE(s(no_priority).ok);
  CHECK(decode_reason<task>(no_priority).empty());
  // And looser: no ranges. The decoding still checks them after the reply.
  const json too_big = {{"title", "t"}, {"tag", "red"}, {"priority", 300}};
  CHECK(s(too_big).ok);
  CHECK(decode_reason<task>(too_big) == "/priority: expected an integer in [0, 255], got 300");
}

TEST_CASE("LLMJSON_DEFINE_TYPE: from_json's reasons name the place and what was expected",
          "[schema_of]") {
  CHECK(decode_reason<inner>(json::parse(R"({"name": "a", "count": 1.5})")) ==
        "/count: expected an integer in [-2147483648, 2147483647], got 1.5");
  CHECK(decode_reason<inner>(json::parse(R"({"name": "a", "count": "5"})")) ==
        "/count: expected an integer in [-2147483648, 2147483647], got string \"5\"");
  CHECK(decode_reason<inner>(json::parse(R"({"name": true})")) ==
        "/name: expected a string, got true");
  CHECK(decode_reason<inner>(json::parse(R"({"nme": "a"})")) ==
        "missing key \"name\" (beside the unknown key \"nme\")");
  CHECK(decode_reason<inner>(json::parse(R"({"count": 1})")) == "missing key \"name\"");
  CHECK(decode_reason<inner>(json::parse(R"({"name": "a", "extra": 1})")) ==
        "unknown key \"extra\"");
  CHECK(decode_reason<inner>(json::parse(R"([1])")) == "expected an object, got array");
  CHECK(decode_reason<forest>(json::parse(
            R"({"trees": [{"label": "a", "children": [{"label": "b", "children": {}}]}],
                "first": {"label": "c", "children": []}})")) ==
        "/trees/0/children/0/children: expected an array, got object");
  CHECK(decode_reason<containers>(json::parse(
            R"({"v": [], "a": [1, 2], "m": {}, "um": {}, "vo": [], "vv": [], "ai": [{"name": ""}],
                "vb": [], "vc": []})")) == "/a: expected an array of exactly 3 items, got 2");
  CHECK(decode_reason<containers>(json::parse(
            R"({"v": [], "a": [1, 2, 3], "m": {"x/y": "1"}, "um": {}, "vo": [], "vv": [],
                "ai": [{"name": ""}], "vb": [], "vc": []})")) ==
        "/m/x~1y: expected a number, got string \"1\"");
  CHECK(decode_reason<scalars>(
            json::parse(R"({"flag": 1, "f": 0, "d": 0, "s": "", "c": "red", "g": "alpha"})")) ==
        "/flag: expected a boolean, got 1");
  CHECK(decode_reason<scalars>(json::parse(
            R"({"flag": true, "f": 1e39, "d": 0, "s": "", "c": "red", "g": "alpha"})")) ==
        "/f: expected a number in [-3.4028234663852886e+38, 3.4028234663852886e+38] (the range "
        "of float), got 1e+39");
  CHECK(decode_reason<scalars>(
            json::parse(R"({"flag": true, "f": 0, "d": 0, "s": "", "c": "Red", "g": "alpha"})")) ==
        "/c: expected one of \"red\", \"green\", \"blue\", got string \"Red\"");
  CHECK(decode_reason<scalars>(
            json::parse(R"({"flag": true, "f": 0, "d": 0, "s": "", "c": "red", "g": 3})")) ==
        "/g: expected one of \"alpha\", \"beta\", got 3");
  CHECK(decode_reason<ints>(json::parse(R"({"i8": 0, "u8": 0, "i16": 0, "u16": 0, "i32": 0,
        "u32": 0, "i64": 0, "u64": -1, "l": 0, "us": 0})")) ==
        "/u64: expected an integer in [0, 18446744073709551615], got -1");
  // A long string is shortened in the reason.
  const json long_text = {{"name", "n"}, {"count", std::string(100, 'y')}};
  CHECK(decode_reason<inner>(long_text) ==
        "/count: expected an integer in [-2147483648, 2147483647], got string \"" +
            std::string(40, 'y') + "\"...");
  // Invalid UTF-8 (only in a value built in code) is shown replaced, not thrown on.
  CHECK(decode_reason<inner>(json{{"name", "a"}, {"\xff", 1}}) == "unknown key \"\xef\xbf\xbd\"");
  // The exception types: type_error for a wrong JSON type, out_of_range otherwise.
  CHECK_THROWS_AS(json::parse(R"({"name": 1})").get<inner>(), json::type_error);
  CHECK_THROWS_AS(json::parse(R"({"name": "a", "count": 1.5})").get<inner>(), json::out_of_range);
  CHECK_THROWS_AS(json::parse(R"({})").get<inner>(), json::out_of_range);
}

TEST_CASE("LLMJSON_DEFINE_TYPE: integers are exact at every width's bounds", "[schema_of]") {
  // 3.0 and 3e2 are integers (JSON Schema's "integer"); the float 2^63 is past int64's range.
  json v = ints_samples()[0];
  v["i8"] = 3.0;
  v["u16"] = json::parse("3e2");
  v["u64"] = 1e19;
  const ints decoded = v.get<ints>();
  CHECK(decoded.i8 == 3);
  CHECK(decoded.u16 == 300);
  CHECK(decoded.u64 == 10000000000000000000ULL);
  v["i64"] = 9223372036854775808.0;
  CHECK(decode_reason<ints>(v) ==
        "/i64: expected an integer in [-9223372036854775808, 9223372036854775807], got "
        "9.223372036854776e+18");
  v["i64"] = -9223372036854775808.0;  // -2^63 itself
  CHECK(decode_reason<ints>(v).empty());
}

TEST_CASE("LLMJSON_DEFINE_TYPE: to_json writes null optionals, and refuses what JSON lacks",
          "[schema_of]") {
  CHECK(json(optionals{}) == json::parse(R"({"b": null, "u": null, "f": null, "s": null,
                                              "c": null, "in": null, "v": null, "a": null})"));
  CHECK(json(secret(4, "w")) == json::parse(R"({"code_": 4, "word_": "w"})"));
  const secret s = json::parse(R"({"code_": 9, "word_": "z"})").get<secret>();
  CHECK(s.code() == 9);
  CHECK(s.word() == "z");
  scalars nan;
  nan.d = std::nan("");
  CHECK_THROWS_AS(json(nan), json::out_of_range);
  try {
    scalars bad;
    bad.c = static_cast<color>(9);
    (void)json(bad);
    FAIL("no exception");
  } catch (const json::out_of_range& e) {
    CHECK(std::string(e.what()).find("/c: the value 9 of enum color has no name in its "
                                     "LLMJSON_DEFINE_ENUM") != std::string::npos);
  }
}

TEST_CASE("LLMJSON_DEFINE_ENUM: strict both ways", "[schema_of]") {
  CHECK(json(color::green) == "green");
  CHECK(json(beta) == "beta");
  CHECK(json("blue").get<color>() == color::blue);
  CHECK(json("beta").get<legacy>() == beta);
  CHECK_THROWS_AS(json("purple").get<color>(), json::out_of_range);
  CHECK_THROWS_AS(json(1).get<color>(), json::type_error);
  CHECK_THROWS_AS(json(nullptr).get<legacy>(), json::type_error);
  CHECK_THROWS_AS(json(static_cast<legacy>(4)), json::out_of_range);
}

TEST_CASE("schema_of: extract<T> and the schema selector pick the same answer", "[schema_of]") {
  const std::string text = R"(Draft: {"title": "tea", "tag": "purple"}
Final: {"title": "tea", "tag": "green", "priority": 2})";
  const auto typed = llmjson::extract<task>(text);
  REQUIRE(typed);
  CHECK(typed->title == "tea");
  CHECK(typed->priority == 2);
  const auto by_schema = llmjson::extract(text, llmjson::schema(sorted_schema_of<task>()));
  REQUIRE(by_schema);
  CHECK(by_schema->json() == json(*typed));
}

}  // namespace llmjson_tests::schema_of_test
