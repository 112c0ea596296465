// llmjson: fences() finds CommonMark fenced code blocks
// SPDX-License-Identifier: MIT
#include <llmjson/detail/fences.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/scan.hpp>

#include "catch_compat.hpp"

#include <string>
#include <string_view>

using namespace std::string_view_literals;

// The line scanner is constexpr: a broken rule fails the build.
static_assert(llmjson::detail::line_at("ab\r\ncd"sv, 0).end == 2);
static_assert(llmjson::detail::line_at("ab\r\ncd"sv, 0).next == 4);
static_assert(llmjson::detail::line_at("ab\rcd"sv, 0).next == 3);
static_assert(llmjson::detail::fence_marker("   ```json"sv).length == 3);
static_assert(llmjson::detail::fence_marker("    ```json"sv).marker ==
              0);  // 4 spaces: indented code
static_assert(llmjson::detail::fence_marker("``"sv).marker == 0);
static_assert(llmjson::detail::fence_marker("~~~~"sv).length == 4);

TEST_CASE("a json fence: body, info string, spans and line", "[fence]") {
  const std::string text = "Intro\n```json\n{\"a\": 1}\n```\nafter\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 1);
  const auto& f = fs[0];
  CHECK(f.closed);
  CHECK(f.info == "json");
  CHECK(f.marker == '`');
  CHECK(f.marker_length == 3);
  CHECK(f.line == 2);
  CHECK(f.body == "{\"a\": 1}\n");
  CHECK(f.offset == 6);
  CHECK(f.text == "```json\n{\"a\": 1}\n```");
  CHECK(text.substr(f.body_offset, f.body.size()) == f.body);
}

TEST_CASE("info strings are kept as written and never filter", "[fence]") {
  const std::string text = "```JSON \n1\n```\n``` jsonc\n2\n```\n```\n3\n```\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].info == "JSON");
  CHECK(fs[1].info == "jsonc");
  CHECK(fs[2].info.empty());
}

TEST_CASE("an unclosed fence runs to the end of the text", "[fence]") {
  const std::string text = "```json\n{\"a\": 1}\nmore";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 1);
  CHECK_FALSE(fs[0].closed);
  CHECK(fs[0].body == "{\"a\": 1}\nmore");
  CHECK(fs[0].text == text);
}

TEST_CASE("a four-backtick fence wraps a ```json fence, which stays part of its body", "[fence]") {
  const std::string text = "````markdown\n```json\n{\"a\":1}\n```\n````\nafter\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].marker_length == 4);
  CHECK(fs[0].body == "```json\n{\"a\":1}\n```\n");
  CHECK(fs[0].closed);
}

TEST_CASE("a closing line needs the same character, at least as many, and only white space",
          "[fence]") {
  SECTION("tildes are not closed by backticks") {
    auto fs = llmjson::fences(std::string_view("~~~\nx\n```\ny\n~~~\n"));
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].body == "x\n```\ny\n");
  }
  SECTION("a shorter run does not close") {
    auto fs = llmjson::fences(std::string_view("`````\nx\n```\n`````\n"));
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].body == "x\n```\n");
  }
  SECTION("text after the run does not close") {
    auto fs = llmjson::fences(std::string_view("```\nx\n``` y\n```  \t\n"));
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].body == "x\n``` y\n");
    CHECK(fs[0].closed);
  }
  SECTION("only spaces and tabs: other white space after the run does not close") {
    auto fs = llmjson::fences(std::string_view("```\nx\n```\f\n```\v\n```\t \n"));
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].body == "x\n```\f\n```\v\n");
    CHECK(fs[0].closed);
  }
  SECTION("a longer run closes") {
    auto fs = llmjson::fences(std::string_view("```\nx\n``````\n"));
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].closed);
  }
}

TEST_CASE("indent: up to three spaces open and close a fence, four do not", "[fence]") {
  auto fs = llmjson::fences(std::string_view("   ```\nx\n   ```\n    ```\ny\n"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].body == "x\n");
  CHECK(fs[0].closed);
}

TEST_CASE("a backtick info string with a backtick is inline code, not a fence", "[fence]") {
  CHECK(llmjson::fences(std::string_view("```json {\"approved\": true} ```\n")).empty());
  // Tildes may have backticks in their info string.
  CHECK(llmjson::fences(std::string_view("~~~ a`b\nx\n~~~\n")).size() == 1);
}

TEST_CASE("CRLF and lone CR end lines", "[fence]") {
  auto fs = llmjson::fences(std::string_view("a\r\n```json\r\n{\"a\":1}\r\n```\r\nb\r```\rz\r```"));
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].body == "{\"a\":1}\r\n");
  CHECK(fs[0].info == "json");
  CHECK(fs[0].line == 2);
  CHECK(fs[1].body == "z\r");
  CHECK(fs[1].closed);
  CHECK(fs[1].line == 6);
}

TEST_CASE("a lone CR ends a line whatever follows it; CR LF is one line ending", "[fence]") {
  // A pipeline that dropped the LFs of CRLF: every line ends at a lone CR.
  auto fs = llmjson::fences(std::string_view("How many?\r\r```json\r42\r```\r"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].body == "42\r");
  CHECK(fs[0].line == 3);
  CHECK(fs[0].closed);
  // CR CR LF: two line endings (an empty line between), so the fence opens on line 3.
  auto two = llmjson::fences(std::string_view("x\r\r\n```\ny\n```"));
  REQUIRE(two.size() == 1);
  CHECK(two[0].line == 3);
  CHECK(two[0].body == "y\n");
  // A CR inside a line is no line ending only when an LF follows it.
  CHECK(llmjson::fences(std::string_view("x ```\r\ny\n")).empty());
}

TEST_CASE("a JSON string holding ``` cannot end a fence", "[fence]") {
  const std::string text = "```json\n{\"code\": \"```python\\nprint(1)\\n```\"}\n```\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].body == "{\"code\": \"```python\\nprint(1)\\n```\"}\n");
}

TEST_CASE("a leading BOM does not hide a fence on the first line", "[fence]") {
  auto fs = llmjson::fences(std::string_view("\xEF\xBB\xBF```json\n{\"a\":1}\n```\n"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].offset == 3);
  CHECK(fs[0].info == "json");
  CHECK(fs[0].body == "{\"a\":1}\n");
}

TEST_CASE("a fence opener on the last line has an empty body", "[fence]") {
  auto fs = llmjson::fences(std::string_view("{\"a\":1}\n```"));
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].body.empty());
  CHECK_FALSE(fs[0].closed);
  CHECK(fs[0].info.empty());
}

TEST_CASE("thousands of fences are found in one pass", "[fence]") {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "```\n{}\n```\n";
  CHECK(llmjson::fences(text).size() == 5000);
}
