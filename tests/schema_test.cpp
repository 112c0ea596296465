// llmjson: tests of llmjson::schema: reasons, compile errors, hostile schemas and patterns
// SPDX-License-Identifier: MIT
#include <llmjson/schema.hpp>

#include "catch_compat.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema/compiler.hpp>
#include <llmjson/detail/schema/evaluator.hpp>
#include <llmjson/detail/schema/messages.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/tree.hpp>
#include <llmjson/extract.hpp>

namespace llmjson_tests::schema_test {

namespace {

using nlohmann::json;

llmjson::schema compiled(const char* text) {
  auto r = llmjson::schema::compile(json::parse(text));
  INFO("compile error: " << (r ? std::string() : r.error()));
  REQUIRE(r);
  return *r;
}

// Returns the reason `schema` gives for `value` ("" when it passes).
std::string reason(const char* schema, const char* value) {
  const llmjson::verdict v = compiled(schema)(json::parse(value));
  if (v.ok) CHECK(v.message.empty());
  if (!v.ok) CHECK_FALSE(v.message.empty());
  return v.ok ? std::string() : v.message;
}

// Returns the compile error for `schema` ("" when it compiles).
std::string compile_error(const json& schema) {
  auto r = llmjson::schema::compile(schema);
  return r ? std::string() : r.error();
}

bool search(const char* pattern, const std::string& text) {
  std::string error;
  auto re = llmjson::detail::regex::compile(pattern, error);
  INFO("pattern " << pattern << ": " << error);
  REQUIRE(re);
  return re->search(text);
}

std::string regex_error(const char* pattern) {
  std::string error;
  auto re = llmjson::detail::regex::compile(pattern, error);
  CHECK_FALSE(re);
  return error;
}

}  // namespace

TEST_CASE("the issue's three reasons, word for word", "[schema]") {
  CHECK(reason(R"({"properties": {"thread_id": {"const": "t-42"}}})", R"({"thread_id": "t-41"})") ==
        R"(/thread_id: const: expected "t-42")");
  CHECK(reason(R"({"properties": {"a": {}}, "additionalProperties": false})",
               R"({"a": 1, "draft": {}})") == R"(/: additionalProperties: unexpected key "draft")");
  CHECK(reason(
            R"({"properties": {"steps": {"items": {"properties": {"eta": {"type": "integer"}}}}}})",
            R"({"steps": [{}, {"eta": 1}, {"eta": "soon"}]})") ==
        "/steps/2/eta: type: expected integer, got string");
  CHECK(reason(R"({"required": ["orders"]})", "{}") == R"(/: required: missing key "orders")");
}

TEST_CASE("each keyword names itself and what it expected", "[schema]") {
  CHECK(reason(R"({"type": ["string", "null"]})", "1") ==
        "/: type: expected one of null, string, got integer");
  CHECK(reason(R"({"type": "integer"})", "1.5") == "/: type: expected integer, got number");
  CHECK(reason(R"({"type": "integer"})", "1.0").empty());  // draft 7: 1.0 is an integer
  CHECK(reason(R"({"enum": ["a", 1]})", "true") == R"(/: enum: expected one of ["a",1])");
  CHECK(reason(R"({"enum": [1]})", "1.0").empty());
  CHECK(reason(R"({"const": false})", "0") == "/: const: expected false");
  CHECK(reason(R"({"minimum": 5})", "3") == "/: minimum: expected at least 5, got 3");
  CHECK(reason(R"({"maximum": 5})", "7.5") == "/: maximum: expected at most 5, got 7.5");
  CHECK(reason(R"({"exclusiveMinimum": 5})", "5") ==
        "/: exclusiveMinimum: expected more than 5, got 5");
  CHECK(reason(R"({"exclusiveMaximum": 5})", "5") ==
        "/: exclusiveMaximum: expected less than 5, got 5");
  CHECK(reason(R"({"multipleOf": 2})", "7") == "/: multipleOf: expected a multiple of 2, got 7");
  CHECK(reason(R"({"multipleOf": 0.01})", "0.29").empty());
  CHECK(reason(R"({"minLength": 2})", R"("é")") ==
        "/: minLength: expected at least 2 characters, got 1");
  CHECK(reason(R"({"maxLength": 1})", R"("ab")") ==
        "/: maxLength: expected at most 1 character, got 2");
  CHECK(reason(R"({"pattern": "^t-[0-9]+$"})", R"("t-x")") ==
        R"(/: pattern: expected to match "^t-[0-9]+$")");
  CHECK(reason(R"({"minItems": 1})", "[]") == "/: minItems: expected at least 1 item, got 0");
  CHECK(reason(R"({"maxItems": 1})", "[1, 2]") == "/: maxItems: expected at most 1 item, got 2");
  CHECK(reason(R"({"uniqueItems": true})", "[1, 2, 1.0]") ==
        "/: uniqueItems: items 0 and 2 are equal");
  CHECK(reason(R"({"items": [{}, {}], "additionalItems": false})", "[1, 2, 3]") ==
        "/: additionalItems: expected at most 2 items, got 3");
  CHECK(reason(R"({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}})",
               R"(["a", 1, "b"])") == "/2: type: expected integer, got string");
  CHECK(reason(R"({"contains": {"const": 3}})", "[1, 2]") == "/: contains: no item matches");
  CHECK(reason(R"({"minProperties": 1})", "{}") ==
        "/: minProperties: expected at least 1 property, got 0");
  CHECK(reason(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})") ==
        "/: maxProperties: expected at most 1 property, got 2");
  CHECK(reason(R"({"patternProperties": {"^x-": {"type": "string"}}})", R"({"x-a": 1})") ==
        "/x-a: type: expected string, got integer");
  CHECK(reason(R"({"patternProperties": {"^x-": {}}, "additionalProperties": false})",
               R"({"x-a": 1, "y": 2})") == R"(/: additionalProperties: unexpected key "y")");
  CHECK(reason(R"({"additionalProperties": {"type": "integer"}})", R"({"a/b": "no"})") ==
        "/a~1b: type: expected integer, got string");
  CHECK(reason(R"({"propertyNames": {"maxLength": 3}})", R"({"long": 1})") ==
        R"(/: propertyNames: key "long": maxLength: expected at most 3 characters, got 4)");
  CHECK(reason(R"({"dependencies": {"card": ["billing"]}})", R"({"card": 1})") ==
        R"(/: dependencies: key "card" requires key "billing")");
  CHECK(reason(R"({"dependencies": {"card": {"required": ["cvv"]}}})", R"({"card": 1})") ==
        R"(/: required: missing key "cvv")");
  CHECK(reason(R"({"allOf": [{"type": "object"}, {"required": ["a"]}]})", "{}") ==
        R"(/: required: missing key "a")");
  CHECK(reason(R"({"anyOf": [{"type": "string"}, {"type": "null"}]})", "1") ==
        "/: anyOf: no alternative matches");
  CHECK(reason(R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})", "1") ==
        "/: oneOf: expected exactly one alternative to match, got more (#0 and #1)");
  CHECK(reason(R"({"oneOf": [{"type": "string"}]})", "1") ==
        "/: oneOf: expected exactly one alternative to match, got none");
  CHECK(reason(R"({"not": {"type": "null"}})", "null") ==
        "/: not: value matches the excluded schema");
  CHECK(
      reason(
          R"({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}})",
          R"({"a": 1})") == R"(/: required: missing key "b")");
  CHECK(
      reason(
          R"({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}})",
          "{}") == R"(/: required: missing key "c")");
  CHECK(reason(R"({"properties": {"a": false}})", R"({"a": 1})") ==
        "/a: false: no value is allowed here");
  CHECK(reason("false", "1") == "/: false: no value is allowed here");
  CHECK(reason("true", "1").empty());
  CHECK(
      reason(
          R"({"definitions": {"id": {"type": "string"}}, "properties": {"id": {"$ref": "#/definitions/id"}}})",
          R"({"id": 7})") == "/id: type: expected string, got integer");
  CHECK(reason(R"({"$defs": {"id": {"type": "string"}}, "items": {"$ref": "#/$defs/id"}})",
               R"(["a", 1])") == "/1: type: expected string, got integer");
}

TEST_CASE("annotations are accepted and change nothing", "[schema]") {
  CHECK(reason(
            R"({"$schema": "http://json-schema.org/draft-07/schema#", "$comment": "c", "title": "t",
                   "description": "d", "default": 1, "examples": [1], "format": "email"})",
            R"("not an email")")
            .empty());
  CHECK(
      reason(R"({"properties": {"id": {"type": "integer", "readOnly": true, "writeOnly": false}}})",
             R"({"id": 7})")
          .empty());
  CHECK(compile_error(json::parse(R"({"readOnly": "yes"})")) == "/readOnly: expected a boolean");
}

TEST_CASE("a recursive schema validates a recursive value", "[schema]") {
  const auto tree = compiled(R"({"type": "object", "required": ["name"],
      "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}})");
  CHECK(tree(json::parse(R"({"name": "a", "kids": [{"name": "b", "kids": [{"name": "c"}]}]})")).ok);
  CHECK(tree(json::parse(R"({"name": "a", "kids": [{"name": "b", "kids": [{}]}]})")).message ==
        R"(/kids/0/kids/0: required: missing key "name")");
}

TEST_CASE("$id names resources and anchors inside the document", "[schema]") {
  const auto s = compiled(R"({"$id": "http://example.com/root.json",
      "definitions": {"a": {"$id": "#item", "type": "integer"}, "b": {"$id": "b.json", "type": "string"}},
      "properties": {"x": {"$ref": "#item"}, "y": {"$ref": "b.json"},
                     "z": {"$ref": "http://example.com/root.json#/definitions/a"}}})");
  CHECK(s(json::parse(R"({"x": 1, "y": "s", "z": 2})")).ok);
  CHECK(s(json::parse(R"({"x": "1"})")).message == "/x: type: expected integer, got string");
  CHECK(s(json::parse(R"({"y": 1})")).message == "/y: type: expected string, got integer");
}

TEST_CASE("unsupported keywords are compile errors naming keyword and place", "[schema]") {
  CHECK(compile_error(json::parse(R"({"properties": {"a": {"unevaluatedProperties": false}}})")) ==
        R"(/properties/a: unsupported keyword "unevaluatedProperties")");
  CHECK(compile_error(json::parse(R"({"prefixItems": [{}]})")) ==
        R"(/: unsupported keyword "prefixItems")");
  CHECK(compile_error(json::parse(R"({"definitions": {"x": {"nullable": 1}}})")) ==
        R"(/definitions/x/nullable: expected a boolean)");
  // an unknown keyword beside $ref is an unknown keyword
  CHECK(compile_error(
            json::parse(R"({"definitions": {"a": {}}, "$ref": "#/definitions/a", "typo": 1})")) ==
        R"(/: unsupported keyword "typo")");
  // an unknown keyword used only as a container of $ref targets is a definitions block
  CHECK(
      compile_error(json::parse(R"({"my-defs": {"a": {"type": "string"}}, "$ref": "#/my-defs/a"})"))
          .empty());
  CHECK(compile_error(json::parse(R"({"my-defs": {"a": {"type": "string"}}})")) ==
        R"(/: unsupported keyword "my-defs")");
}

TEST_CASE("annotations users send are accepted and change nothing", "[schema]") {
  const char* annotated = R"({"type": "string", "title": "t", "description": "d",
      "examples": ["a", 1], "default": 2, "deprecated": true, "$comment": "c", "readOnly": true,
      "writeOnly": false, "x-order": 3, "x-extra": {"any": ["value"]},
      "contentMediaType": "application/json", "contentEncoding": "base64", "format": "email"})";
  CHECK(reason(annotated, R"("not base64, not JSON, not an email")").empty());
  CHECK(reason(annotated, "1") == "/: type: expected string, got integer");
  // Their values are still checked where draft 7's metaschema (or 2019-09's, for deprecated)
  // says what they are.
  CHECK(compile_error(json::parse(R"({"deprecated": "yes"})")) ==
        "/deprecated: expected a boolean");
  CHECK(compile_error(json::parse(R"({"contentMediaType": 1})")) ==
        "/contentMediaType: expected a string");
  CHECK(compile_error(json::parse(R"({"contentEncoding": null})")) ==
        "/contentEncoding: expected a string");
  // Only x- names are extensions.
  CHECK(compile_error(json::parse(R"({"y-order": 1})")) == R"(/: unsupported keyword "y-order")");
}

TEST_CASE("OpenAPI's nullable: true adds null to the types `type` allows, as OpenAPI 3.0.3 says",
          "[schema]") {
  const char* name = R"({"type": "string", "nullable": true, "minLength": 2})";
  CHECK(reason(name, "null").empty());
  CHECK(reason(name, R"("ab")").empty());
  CHECK(reason(name, R"("a")") == "/: minLength: expected at least 2 characters, got 1");
  CHECK(reason(name, "1") == "/: type: expected one of null, string, got integer");
  CHECK(reason(R"({"type": "string", "nullable": false})", "null") ==
        "/: type: expected string, got null");
  CHECK(reason(R"({"type": ["integer", "boolean"], "nullable": true})", "null").empty());
  // Other keywords keep their meaning and may refuse null: an enum must list it.
  CHECK(reason(R"({"type": "string", "enum": ["a", "b"], "nullable": true})", "null") ==
        R"(/: enum: expected one of ["a","b"])");
  CHECK(reason(R"({"type": "string", "enum": ["a", null], "nullable": true})", "null").empty());
  // Without `type`, every type is already allowed: nullable changes nothing.
  CHECK(reason(R"({"nullable": true, "minimum": 1})", "null").empty());
  CHECK(reason(R"({"nullable": true, "not": {"type": "null"}})", "null") ==
        "/: not: value matches the excluded schema");
  // Nested, as Gemini's and OpenAPI's schemas write it.
  const char* nested = R"({"type": "object", "required": ["due"],
      "properties": {"due": {"type": "string", "nullable": true}}})";
  CHECK(reason(nested, R"({"due": null})").empty());
  CHECK(reason(nested, R"({"due": 3})") == "/due: type: expected one of null, string, got integer");
}

TEST_CASE("a keyword beside $ref that asserts is refused, annotations beside it are accepted",
          "[schema]") {
  CHECK(
      compile_error(json::parse(
          R"({"definitions": {"a": {"type": "array"}}, "properties": {"foo": {"$ref": "#/definitions/a", "maxItems": 2}}})")) ==
      R"(/properties/foo/maxItems: a keyword beside "$ref" is refused: draft 7 and OpenAPI 3.0 )"
      R"(ignore it, later drafts apply it; to apply it, write "allOf": [{"$ref": ...}, )"
      R"({"maxItems": ...}])");
  CHECK(
      compile_error(json::parse(
          R"({"definitions": {"a": {"type": "string"}}, "$ref": "#/definitions/a", "nullable": true})")) ==
      R"(/nullable: a keyword beside "$ref" is refused: draft 7 and OpenAPI 3.0 ignore it, )"
      R"(later drafts apply it; to allow null, write "anyOf": [{"$ref": ...}, {"type": "null"}])");
  CHECK(
      compile_error(
          json::parse(R"({"definitions": {"a": {}}, "$ref": "#/definitions/a", "$id": "x.json"})"))
          .find(R"(/$id: a keyword beside "$ref" is refused)") == 0);
  // What the forms the message names mean.
  const char* all_of = R"({"definitions": {"a": {"type": "array"}},
      "properties": {"foo": {"allOf": [{"$ref": "#/definitions/a"}, {"maxItems": 2}]}}})";
  CHECK(reason(all_of, R"({"foo": [1, 2, 3]})") ==
        "/foo: maxItems: expected at most 2 items, got 3");
  // Annotations, $schema, $comment and definitions beside $ref: what generators (Pydantic,
  // schema_of) write, and what draft 7's own suite does.
  const char* annotated = R"({"$schema": "http://json-schema.org/draft-07/schema#",
      "$comment": "c", "$ref": "#/definitions/a", "title": "t", "description": "d",
      "default": "x", "examples": ["x"], "deprecated": false, "readOnly": true, "x-order": 1,
      "definitions": {"a": {"type": "string"}}})";
  CHECK(reason(annotated, R"("x")").empty());
  CHECK(reason(annotated, "1") == "/: type: expected string, got integer");
}

TEST_CASE("malformed keyword values and references are compile errors", "[schema]") {
  CHECK(compile_error(json::parse(R"({"items": {"$ref": "http://example.com/s.json"}})")) ==
        R"(/items/$ref: remote reference "http://example.com/s.json" is not supported)");
  CHECK(compile_error(json::parse(R"({"$ref": "#/definitions/missing"})")) ==
        R"(/$ref: reference "#/definitions/missing" points to nothing)");
  CHECK(compile_error(json::parse(R"({"$ref": "#nowhere"})")) ==
        R"(/$ref: reference "#nowhere": no $id names this anchor)");
  CHECK(compile_error(json::parse(R"({"type": "int"})")) == R"(/type: unknown type "int")");
  CHECK(compile_error(json::parse(R"({"minLength": -1})")) ==
        "/minLength: expected a non-negative integer");
  CHECK(compile_error(json::parse(R"({"multipleOf": 0})")) ==
        "/multipleOf: expected a number greater than 0");
  CHECK(compile_error(json::parse(R"({"properties": {"a": 3}})")) ==
        "/properties/a: a schema must be an object or a boolean");
  CHECK(compile_error(json::parse(R"({"anyOf": []})")) == "/anyOf: expected at least one schema");
  CHECK(compile_error(json::parse(R"({"items": []})")) == "/items: expected at least one schema");
  CHECK(compile_error(json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})"))
            .rfind("/$schema: only draft 7 is supported", 0) == 0);
  const std::string backreference =
      R"x(backreference \1 is not supported (a rule such as "no character three times in a row", )x"
      R"x((?!.*(.)\1\1), is written without one: (?!.*(?:a{3}|b{3}|...)) over the characters )x"
      "allowed)";
  CHECK(compile_error(json::parse(R"x({"pattern": "(a)\\1"})x")) ==
        R"x(/pattern: pattern "(a)\\1": )x" + backreference);
  CHECK(compile_error(json::parse(R"({"patternProperties": {"\\1": {}}})")) ==
        R"(/patternProperties/\1: pattern "\\1": )" + backreference);
  CHECK(compile_error(json(3)) == "/: a schema must be an object or a boolean");
}

TEST_CASE("the throwing constructor carries the same message", "[schema]") {
  CHECK_THROWS_AS(llmjson::schema(json::parse(R"({"foo": 1})")), llmjson::schema_error);
  try {
    llmjson::schema s(json::parse(R"({"foo": 1})"));
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == R"(/: unsupported keyword "foo")");
  }
  const llmjson::schema ok(json::parse(R"({"type": "object"})"));
  CHECK(ok(json::object()).ok);
  static_assert(llmjson::schema::default_policy == llmjson::policy::unique);
}

TEST_CASE("copies share the compiled tree and work from several threads", "[schema]") {
  const auto s = compiled(R"({"items": {"type": "integer", "minimum": 0}})");
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (std::size_t t = 0; t < ok.size(); ++t) {
    threads.emplace_back([copy = s, &ok, t] {
      int count = 0;
      for (int i = 0; i < 200; ++i)
        count += copy(json::parse("[1, 2, 3]")).ok && !copy(json::parse("[-1]")).ok;
      ok[t] = count;
    });
  }
  for (auto& th : threads) th.join();
  for (const int c : ok) CHECK(c == 200);
}

TEST_CASE("reference cycles that never descend into the value are compile errors", "[schema]") {
  CHECK(compile_error(json::parse(R"({"$ref": "#"})")).find("reference cycle") !=
        std::string::npos);
  CHECK(
      compile_error(
          json::parse(
              R"({"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"})"))
          .find("reference cycle") != std::string::npos);
  CHECK(
      compile_error(
          json::parse(
              R"({"definitions": {"a": {"anyOf": [{"type": "string"}, {"not": {"$ref": "#/definitions/a"}}]}}})"))
          .find("reference cycle") != std::string::npos);
  // recursion through a child value is progress, and fine
  CHECK(compile_error(json::parse(R"({"properties": {"next": {"$ref": "#"}}})")).empty());
}

TEST_CASE("hostile depth fails cleanly instead of overflowing the stack", "[schema]") {
  SECTION("10000 nested not") {
    std::string text;
    for (int i = 0; i < 10000; ++i) text += R"({"not": )";
    text += "true";
    for (int i = 0; i < 10000; ++i) text += "}";
    const auto s = compiled(text.c_str());
    const llmjson::verdict v = s(json(1));
    CHECK_FALSE(v.ok);
    CHECK(v.message.find("schema evaluation too deep") != std::string::npos);
  }
  SECTION("100 nested not evaluate exactly") {
    std::string text;
    for (int i = 0; i < 100; ++i) text += R"({"not": )";
    text += "true";
    for (int i = 0; i < 100; ++i) text += "}";
    CHECK(compiled(text.c_str())(json(1)).ok);  // an even number of nots around true
  }
  SECTION("a deep schema of properties") {
    std::string text;
    for (int i = 0; i < 20000; ++i) text += R"({"type": "object", "properties": {"a": )";
    text += R"({"type": "string"})";
    for (int i = 0; i < 20000; ++i) text += "}}";
    const auto s = compiled(text.c_str());
    CHECK(s(json::parse(R"({"a": {"a": {}}})")).ok);
    CHECK(s(json::parse(R"({"a": {"a": 1}})")).message ==
          "/a/a: type: expected object, got integer");
  }
  SECTION("a recursive schema on a value 2048 levels deep") {
    const auto s = compiled(R"({"type": "array", "items": {"$ref": "#"}})");
    json v = json::array();
    for (int i = 0; i < 2047; ++i) v = json::array({std::move(v)});
    CHECK(s(v).ok);
    json bad = json::array({1});
    for (int i = 0; i < 10; ++i) bad = json::array({std::move(bad)});
    CHECK(s(bad).message == "/0/0/0/0/0/0/0/0/0/0/0: type: expected array, got integer");
  }
  SECTION("a const value too deep to copy is refused") {
    std::string text = R"({"const": )";
    for (int i = 0; i < 5000; ++i) text += "[";
    for (int i = 0; i < 5000; ++i) text += "]";
    text += "}";
    CHECK(compile_error(json::parse(text)) == "/const: value nested deeper than 2048 levels");
  }
}

TEST_CASE("patterns run without backtracking", "[schema][regex]") {
  const std::string many_a(100000, 'a');
  CHECK_FALSE(search("(a*)*b", many_a));
  CHECK(search("(a*)*b", many_a + "b"));
  CHECK_FALSE(search("^(a|aa)+$", many_a + "!"));
  CHECK(search("^(a|a?)+$", many_a));
  const auto s = compiled(R"({"pattern": "^(a+)+$"})");
  CHECK_FALSE(s(json(many_a + "b")).ok);
  CHECK(regex_error("(x{100}){100}") == "pattern too large (over 4096 instructions)");
}

TEST_CASE("patterns: the ECMAScript subset", "[schema][regex]") {
  CHECK(search("a+", "xxaayy"));  // unanchored search
  CHECK_FALSE(search("^a+$", "xxaayy"));
  CHECK(search("^[a-z]{2,3}-\\d+$", "ab-12"));
  CHECK_FALSE(search("^[a-z]{2,3}-\\d+$", "abcd-12"));
  CHECK(search("^[^0-9]*$", "abc"));
  CHECK(search("^\\w+\\s\\W$", "ab_1 !"));
  CHECK(search("\\bcat\\b", "a cat!"));
  CHECK_FALSE(search("\\bcat\\b", "concat"));
  CHECK(search("^(?:ab|cd)+$", "abcdab"));
  CHECK(search("^(?<year>\\d{4})-\\d{2}$", "2024-05"));
  CHECK(search("^colou?r$", "color"));
  CHECK(search("^a.c$", "abc"));
  CHECK_FALSE(search("^a.c$", "a\nc"));
  CHECK(search("^\\x41\\u0042[\\-.]$", "AB-"));
  CHECK(search("^a{2}$", "aa"));
  CHECK(search("x\\{", "x{"));  // with the u flag a lone brace is an error (regex_test.cpp)
  CHECK(regex_error("x{").rfind("lone '{'", 0) == 0);
  CHECK(regex_error("\\1").rfind("backreference \\1 is not supported", 0) == 0);
  CHECK(regex_error("\\Z").rfind("invalid escape \\Z", 0) == 0);
  CHECK(regex_error("a**") == "nothing to repeat");
  CHECK(regex_error("(a") == "missing ')'");
  CHECK(regex_error("[z-a]") == "range out of order in character class");
}

TEST_CASE("patterns: lookahead and lookbehind", "[schema][regex]") {
  // The two patterns real schemas use most: not blank, and a password policy.
  CHECK_FALSE(search("^(?!\\s*$).+", "   "));
  CHECK(search("^(?!\\s*$).+", " x "));
  const char* policy = "^(?=.*\\d)(?=.*[a-z]).{8,}$";
  CHECK(search(policy, "abcdefg1"));
  CHECK(search(policy, "1ABCDEFa"));
  CHECK_FALSE(search(policy, "abcdefgh"));  // no digit
  CHECK_FALSE(search(policy, "ABCDEFG1"));  // no lower-case letter
  CHECK_FALSE(search(policy, "abc1"));      // too short
  // Lookbehind, positive and negative.
  CHECK(search("(?<=\\$)\\d+", "costs $12"));
  CHECK_FALSE(search("(?<=\\$)\\d+", "costs 12$"));
  CHECK(search("(?<!-)\\b\\d+", "x -12 3"));
  CHECK_FALSE(search("(?<!-)\\b\\d+", "-12"));
  CHECK_FALSE(search("(?<!-)\\b\\d+", "a-12"));
  // Nested, each kind in each other kind.
  CHECK(search("(?=(?!a)b)", "ab"));
  CHECK_FALSE(search("(?=(?!a)b)", "aa"));
  CHECK(search("(?<=(?<=a)b)c", "abc"));
  CHECK_FALSE(search("(?<=(?<=a)b)c", "bbc"));
  CHECK(search("(?=b(?<=ab))", "ab"));
  CHECK_FALSE(search("(?=b(?<=ab))", "bb"));
  CHECK(search("(?<=a(?=b))b", "ab"));
  CHECK(search("^(?!.*(?<!\\\\)\"$)", R"(say \")"));  // ends without an unescaped quote
  CHECK_FALSE(search("^(?!.*(?<!\\\\)\"$)", R"(say ")"));
  // Alternation and classes inside bodies.
  CHECK(search("x(?=y|z$)", "xz"));
  CHECK_FALSE(search("x(?=y|z$)", "xza"));
  CHECK(search("(?<![aeiou])y", "ay by"));
  CHECK_FALSE(search("(?<![aeiou])y", "ay"));
  CHECK(search("^(?:(?![<>]).)*$", "a b c"));
  CHECK_FALSE(search("^(?:(?![<>]).)*$", "a <b> c"));
  // ^ $ \b \B in bodies test positions of the whole text, in either direction.
  CHECK_FALSE(search("a(?=^b)", "ab"));
  CHECK(search("(?<=^|,)a", "b,a"));
  CHECK_FALSE(search("(?<=^|,)a", "ba"));
  CHECK(search("(?<=^)a", "ab"));
  CHECK_FALSE(search("b(?<=^b)", "ab"));
  CHECK(search("a(?=\\b)", "a"));
  CHECK_FALSE(search("a(?=\\bb)", "ab"));
  CHECK(search("a(?=\\Bb)", "ab"));
  CHECK(search("(?<=\\b)x", "a x"));
  CHECK_FALSE(search("(?<=\\B)x", "a x"));
  CHECK(search("x(?<=x$)", "ax"));
  CHECK_FALSE(search("x(?<=x$)", "axb"));
  // A lookbehind of any length (ECMAScript allows it).
  CHECK(search("(?<=a+b)c", "xaaabc"));
  CHECK_FALSE(search("(?<=a+b)c", "bc"));
  CHECK(search("(?<=^(?:ab|c)*)d", "abcabd"));
  CHECK_FALSE(search("(?<=^(?:ab|c)*)d", "abcbd"));
  // Empty bodies: (?=) and (?<=) always hold, (?!) and (?<!) never.
  CHECK(search("(?=)", ""));
  CHECK(search("a(?<=)", "a"));
  CHECK_FALSE(search("(?!)", "abc"));
  CHECK_FALSE(search("(?<!)", ""));
  // At the very start and end of the text.
  CHECK(search("^(?=a)", "a"));
  CHECK_FALSE(search("^(?=a)", ""));
  CHECK(search("(?<=a)$", "ba"));
  CHECK(search("(?!.)", "abc"));   // holds at the end
  CHECK(search("(?<!.)", "abc"));  // holds at the start
  CHECK_FALSE(search("(?<=.)^", "abc"));
  CHECK_FALSE(search("$(?=.)", "abc"));
  // Code points, not bytes, in the text and in lookbehind bodies.
  CHECK(search("(?<=é)ü", "éü"));
  CHECK(search("(?<=^[à-ÿ]{2})x", "éüx"));
  CHECK_FALSE(search("(?<=^[à-ÿ]{3})x", "éüx"));
  CHECK(search("(?<=\xF0\x9F\x98\x80)!", "\xF0\x9F\x98\x80!"));
  CHECK(search("^.(?<!\\u00e9)$", "e"));
  CHECK_FALSE(search("^.(?<!\\u00e9)$", "é"));
  CHECK(search("(?=.$)\\ud83d\\ude00", "a\xF0\x9F\x98\x80"));
  // With the u flag no assertion may be quantified, lookahead included (Annex B allows it).
  for (const char* p : {"^(?=a)*b", "^(?=a)?b", "^(?=a){0,3}b", "^(?=a)+b", "(?<=a)*b",
                        "(?<!a){2}b", "^*", "a$+", "\\b?", "\\B{2}"}) {
    INFO(p);
    CHECK(regex_error(p) == "an assertion (^ $ \\b \\B or a lookaround) cannot be quantified");
  }
  // Malformed or too many.
  CHECK(regex_error("(?=a") == "missing ')'");
  CHECK(regex_error("(?<=a") == "missing ')'");
  CHECK(regex_error("(?<a") == "unterminated group name");
  std::string many;
  for (int i = 0; i < 65; ++i) many += "(?=a)";
  CHECK(regex_error(many.c_str()) == "too many lookarounds (over 64)");
  // Through a schema.
  const auto s = compiled(R"({"pattern": "^(?=.*[A-Z])(?!.*\\s).+(?<![.])$"})");
  CHECK(s(json("Passw0rd")).ok);
  CHECK_FALSE(s(json("pass word")).ok);
  CHECK_FALSE(s(json("Password.")).ok);
}

TEST_CASE("lookaround runs in linear time: work is bounded by (code points + 1) x program size",
          "[schema][regex]") {
  // 25 nested lookarounds around a body a backtracker would take exponential time on, then 25
  // sequenced ones, against a 128 KiB subject (1 MiB: 114 million instructions visited, some 15 s
  // in a Debug build). The bound is on instructions visited, not on time (ctest's timeout catches
  // a hang).
  std::string pattern;
  for (int i = 0; i < 25; ++i) pattern += i % 2 ? "(?<=" : "(?=";
  pattern += "(?:a|aa)*";
  for (int i = 0; i < 25; ++i) pattern += ")";
  for (int i = 0; i < 25; ++i) pattern += i % 2 ? "(?!(?:a|aa)+b)" : "(?<!c(?:a|aa)+)";
  pattern += "a$";
  std::string error;
  const auto re = llmjson::detail::regex::compile(pattern, error);
  REQUIRE(re);
  const std::string text(1 << 17, 'a');
  std::size_t work = 0;
  CHECK(re->search(text, work));
  CHECK(work <= (text.size() + 1) * re->program_size());
  work = 0;
  CHECK_FALSE(re->search(text + "!", work));
  CHECK(work <= (text.size() + 2) * re->program_size());
  // The same bound without lookaround, where the old engine had it too.
  const auto plain = llmjson::detail::regex::compile("(a*)*b", error);
  REQUIRE(plain);
  work = 0;
  CHECK_FALSE(plain->search(text, work));
  CHECK(work <= (text.size() + 1) * plain->program_size());
}

TEST_CASE("patterns and lengths count code points, not bytes", "[schema][regex]") {
  CHECK(search("^.$", "é"));                 // two bytes, one code point
  CHECK(search("^.$", "\xF0\x9F\x98\x80"));  // U+1F600, four bytes
  CHECK(search("^[à-ÿ]+$", "éü"));           // a range of non-ASCII code points
  CHECK(search("^\\u00e9$", "é"));
  CHECK(search("^\\ud83d\\ude00$", "\xF0\x9F\x98\x80"));  // a surrogate pair is one code point
  CHECK_FALSE(search("^..$", "é"));
  CHECK(search("^\\s$", "\xE3\x80\x80"));  // U+3000 ideographic space
  CHECK(reason(R"({"maxLength": 2})", R"("日本")").empty());
  CHECK(reason(R"({"minLength": 3})", R"("日本")") ==
        "/: minLength: expected at least 3 characters, got 2");
  CHECK(reason(R"({"propertyNames": {"pattern": "^[a-zé]+$"}})", R"({"café": 1})").empty());
}

TEST_CASE("numbers compare exactly across integer and float forms", "[schema]") {
  CHECK(reason(R"({"maximum": 18446744073709551615})", "18446744073709551600").empty());
  CHECK(reason(R"({"minimum": -1})", "18446744073709551615").empty());
  CHECK(reason(R"({"maximum": 9007199254740992})", "9007199254740993") ==
        "/: maximum: expected at most 9007199254740992, got 9007199254740993");
  CHECK(reason(R"({"multipleOf": 3})", "18446744073709551615").empty());
  CHECK(reason(R"({"multipleOf": 0.1})", "1e308") ==
        "/: multipleOf: expected a multiple of 0.1, got 1e+308");
  CHECK(reason(R"({"const": 1})", "1.0").empty());
  CHECK(reason(R"({"const": [1, {"a": 2}]})", R"([1.0, {"a": 2.0}])").empty());
  CHECK(reason(R"({"const": 1})", "true") == "/: const: expected 1");
}

TEST_CASE("multipleOf: exact for whole numbers, no absolute slack for fractions", "[schema]") {
  CHECK_FALSE(reason(R"({"multipleOf": 1})", "1.0000000001").empty());
  CHECK_FALSE(reason(R"({"multipleOf": 1})", "1e-10").empty());
  CHECK_FALSE(reason(R"({"multipleOf": 1000000})", "1000000.0001").empty());
  CHECK_FALSE(reason(R"({"multipleOf": 3})", "1e20").empty());  // 10^20 mod 3 == 1
  CHECK(reason(R"({"multipleOf": 5})", "1e20").empty());
  CHECK(reason(R"({"multipleOf": 0.0001})", "0.0075").empty());
  CHECK(reason(R"({"multipleOf": 0.01})", "19.99").empty());
}

TEST_CASE("uniqueItems compares whole items, and is not quadratic on structured ones", "[schema]") {
  CHECK_FALSE(
      reason(R"({"uniqueItems": true})", R"([{"a": [1, {"b": 2}]}, {"a": [1.0, {"b": 2}]}])")
          .empty());
  CHECK(reason(R"({"uniqueItems": true})", R"([{"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}])")
            .empty());
  // 50k distinct small objects: one bucket each (a size-only hash made this quadratic).
  json items = json::array();
  for (int i = 0; i < 50000; ++i) items.push_back({{"k", i}, {"v", json::array({i, -i})}});
  CHECK(compiled(R"({"uniqueItems": true})")(items).ok);
  items.push_back({{"k", 7}, {"v", json::array({7, -7})}});
  CHECK(compiled(R"({"uniqueItems": true})")(items).message.find("uniqueItems") !=
        std::string::npos);
}

TEST_CASE("a value deeper than the limit is refused before nlohmann's recursive == sees it",
          "[schema]") {
  // Built in place: copying such a value would itself recurse in nlohmann.
  json pair = json::array();
  for (int k = 0; k < 2; ++k) {
    json* at = &pair.emplace_back(json::array());
    for (int i = 0; i < 5000; ++i) at = &at->emplace_back(json::array());
  }
  const llmjson::verdict v = compiled(R"({"uniqueItems": true})")(pair);
  CHECK(v.message == "/: the value nests deeper than 2048 levels");
}

TEST_CASE("the evaluation-depth limit inside propertyNames fails cleanly, at the member's place",
          "[schema]") {
  std::string schema = R"({"properties": {"a": {"propertyNames": {"type": "string"}}}})";
  for (int i = 0; i < 6200; ++i) schema = R"({"allOf": [)" + schema + "]}";
  const llmjson::verdict v = compiled(schema.c_str())(json::parse(R"({"a": {"k": 1}})"));
  CHECK_FALSE(v.ok);
  CHECK(v.message.find("schema evaluation too deep") != std::string::npos);
}

TEST_CASE("a schema whose refs fan out exponentially fails cleanly on its step budget",
          "[schema]") {
  json defs = json::object();
  for (int i = 0; i < 40; ++i) {
    const std::string next = "#/definitions/a" + std::to_string(i + 1);
    defs["a" + std::to_string(i)] = {{"allOf", json::array({{{"$ref", next}}, {{"$ref", next}}})}};
  }
  defs["a40"] = json::object();
  const json schema = {{"definitions", defs}, {"$ref", "#/definitions/a0"}};
  auto r = llmjson::schema::compile(schema);
  REQUIRE(r);
  const llmjson::verdict v = (*r)(json(1));
  CHECK(v.message.find("schema evaluation too costly") != std::string::npos);
}

TEST_CASE("an empty group repeated a million times compiles at once to nothing",
          "[schema][regex]") {
  CHECK(search("^((?:){1000000}){1000000}a$", "a"));
  CHECK(compile_error(json::parse(R"({"pattern": "((?:){1000000}){1000000}"})")).empty());
}

TEST_CASE("patterns and lengths agree on ill-formed UTF-8: one U+FFFD per bad byte",
          "[schema][regex]") {
  // nlohmann strings built by a program may hold any bytes; extraction never makes such values.
  const json stray = std::string("\x80");
  CHECK(compiled(R"({"minLength": 1, "maxLength": 1})")(stray).ok);
  CHECK(search("^.$", "\x80"));
  CHECK_FALSE(search("^[a-z]+$", "\xC1\xA1"));       // overlong 'a' is not 'a'
  CHECK_FALSE(search("^\\ud800$", "\xED\xA0\x80"));  // encoded surrogates are ill-formed
}

TEST_CASE("a deeply nested keyword value gets a compile error, not a recursive dump", "[schema]") {
  json type = json::array();
  json* at = &type;
  for (int i = 0; i < 100000; ++i) at = &at->emplace_back(json::array());
  json schema = json::object();
  schema["type"] = std::move(type);
  CHECK(compile_error(schema) == "/type: unknown type a deeply nested array");
}

namespace {

// A random object for the text shortcut of `required`: some of `pool`'s keys (written as they are,
// or with their first byte, if ASCII, as a \u escape), values that nest the same keys, random
// spacing.
std::string random_object(std::mt19937& rng, const std::vector<std::string>& pool) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  auto key_text = [&](const std::string& k) {
    std::string out = json(k).dump();  // quotes and escapes what must be
    if (pick(3) == 0 && out.size() > 2 && out[1] != '\\' &&
        static_cast<unsigned char>(out[1]) < 0x80) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned char>(out[1]));
      out = "\"" + std::string(hex) + out.substr(2);
    }
    return out;
  };
  auto space = [&] { return std::string(pick(2), " \n\t"[pick(3)]); };
  std::vector<std::string> keys = pool;
  std::shuffle(keys.begin(), keys.end(), rng);
  keys.resize(pick(keys.size() + 1));
  std::string out = "{";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out += (i ? "," : "") + space() + key_text(keys[i]) + space() + ":" + space();
    switch (pick(5)) {
      case 0: out += "1"; break;
      case 1: out += "\"a\""; break;
      case 2: out += "{" + key_text(pool[pick(pool.size())]) + ": [\"}\", {}]}"; break;
      case 3: out += "[" + key_text(pool[pick(pool.size())]) + ", 2.5]"; break;
      default: out += "null"; break;
    }
  }
  return out + space() + "}";
}

/// An output for the text shortcuts' tests: a draft in prose, `{}` (or an array) after `not`, a
/// fenced object and the answer, each a `random_object` of `pool`.
std::string drafts_text(std::mt19937& rng, const std::vector<std::string>& pool, int round) {
  return "draft: " + random_object(rng, pool) + "\nnot " +
         std::string(round % 7 == 0 ? "[1, {\"a\": 2}]" : "{}") + "\n```json\n" +
         random_object(rng, pool) + "\n```\n" + random_object(rng, pool);
}

/// `extract` of `text` with `sel` and with `by_value` (the same judge on every value), under
/// policies unique and first: the same error or answer, and every candidate the same verdict and
/// message. Calls `reject(candidate)` for each valid candidate turned down (policy first's
/// fallback, the answer, aside).
template <class S, class V, class OnReject>
void same_as_by_value(const std::string& text, const S& sel, const V& by_value, OnReject&& reject) {
  llmjson::options opts;
  for (llmjson::policy pol : {llmjson::policy::unique, llmjson::policy::first}) {
    opts.policy = pol;
    const auto got = llmjson::extract(text, sel, opts);
    const auto want = llmjson::extract(text, by_value, opts);
    REQUIRE(got.has_value() == want.has_value());
    const auto& got_cs = got ? got->candidates : got.error().candidates;
    const auto& want_cs = want ? want->candidates : want.error().candidates;
    if (!got) {
      CHECK(got.error().kind == want.error().kind);
      CHECK(got.error().message == want.error().message);
    } else {
      CHECK(got->index == want->index);
    }
    REQUIRE(got_cs.size() == want_cs.size());
    for (std::size_t i = 0; i < got_cs.size(); ++i) {
      CHECK(got_cs[i].qualifies == want_cs[i].qualifies);
      CHECK(got_cs[i].message == want_cs[i].message);
      if (!got_cs[i].valid || got_cs[i].qualifies || (got && i == got->index)) continue;
      reject(got_cs[i]);
    }
  }
}

}  // namespace

TEST_CASE("a schema turns down a draft lacking a required key from its text, word for word",
          "[schema]") {
  // The oracle: the same schema judging every candidate's value (a lambda is judged by value).
  std::vector<std::string> many;
  for (int i = 0; i < 70; ++i) many.push_back("k" + std::to_string(i));
  const std::string long_key(33, 'q');
  const std::vector<std::pair<json, std::vector<std::string>>> cases = {
      {json::parse(R"({"type": "object", "required": ["a", "b", "c"],
                       "properties": {"a": {"type": "string"}}})"),
       {"a", "b", "c", "x"}},
      {json::parse(R"({"required": ["b", "a"], "minProperties": 3})"), {"a", "b", "x", "y"}},
      {json::parse(R"({"type": ["string", "object"], "required": ["a"]})"), {"a", "x"}},
      {json::parse(R"({"type": "array", "required": ["a"]})"), {"a", "x"}},
      {json::parse(R"({"const": {"a": 1}, "required": ["a"]})"), {"a", "x"}},
      {json::parse(R"({"enum": [{"a": 1}], "required": ["a"]})"), {"a", "x"}},
      {json::parse(R"({"$ref": "#/definitions/r",
                       "definitions": {"r": {"type": "object", "required": ["a", "b"]}}})"),
       {"a", "b", "x"}},
      {json::parse(R"({"required": ["a", "a", "b"]})"), {"a", "b"}},
      {json{{"required", many}}, many},
      // A first key over 32 bytes is left to the value (the text search stays linear).
      {json{{"required", {long_key, "a"}}}, {long_key, "a", "x"}},
      {json::parse(R"({"allOf": [{"required": ["z"]}], "required": ["a"],
                       "additionalProperties": false, "properties": {"a": {}}})"),
       {"a", "z", "x"}},
      {json::parse(R"({"required": ["q\"t", "\u00e9", "s/l"]})"), {"q\"t", "\u00e9", "s/l", "x"}},
      {json::parse(R"({"required": []})"), {"a"}},
      {json(true), {"a"}},
      {json(false), {"a"}},
  };
  std::mt19937 rng(31);
  std::size_t by_keys = 0, rejected = 0;
  for (const auto& [source, pool] : cases) {
    const llmjson::schema s(source);
    auto by_value = [&s](const json& v) { return s(v); };
    for (int round = 0; round < 150; ++round) {
      const std::string text = drafts_text(rng, pool, round);
      INFO(source.dump() << "\n" << text);
      same_as_by_value(text, s, by_value, [&](const llmjson::candidate& c) {
        ++rejected;
        // The shortcut's rejects have no value; every other reject was judged by its value.
        // The shortcut's rule: an object without a backslash in which the first required key
        // (of 32 bytes at most), quoted, is written nowhere.
        const std::string_view t = c.text;
        const std::vector<std::string>* required = llmjson::detail::required_first(s);
        const bool shortcut = required && t.front() == '{' && required->front().size() <= 32 &&
                              t.find('\\') == std::string_view::npos &&
                              t.find('"' + required->front() + '"') == std::string_view::npos;
        if (shortcut) CHECK_FALSE(json::parse(t).contains(required->front()));
        CHECK((c.json == nullptr) == shortcut);
        by_keys += shortcut ? 1 : 0;
      });
    }
  }
  // Both paths were taken many times.
  CHECK(by_keys > 1000);
  CHECK(rejected - by_keys > 1000);
}

TEST_CASE("a key set turns down a draft from its text, word for word as on its value",
          "[schema][select]") {
  // any_key judges a valid candidate from its text: a draft in which no key, quoted, is
  // written anywhere (no backslash, keys of 32 bytes at most) is turned down by those
  // searches, the rest by a walk of its top-level keys. The oracle: the same key set judging
  // every candidate's value (a lambda returning its verdict is judged by value).
  const std::string long_key(33, 'q');
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"a"}, {"a", "b", "x"}},
      {{"a", "b"}, {"a", "b", "x", "y"}},
      {{"x", "y", "z"}, {"a", "x", "z"}},
      {{long_key}, {long_key, "a"}},
      {{"q\"t", "\u00e9", "s/l"}, {"q\"t", "\u00e9", "s/l", "x"}},
      {{""}, {"", "a"}},
  };
  std::mt19937 rng(37);
  std::size_t rejected = 0, by_search = 0;
  for (const auto& [keys, pool] : cases) {
    const llmjson::any_key sel(keys);
    const std::vector<std::string>& wanted = keys;  // a lambda may not capture a binding (clang 14)
    auto by_value = [&sel](const json& v) { return sel(v); };
    for (int round = 0; round < 300; ++round) {
      const std::string text = drafts_text(rng, pool, round);
      INFO(json(keys).dump() << "\n" << text);
      same_as_by_value(text, sel, by_value, [&](const llmjson::candidate& c) {
        ++rejected;
        // Which path turned it down: the searches (an object without a backslash in which no
        // key of 32 bytes or fewer, quoted, is written) or the walk.
        const std::string_view t = c.text;
        const bool searched =
            t.front() == '{' && t.find('\\') == std::string_view::npos &&
            std::all_of(wanted.begin(), wanted.end(), [&](const std::string& k) {
              return k.size() <= 32 && t.find('"' + k + '"') == std::string_view::npos;
            });
        if (searched) ++by_search;
      });
    }
  }
  // Both paths were taken many times.
  CHECK(by_search > 1000);
  CHECK(rejected - by_search > 1000);
}

TEST_CASE("a key in a message is quoted as nlohmann writes it, whatever its bytes", "[schema]") {
  // json_quote writes printable ASCII itself; every other key goes through nlohmann.
  std::mt19937 rng(7);
  const char pieces[] = {'a',    'Z',    ' ',    '~',    '"',    '\\',  '/',
                         '\x01', '\x1f', '\x7f', '\xc3', '\xa9', '\xff'};
  for (int round = 0; round < 20000; ++round) {
    std::string key;
    for (std::size_t k = rng() % 6; k > 0; --k) key += pieces[rng() % std::size(pieces)];
    INFO(json(json::binary_t(std::vector<std::uint8_t>(key.begin(), key.end()))).dump());
    CHECK(llmjson::detail::json_quote(key) ==
          json(key).dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

TEST_CASE("evaluators keep no trace of one another: alive at once, or after one stopped",
          "[schema]") {
  // Evaluators borrow their thread's stack and path (a second alive at once makes its own); an
  // evaluation stopped by a limit leaves frames there, which the next must not see.
  const json source =
      json::parse(R"({"properties": {"a": {"$ref": "#"}, "b": {"items": {"type": "string"}}}})");
  llmjson::detail::schema_compiler c(source);  // reads `source` until it is run
  REQUIRE(c.run());
  const llmjson::detail::schema_tree t = c.take();
  json deep = json::object();  // {"a": {"a": ...}}, deeper than evaluation goes
  for (std::size_t k = 0; k < llmjson::detail::schema_max_evaluation_depth + 10; ++k)
    deep = json{{"a", std::move(deep)}};
  for (int round = 0; round < 3; ++round) {
    {
      llmjson::detail::schema_evaluator first(t);
      {
        llmjson::detail::schema_evaluator second(t);  // its own stack and path
        CHECK_FALSE(second.run(json::parse(R"({"b": ["x", 2]})")));
        CHECK(second.message() == "/b/1: type: expected string, got integer");
      }
      CHECK_FALSE(first.run(deep));  // stopped with thousands of frames on the thread's stack
      CHECK(first.message().ends_with(": schema evaluation too deep (over " +
                                      std::to_string(llmjson::detail::schema_max_evaluation_depth) +
                                      " nested subschemas)"));
    }
    llmjson::detail::schema_evaluator third(t);  // the thread's stack and path again
    CHECK_FALSE(third.run(json::parse(R"({"a": {"b": [3]}})")));
    CHECK(third.message() == "/a/b/0: type: expected string, got integer");
  }
  llmjson::detail::schema_evaluator fourth(t);
  CHECK(fourth.run(json::parse(R"({"a": {"b": ["y"]}})")));
}

TEST_CASE("extraction's values are judged without the depth check: the scan bounds them",
          "[schema]") {
  // A candidate as deep as the scan lets through (max_depth_limit levels) is judged as the
  // schema judges its value; one level more is no candidate the schema sees (malformed).
  const llmjson::schema s(json::parse(R"({"type": "object", "required": ["a"],
                                         "properties": {"a": {"type": "array"}}})"));
  auto by_value = [&s](const json& v) { return s(v); };
  llmjson::options opts;
  opts.max_depth = llmjson::max_depth_limit;
  for (const std::size_t levels : {llmjson::max_depth_limit, llmjson::max_depth_limit + 1}) {
    const std::string arrays = std::string(levels - 1, '[') + std::string(levels - 1, ']');
    const std::string text = "{\"a\": " + arrays + "}";
    const auto got = llmjson::extract(text, s, opts);
    const auto want = llmjson::extract(text, by_value, opts);
    INFO(levels);
    REQUIRE(got.has_value() == want.has_value());
    CHECK(got.has_value() == (levels == llmjson::max_depth_limit));
    if (!got) CHECK(got.error().message == want.error().message);
    // The schema's own check, on the value: the deepest candidate is not deeper than the limit.
    if (got) CHECK(s(got->json()).ok);
  }
}

}  // namespace llmjson_tests::schema_test
