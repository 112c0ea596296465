// llmjson: candidates() applies the brace-scan and fence rules of tests/corpus/README.md
// SPDX-License-Identifier: MIT
#include <llmjson/candidate.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/stream.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"
#include "reasoning_forms.hpp"
#include "repeat.hpp"
#include "same_result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace llmjson_tests::candidate_test {

// The UTF-8 rules strings are held to are constexpr: a broken one fails the build.
static_assert(llmjson::detail::utf8_sequence_at("\xC3\xA9", 0) == 2);
static_assert(llmjson::detail::utf8_sequence_at("\xF0\x9F\x8D\xB5", 0) == 4);
static_assert(llmjson::detail::utf8_sequence_at("\xC0\xAF", 0) == 0);          // overlong
static_assert(llmjson::detail::utf8_sequence_at("\xE0\x80\x80", 0) == 0);      // overlong
static_assert(llmjson::detail::utf8_sequence_at("\xED\xA0\x80", 0) == 0);      // a surrogate
static_assert(llmjson::detail::utf8_sequence_at("\xF4\x90\x80\x80", 0) == 0);  // past U+10FFFF
static_assert(llmjson::detail::utf8_sequence_at("\xE6\x9D", 0) == 0);          // cut short

namespace {

using json = nlohmann::json;

/// The values of the valid candidates outside reasoning, in order (those in reasoning have none).
std::vector<json> values(const llmjson::scan_result& s) {
  std::vector<json> out;
  for (const auto& c : s.candidates) {
    if (!c.valid || c.in_reasoning) continue;
    REQUIRE(c.json != nullptr);
    out.push_back(*c.json);
  }
  return out;
}

std::size_t malformed(const llmjson::scan_result& s) {
  std::size_t n = 0;
  for (const auto& c : s.candidates) n += c.valid ? 0 : 1;
  return n;
}

}  // namespace

TEST_CASE("sources have names that parse back", "[candidate]") {
  using s = llmjson::source;
  STATIC_REQUIRE(enum_names_check::round_trips<s>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<s>());
  STATIC_REQUIRE(llmjson::to_string(s::part) == "part");
  STATIC_REQUIRE(llmjson::from_string<s>("fence") == s::fence);
  STATIC_REQUIRE_FALSE(llmjson::from_string<s>("unknown").has_value());
}

TEST_CASE("place() names where a candidate was found, as the messages do", "[candidate]") {
  const std::string text =
      "A {\"a\": 1}\n```json\n{\"b\": 2}\n```\n```js\x01\n[{\"c\": 3}, 1\n```\n";
  const auto scan = llmjson::candidates(text);
  REQUIRE(scan.candidates.size() == 3);
  CHECK(llmjson::source_label(scan.candidates[0]) == "prose");
  CHECK(llmjson::source_label(scan.candidates[1]) == "fence \"json\"");
  CHECK(llmjson::source_label(scan.candidates[2]) == "in fence \"js\\x01\"");  // one line
  const std::string whole = R"({"a": 1})";
  CHECK(llmjson::source_label(llmjson::candidates(whole).candidates.at(0)) == "whole output");
  const std::string part = "<think>draft</think>\n{\"a\": 1} ";
  CHECK(llmjson::source_label(llmjson::candidates(part).candidates.at(0)) == "whole part");
}

TEST_CASE("the whole output, BOM and white space aside, is the one candidate",
          "[candidate][rule §3 Whole output]") {
  const std::string text = "\xEF\xBB\xBF\n  {\"a\": {\"b\": 1}}\n";
  auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 1);
  const auto& c = s.candidates[0];
  CHECK(c.source == llmjson::source::whole);
  CHECK(c.text == "{\"a\": {\"b\": 1}}");
  CHECK(c.offset == 6);
  CHECK(c.line == 2);
  CHECK(c.column == 3);
  CHECK(*c.json == json::parse(R"({"a":{"b":1}})"));
  CHECK_FALSE(s.truncation);
}

TEST_CASE("a whole output that is an array or a scalar is a candidate too",
          "[candidate][rule §3 Whole output]") {
  CHECK(values(llmjson::candidates(std::string_view("[{\"a\":1},{\"b\":2}]"))) ==
        std::vector<json>{json::parse(R"([{"a":1},{"b":2}])")});
  CHECK(values(llmjson::candidates(std::string_view(" 42 "))) == std::vector<json>{42});
}

TEST_CASE("prose candidates: maximal valid objects with offset, line and column",
          "[candidate][rule §3 The scan]") {
  const std::string text =
      "Draft: {\"decision\":\"skip\"}\nFinal:\n  {\"decision\":\"reply\",\"n\":{\"x\":1}}";
  auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 2);
  CHECK(s.candidates[0].offset == 7);
  CHECK(s.candidates[0].line == 1);
  CHECK(s.candidates[0].column == 8);
  CHECK(s.candidates[0].source == llmjson::source::prose);
  CHECK(s.candidates[1].line == 3);
  CHECK(s.candidates[1].column == 3);
  CHECK(s.candidates[1].text == "{\"decision\":\"reply\",\"n\":{\"x\":1}}");
  CHECK((*s.candidates[1].json)["n"]["x"] == 1);
}

TEST_CASE("columns count code points, not bytes", "[candidate]") {
  const std::string text = "Café 東京 {\"a\":1}";
  auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].column == 9);
  CHECK(s.candidates[0].offset == 13);
}

TEST_CASE("fence bodies that are whole JSON values are candidates, whatever their type",
          "[candidate][rule §3 Fence bodies]") {
  const std::string text = "Tags:\n```json\n[\"a\", \"b\"]\n```\nPlan:\n~~~\n{\"plan\": 1}\n~~~\n";
  auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 2);
  CHECK(s.candidates[0].source == llmjson::source::fence);
  CHECK(s.candidates[0].info == "json");
  CHECK(*s.candidates[0].json == json::parse(R"(["a","b"])"));
  CHECK(s.candidates[1].source == llmjson::source::fence);
  CHECK(s.candidates[1].info.empty());
  CHECK(s.candidates[1].text == "{\"plan\": 1}");
}

TEST_CASE("a fenced array owns the objects inside it", "[candidate][rule §3 Fence bodies]") {
  auto s = llmjson::candidates(std::string_view("```json\n[{\"step\": 1}, {\"step\": 2}]\n```\n"));
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].json->is_array());
}

TEST_CASE("an analysis ```json fence before the plan fence: both are candidates, in order",
          "[candidate][rule §3 Fence bodies]") {
  const std::string text =
      "```json\n{\"analysis\": {\"risk\": \"high\"}}\n```\nSo:\n```json\n{\"orders\": [{\"helm\": "
      "1}]}\n```\n";
  auto v = values(llmjson::candidates(text));
  REQUIRE(v.size() == 2);
  CHECK(v[0].contains("analysis"));
  CHECK(v[1].contains("orders"));
}

TEST_CASE("quotes in prose mean nothing outside braces", "[candidate][rule §3 The scan]") {
  auto v = values(
      llmjson::candidates(std::string_view("He said \"use it's {\"a\": 1} then \" {\"b\": 2}")));
  REQUIRE(v.size() == 2);
  CHECK(v[0] == json::parse(R"({"a":1})"));
  CHECK(v[1] == json::parse(R"({"b":2})"));
}

TEST_CASE("prose-like brace spans keep the objects inside them", "[candidate][rule §3 The scan]") {
  SECTION("code") {
    auto v = values(llmjson::candidates(std::string_view("function f() { return {\"a\":1}; }")));
    CHECK(v == std::vector<json>{json::parse(R"({"a":1})")});
  }
  SECTION("a prose note, a template and LaTeX") {
    auto v = values(llmjson::candidates(
        std::string_view("{Note: see {\"a\":1}} and {{name}} and \\frac{a}{b} then {\"b\":2}")));
    CHECK(v == std::vector<json>{json::parse(R"({"a":1})"), json::parse(R"({"b":2})")});
  }
  SECTION("a prose brace holding an odd quote") {
    auto v =
        values(llmjson::candidates(std::string_view("Use {format \"like this} shown. {\"v\": 1}")));
    CHECK(v == std::vector<json>{json::parse(R"({"v":1})")});
  }
  SECTION("a Python dict with single quotes is prose-like") {
    auto s = llmjson::candidates(std::string_view("{'a': {\"b\": 1}}"));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK(malformed(s) == 0);
  }
}

TEST_CASE("a stray unbalanced { before the answer keeps the answer",
          "[candidate][rule §3 The scan]") {
  auto s = llmjson::candidates(
      std::string_view("then a { to open the payload.\n\n{\"level\": \"INFO\"}\n"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"level":"INFO"})")});
  CHECK_FALSE(s.truncation);
}

TEST_CASE("an echoed template that never closes keeps the candidates inside it",
          "[candidate][rule §3 The scan]") {
  auto s = llmjson::candidates(std::string_view(
      "Format: {\"decision\": <skip|act>, ...\nAnswer: {\"decision\": \"act\"}\n"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"decision":"act"})")});
  CHECK_FALSE(s.truncation);
}

TEST_CASE("braces, escaped quotes and ``` inside JSON strings are text",
          "[candidate][rule §3 The scan]") {
  const std::string text =
      R"(x {"a": "she said \"{not} a brace\"", "b": "```json\n{}\n```", "c": "\\"} y)";
  auto s = llmjson::candidates(text);
  REQUIRE(values(s).size() == 1);
  CHECK(values(s)[0]["a"] == "she said \"{not} a brace\"");
  CHECK(values(s)[0]["c"] == "\\");
}

TEST_CASE("a trailing comma is named at the comma, not at the bracket after it",
          "[candidate][rule §3 The scan]") {
  // The text, and where its message names the fault: the comma's line and column.
  struct one {
    std::string_view text, message;
  };
  const one cases[] = {
      {"[{\"a\": 1},]", "line 1 col 10: trailing comma"},
      {"{\"a\":1,}", "line 1 col 7: trailing comma"},
      {"{\"a\": 1,\n}", "line 1 col 8: trailing comma"},
      {"x\n{\"a\": 1,\n\n   \t}", "line 2 col 8: trailing comma"},
      {"```\n[{\"a\": 1}, 2,\r\n  ]\n```", "line 2 col 13: trailing comma"},
      {"{\"a\": [\"\u00e9\",\n ]}", "line 1 col 11: trailing comma"},
      {"{\"a\": {\"b\": [1]},}", "line 1 col 17: trailing comma"},
  };
  for (const one& c : cases) {
    INFO(c.text);
    auto s = llmjson::candidates(c.text);
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message == c.message);
  }
}

TEST_CASE("a malformed owner is reported with its reason and position, and owns its insides",
          "[candidate][rule §3 The scan]") {
  SECTION("a trailing comma") {
    const std::string text = "Plan:\n{\"orders\": [{\"helm\": 1}, {\"eng\": 2},],\n \"x\": 1}\n";
    auto s = llmjson::candidates(text);
    REQUIRE(s.candidates.size() == 1);
    const auto& c = s.candidates[0];
    CHECK_FALSE(c.valid);
    CHECK(c.json == nullptr);
    CHECK(c.line == 2);
    CHECK(c.message == "line 2 col 36: trailing comma");
  }
  SECTION("a Python literal") {
    auto s = llmjson::candidates(std::string_view("{\"done\": True, \"inner\": {\"a\": 1}}"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].message ==
          "line 1 col 10: invalid literal True (Python; JSON has true, false, null)");
  }
  SECTION("a comment") {
    auto s = llmjson::candidates(std::string_view("{\"a\": 1 // one\n}"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].message == "line 1 col 9: comments are not JSON");
  }
  SECTION("a duplicate key, compared after unescaping") {
    auto s = llmjson::candidates(std::string_view("x {\"a\": 1, \"\\u0061\": 2}"));
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message == "line 1 col 12: duplicate key \"a\"");
  }
  SECTION("a duplicate key in a nested object makes the outer one malformed too") {
    auto s = llmjson::candidates(std::string_view("x {\"o\": {\"k\": 1, \"k\": 2}}"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].text == "{\"o\": {\"k\": 1, \"k\": 2}}");
    CHECK_FALSE(s.candidates[0].valid);
  }
  SECTION("keys of sibling objects may repeat") {
    CHECK(values(llmjson::candidates(std::string_view("x [{\"k\": 1}, {\"k\": 2}]"))) ==
          std::vector<json>{json::parse(R"([{"k": 1}, {"k": 2}])")});
    CHECK(values(llmjson::candidates(std::string_view("x {\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}")))
              .size() == 1);
  }
}

TEST_CASE("invalid JSON details are llmjson's decision", "[candidate][rule §1 Valid JSON]") {
  auto first_problem = [](std::string_view t) {
    auto s = llmjson::candidates(t);
    return s.candidates.empty() ? std::string("none") : s.candidates[0].message;
  };
  CHECK(first_problem("x {\"a\": 01}") == "line 1 col 10: leading zero in number");
  CHECK(first_problem("x {\"a\": 1.}") == "line 1 col 11: incomplete number");
  CHECK(first_problem("x {\"a\": NaN}") == "line 1 col 9: invalid literal NaN (not JSON)");
  CHECK(first_problem("x {\"a\": \"\\q\"}") == "line 1 col 11: invalid escape \\q in string");
  CHECK(first_problem("x {\"a\": \"\\ud800\"}") ==
        "line 1 col 16: unpaired surrogate in \\u escape");
  CHECK(first_problem("x {\"a\": \"\xff\"}") ==
        "line 1 col 10: invalid UTF-8 in string (byte 0xFF)");
  CHECK(first_problem("x {\"a\": [1}") == "line 1 col 11: mismatched '}' (an array is open)");
  CHECK(first_problem("x {\"a\": 1 \"b\": 2}") ==
        "line 1 col 11: unexpected '\"', expected ',' or '}'");
  CHECK(first_problem("x {\"a\": 1, \"b\" 2}") ==
        "line 1 col 16: unexpected '2', expected ':' after the key");
  // After '{', a string not followed by ':' makes the span prose-like: no JSON claim, no report.
  CHECK(first_problem("x {\"a\" 1}") == "none");
  // Valid: a surrogate pair, escapes, exponents, and a NUL byte is a byte like any other.
  CHECK(
      values(llmjson::candidates(std::string_view("x {\"a\": \"\\ud83d\\ude00\", \"b\": -0.5e+3}")))
          .size() == 1);
  const std::string with_nul("{\"a\":1}\0junk", 12);
  auto s = llmjson::candidates(with_nul);
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].source == llmjson::source::prose);
  CHECK(*s.candidates[0].json == json::parse(R"({"a":1})"));
}

TEST_CASE("a raw control character is a byte of a later string in a JSON-like span",
          "[candidate][rule §3 The scan]") {
  // §3 The scan: the value string runs over the raw line break to the next quote, so
  // `{"b": 2}` lies inside the broken object (whose text dies at `b`), never an answer.
  auto s = llmjson::candidates(std::string_view("{\"a\": \"unterminated\n} {\"b\": 2}"));
  CHECK(values(s).empty());
  CHECK_FALSE(s.truncation);
  // Closed, the object owns its inside: malformed, for the quote before `b` (v4: the raw
  // line break alone would be read as escaped).
  s = llmjson::candidates(std::string_view("x {\"a\": \"two\nlines {\"b\": 2}\"} {\"c\": 3}"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"c":3})")});
  REQUIRE(s.candidates.size() == 2);
  CHECK_FALSE(s.candidates[0].raw_controls);
  CHECK(s.candidates[0].message.find("raw") == std::string::npos);
  s = llmjson::candidates(std::string_view("x {\"a\": \"two\nlines {\\\"b\\\": 2}\"} {\"c\": 3}"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"a":"two\nlines {\"b\": 2}"})"),
                                       json::parse(R"({"c":3})")});
  CHECK(s.candidates[0].raw_controls);
  // With a form feed instead, it is malformed, named at it.
  s = llmjson::candidates(std::string_view("x {\"a\": \"two\flines {\"b\": 2}\"} {\"c\": 3}"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"c":3})")});
  CHECK(malformed(s) == 1);
  REQUIRE(s.candidates.size() == 2);
  CHECK(s.candidates[0].message == "line 1 col 13: a raw control character (U+000C) in a string");
}

TEST_CASE("a number nlohmann cannot hold is a valid span without a value",
          "[candidate][rule §1 Valid JSON]") {
  auto s = llmjson::candidates(std::string_view("x {\"a\": 1e400}"));
  REQUIRE(s.candidates.size() == 1);
  CHECK_FALSE(s.candidates[0].valid);
  CHECK(s.candidates[0].json == nullptr);
  CHECK(s.candidates[0].message == "line 1 col 3: a number is out of range for a double");
}

TEST_CASE("nesting deeper than the limit disqualifies a candidate",
          "[candidate][rule §1 Valid JSON]") {
  auto nested = [](int levels) {
    std::string t = "x ";
    for (int i = 0; i < levels; ++i) t += "{\"a\":";
    t += "1";
    for (int i = 0; i < levels; ++i) t += "}";
    return t;
  };
  const std::string ok = nested(512), deep = nested(513);
  CHECK(values(llmjson::candidates(ok)).size() == 1);
  auto s = llmjson::candidates(deep);
  REQUIRE(s.candidates.size() == 1);
  CHECK_FALSE(s.candidates[0].valid);
  CHECK(s.candidates[0].message.find("nesting deeper than 512 levels") != std::string::npos);
  llmjson::options opts;
  opts.max_depth = 8;
  const std::string nine = nested(9);
  CHECK_FALSE(llmjson::candidates(nine, opts).candidates[0].valid);
  // Arrays count as levels; the whole output obeys the same limit (and is then one bracket
  // frame that closes malformed).
  auto arrays = llmjson::candidates(std::string_view("[[[[[[[[[1]]]]]]]]]"), opts);
  REQUIRE(arrays.candidates.size() == 1);
  CHECK(arrays.candidates[0].message == "line 1 col 9: nesting deeper than 8 levels");
  // The limit has a ceiling that options cannot lift.
  opts.max_depth = 1000000;
  const std::string very_deep = nested(5000);
  CHECK_FALSE(llmjson::candidates(very_deep, opts).candidates[0].valid);
}

TEST_CASE("truncation: the text ends inside an object whose text is a valid prefix",
          "[candidate][rule §3 The scan][rule §4 Truncation]") {
  SECTION("a truncated plan's complete inner objects are parts of it, not candidates") {
    const std::string text =
        "Plan follows.\n{\"orders\": [{\"helm\": \"come about\"}, {\"eng\": \"divert\"}, {\"tac";
    auto s = llmjson::candidates(text);
    CHECK(s.candidates.empty());
    REQUIRE(s.truncation);
    CHECK(s.truncation->offset == 14);
    CHECK(s.truncation->line == 2);
    CHECK(s.truncation->column == 1);
    CHECK(s.truncation->message == "the object opened at 2:1 never closes");
  }
  SECTION("an earlier complete draft stays a candidate") {
    auto s = llmjson::candidates(std::string_view("Draft {\"route\": [1]} final {\"route\": [2, "));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"route":[1]})")});
    CHECK(s.truncation);
  }
  SECTION("cut inside a string inside a fence") {
    auto s = llmjson::candidates(std::string_view("```json\n{\"summary\": \"Revenue grew {12%"));
    CHECK(s.candidates.empty());
    CHECK(s.truncation);
  }
  SECTION("an opener that went wrong is no cut") {
    auto s = llmjson::candidates(std::string_view("{\"a\": <x> and {\"b\": 1}"));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK_FALSE(s.truncation);
  }
  SECTION("an object cut by a fence line is malformed, not a cut") {
    auto s = llmjson::candidates(std::string_view("{\"a\": [1,\n```json\n{\"b\": 2}\n```\n"));
    REQUIRE(s.candidates.size() == 2);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message == "line 2 col 1: the object never closes: a fence line cuts it");
    CHECK(*s.candidates[1].json == json::parse(R"({"b":2})"));
    CHECK_FALSE(s.truncation);
  }
}

TEST_CASE("truncation in an unclosed fence", "[candidate][rule §4 Truncation]") {
  SECTION("a ```json opener with nothing after it") {
    auto s = llmjson::candidates(std::string_view("Here it is:\n```json\n"));
    REQUIRE(s.truncation);
    CHECK(s.truncation->offset == 20);
    CHECK(s.truncation->message ==
          "the fence \"json\" opened at line 2 never closes and its body is empty");
  }
  SECTION("a bare ``` at the end is a prefilled fence's closer, not a cut") {
    auto s = llmjson::candidates(std::string_view("{\"verdict\": \"approve\"}\n```\n"));
    CHECK_FALSE(s.truncation);
    CHECK(values(s).size() == 1);
  }
  SECTION("a body that is an unfinished array owns its objects") {
    auto s = llmjson::candidates(std::string_view("```json\n[{\"a\": 1}, {\"b\": 2}, {\"c\""));
    CHECK(s.candidates.empty());
    REQUIRE(s.truncation);
    CHECK(s.truncation->message.find("unfinished JSON array") != std::string::npos);
  }
  SECTION("a fence left open around a complete value is no cut") {
    auto s = llmjson::candidates(std::string_view("```json\n{\"status\": \"ok\"}\n"));
    CHECK_FALSE(s.truncation);
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::fence);
  }
}

TEST_CASE("fence lines cut the text into segments scanned separately",
          "[candidate][rule §2 Fences]") {
  SECTION("the one-line ```{...}``` is prose") {
    auto s = llmjson::candidates(std::string_view("```json {\"approved\": true} ```\n"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::prose);
    CHECK_FALSE(s.candidates[0].in_fence);
  }
  SECTION("a four-backtick fence wrapping a ```json fence") {
    auto s = llmjson::candidates(
        std::string_view("````markdown\nSnippet:\n```json\n{\"name\": \"x\"}\n```\n````\n"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].in_fence);
    CHECK(s.candidates[0].info == "markdown");
    CHECK(*s.candidates[0].json == json::parse(R"({"name":"x"})"));
  }
  SECTION("CRLF line ends") {
    auto s = llmjson::candidates(std::string_view("Result:\r\n```json\r\n{\"a\": 1}\r\n```\r\n"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].line == 3);
    CHECK(s.candidates[0].text == "{\"a\": 1}");
  }
  SECTION("a body with prose around the object is brace-scanned") {
    auto s = llmjson::candidates(std::string_view("```\nnote: {\"a\": 1} ok\n```\n"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::prose);
    CHECK(s.candidates[0].in_fence);
  }
}

TEST_CASE("the same span counts once and candidates never overlap",
          "[candidate][rule §3 Candidates]") {
  auto s = llmjson::candidates(std::string_view("{\"a\": {\"b\": {}}} {} {x {\"c\": 1}}"));
  REQUIRE(s.candidates.size() == 3);
  for (std::size_t i = 1; i < s.candidates.size(); ++i)
    CHECK(s.candidates[i - 1].offset + s.candidates[i - 1].text.size() <= s.candidates[i].offset);
}

using llmjson_tests::repeat;

TEST_CASE("hostile 1 MB inputs get the right answer (a quadratic scan would not finish)",
          "[candidate][hostile]") {
  constexpr std::size_t mb = 1 << 20;
  // The scan itself, past the resource limits that guard the defaults (tested below).
  llmjson::options unlimited;
  unlimited.max_candidates = std::size_t{1} << 30;
  unlimited.max_open_frames = std::size_t{1} << 30;
  SECTION("unmatched {") {
    const std::string t = repeat("{", mb) + " {\"a\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"a":1})")});
  }
  SECTION("{\"a\": repeated: the innermost frames that are a valid prefix are the cut") {
    const std::string t = repeat("{\"a\":", mb);
    auto s = llmjson::candidates(t, unlimited);
    CHECK(s.candidates.empty());
    CHECK(s.truncation);
  }
  SECTION("alternating \" and {") {
    // Each '{' reads '"{"' as its first string, then meets '{': prose-like frames, nested.
    const std::string t = repeat("\"{", mb) + "\n{\"ok\": true}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"ok":true})")});
    CHECK_FALSE(s.truncation);
  }
  SECTION("deep nesting of arrays inside an object") {
    const std::string t = "x {\"a\": " + repeat("[", mb) + "} {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
  }
  SECTION("deep nesting that closes is one malformed (too deep) owner") {
    const std::size_t levels = mb / 5;
    const std::string t =
        "x " + repeat("{\"a\":", levels * 5) + "1" + std::string(levels, '}') + " {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK(malformed(s) == 1);
    CHECK_FALSE(s.truncation);
  }
  SECTION("thousands of fences") {
    constexpr std::string_view unit = "```json\n{\"i\": 1}\n```\n";
    const std::string t = repeat(unit, mb);
    auto s = llmjson::candidates(t, unlimited);
    CHECK(s.candidates.size() == t.size() / unit.size());
    CHECK(s.candidates.back().source == llmjson::source::fence);
  }
  SECTION("thousands of unclosed-looking fence lines") {
    const std::string t = repeat("```json\n", mb) + "{\"a\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"a":1})")});
  }
  SECTION("prose full of braces and quotes") {
    const std::string t =
        repeat("set {x | x > \"0} and {{name}} \\frac{a}{b} ", mb) + "{\"done\": true}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"done":true})")});
  }
  SECTION("many small objects") {
    const std::string t = repeat("{\"a\":1} ", mb);
    CHECK(llmjson::candidates(t, unlimited).candidates.size() == t.size() / 8);
  }
  SECTION("[{ repeated") {
    const std::string t = "x " + repeat("[{", mb) + "\n";
    auto s = llmjson::candidates(t, unlimited);
    // Each [{ goes wrong at the next [ (a key was due); only the last [{ is a valid prefix.
    CHECK(s.candidates.empty());
    REQUIRE(s.truncation);
    CHECK(s.truncation->offset == t.size() - 3);
  }
  SECTION("[\" repeated: one bracket frame that goes wrong at its third [") {
    const std::string t = "x " + repeat("[\"", mb) + " {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK_FALSE(s.truncation);
  }
  SECTION("[[ repeated then ] repeated: one malformed (too deep) array") {
    const std::string t =
        "x " + std::string(mb / 2, '[') + std::string(mb / 2, ']') + " {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK(malformed(s) == 1);
  }
  SECTION("[ then 500k {") {
    const std::string t = "x [" + std::string(500000, '{') + " {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
  }
  SECTION("{\"a\": \" then raw line breaks: one string that runs to the end, a cut") {
    const std::string t = "x {\"a\": \"" + std::string(mb, '\n');
    auto s = llmjson::candidates(t, unlimited);
    CHECK(s.candidates.empty());
    CHECK(s.truncation);
    // Closed after them: one owner, valid with raw controls (v4); with a form feed after
    // them, malformed, named at the form feed.
    const std::string u = t + "\"} {\"b\": 1}";
    s = llmjson::candidates(u, unlimited);
    REQUIRE(s.candidates.size() == 2);
    CHECK(s.candidates[0].raw_controls);
    CHECK(*s.candidates[0].json == json{{"a", std::string(mb, '\n')}});
    const std::string v = t + "\f\"} {\"b\": 1}";
    s = llmjson::candidates(v, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    REQUIRE(malformed(s) == 1);
    CHECK(s.candidates[0].message == "line " + std::to_string(mb + 1) +
                                         " col 1: a raw control character (U+000C) in a string");
  }
  SECTION("backslash, line break repeated in a string; [\" and a line break repeated") {
    const std::string t = "x {\"a\": \"" + repeat("\\\n", mb);
    auto s = llmjson::candidates(t, unlimited);
    CHECK(s.truncation);
    const std::string u = repeat("[\"{\n", mb) + "{\"b\": 1}";
    s = llmjson::candidates(u, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    CHECK_FALSE(s.truncation);
  }
  SECTION("many small objects with a raw line break each: candidates with raw controls") {
    const std::string t = "x " + repeat("{\"a\": \"\n\"} ", mb);
    auto s = llmjson::candidates(t, unlimited);
    CHECK(malformed(s) == 0);
    CHECK(s.candidates.size() == (t.size() - 2) / 11);
    CHECK(std::all_of(s.candidates.begin(), s.candidates.end(),
                      [](const llmjson::candidate& c) { return c.raw_controls; }));
    const std::string u = "x " + repeat("{\"a\": \"\v\"} ", mb);
    s = llmjson::candidates(u, unlimited);
    CHECK(malformed(s) == s.candidates.size());
    CHECK(s.candidates.size() == (u.size() - 2) / 11);
  }
  SECTION("[{\"a\":[ alternating with ]") {
    const std::string t = "x " + repeat("[{\"a\":[]", mb) + " {\"b\": 1}";
    auto s = llmjson::candidates(t, unlimited);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"b":1})")});
    const std::string u = "x " + repeat("[{\"a\":[", mb / 2) + repeat("]", mb / 2);
    CHECK(llmjson::candidates(u, unlimited).candidates.size() <= 1);
  }
}

TEST_CASE("resource limits stop a hostile scan with too_large, naming the limit",
          "[candidate][hostile][rule §6 Errors]") {
  const std::string open_braces = repeat("{\"a\":", 1 << 20);
  auto frames = llmjson::candidates(open_braces);
  CHECK(frames.candidates.empty());
  CHECK(frames.message ==
        "the output opens more than 100000 braces and brackets at once (options::max_open_frames)");
  auto r = llmjson::extract(open_braces);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::too_large);
  CHECK(r.error().message == frames.message);
  const std::string objects = repeat("{} ", 700000);
  auto many = llmjson::candidates(objects);
  CHECK(many.message == "the output holds more than 200000 candidates (options::max_candidates)");
  llmjson::options small;
  small.max_candidates = 3;
  CHECK(llmjson::candidates(std::string_view("{} {} {}"), small).message.empty());
  CHECK_FALSE(llmjson::candidates(std::string_view("{} {} {} {}"), small).message.empty());
  small.max_open_frames = 2;
  CHECK(llmjson::candidates(std::string_view("[{\"a\": 1}]"), small).message.empty());
  CHECK_FALSE(
      llmjson::candidates(std::string_view("x [{\"a\": {\"b\": 1}}]"), small).message.empty());
}

TEST_CASE(
    "bracket frames: a bracket before a brace, a bracket or a quote opens one, others are text",
    "[candidate][arrays][rule §3 The scan]") {
  SECTION("an array of objects in prose is one candidate that owns its elements") {
    auto s = llmjson::candidates(
        std::string_view("Here: [{\"name\": \"Ada\"}, {\"name\": \"Lin\"}] (both active)"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].offset == 6);
    CHECK(s.candidates[0].source == llmjson::source::prose);
    CHECK(*s.candidates[0].json == json::parse(R"([{"name": "Ada"}, {"name": "Lin"}])"));
  }
  SECTION("arrays of strings and of arrays") {
    CHECK(values(llmjson::candidates(std::string_view("labels: [\"a\", \"b\"] ok"))) ==
          std::vector<json>{json::parse(R"(["a", "b"])")});
    CHECK(values(llmjson::candidates(std::string_view("m = [ [1, 2], [3] ]."))) ==
          std::vector<json>{json::parse("[[1, 2], [3]]")});
  }
  SECTION("citations, links, checkboxes and number lists stay text") {
    auto s = llmjson::candidates(
        std::string_view("see [1], [text](url), - [ ] todo, - [x] done, [1, 2] {\"a\": 1}"));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"a": 1})")});
    CHECK(s.candidates.size() == 1);
  }
  SECTION("a bracket frame that closes malformed owns its inside") {
    auto s = llmjson::candidates(std::string_view("Result: [{\"id\": 1}, {\"id\": 2},]"));
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message == "line 1 col 30: trailing comma");
    auto wiki = llmjson::candidates(std::string_view("See [[Main Page]] then {\"ok\": true}"));
    REQUIRE(wiki.candidates.size() == 2);
    CHECK(wiki.candidates[0].text == "[[Main Page]]");
    CHECK_FALSE(wiki.candidates[0].valid);
    CHECK(wiki.candidates[1].valid);
  }
  SECTION("inside a bracket frame, } is text; inside a brace frame, ] is text") {
    CHECK(values(llmjson::candidates(std::string_view("x [\"a\" } {\"b\": 1}"))) ==
          std::vector<json>{json::parse(R"({"b": 1})")});
    auto s = llmjson::candidates(std::string_view("x {\"a\": 1 ] {\"b\": 2} }"));
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
  }
  SECTION("a prose-like brace frame opens bracket frames as prose does") {
    CHECK(values(llmjson::candidates(std::string_view("{see [\"a\", \"b\"] here}"))) ==
          std::vector<json>{json::parse(R"(["a", "b"])")});
    // A [ that turns out to be text gives its byte back to the frame around it.
    CHECK(values(llmjson::candidates(std::string_view("{x [} {\"a\": 1}"))) ==
          std::vector<json>{json::parse(R"({"a": 1})")});
  }
  SECTION("a dead bracket frame that never closes keeps what starts after it went wrong") {
    auto s = llmjson::candidates(std::string_view(
        "Modes [\"fast\", or the slow; I pick {\"mode\": \"fast\"} as [here](x) says."));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"mode": "fast"})")});
    CHECK_FALSE(s.truncation);
  }
}

TEST_CASE("cut arrays, and whole outputs cut by the end of the text",
          "[candidate][arrays][rule §3 Whole output][rule §4 Truncation]") {
  SECTION("a cut array of objects gives up none of its elements") {
    auto s = llmjson::candidates(std::string_view("So far: [{\"id\": 1}, {\"id\": 2}, {\"i"));
    CHECK(s.candidates.empty());
    REQUIRE(s.truncation);
    CHECK(s.truncation->message == "the array opened at 1:9 never closes");
  }
  SECTION("a [ with nothing but white space after it to the end is a cut") {
    auto s = llmjson::candidates(std::string_view("The rows: [ \n"));
    REQUIRE(s.truncation);
    CHECK(s.truncation->offset == 10);
  }
  SECTION("a [ cut by a fence line is malformed") {
    auto s = llmjson::candidates(std::string_view("rows: [\n```json\n[1]\n```\n"));
    REQUIRE(s.candidates.size() == 2);
    CHECK(s.candidates[0].message == "line 2 col 1: the array never closes: a fence line cuts it");
    CHECK(*s.candidates[1].json == json::parse("[1]"));
  }
  SECTION("the whole output a valid JSON prefix: truncated, with no candidates") {
    for (std::string_view t : {"[0.12, 0.57, 0.9", "{\"a\": [1,", "\"The answer is", "tr", "-",
                               "  [{\"a\": 1}, {\"b\": 2}, "}) {
      INFO(t);
      auto s = llmjson::candidates(t);
      CHECK(s.candidates.empty());
      CHECK(s.truncation);
    }
    auto s = llmjson::candidates(std::string_view("\"The answer is"));
    CHECK(s.truncation->message == "the string opened at 1:1 never closes");
    CHECK(llmjson::candidates(std::string_view("  -1.")).truncation->message ==
          "the value at 1:3 is cut short");
    // Not a prefix: the scan reads it as usual.
    CHECK_FALSE(llmjson::candidates(std::string_view("-.5 {\"a\": 1}")).truncation);
    CHECK_FALSE(llmjson::candidates(std::string_view("{\"a\":1,\"a\":")).truncation);
  }
}

TEST_CASE("owners that never close: pieces of a broken answer are not answers",
          "[candidate][arrays][rule §3 The scan]") {
  SECTION("what starts before the byte where it went wrong is dropped") {
    auto s = llmjson::candidates(
        std::string_view("Result: {\"status\": \"ok\", \"data\": {\"id\": 7}, 'extra': 1\n"));
    CHECK(s.candidates.empty());
    CHECK_FALSE(s.truncation);
  }
  SECTION("what starts after it is kept") {
    auto s = llmjson::candidates(std::string_view(
        "Template: {\"decision\": <skip|act>, \"why\": <text>\nAnswer: {\"decision\": \"act\"}"));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"decision": "act"})")});
  }
  SECTION("a candidate that starts right at the failing byte is kept") {
    CHECK(values(llmjson::candidates(std::string_view("x {\"a\": 1 {\"b\": 2}"))) ==
          std::vector<json>{json::parse(R"({"b": 2})")});
  }
  SECTION("in an array too") {
    CHECK(
        llmjson::candidates(std::string_view("x [{\"a\": 1}, oops {\"b\": 2}")).candidates.size() ==
        1);
    CHECK(values(llmjson::candidates(std::string_view("x [{\"a\": 1}, oops {\"b\": 2}"))) ==
          std::vector<json>{json::parse(R"({"b": 2})")});
  }
  SECTION("a prose-like frame keeps all inside it") {
    CHECK(values(llmjson::candidates(std::string_view("{note {\"a\": 1} and more"))) ==
          std::vector<json>{json::parse(R"({"a": 1})")});
  }
}

TEST_CASE("disagreements the differential fuzzer found, settled against the rules text",
          "[candidate][reference]") {
  SECTION("\\udc can only become an unpaired low surrogate: no valid prefix, so no cut") {
    auto s = llmjson::candidates(std::string_view("y {\"b\": \"\\udc"));
    CHECK_FALSE(s.truncation);
    CHECK(llmjson::candidates(std::string_view("y {\"b\": \"\\ud83d")).truncation);
    CHECK_FALSE(llmjson::candidates(std::string_view("y {\"b\": \"\\ud83d\\u0")).truncation);
    CHECK(llmjson::candidates(std::string_view("y {\"b\": \"\\ud83d\\ud")).truncation);
  }
  SECTION("an empty output the prompt opened reasoning for is a region that never closes") {
    llmjson::options opened;
    opened.start = llmjson::output_start::reasoning;
    auto s = llmjson::candidates(std::string_view(""), opened);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
    CHECK_FALSE(llmjson::candidates(std::string_view("")).truncation);
  }
}

// --- §3 The scan: where a string ends, and raw control characters ----------------------------

namespace {
/// The first candidate's problem, or "none".
std::string first_problem_of(std::string_view t) {
  auto s = llmjson::candidates(t);
  return s.candidates.empty() ? std::string("none") : s.candidates[0].message;
}
}  // namespace

TEST_CASE("a brace frame's first string ends at a raw control character: prose-like",
          "[candidate][control][rule §3 The scan]") {
  // `{"` then a line break: the quote was punctuation; the frame keeps what lies inside it and
  // is no valid prefix at the end of the text (no cut).
  auto s = llmjson::candidates(std::string_view("body={\"\nthen {\"a\": 1}\nbody={\"\n"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"a": 1})")});
  CHECK_FALSE(s.truncation);
  // Without the line break, the last `{"` is a valid prefix the end of the text cuts.
  CHECK(llmjson::candidates(std::string_view("body={\"\nthen {\"a\": 1}\nbody={\"")).truncation);
  // Even right after a backslash.
  s = llmjson::candidates(std::string_view("x {\"k\\\n {\"a\": 1}"));
  CHECK(values(s) == std::vector<json>{json::parse(R"({"a": 1})")});
  CHECK_FALSE(s.truncation);
  // A key broken by a raw line break is a near miss, with the new wording.
  s = llmjson::candidates(std::string_view("x {\"li\tne\": 1}"));
  REQUIRE(s.near_misses.size() == 1);
  CHECK(s.near_misses[0].message == "a raw tab in a string");
}

TEST_CASE("a bracket frame's first string that a raw control character ends: no frame at all",
          "[candidate][control][rule §3 The scan]") {
  // Its `[` and the string's bytes are text (the `{` in it opens nothing); the scan goes on
  // after the line break, outside every frame.
  auto s = llmjson::candidates(std::string_view("see [\"a {b\n{\"c\": 1}"));
  REQUIRE(values(s) == std::vector<json>{json::parse(R"({"c": 1})")});
  CHECK_FALSE(s.candidates[0].enclosed);
  CHECK_FALSE(s.truncation);
  // Even after a backslash; and in a prose-like frame, the scan goes on in that frame.
  s = llmjson::candidates(std::string_view("{see [\"a\\\n{\"c\": 1}} and {\"d\": 2}"));
  REQUIRE(values(s).size() == 2);
  CHECK(s.candidates[0].enclosed);        // inside `{see ...}`, which its `}` closes
  CHECK_FALSE(s.candidates[1].enclosed);  // after it
  // A later string of a bracket frame is not a first string: it runs over line breaks, and
  // the frame is valid with raw controls (v4).
  s = llmjson::candidates(std::string_view("x [\"a\", \"b\nc\"] {\"d\": 2}"));
  CHECK(values(s) ==
        std::vector<json>{json::parse(R"(["a", "b\nc"])"), json::parse(R"({"d": 2})")});
  CHECK(s.candidates[0].raw_controls);
  // Nor is a string after a nested `[` or `{`.
  s = llmjson::candidates(std::string_view("x [[\"b\nc\"]] {\"d\": 2}"));
  CHECK(malformed(s) == 0);
  CHECK(s.candidates[0].raw_controls);
  s = llmjson::candidates(std::string_view("x [{\"a\": \"b\nc\"}] {\"d\": 2}"));
  CHECK(malformed(s) == 0);
  CHECK(s.candidates[0].raw_controls);
  // With a tab after a backslash instead, malformed.
  s = llmjson::candidates(std::string_view("x [\"a\", \"b\\\tc\"] {\"d\": 2}"));
  CHECK(malformed(s) == 1);
  CHECK(s.candidates[0].message == "line 1 col 12: a raw tab in a string");
}

TEST_CASE("every other string runs to its quote: raw control characters are its bytes",
          "[candidate][control][rule §3 The scan]") {
  SECTION("a closed frame whose strings hold one owns its inside, valid or not") {
    // The line of the string that looks like an object is no answer of its own; with only
    // raw line breaks the frame is valid with raw controls (v4), with a form feed malformed.
    const std::string_view t = "x {\"code\": \"a = 1\nb = {\\\"k\\\": 2}\nprint(b)\"} end";
    auto s = llmjson::candidates(t);
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].valid);
    CHECK(s.candidates[0].raw_controls);
    CHECK((*s.candidates[0].json)["code"] == "a = 1\nb = {\"k\": 2}\nprint(b)");
    CHECK_FALSE(s.truncation);
    const std::string_view u = "x {\"code\": \"a = 1\nb = {\\\"k\\\": 2}\f\nprint(b)\"} end";
    s = llmjson::candidates(u);
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message == "line 2 col 15: a raw control character (U+000C) in a string");
  }
  SECTION("the reason names the first offending byte, its line and column, and its name") {
    CHECK(first_problem_of("x {\"a\": \"\xC3\xA9\fb\"}") ==
          "line 1 col 11: a raw control character (U+000C) in a string");  // code points
    CHECK(first_problem_of("x {\"a\": \"b\\\rc\"}") ==
          "line 1 col 12: a raw line break in a string");  // after a backslash
    CHECK(first_problem_of("x {\"a\": \"\t\n\f\"}") ==
          "line 2 col 1: a raw control character (U+000C) in a string");  // after LF and tab
    CHECK(first_problem_of(std::string_view("x {\"a\": \"b\0c\"}", 15)) ==
          "line 1 col 11: a raw control character (U+0000) in a string");
    CHECK(first_problem_of("x {\"a\": \"b\x1f\"}") ==
          "line 1 col 11: a raw control character (U+001F) in a string");
    CHECK(first_problem_of("x\n{\"a\": 1,\n \"b\": \"c\\\x0b\"}") ==
          "line 3 col 10: a raw control character (U+000B) in a string");
    // A later key is read like any other string: valid with raw controls.
    CHECK(first_problem_of("x {\"a\": 1, \"b\nc\": 2}").empty());
    CHECK(first_problem_of("x {\"a\": 1, \"b\x01"
                           "c\": 2}") ==
          "line 1 col 14: a raw control character (U+0001) in a string");
    // An earlier problem comes first.
    CHECK(first_problem_of("x {\"a\": 01, \"b\": \"\n\"}") ==
          "line 1 col 10: leading zero in number");
  }
  SECTION("a backslash escapes whatever follows it: `\\\"` does not end the string") {
    auto s = llmjson::candidates(std::string_view("x {\"a\": \"b\n\\\"}\"} {\"c\": 1}"));
    CHECK(values(s) ==
          std::vector<json>{json::parse(R"({"a": "b\n\"}"})"), json::parse(R"({"c": 1})")});
    CHECK(malformed(s) == 0);
  }
  SECTION("a nested frame without one is still a part of the owner") {
    auto s = llmjson::candidates(std::string_view("x {\"a\": \"b\nc\", \"d\": {\"e\": 1}} y"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].raw_controls);
    s = llmjson::candidates(std::string_view("x [{\"a\": \"b\fc\"}, {\"e\": 1}] y"));
    REQUIRE(s.candidates.size() == 1);
    CHECK_FALSE(s.candidates[0].valid);
  }
  SECTION("the whole output, a whole part, a fence body: strict, no valid prefix") {
    auto s = llmjson::candidates(std::string_view("{\"a\": \"b\nc\"}"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::prose);  // not the whole output
    CHECK(s.candidates[0].raw_controls);
    s = llmjson::candidates(std::string_view("x\n```json\n{\"a\": \"b\nc\"}\n```\n{\"d\": 1}"));
    REQUIRE(s.candidates.size() == 2);
    CHECK(s.candidates[0].source == llmjson::source::prose);
    CHECK(s.candidates[0].in_fence);
    CHECK(s.candidates[0].raw_controls);
    CHECK(s.candidates[1].valid);
    // A fence body cut by its closing line while a string with a line break runs: malformed.
    s = llmjson::candidates(std::string_view("x\n```\n{\"a\": \"b\nc\n```\n{\"d\": 1}"));
    REQUIRE(s.candidates.size() == 2);
    CHECK(s.candidates[0].message.find("never closes: the fence's closing line cuts it") !=
          std::string::npos);
    CHECK_FALSE(s.truncation);
  }
}

TEST_CASE("the valid-prefix tests read strings as the scan does",
          "[candidate][control][rule §3 The scan]") {
  SECTION("cut by the end of the text inside such a string: truncated") {
    CHECK(llmjson::candidates(std::string_view("x {\"a\": \"line one\nline")).truncation);
    CHECK(llmjson::candidates(std::string_view("x {\"a\": \"line one\\\n")).truncation);
    CHECK(llmjson::candidates(std::string_view("x {\"a\": \"b\nc\", \"d\": [1,")).truncation);
    CHECK(llmjson::candidates(std::string_view("x {\"a\": 1, \"b\tc")).truncation);  // later key
    CHECK(llmjson::candidates(std::string_view("{\"a\": \"one\ntwo")).truncation);   // whole: no
    CHECK(llmjson::candidates(std::string_view("x [\"a\", \"b\nc")).truncation);
    // Inside a \u escape, a control character is no hex digit: no valid prefix.
    CHECK_FALSE(llmjson::candidates(std::string_view("x {\"a\": \"\\u0\n0")).truncation);
  }
  SECTION("an object's first key is read strictly") {
    CHECK_FALSE(llmjson::candidates(std::string_view("x {\"a\nb\": 1")).truncation);
    // A nested object's first key too: the frame around it dies there.
    auto s = llmjson::candidates(std::string_view("x {\"a\": {\"b\n {\"c\": 1}"));
    CHECK_FALSE(s.truncation);
    CHECK(values(s) == std::vector<json>{json::parse(R"({"c": 1})")});
  }
  SECTION("a frame never dies at a raw control character in another string") {
    // The frame dies at `oops`, after the line break: what starts before that is its piece.
    auto s = llmjson::candidates(
        std::string_view("x {\"a\": [{\"b\": 1}], \"c\": \"d\ne\" oops {\"f\": 2}"));
    CHECK(values(s) == std::vector<json>{json::parse(R"({"f": 2})")});
    CHECK_FALSE(s.truncation);
  }
}

TEST_CASE("enclosed: whether a frame encloses a candidate",
          "[candidate][fallback][rule §5 Selection and policies]") {
  auto s =
      llmjson::candidates(std::string_view("{'a': {\"b\": 1}} {\"c\": {\"d\": 2}} {note {\"e\": "
                                           "3}\n```\n{\"f\": 4}\n```\n[{\"g\": 5}]"));
  REQUIRE(s.candidates.size() == 5);
  CHECK(s.candidates[0].enclosed);        // in a prose-like frame (a Python dict)
  CHECK_FALSE(s.candidates[1].enclosed);  // a top-level object
  CHECK(s.candidates[2].enclosed);        // in a prose-like frame that never closes
  CHECK(s.candidates[3].source == llmjson::source::fence);
  CHECK_FALSE(s.candidates[3].enclosed);  // a fence body
  CHECK_FALSE(s.candidates[4].enclosed);  // a top-level array after the fence
  // In a JSON-like frame that died or never closed.
  s = llmjson::candidates(std::string_view("x {\"a\": oops {\"b\": 1}"));
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].enclosed);
  // Whole outputs and parts never are.
  CHECK_FALSE(llmjson::candidates(std::string_view("{\"a\": 1}")).candidates[0].enclosed);
  s = llmjson::candidates(std::string_view("<think>x</think>{\"a\": 1}"));
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].source == llmjson::source::part);
  CHECK_FALSE(s.candidates[0].enclosed);
}

TEST_CASE("a candidate's value: null when invalid, shared by the copies of an error",
          "[candidate][result]") {
  std::string body = "[";  // a fence body this long is built by the engine, in one pass
  for (int i = 0; i < 100; ++i) body += "0, ";
  body += "3]";
  const std::string text = "{\"a\": 1,} then {\"b\": 2} and\n```json\n" + body + "\n```\n";
  // A predicate judges each candidate by its value: each valid one gets it.
  auto has_z = [](const json& v) { return v.is_object() && v.contains("z"); };
  auto r = llmjson::extract(text, has_z, {.fallback = false});
  REQUIRE_FALSE(r);
  const llmjson::error& e = r.error();
  CHECK(e.kind == llmjson::error_kind::no_match);
  REQUIRE(e.candidates.size() == 3);
  CHECK_FALSE(e.candidates[0].valid);
  CHECK(e.candidates[0].json == nullptr);
  REQUIRE(e.candidates[1].json != nullptr);
  CHECK(*e.candidates[1].json == json::parse(R"({"b": 2})"));
  CHECK(e.candidates[2].source == llmjson::source::fence);
  REQUIRE(e.candidates[2].json != nullptr);
  CHECK(*e.candidates[2].json == json::parse(body));
  // A copy of the error (a retry_error holds one) shares the values: it copies none.
  const llmjson::error copy = e;
  CHECK(copy.candidates[0].json == nullptr);
  CHECK(copy.candidates[1].json == e.candidates[1].json);
  CHECK(copy.candidates[2].json == e.candidates[2].json);
  // The whole output's value, built on the fast path.
  auto whole = llmjson::candidates(std::string_view(" {\"c\": [1]} "));
  REQUIRE(whole.candidates.size() == 1);
  CHECK(whole.candidates[0].source == llmjson::source::whole);
  REQUIRE(whole.candidates[0].json != nullptr);
  CHECK(*whole.candidates[0].json == json::parse(R"({"c": [1]})"));
}

TEST_CASE("any_key and any_object build the value of the answer and of what qualifies only",
          "[candidate][select]") {
  std::string body = "[";  // a fence body this long is built by the engine, in one pass
  for (int i = 0; i < 100; ++i) body += "0, ";
  body += "3]";
  const std::string text = "Draft {\"b\": 2}, example {\"a\": [1]}\n```json\n" + body +
                           "\n```\nAnswer: {\"a\": {\"x\": \"y\"}} {\"a\": 3}";
  const auto r = llmjson::extract(text, llmjson::any_key({"a"}));
  REQUIRE(r);
  REQUIRE(r->candidates.size() == 5);
  CHECK(r->index == 1);
  CHECK(r->json() == json::parse(R"({"a": [1]})"));
  // Turned down from their text (type and top-level keys): no value, the reason as on a value.
  CHECK(r->candidates[0].json == nullptr);
  CHECK(r->candidates[0].message == R"(has none of the keys "a")");
  CHECK(r->candidates[2].json == nullptr);  // built by the engine, dropped: it does not qualify
  CHECK(r->candidates[2].message == "not an object (array)");
  // Every candidate that qualifies has its value (the later ones too).
  REQUIRE(r->candidates[3].json != nullptr);
  CHECK(*r->candidates[3].json == json::parse(R"({"a": {"x": "y"}})"));
  REQUIRE(r->candidates[4].json != nullptr);
  CHECK(r->later_qualifying == std::vector<std::size_t>{3, 4});
  // candidates() gives every valid candidate outside reasoning its value.
  for (const llmjson::candidate& c : llmjson::candidates(text).candidates) CHECK(c.json != nullptr);
  // The fallback (no candidate qualifies) gets its value when it is taken.
  const auto f = llmjson::extract(text, llmjson::any_key({"zz"}));
  REQUIRE(f);
  CHECK(f->fallback);
  CHECK(f->json() == json::parse(R"({"b": 2})"));
  // A stream's settled candidate has it too.
  llmjson::stream s(llmjson::any_object{}, {.start = llmjson::output_start::answer});
  s.feed(text);
  s.sync();
  REQUIRE(s.settled() != nullptr);
  REQUIRE(s.settled()->json != nullptr);
  CHECK(*s.settled()->json == json::parse(R"({"b": 2})"));
}

TEST_CASE("options::answer_value off: no value that the selector and the policy do not read",
          "[candidate][select]") {
  const std::string text =
      "Draft {\"b\": 2}, example {\"a\": [1]}\n```json\n[1, 2]\n```\n"
      "Answer: {\"a\": {\"x\": \"y\"}} {\"a\": 3}";
  const llmjson::options off{.answer_value = false};
  // A key set judges the text: no value at all, the answer's text and the rest as with values.
  for (const llmjson::policy p : {llmjson::policy::first, llmjson::policy::last}) {
    llmjson::options o = off;
    o.policy = p;
    const auto r = llmjson::extract(text, llmjson::any_key({"a"}), o);
    const auto v = llmjson::extract(text, llmjson::any_key({"a"}), {.policy = p});
    REQUIRE(r);
    REQUIRE(v);
    CHECK(r->index == v->index);
    CHECK(r->text() == v->text());
    CHECK(r->json().is_null());
    CHECK(v->json() == json::parse(p == llmjson::policy::first ? R"({"a": [1]})" : R"({"a": 3})"));
    for (const llmjson::candidate& c : r->candidates) CHECK(c.json == nullptr);
    CHECK(llmjson_test::differs(llmjson_test::without_values(r), llmjson_test::without_values(v)) ==
          "");
  }
  // No selector, and the fallback: no value either.
  const auto any = llmjson::extract(text, off);
  REQUIRE(any);
  CHECK((any->index == 0 && any->json().is_null()));
  const auto fallback = llmjson::extract(text, llmjson::any_key({"zz"}), off);
  REQUIRE(fallback);
  CHECK((fallback->fallback && fallback->text() == R"({"b": 2})" && fallback->json().is_null()));
  // Policy unique compares the qualifying values: they are built (and equal ones count once).
  llmjson::options unique = off;
  unique.policy = llmjson::policy::unique;
  const std::string twice = R"(First {"a": 1}, then again {"a": 1.0}.)";
  const auto u = llmjson::extract(twice, llmjson::any_key({"a"}), unique);
  REQUIRE(u);
  CHECK(u->json() == json::parse(R"({"a": 1})"));
  CHECK(llmjson::extract(text, llmjson::any_key({"a"}), unique).error().kind ==
        llmjson::error_kind::ambiguous);
  // A predicate judges values: built, as without the option.
  const auto pred = llmjson::extract(
      text, [](const json& j) { return j.is_object() && j.contains("b"); }, off);
  REQUIRE(pred);
  CHECK(pred->json() == json::parse(R"({"b": 2})"));
  // A stream ignores it: its settled candidate and its answer have their values.
  llmjson::stream s(llmjson::any_key({"a"}), {.answer_value = false});
  s.feed(text);
  const auto done = s.finish();
  REQUIRE(done);
  CHECK(done->json() == json::parse(R"({"a": [1]})"));
}

TEST_CASE("a candidate in reasoning: valid, with its span and position, and no value",
          "[candidate][rule §2 Reasoning regions]") {
  for (const llmjson_test::reasoning_form& f : llmjson_test::reasoning_forms()) {
    const llmjson::scan_result s = llmjson::candidates(f.text, f.opts);
    llmjson_test::check_drafts(s.candidates, f, /*selected=*/false);
    const auto r = llmjson::extract(f.text, llmjson::any_object{}, f.opts);
    REQUIRE(r);
    CHECK(r->index == 3);
    CHECK(r->json() == json::parse(llmjson_test::drafts::answer));
    llmjson_test::check_drafts(r->candidates, f, /*selected=*/true);
  }
}

TEST_CASE("the same drafts outside reasoning carry their values", "[candidate]") {
  // With reasoning regions off, the <think> form's drafts are answer text: values are built,
  // the one-pass fence body included, and the number no double holds is malformed as before.
  const llmjson_test::reasoning_form f = llmjson_test::reasoning_forms().front();
  llmjson::options off;
  off.reasoning_regions = false;
  const llmjson::scan_result s = llmjson::candidates(f.text, off);
  REQUIRE(s.candidates.size() == 4);
  for (const llmjson::candidate& c : s.candidates) CHECK_FALSE(c.in_reasoning);
  REQUIRE(s.candidates[0].json != nullptr);
  CHECK(*s.candidates[0].json == json::parse(llmjson_test::drafts::prose));
  REQUIRE(s.candidates[1].json != nullptr);
  CHECK(*s.candidates[1].json == json::parse(llmjson_test::drafts::fence_body()));
  CHECK_FALSE(s.candidates[2].valid);
  CHECK(s.candidates[2].json == nullptr);
  REQUIRE(s.candidates[3].json != nullptr);
  // Policy first, any object: the first draft is now the answer.
  const auto r = llmjson::extract(f.text, llmjson::any_object{}, off);
  REQUIRE(r);
  CHECK(r->index == 0);
  CHECK(r->json() == json::parse(llmjson_test::drafts::prose));
}

TEST_CASE("validity in reasoning is decided as elsewhere: numbers beyond a double",
          "[candidate][rule §1 Valid JSON]") {
  // Only the numbers with an exponent or 300 digits and more can fail; strings never do.
  const std::string digits309 = "1" + std::string(308, '0');
  const std::string digits400 = "0." + std::string(400, '0') + "1";
  const std::vector<std::pair<std::string, bool>> drafts{
      {R"({"n": 1e308})", true},
      {R"({"n": 1e309})", false},
      {R"({"n": -1E+400})", false},
      {R"({"n": 1e-400})", true},  // underflows to zero: nlohmann holds it
      {"{\"n\": " + digits309 + "}", true},
      {"{\"n\": " + digits309 + "0}", false},
      {"{\"n\": " + digits400 + "}", true},
      {R"({"s": "1e400", "t": "\"1e400\\"})", true},
      {R"({"s": "\\", "n": [2E400]})", false},
      {R"([true, false, null, {"e": 1e2}])", true},
      {R"({"t": [true, 1E400]})", false},
      {R"({"true": false, "x": -2.5e+400})", false},
      {R"({"e": ["e", 1.5e3, "E", -0.0E-0]})", true},
      {"{\"pad\": \"" + std::string(300, 'e') + "\", \"n\": 1e400}", false},
      {"{\"pad\": \"" + std::string(300, 'e') + "\", \"n\": 1e300}", true},
  };
  for (const auto& [draft, fits] : drafts) {
    INFO(draft);
    const std::string text = "<think>" + draft + "</think>{\"b\": 2}";
    const llmjson::scan_result in = llmjson::candidates(text);
    const llmjson::scan_result out = llmjson::candidates(text, {.reasoning_regions = false});
    REQUIRE(in.candidates.size() == 2);
    REQUIRE(out.candidates.size() == 2);
    CHECK(in.candidates[0].in_reasoning);
    CHECK(in.candidates[0].json == nullptr);
    CHECK(in.candidates[0].valid == fits);
    // The same span outside reasoning: built, and valid exactly when it is in reasoning.
    CHECK(out.candidates[0].valid == fits);
    CHECK((out.candidates[0].json != nullptr) == fits);
    CHECK(in.candidates[0].message ==
          (fits ? "" : "line 1 col 8: a number is out of range for a double"));
  }
}

TEST_CASE("whole outputs, parts and fence bodies tell numbers beyond a double, listed or selected",
          "[candidate][rule §1 Valid JSON]") {
  // Their validator flags a number that may not fit (`last_big_number`), so their candidates
  // check the numbers only then; a long fence body is checked as it is parsed whole.
  const std::string pad(300, 'p');
  const std::vector<std::pair<std::string, bool>> values{
      {R"({"n": 1e308})", true},
      {R"({"n": 1e309})", false},
      {R"({"n": [1, 2.5e-3, -7]})", true},
      {"{\"pad\": \"" + pad + "\", \"n\": 1e400}", false},
      {"{\"pad\": \"" + pad + "\", \"n\": 12}", true},
      {"{\"n\": 1" + std::string(309, '0') + "}", false},
  };
  for (const auto& [value, fits] : values) {
    for (const std::string& text :
         {value, "Here:\n```json\n" + value + "\n```\nDone.", "<think>x</think>" + value,
          "<|channel|>final<|message|>" + value + "<|end|>"}) {
      INFO(text);
      const llmjson::scan_result listed = llmjson::candidates(text);
      REQUIRE(listed.candidates.size() == 1);
      CHECK(listed.candidates[0].valid == fits);
      const auto picked = llmjson::extract(text, llmjson::any_key({"n"}));
      CHECK(picked.has_value() == fits);
      if (!fits)
        CHECK(picked.error().message.find("out of range for a double") != std::string::npos);
    }
  }
}

TEST_CASE("a malformed draft in reasoning: candidates() says why, selection says where it lies",
          "[candidate][rule §5 Selection and policies]") {
  // extract, the stream and the retry wrapper do not word the reason of a candidate in reasoning
  // (judging replaces it with `inside <think>`); candidates() still finds and words it.
  const std::string text =
      "<think>draft {\"a\": [1,]} and {\"n\": 1e400}\n\xE2\x80\x94 {\"ok\": 1}</think>\n{\"b\": 2}";
  const llmjson::scan_result s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 4);
  CHECK(s.candidates[0].message == "line 1 col 22: trailing comma");
  CHECK(s.candidates[1].message == "line 1 col 30: a number is out of range for a double");
  CHECK(s.candidates[2].message.empty());
  CHECK(s.candidates[3].message.empty());

  const auto r = llmjson::extract(text, llmjson::any_key({"b"}));
  REQUIRE(r);
  REQUIRE(r->candidates.size() == 4);
  CHECK(r->index == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    INFO(k);
    const llmjson::candidate& c = r->candidates[k];
    CHECK(c.in_reasoning);
    CHECK(c.valid == s.candidates[k].valid);  // validity is decided all the same
    CHECK(c.line == s.candidates[k].line);
    CHECK(c.column == s.candidates[k].column);
    CHECK(c.message == "inside <think>");
  }

  // The stream, a byte at a time (every candidate is made as it settles, not at the end).
  llmjson::stream st(llmjson::any_key({"b"}));
  for (char ch : text) st.feed(std::string_view(&ch, 1));
  for (const llmjson::candidate& c : st.seen())
    if (c.in_reasoning) CHECK(c.message == "inside <think>");
  const auto f = st.finish();
  REQUIRE(f);
  for (std::size_t k = 0; k < 3; ++k) CHECK(f->candidates[k].message == "inside <think>");

  // An error lists them with their region, as before.
  const auto e = llmjson::extract(text, llmjson::any_key({"zz"}), {.fallback = false});
  REQUIRE_FALSE(e);
  CHECK(e.error().message ==
        "1 candidate, none qualifies: 3:1 whole part: has none of the keys \"zz\"; 3 candidates "
        "inside <think> at 1:14, 1:30, 2:3");

  // A region the prompt opened is named by its closing marker.
  const std::string opened = "{\"a\": tru} x</think>{\"b\": 2}";
  const llmjson::options o{.start = llmjson::output_start::reasoning};
  const llmjson::scan_result so = llmjson::candidates(opened, o);
  REQUIRE(so.candidates.size() == 2);
  CHECK(so.candidates[0].message == "line 1 col 7: invalid literal tru, expected a value");
  const auto ro = llmjson::extract(opened, llmjson::any_key({"b"}), o);
  REQUIRE(ro);
  CHECK(ro->candidates[0].message == "inside the reasoning before </think>");
}

}  // namespace llmjson_tests::candidate_test
