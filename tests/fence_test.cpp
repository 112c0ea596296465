// llmjson: fences() lists the fenced code blocks extraction reads (§2 Fences)
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/fence_walker.hpp>
#include <llmjson/fence.hpp>
#include <llmjson/kernel.hpp>
#include <llmjson/scan.hpp>

#include "catch_compat.hpp"
#include "kernel_ops.hpp"
#include "reference/reference.hpp"
#include "sweep.hpp"

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace llmjson_tests::fence_test {

using namespace std::string_view_literals;

// The fence walker is constexpr: a broken line rule fails the build.
constexpr llmjson::detail::fence_walker::line_kind walk(std::string_view a, std::string_view b) {
  llmjson::detail::fence_walker w;
  w.feed(a);
  return w.feed(b).kind;
}
using kind = llmjson::detail::fence_walker::line_kind;
static_assert(walk("   ```json"sv, "x"sv) == kind::text);
static_assert(walk("   ```json"sv, "   ```  "sv) == kind::closes);
static_assert(walk("    ```json"sv, "```"sv) == kind::opens);  // 4 spaces: indented code
static_assert(walk("``"sv, "``"sv) == kind::text);
static_assert(walk("~~~~"sv, "~~~"sv) == kind::text);  // a shorter run does not close
static_assert(walk("~~~~"sv, "~~~~~"sv) == kind::closes);
static_assert(llmjson::detail::fence_run_of("~~~~"sv).length == 4);

TEST_CASE("a json fence: body, info string, spans and line", "[fence]") {
  const std::string text = "Intro\n```json\n{\"a\": 1}\n```\nafter\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 1);
  const auto& f = fs[0];
  CHECK(f.closed);
  CHECK(f.info == "json");
  CHECK(f.fence_char == '`');
  CHECK(f.fence_length == 3);
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
  CHECK(fs[0].fence_length == 4);
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

TEST_CASE("a lone CR ends a line whatever follows it, CR LF is one line ending", "[fence]") {
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

// fences() reads as the engine does (§2 Fences, per part): a fence never crosses a part's
// boundary, so `</think>` ends the first fence and the last line opens a second one. A plain
// CommonMark reading would give one fence whose body holds `</think>`.
TEST_CASE("fences are read per part: a reasoning region's end ends its fence", "[fence]") {
  const std::string text = "<think>\n```json\n{\"a\": 1}\n</think>\n```\n";
  auto fs = llmjson::fences(text);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].info == "json");
  CHECK(fs[0].line == 2);
  CHECK(fs[0].body == "{\"a\": 1}\n");
  CHECK(fs[0].text == "```json\n{\"a\": 1}\n");
  CHECK_FALSE(fs[0].closed);
  CHECK(fs[1].line == 5);
  CHECK(fs[1].offset == text.find("```\n"));
  CHECK(fs[1].body.empty());
  CHECK(fs[1].info.empty());
  CHECK_FALSE(fs[1].closed);
  // The engine reads the same two: the body in the reasoning is a candidate there.
  const auto cs = llmjson::candidates(text);
  REQUIRE(cs.candidates.size() == 1);
  CHECK(cs.candidates[0].in_fence);
  CHECK(cs.candidates[0].in_reasoning);
}

TEST_CASE("harmony tokens cut fences too, and a text that is one JSON value has none", "[fence]") {
  auto fs = llmjson::fences(std::string_view("```json\n{}<|start|>\n```\n"));
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].body == "{}");
  CHECK_FALSE(fs[0].closed);
  CHECK(fs[1].body.empty());
  CHECK(llmjson::fences(std::string_view("[1,\n2]")).empty());
}

// fences() against the rules implemented again (tests/reference/): §2 Parts cut the text, and
// each part's fences are those of §2 Fences, on texts made of the pieces that matter.
TEST_CASE("fences() lists the reference's fences, part by part", "[fence]") {
  const char* pieces[] = {"```",
                          "````",
                          "~~~",
                          "```json",
                          "``` json ",
                          "```x`",
                          " ",
                          "   ",
                          "    ",
                          "\n",
                          "\r",
                          "\r\n",
                          "<think>",
                          "</think>",
                          "<|start|>",
                          "<|channel|>analysis<|message|>",
                          "<|end|>",
                          "<|channel|>final<|message|>",
                          "analysis",
                          "assistantfinal",
                          "{\"a\": 1}",
                          "[1, 2",
                          "{",
                          "}",
                          "\"",
                          "x",
                          "\t",
                          "\xEF\xBB\xBF",
                          "<details type=\"reasoning\">",
                          "</details>"};
  std::mt19937 rng(21);
  for (std::size_t round = 0; round < 20000; ++round) {
    std::string text;
    for (std::size_t k = rng() % 24; k > 0; --k) text += pieces[rng() % std::size(pieces)];
    if (!in_sweep(round)) continue;  // LLMJSON_TEST_SWEEP_STEP: the same texts, fewer checked
    std::vector<llmjson_ref::fence_block> want;
    llmjson_ref::scan_result out;
    llmjson_ref::collector c(text, out);
    if (!llmjson_ref::whole_output(text, c, out)) {
      for (const auto& p : llmjson_ref::split_parts(text, llmjson_ref::after_bom(text), {}).parts)
        for (const auto& f : llmjson_ref::find_fences(text, p.begin, p.end)) want.push_back(f);
    }
    // Under every kernel, on the same text.
    for (llmjson::kernel k : llmjson::available_kernels()) {
      const llmjson_test::kernel_scope scope(k);
      INFO("kernel " << to_string(k));
      const auto got = llmjson::fences(text);
      INFO(text);
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].offset == want[i].opener);
        CHECK(got[i].body_offset == want[i].body_begin);
        CHECK(got[i].body_offset + got[i].body.size() == want[i].body_end);
        CHECK(got[i].closed == want[i].closed);
      }
    }
  }
}

}  // namespace llmjson_tests::fence_test
