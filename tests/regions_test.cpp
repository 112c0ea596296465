// llmjson: reasoning regions and parts (§2 of tests/corpus/README.md)
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>

#include "catch_compat.hpp"
#include "repeat.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace llmjson_tests::regions_test {

namespace {

using json = nlohmann::json;

/// A candidate as these tests look at it: its text and whether it lies in reasoning.
struct seen {
  std::string text;
  bool reasoning = false;
  std::string marker;
  friend bool operator==(const seen&, const seen&) = default;
};

std::ostream& operator<<(std::ostream& os, const seen& s) {
  return os << (s.reasoning ? "reasoning[" + s.marker + "] " : "answer ") << s.text;
}

std::vector<seen> scan(std::string_view text, const llmjson::options& opts = {}) {
  std::vector<seen> out;
  for (const auto& c : llmjson::candidates(text, opts).candidates)
    out.push_back({std::string(c.text), c.in_reasoning, std::string(c.marker)});
  return out;
}

seen answer(std::string t) { return {std::move(t), false, {}}; }
seen thought(std::string t, std::string marker) { return {std::move(t), true, std::move(marker)}; }

/// The value `extract` returns under policy `first` with the default selector, or the error kind.
std::string first(std::string_view text, const llmjson::options& base = {}) {
  llmjson::options opts = base;
  opts.policy = llmjson::policy::first;
  auto r = llmjson::extract(text, opts);
  return r ? r->json().dump() : "error " + std::string(to_string(r.error().kind));
}

using llmjson_tests::repeat;

}  // namespace

TEST_CASE("each built-in marker pair opens a region whose candidates never qualify",
          "[regions][rule §2 Reasoning regions]") {
  const std::vector<std::pair<std::string, std::string>> pairs{
      {"<think>", "</think>"},
      {"<thinking>", "</thinking>"},
      {"<reasoning>", "</reasoning>"},
      {"[THINK]", "[/THINK]"},
      {"<|START_THINKING|>", "<|END_THINKING|>"},
      {"<|begin_of_thought|>", "<|end_of_thought|>"},
      {"<seed:think>", "</seed:think>"},
      {"\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/think\xE2\x96\xB7"},
      {"<scratchpad>", "</scratchpad>"},
      {"<thought>", "</thought>"},
      {"<longcat_think>", "</longcat_think>"},
      {"<|channel>thought", "<channel|>"},
  };
  for (const auto& [open, close] : pairs) {
    INFO(open);
    const std::string text = open + "draft {\"a\": 1}" + close + "\nanswer {\"a\": 2}";
    CHECK(scan(text) == std::vector<seen>{thought("{\"a\": 1}", open), answer("{\"a\": 2}")});
    CHECK(first(text) == R"({"a":2})");
  }
}

TEST_CASE("markers match ASCII letters case-insensitively, wherever they stand",
          "[regions][rule §2 Reasoning regions]") {
  CHECK(first("<THINK>{\"a\": 1}</Think> {\"a\": 2}") == R"({"a":2})");
  CHECK(first("[think]{\"a\": 1}[/think] {\"a\": 2}") == R"({"a":2})");
  // In a fence, or inside a JSON string of the answer text: a template's token, not content.
  CHECK(scan("```\n<think>\n```\n{\"a\": 1}</think>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}")});
  CHECK(first("Note: {\"s\": \"<think>\"} and {\"t\": \"</think>\"} {\"u\": 1}") == R"({"u":1})");
  // ... but not when the whole output is one JSON value: then nothing is searched.
  CHECK(first("{\"s\": \"<think>\"}") == R"({"s":"<think>"})");
  CHECK(first("[\"</think>\", 1]") == R"(["</think>",1])");
}

TEST_CASE("a region that never closes is a cut: the model was still thinking",
          "[regions][rule §2 Reasoning regions][rule §4 Truncation]") {
  const std::string text = "<think>\nThe total is {\"total\": 1180} unless the refund";
  auto s = llmjson::candidates(text);
  REQUIRE(s.truncation);
  CHECK(s.truncation->reasoning);
  CHECK(s.truncation->marker == "<think>");
  CHECK(s.truncation->offset == 0);
  CHECK(s.truncation->message ==
        "the reasoning opened at 1:1 (<think>) never closes: the output ended before any answer");
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].in_reasoning);
  auto r = llmjson::extract(text);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::truncated);
  CHECK(r.error().message ==
        "the output was cut: the reasoning opened at 1:1 (<think>) never closes: the output "
        "ended before any answer");
  // An answer before the reasoning still wins under first, as any earlier candidate does.
  CHECK(first("{\"a\": 1}\n<think>more") == R"({"a":1})");
  // The region's cut wins over a cut inside it.
  auto inner = llmjson::candidates(std::string_view("x\n<think>{\"a\": [1,"));
  REQUIRE(inner.truncation);
  CHECK(inner.truncation->reasoning);
  CHECK(inner.truncation->offset == 2);
  CHECK(inner.truncation->line == 2);
}

TEST_CASE("already open: a closing tag before any opening marker ends a region from the start",
          "[regions][rule §2 Already open]") {
  const std::string text = "Draft {\"a\": 1}\n```json\n{\"a\": 2}\n```\n</think>\n{\"a\": 3}";
  CHECK(scan(text) == std::vector<seen>{thought("{\"a\": 1}", "</think>"),
                                        thought("{\"a\": 2}", "</think>"), answer("{\"a\": 3}")});
  // Only the first such closing tag counts; a second one is text.
  CHECK(scan("{\"a\": 1}</think>{\"b\": 2}</think>{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "</think>"), answer("{\"b\": 2}"),
                          answer("{\"c\": 3}")});
  // After an opening marker, a closing tag of another pair is text.
  CHECK(scan("<think>x</think>{\"a\": 1}</reasoning>{\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // The message says where the reasoning ended.
  auto r = llmjson::extract(std::string_view("Maybe {\"a\": 1}.</think>No JSON, sorry."));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::no_json);
  CHECK(r.error().message ==
        "no JSON value outside the reasoning; 1 candidate inside the reasoning before </think> "
        "at 1:7");
  // Harmony: an <|end|> before any other harmony token.
  CHECK(first("Draft {\"a\": 1}<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 2}") ==
        R"({"a":2})");
  // ... but not after one: then <|end|> only cuts the text.
  CHECK(scan("<|message|>{\"a\": 1}<|end|>{\"a\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
  // A tag closer after harmony tokens still counts, and the tokens were inside the region.
  CHECK(scan("{\"a\": <|message|> 1}</think>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": <|message|> 1}", "</think>"), answer("{\"b\": 2}")});
}

TEST_CASE("options::start: the prompt opened the reasoning, or it did not",
          "[regions][rule §2 Parts]") {
  llmjson::options opened;
  opened.start = llmjson::output_start::reasoning;
  // Everything up to the first closing marker is reasoning, openers included.
  CHECK(scan("{\"a\": 1}<think>{\"b\": 2}</think>{\"c\": 3}", opened) ==
        std::vector<seen>{thought("{\"a\": 1}", "</think>"), thought("{\"b\": 2}", "</think>"),
                          answer("{\"c\": 3}")});
  // Without a closing marker the whole output is reasoning that never closes.
  auto all = llmjson::candidates(std::string_view("{\"a\": 1} and so on"), opened);
  REQUIRE(all.truncation);
  CHECK(all.truncation->reasoning);
  CHECK(all.truncation->marker.empty());
  CHECK(all.truncation->message ==
        "the reasoning that the prompt opened never closes: the output ended before any answer");
  CHECK(first("{\"a\": 1} and so on", opened) == "error truncated");
  llmjson::options answer_start;
  answer_start.start = llmjson::output_start::answer;
  CHECK(scan("{\"a\": 1}</think>{\"b\": 2}", answer_start) ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  CHECK(first("{\"a\": 1}</think>{\"b\": 2}") == R"({"b":2})");
  CHECK(first("{\"a\": 1}</think>{\"b\": 2}", answer_start) == R"({"a":1})");
}

TEST_CASE("harmony: only final messages and text outside messages are answer text",
          "[regions][harmony][rule §2 Harmony]") {
  SECTION("analysis, then commentary, then final") {
    const std::string text =
        "<|channel|>analysis<|message|>Think {\"a\": 1}<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>"
        "{\"city\": \"Lisbon\"}<|call|>"
        "<|start|>assistant<|channel|>final<|message|>{\"a\": 2}<|return|>";
    CHECK(scan(text) ==
          std::vector<seen>{thought("{\"a\": 1}", "<|channel|>analysis"),
                            thought("{\"city\": \"Lisbon\"}", "<|channel|>commentary"),
                            answer("{\"a\": 2}")});
    auto s = llmjson::candidates(text);
    CHECK(s.candidates[2].source == llmjson::source::part);
    CHECK_FALSE(s.truncation);
  }
  SECTION("commentary without final: no answer") {
    const std::string text =
        "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"x\": 1}<|call|>";
    auto r = llmjson::extract(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == llmjson::error_kind::no_json);
    CHECK(r.error().message ==
          "no JSON value outside the reasoning; 1 candidate inside <|channel|>commentary at 1:66");
  }
  SECTION("<|start|> and <|channel|> end a message that has no <|end|>") {
    CHECK(scan("<|channel|>analysis<|message|>{\"a\": 1}<|start|>{\"b\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "<|channel|>analysis"), answer("{\"b\": 2}")});
    CHECK(scan("<|channel|>analysis<|message|>{\"a\": 1}<|channel|>final<|message|>{\"b\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "<|channel|>analysis"), answer("{\"b\": 2}")});
  }
  SECTION("a channel that never ends is a cut") {
    auto s = llmjson::candidates(std::string_view("<|channel|>analysis<|message|>{\"a\": 1} and"));
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
    CHECK(s.truncation->marker == "<|channel|>analysis");
  }
  SECTION("the channel name: final only, ASCII case-insensitively; an empty name is reasoning") {
    CHECK(first("<|channel|>FINAL<|message|>{\"a\": 1}") == R"({"a":1})");
    CHECK(first("<|channel|>final_draft<|message|>{\"a\": 1}<|end|>{\"b\": 2}") == R"({"b":2})");
    CHECK(first("<|channel|><|message|>{\"a\": 1}<|end|>{\"b\": 2}") == R"({"b":2})");
  }
  SECTION("harmony tokens cut the answer text into parts: nothing crosses them") {
    auto s = llmjson::candidates(std::string_view("{\"a\": [1,<|message|>2]} {\"b\": 1}"));
    REQUIRE(s.candidates.size() == 2);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[0].message ==
          "line 1 col 10: the object never closes: a reasoning or harmony marker cuts it");
    CHECK(s.candidates[1].text == "{\"b\": 1}");
  }
}

TEST_CASE("parts: each is read as a text of its own", "[regions][rule §2 Parts]") {
  SECTION("a whole answer part is a candidate of any type") {
    CHECK(first("<think>How many? {\"n\": 6}</think>\n7\n") == "7");
    auto s = llmjson::candidates(std::string_view("<think>x</think>[1, 2, 3]"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::part);
    CHECK(*s.candidates[0].json == json::parse("[1, 2, 3]"));
  }
  SECTION("an answer part cut by the end of the text is truncated") {
    auto s = llmjson::candidates(std::string_view("<think>x</think>\n[0.1, 0.2"));
    CHECK(s.candidates.empty());
    REQUIRE(s.truncation);
    CHECK_FALSE(s.truncation->reasoning);
    CHECK(s.truncation->message == "the array opened at 2:1 never closes");
  }
  SECTION("an empty answer part after the reasoning is no cut") {
    auto s = llmjson::candidates(std::string_view("<think>{\"a\": 1}</think>\n"));
    CHECK_FALSE(s.truncation);
    CHECK(first("<think>{\"a\": 1}</think>\n") == "error no_json");
  }
  SECTION("a fence glued to the closing tag starts a line") {
    auto s = llmjson::candidates(std::string_view("[THINK]x[/THINK]```json\n{\"a\": 1}\n```"));
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].source == llmjson::source::fence);
  }
  SECTION("a fence left open in a region ends with the region") {
    CHECK(scan("<think>\n```json\n{\"a\": 1}\nmore\n</think>\n```json\n{\"a\": 2}\n```\n") ==
          std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"a\": 2}")});
  }
  SECTION("a brace left open in a region is malformed there, not a cut") {
    auto s = llmjson::candidates(std::string_view("<think>{\"a\": [1, </think>{\"b\": 2}"));
    CHECK_FALSE(s.truncation);
    REQUIRE(s.candidates.size() == 2);
    CHECK(s.candidates[0].in_reasoning);
    CHECK_FALSE(s.candidates[0].valid);
    CHECK(s.candidates[1].text == "{\"b\": 2}");
  }
  SECTION("an empty region, two regions") {
    CHECK(first("<think></think>{\"a\": 1}") == R"({"a":1})");
    CHECK(scan("<think>{\"a\": 1}</think>{\"b\": 2}<thinking>{\"c\": 3}</thinking>{\"d\": 4}") ==
          std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}"),
                            thought("{\"c\": 3}", "<thinking>"), answer("{\"d\": 4}")});
  }
  SECTION("regions do not nest: inside one, no other marker counts") {
    CHECK(scan("<think>a <thinking> {\"a\": 1} </thinking> b</think>{\"b\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}")});
  }
}

TEST_CASE("markers at the edges, CRLF, BOM and multi-byte neighbours",
          "[regions][rule §2 Reasoning regions]") {
  CHECK(first("<think>") == "error truncated");
  CHECK(first("{\"a\": 1}<think>") == R"({"a":1})");
  CHECK(first("</think>") == "error no_json");
  CHECK(first("\xEF\xBB\xBF<think>\r\n{\"a\": 1}\r\n</think>\r\n{\"a\": 2}\r\n") == R"({"a":2})");
  auto bom = llmjson::candidates(std::string_view("\xEF\xBB\xBF<think>x"));
  REQUIRE(bom.truncation);
  CHECK(bom.truncation->offset == 3);
  CHECK(bom.truncation->column == 1);
  // A marker right after a multi-byte character, and a lone lead byte before one.
  CHECK(first("\xC3\xA9<think>{\"a\": 1}</think>\xE6\x97\xA5{\"a\": 2}") == R"({"a":2})");
  CHECK(
      first(
          "\xE2\xE2\x97\x81think\xE2\x96\xB7{\"a\": 1}\xE2\x97\x81/think\xE2\x96\xB7{\"a\": 2}") ==
      R"({"a":2})");
  // Half a marker is text.
  CHECK(first("\xE2\x97\x81thin {\"a\": 1}") == R"({"a":1})");
  CHECK(first("<think {\"a\": 1}") == R"({"a":1})");
}

TEST_CASE("Open WebUI's <details type=\"reasoning\"> block is a region through </details>",
          "[regions][rule §2 Open WebUI's reasoning block]") {
  const std::string opener = "<details type=\"reasoning\" done=\"true\" duration=\"4\">";
  // The opening marker is `<details` through its first `>`, whole: it is what a candidate shows.
  CHECK(scan(opener + "\n<summary>Thought for 4 seconds</summary>\n> {\"a\": 1}\n</details>\n" +
             "{\"a\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", opener), answer("{\"a\": 2}")});
  const std::string none = opener + "{\"a\": 1}</details>No JSON.";
  auto r = llmjson::extract(none);
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "no JSON value outside the reasoning; 1 candidate inside " + opener + " at 1:52");
  // Letters match case-insensitively, type="reasoning" included; attributes in any order, and
  // right after the name.
  CHECK(first("<DETAILS TYPE=\"REASONING\">{\"a\": 1}</Details>{\"a\": 2}") == R"({"a":2})");
  CHECK(first("<details done=\"false\" type=\"reasoning\">{\"a\": 1}</details>{\"a\": 2}") ==
        R"({"a":2})");
  CHECK(first("<detailstype=\"reasoning\">{\"a\": 1}</details>{\"a\": 2}") == R"({"a":2})");
  // A region that never closes is a cut, its opener named.
  const std::string unclosed = opener + "\n{\"a\": 1}";
  auto open = llmjson::candidates(unclosed);
  REQUIRE(open.truncation);
  CHECK(open.truncation->reasoning);
  CHECK(open.truncation->marker == opener);
  // A long opener shows its first 64 bytes (a candidate's reason copies it).
  std::string attrs;
  for (int k = 0; k < 100; ++k) attrs += " data-x=\"y\"";
  const std::string long_opener = "<details type=\"reasoning\"" + attrs + ">";
  CHECK(scan(long_opener + "{\"a\": 1}</details>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", long_opener.substr(0, 64)), answer("{\"b\": 2}")});
}

TEST_CASE("a <details> that is not a reasoning block is text",
          "[regions][rule §2 Open WebUI's reasoning block]") {
  // No type="reasoning" before its first `>`: an ordinary HTML block.
  CHECK(scan("<details><summary>Raw</summary>{\"a\": 1}</details>{\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  CHECK(scan("<details type=\"tool_calls\">{\"a\": 1}</details>") ==
        std::vector<seen>{answer("{\"a\": 1}")});
  // type="reasoning" after the first `>` does not count for that `<details`.
  CHECK(scan("<details class=\"x\"> type=\"reasoning\"> {\"a\": 1}</details>") ==
        std::vector<seen>{answer("{\"a\": 1}")});
  // No `>` follows: text, and the search goes on after its `<`.
  CHECK(scan("<details type=\"reasoning\" {\"a\": 1}") == std::vector<seen>{answer("{\"a\": 1}")});
  // Its first `>` may be another marker's: the opener then swallows it.
  CHECK(scan("<details type=\"reasoning\" <think>{\"a\": 1}</think></details>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<details type=\"reasoning\" <think>"),
                          answer("{\"b\": 2}")});
  CHECK(scan("<details <details type=\"reasoning\">{\"a\": 1}</details>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<details <details type=\"reasoning\">"),
                          answer("{\"b\": 2}")});
  // The pair never starts open: </details> before any opening marker is text, also for a
  // region the prompt opened.
  CHECK(scan("{\"a\": 1}</details>{\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  llmjson::options opened;
  opened.start = llmjson::output_start::reasoning;
  CHECK(scan("{\"a\": 1}</details>{\"b\": 2}</think>{\"c\": 3}", opened) ==
        std::vector<seen>{thought("{\"a\": 1}", "</think>"), thought("{\"b\": 2}", "</think>"),
                          answer("{\"c\": 3}")});
  // Inside another region it is nothing.
  CHECK(scan("<think><details type=\"reasoning\">{\"a\": 1}</think>{\"b\": 2}</details>") ==
        std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}")});
}

TEST_CASE("stripped harmony: analysis...assistantfinal without harmony tokens",
          "[regions][rule §2 Stripped harmony]") {
  const std::string text =
      "analysisThe user wants {\"a\": 1}.assistantcommentary to=functions.f json{\"q\": 2}"
      "assistantanalysisFine.assistantfinal{\"a\": 3}";
  // Through the first assistantfinal it is one region; no other marker counts inside it.
  CHECK(scan(text) == std::vector<seen>{thought("{\"a\": 1}", "analysis"),
                                        thought("{\"q\": 2}", "analysis"), answer("{\"a\": 3}")});
  CHECK(scan("analysis <think>{\"a\": 1}</think> {\"b\": 2}assistantfinal{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "analysis"), thought("{\"b\": 2}", "analysis"),
                          answer("{\"c\": 3}")});
  auto r = llmjson::extract(std::string_view("analysis {\"a\": 1} assistantfinal Sorry."));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::no_json);
  CHECK(r.error().message ==
        "no JSON value outside the reasoning; 1 candidate inside the analysis before "
        "assistantfinal (harmony without its special tokens) at 1:10");
  // After the BOM and JSON white space; letters case-insensitively; the words may be glued.
  CHECK(first("\xEF\xBB\xBF \r\n\tAnalysis {\"a\": 1} AssistantFinal {\"a\": 2}") == R"({"a":2})");
  CHECK(first("analysisassistantfinal{\"b\": 2}") == R"({"b":2})");
  // The answer text after it is read as usual: markers there count, but the already-open rule
  // does not apply (nothing comes before this region).
  CHECK(scan("analysis x assistantfinal <think>{\"a\": 1}</think>{\"b\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}")});
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}</think>{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "analysis"), answer("{\"b\": 2}"),
                          answer("{\"c\": 3}")});
  // The region always closes: a brace or fence open at its end is cut by the part boundary.
  auto cut = llmjson::candidates(std::string_view("analysis\n```json\n{\"a\": [1, assistantfinal"));
  CHECK_FALSE(cut.truncation);
  REQUIRE(cut.candidates.size() == 1);
  CHECK_FALSE(cut.candidates[0].valid);
  CHECK(first("analysis {\"a\": 1} assistantfinal") == "error no_json");
  // It decides the start whatever options::start says.
  for (auto start : {llmjson::output_start::answer, llmjson::output_start::reasoning}) {
    llmjson::options opts;
    opts.start = start;
    CHECK(scan("analysis {\"a\": 1} </think> assistantfinal {\"b\": 2}", opts) ==
          std::vector<seen>{thought("{\"a\": 1}", "analysis"), answer("{\"b\": 2}")});
  }
}

TEST_CASE("stripped harmony does not apply without all of its conditions",
          "[regions][rule §2 Stripped harmony]") {
  // A leading `analysis` without assistantfinal is the English word.
  CHECK(scan("Analysis: {\"a\": 1} and {\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // Not first (white space aside).
  CHECK(scan("The analysis {\"a\": 1} assistantfinal {\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  CHECK(scan("assistantfinal analysis {\"a\": 1}") == std::vector<seen>{answer("{\"a\": 1}")});
  // assistantfinal must come after the word, not overlap it.
  CHECK(scan("analysi{\"a\": 1}assistantfinal") == std::vector<seen>{answer("{\"a\": 1}")});
  // Any of the seven harmony tokens anywhere, even after assistantfinal or inside a region,
  // means the tokens were not stripped: the usual rules read the text.
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}<|return|>") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // (An <|end|> that no token only harmony uses follows ends no region the prompt opened.)
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}<|end|>") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}<|end|><|start|>") ==
        std::vector<seen>{thought("{\"a\": 1}", "<|end|>"), thought("{\"b\": 2}", "<|end|>")});
  CHECK(scan("analysis {\"a\": 1} assistantfinal <think><|constrain|></think>{\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // Regions switched off: no markers at all.
  llmjson::options off;
  off.reasoning_regions = false;
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}", off) ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
}

TEST_CASE("a closing marker that ends the output closes its region: no truncation",
          "[regions][rule §2 Reasoning regions][rule §4 Truncation]") {
  // The region's open fence and string are cut by its end, not by the end of the text.
  auto s = llmjson::candidates(std::string_view("<think>\n```json\n{\"title\": \"Q3</think>"));
  CHECK_FALSE(s.truncation);
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].in_reasoning);
  CHECK_FALSE(s.candidates[0].valid);
  CHECK(first("<think>\n```json\n{\"title\": \"Q3</think>") == "error no_json");
  CHECK(first("<|channel|>analysis<|message|>{\"a\": [1<|end|>") == "error no_json");
  CHECK(first("{\"a\": [1</think>") == "error no_json");
  CHECK_FALSE(llmjson::candidates(std::string_view("<think>x</think> \r\n\t")).truncation);
  // Half a closing marker at the end is text: the region never closed.
  CHECK(first("<think>{\"a\": 1}</thin") == "error truncated");
}

TEST_CASE("lines end at LF, at a CR no LF follows, and at CR LF",
          "[regions][fence][rule §2 Lines]") {
  auto sources = [](std::string_view text) {
    std::vector<llmjson::source> out;
    for (const auto& c : llmjson::candidates(text).candidates) out.push_back(c.source);
    return out;
  };
  using llmjson::source;
  CHECK(first("How many?\r\r```json\r42\r```\r") == "42");
  CHECK(sources("<think>x</think>\r```json\r{\"a\": 1}\r```\r{\"b\": 2}") ==
        std::vector<source>{source::fence, source::prose});
  // A CR LF is one line ending: the fence after it opens on the next line.
  CHECK(sources("x\r\n```\r\n[1]\r\n```\r\n{\"b\": 2}") ==
        std::vector<source>{source::fence, source::prose});
  // A lone CR ends a line whatever follows it (here an indent of one space).
  CHECK(sources("x\r ```\n[1]\n```\n") == std::vector<source>{source::fence});
  // A closing line has only spaces and tabs after its run: a form feed keeps the fence open.
  CHECK(sources("x\n```json\n42\n```\f\n{\"b\": 2}") == std::vector<source>{source::prose});
  CHECK(sources("x\n```json\n42\n``` \t\n{\"b\": 2}") ==
        std::vector<source>{source::fence, source::prose});
}

TEST_CASE("regions can be switched off, and the caller can add marker pairs",
          "[regions][rule §2 Parts]") {
  const std::string text = "<think>{\"a\": 1}</think>{\"b\": 2}";
  llmjson::options off;
  off.reasoning_regions = false;
  CHECK(scan(text, off) == std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  CHECK(first("<think>{\"a\": 1}", off) == R"({"a":1})");
  // Off, the scan is the scan of one part: as it was before regions existed.
  CHECK(first("{\"a\": 1}</think>{\"b\": 2}", off) == R"({"a":1})");

  llmjson::options custom;
  custom.reasoning_markers = {{"<scratch>", "</scratch>"}, {"", "</empty>"}};
  CHECK(scan("<SCRATCH>{\"a\": 1}</scratch>{\"b\": 2}", custom) ==
        std::vector<seen>{thought("{\"a\": 1}", "<SCRATCH>"), answer("{\"b\": 2}")});
  // The built-in pairs still count; a pair with an empty side is left out.
  CHECK(scan(text, custom) ==
        std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"b\": 2}")});
  CHECK(scan("{\"a\": 1}</empty>{\"b\": 2}", custom) ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // A caller's closing tag counts for the already-open rule too.
  CHECK(scan("{\"a\": 1}</scratch>{\"b\": 2}", custom) ==
        std::vector<seen>{thought("{\"a\": 1}", "</scratch>"), answer("{\"b\": 2}")});
  // The longest marker at a position wins.
  llmjson::options longer;
  longer.reasoning_markers = {{"<think>!", "!</think>"}};
  CHECK(scan("<think>!{\"a\": 1}</think>{\"b\": 2}!</think>{\"c\": 3}", longer) ==
        std::vector<seen>{thought("{\"a\": 1}", "<think>!"), thought("{\"b\": 2}", "<think>!"),
                          answer("{\"c\": 3}")});
}

TEST_CASE("no_json names the candidates left out as reasoning, with where",
          "[regions][rule §6 Errors]") {
  auto r = llmjson::extract(
      std::string_view("<think>\nOption {\"x\": 1}\nor\n{\"x\": 2}\n</think>\nI cannot decide."));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::no_json);
  CHECK(r.error().message ==
        "no JSON value outside the reasoning; 2 candidates inside <think> at 2:8, 4:1");
  auto mixed = llmjson::extract(std::string_view(
      "<think>{\"x\": 1}</think><|channel|>analysis<|message|>{\"x\": 2}<|end|>none"));
  REQUIRE_FALSE(mixed);
  CHECK(mixed.error().message ==
        "no JSON value outside the reasoning; 2 candidates inside the reasoning at 1:8 "
        "(<think>), 1:54 (<|channel|>analysis)");
  // Reasoning candidates are never the fallback, and no_match does not count them.
  auto nm = llmjson::extract(std::string_view("<think>{\"k\": 1}</think>{\"z\": 2}"),
                             llmjson::any_key({"k"}),
                             llmjson::options{.policy = llmjson::policy::unique});
  REQUIRE_FALSE(nm);
  CHECK(nm.error().kind == llmjson::error_kind::no_match);
  CHECK(nm.error().message ==
        "1 candidate, none qualifies: 1:24 whole part: has none of the keys \"k\"; 1 candidate "
        "inside <think> at 1:8");
  REQUIRE(nm.error().candidates.size() == 2);
  CHECK(nm.error().candidates[0].message == "inside <think>");
}

TEST_CASE("hostile 1 MB inputs of markers stay linear", "[regions][hostile]") {
  constexpr std::size_t mb = 1 << 20;
  SECTION("<think> repeated: one region that never closes") {
    const std::string t = repeat("<think>", mb);
    auto s = llmjson::candidates(t);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
  }
  SECTION("</think> repeated: the first closes the prompt's region, the rest are text") {
    const std::string t = repeat("</think>", mb) + "{\"a\": 1}";
    CHECK(first(t) == R"({"a":1})");
  }
  SECTION("<|channel|>analysis repeated: each message ends at the next channel") {
    const std::string t = repeat("<|channel|>analysis{\"a\": 1}", mb);
    auto s = llmjson::candidates(t);
    REQUIRE(s.truncation);
    CHECK(s.candidates.size() == t.size() / 27);
    CHECK(s.candidates.back().in_reasoning);
  }
  SECTION("alternating markers and braces") {
    // Each answer part holds a `{` that its part's end cuts: malformed there, never a cut.
    const std::string t = repeat("<think>{</think>{", mb) + "\n{\"ok\": true}";
    CHECK(first(t) == R"({"ok":true})");
    const std::string u = repeat("{<think>}</think>", mb) + "\n{\"ok\": true}";
    CHECK(first(u) == R"({"ok":true})");
  }
  SECTION("analysis and assistantfinal alternating: one stripped region, then text") {
    const std::string t = repeat("analysisassistantfinal", mb) + "{\"a\": 1}";
    CHECK(first(t) == R"({"a":1})");
    const std::string u = "analysis" + repeat("assistantfina", mb) + "{\"a\": 1}";
    CHECK(first(u) == R"({"a":1})");
  }
  SECTION("<details type=\"reasoning\"> repeated: one region that never closes") {
    const std::string t = repeat("<details type=\"reasoning\">", mb);
    auto s = llmjson::candidates(t);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
  }
  SECTION("<details repeated with no `>`, and with an attribute: text") {
    CHECK(first(repeat("<details", mb) + "{\"a\": 1}") == R"({"a":1})");
    CHECK(first(repeat("<details type=\"x\"", mb) + "{\"a\": 1}") == R"({"a":1})");
    CHECK(first(repeat("<details type=\"reasoning\"", mb) + "{\"a\": 1}") == R"({"a":1})");
  }
  SECTION("rules v4: phrase pairs, near misses of their closing phrases") {
    const std::string t = "Thinking..." + repeat("...done thinkin ", mb);
    auto s = llmjson::candidates(t);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
    const std::string g = "Here is my thought process:" + repeat("Here is my respons", mb) +
                          "Here's my response:{\"a\": 1}";
    CHECK(first(g) == R"({"a":1})");
    // Closing phrases with no opening one are text; Apriel's cuts, each.
    CHECK(first(repeat("Here is my response:", mb) + "{\"a\": 1}") == R"({"a":1})");
    CHECK(first("Here are my reasoning steps:[BEGIN FINAL RESPONSE]" +
                repeat("[END FINAL RESPONSE]", mb) + "{\"a\": 1}") == R"({"a":1})");
    CHECK(first(repeat("Thinking...", mb) + "{\"a\": 1}") == "error truncated");
  }
  SECTION("rules v4: Gemma's markers") {
    CHECK(first(repeat("<|channel>", mb) + "{\"a\": 1}") == R"({"a":1})");
    CHECK(first(repeat("<|channel>though", mb) + "{\"a\": 1}") == R"({"a":1})");
    const std::string open = repeat("<|channel>thought", mb);
    auto s = llmjson::candidates(open);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
    CHECK(first(repeat("<channel|>", mb) + "{\"a\": 1}") == R"({"a":1})");
  }
  SECTION("rules v4: an <|end|> that no harmony-only token follows") {
    CHECK(first("{\"d\": 0}<|end|>" + repeat("<|end|><|sta", mb) + "{\"a\": 1}") == R"({"d":0})");
    CHECK(first("{\"d\": 0}<|end|>" + repeat("<|end|><|sta", mb) + "<|start|>{\"a\": 1}") ==
          R"({"a":1})");
  }
  SECTION("harmony tokens cutting parts everywhere") {
    const std::string t = repeat("<|start|>{\"a\": [", mb) + "<|start|>{\"ok\": true}";
    CHECK(first(t) == R"({"ok":true})");
  }
}

TEST_CASE("rules v4: <thought>, <longcat_think> and Gemma 4's channel, in any case",
          "[regions][rule §2 Reasoning regions]") {
  // Marco-o1 writes <Thought>; ASCII letters match in any case, as every tag pair's do.
  CHECK(scan("<Thought>{\"a\": 1}</THOUGHT><Output>{\"a\": 2}</Output>") ==
        std::vector<seen>{thought("{\"a\": 1}", "<Thought>"), answer("{\"a\": 2}")});
  CHECK(scan("<LongCat_Think>{\"a\": 1}</longcat_THINK>{\"a\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<LongCat_Think>"), answer("{\"a\": 2}")});
  CHECK(scan("<|CHANNEL>Thought\n{\"a\": 1}\n<Channel|>{\"a\": 2}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<|CHANNEL>Thought"), answer("{\"a\": 2}")});
  // Gemma's opening tag is `<|channel>` and `thought` together: without `thought` it is text.
  CHECK(scan("<|channel>final{\"a\": 1}") == std::vector<seen>{answer("{\"a\": 1}")});
  CHECK(scan("<|channel> thought{\"a\": 1}") == std::vector<seen>{answer("{\"a\": 1}")});
  // ... and it is no harmony token: it opens no harmony message and cancels no stripped harmony.
  CHECK(scan("<|channel>analysis{\"a\": 1}") == std::vector<seen>{answer("{\"a\": 1}")});
  CHECK(scan("analysis {\"a\": 1} assistantfinal {\"b\": 2}<|channel>x<channel|>") ==
        std::vector<seen>{thought("{\"a\": 1}", "analysis"), answer("{\"b\": 2}")});
  // Harmony's <|channel|> is neither Gemma marker: `<|channel|>thought` is a harmony channel
  // named thought, which <channel|> does not end.
  CHECK(scan("<|channel|>thought{\"a\": 1}<channel|>{\"b\": 2}<|end|>{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<|channel|>thought"),
                          thought("{\"b\": 2}", "<|channel|>thought"), answer("{\"c\": 3}")});
  // Nor does a harmony token end Gemma's region.
  CHECK(scan("<|channel>thought{\"a\": 1}<|end|>{\"b\": 2}<channel|>{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "<|channel>thought"),
                          thought("{\"b\": 2}", "<|channel>thought"), answer("{\"c\": 3}")});
}

TEST_CASE("rules v4: the new closing tags alone end a region the prompt opened",
          "[regions][rule §2 Already open]") {
  for (std::string close : {"</thought>", "</longcat_think>", "<channel|>", "<CHANNEL|>"}) {
    INFO(close);
    CHECK(scan("{\"a\": 1}" + close + "{\"b\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", close), answer("{\"b\": 2}")});
  }
  // After an opening marker, they are text.
  CHECK(scan("<think>x</think>{\"a\": 1}<channel|>{\"b\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
}

TEST_CASE("rules v4: phrase pairs at the start of the text, byte for byte",
          "[regions][rule §2 Phrase pairs]") {
  SECTION("Granite: Here is / Here's, in every combination") {
    for (std::string open : {"Here is my thought process:", "Here's my thought process:"})
      for (std::string close : {"Here is my response:", "Here's my response:"}) {
        INFO(open << " " << close);
        const std::string text = open + "\nDraft {\"a\": 1}\n" + close + "\n{\"a\": 2}";
        CHECK(scan(text) == std::vector<seen>{thought("{\"a\": 1}", open), answer("{\"a\": 2}")});
        CHECK(first(text) == R"({"a":2})");
      }
  }
  SECTION("Apriel and Ollama") {
    CHECK(scan("Here are my reasoning steps:\n{\"a\": 1}\n[BEGIN FINAL RESPONSE]\n{\"a\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "Here are my reasoning steps:"),
                            answer("{\"a\": 2}")});
    CHECK(scan("Thinking...\n{\"a\": 1}\n...done thinking.\n\n{\"a\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "Thinking..."), answer("{\"a\": 2}")});
  }
  SECTION("after the BOM and JSON white space only") {
    CHECK(scan("\xEF\xBB\xBF \r\n\tThinking...{\"a\": 1}...done thinking.{\"a\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "Thinking..."), answer("{\"a\": 2}")});
    // A form feed is no JSON white space; a word before the phrase makes it text.
    CHECK(scan("\fThinking...{\"a\": 1}...done thinking.{\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    CHECK(scan("Sure. Here is my thought process: {\"a\": 1} Here is my response: {\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    // Not at the start of a later line, a part, or after a region either.
    CHECK(scan("<think>x</think>Thinking...{\"a\": 1}...done thinking.{\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    CHECK(scan("{\"a\": 1}\nThinking...{\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
  }
  SECTION("case, spacing and punctuation count: ordinary words are text") {
    for (std::string text :
         {"here is my thought process: {\"a\": 1} Here is my response: {\"a\": 2}",
          "Here is my Thought Process: {\"a\": 1} Here is my response: {\"a\": 2}",
          "Here’s my thought process: {\"a\": 1} Here’s my response: {\"a\": 2}",
          "Here is my thought process {\"a\": 1} Here is my response: {\"a\": 2}",
          "THINKING...{\"a\": 1}...done thinking.{\"a\": 2}",
          "Thinking.. {\"a\": 1}...done thinking.{\"a\": 2}",
          "here are my reasoning steps: {\"a\": 1} [BEGIN FINAL RESPONSE] {\"a\": 2}"}) {
      INFO(text);
      CHECK(scan(text) == std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    }
    // A closing phrase in another case does not close the region.
    auto s =
        llmjson::candidates(std::string_view("Thinking...{\"a\": 1}...Done thinking.{\"a\": 2}"));
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
  }
  SECTION("a closing phrase with no opening one at the start is text") {
    for (std::string close : {"Here is my response:", "Here's my response:",
                              "[BEGIN FINAL RESPONSE]", "...done thinking."}) {
      INFO(close);
      CHECK(scan("{\"a\": 1}\n" + close + "\n{\"a\": 2}") ==
            std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
      CHECK(scan(close + "\n{\"a\": 2}") == std::vector<seen>{answer("{\"a\": 2}")});
    }
  }
  SECTION("only the same pair's closing phrase closes it; inside, no other marker counts") {
    const std::string text =
        "Here is my thought process: {\"a\": 1} [BEGIN FINAL RESPONSE] ...done thinking. </think> "
        "<|end|><|start|> {\"a\": 2} Here's my response: {\"a\": 3}";
    CHECK(scan(text) == std::vector<seen>{thought("{\"a\": 1}", "Here is my thought process:"),
                                          thought("{\"a\": 2}", "Here is my thought process:"),
                                          answer("{\"a\": 3}")});
  }
  SECTION("the text after the region is read as usual, without the already-open rule") {
    CHECK(scan("Thinking...x...done thinking.<think>{\"a\": 1}</think>{\"a\": 2}") ==
          std::vector<seen>{thought("{\"a\": 1}", "<think>"), answer("{\"a\": 2}")});
    CHECK(scan("Thinking...x...done thinking.{\"a\": 1}</think>{\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    CHECK(scan("Thinking...x...done thinking.{\"a\": 1}<|end|><|start|>{\"a\": 2}") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
    // A second opening phrase is text.
    CHECK(scan("Thinking...x...done thinking.Thinking...{\"a\": 1}") ==
          std::vector<seen>{answer("{\"a\": 1}")});
  }
  SECTION("whatever options::start says") {
    for (auto start : {llmjson::output_start::reasoning, llmjson::output_start::answer}) {
      llmjson::options opts;
      opts.start = start;
      CHECK(scan("Thinking...{\"a\": 1}...done thinking.{\"a\": 2}", opts) ==
            std::vector<seen>{thought("{\"a\": 1}", "Thinking..."), answer("{\"a\": 2}")});
    }
  }
  SECTION("no closing phrase: the region runs to the end and the output is truncated") {
    const std::string text = "\n Here's my thought process:\nMaybe {\"a\": 1} or";
    auto s = llmjson::candidates(text);
    REQUIRE(s.truncation);
    CHECK(s.truncation->reasoning);
    CHECK(s.truncation->marker == "Here's my thought process:");
    CHECK(s.truncation->offset == 2);
    CHECK(s.truncation->line == 2);
    CHECK(s.truncation->message ==
          "the reasoning opened at 2:2 (Here's my thought process:) never closes: the output "
          "ended before any answer");
    REQUIRE(s.candidates.size() == 1);
    CHECK(s.candidates[0].in_reasoning);
    CHECK(first(text) == "error truncated");
    // Only the opening phrase, or a part of it: the first is a cut, the second text.
    auto only = llmjson::candidates(std::string_view("Thinking..."));
    REQUIRE(only.truncation);
    CHECK(only.truncation->reasoning);
    CHECK_FALSE(llmjson::candidates(std::string_view("Thinking..")).truncation);
  }
  SECTION("after an Apriel region, [END FINAL RESPONSE] cuts the text, byte for byte") {
    const std::string head = "Here are my reasoning steps: x [BEGIN FINAL RESPONSE]\n";
    // A part boundary: nothing crosses it.
    CHECK(first(head + "{\"t\": \"a [END FINAL RESPONSE] b\"}") == "error no_json");
    CHECK(scan(head + "{\"a\": 1}\n[END FINAL RESPONSE]\n{\"b\": 2}[END FINAL RESPONSE]") ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
    // In another case, without an Apriel region, or inside a later region: text.
    CHECK(first(head + "{\"t\": \"a [end final response] b\"}") ==
          R"({"t":"a [end final response] b"})");
    CHECK(first("Thinking... x ...done thinking.\n{\"t\": \"a [END FINAL RESPONSE] b\"}") ==
          R"({"t":"a [END FINAL RESPONSE] b"})");
    CHECK(first("x {\"t\": \"a [END FINAL RESPONSE] b\"}") ==
          R"({"t":"a [END FINAL RESPONSE] b"})");
    CHECK(scan(head + "<think>{\"t\": \"[END FINAL RESPONSE]\"}</think>{\"a\": 1}") ==
          std::vector<seen>{thought("{\"t\": \"[END FINAL RESPONSE]\"}", "<think>"),
                            answer("{\"a\": 1}")});
    // Not inside the Apriel region itself either.
    CHECK(scan("Here are my reasoning steps: {\"t\": \"[END FINAL RESPONSE]\"} [BEGIN FINAL "
               "RESPONSE] {\"a\": 1}") ==
          std::vector<seen>{
              thought("{\"t\": \"[END FINAL RESPONSE]\"}", "Here are my reasoning steps:"),
              answer("{\"a\": 1}")});
  }
}

TEST_CASE(
    "rules v4: a harmony <|end|> or <|call|> ends an already-open region only before a "
    "token only harmony uses",
    "[regions][rule §2 Already open][harmony]") {
  // Phi-3 ends its turn with <|end|>: no region, and the <|end|> still cuts.
  CHECK(scan("{\"a\": 1}<|end|>") == std::vector<seen>{answer("{\"a\": 1}")});
  CHECK(first("{\"name\": \"Ada\"}<|end|>") == R"({"name":"Ada"})");
  CHECK(scan("{\"a\": [1, <|end|> 2]}") == std::vector<seen>{answer("{\"a\": [1, ")});
  // A runaway turn repeats it: a second <|end|> or a <|call|> is no harmony-only token.
  CHECK(scan("{\"a\": 1}<|end|>{\"b\": 2}<|end|><|call|>") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
  // Followed by one of <|start|>, <|channel|>, <|message|>, <|constrain|>, <|return|>: a region.
  // (`<|channel|>final`: a <|channel|> with another name would open a message of reasoning.)
  for (std::string later : {"<|start|>", "<|channel|>final", "<|message|>", "<|constrain|>",
                            "<|return|>", "<|RETURN|>"})
    for (std::string end : {"<|end|>", "<|call|>"}) {
      INFO(end << " ... " << later);
      CHECK(scan("{\"d\": 0}" + end + "{\"a\": 1}" + later + "{\"b\": 2}") ==
            std::vector<seen>{thought("{\"d\": 0}", end), answer("{\"a\": 1}"),
                              answer("{\"b\": 2}")});
    }
  CHECK(first("x<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 1}") == R"({"a":1})");
  CHECK(scan("x {\"d\": 0}<|end|><|start|>assistant<|channel|>final<|message|>{\"a\": 1}") ==
        std::vector<seen>{thought("{\"d\": 0}", "<|end|>"), answer("{\"a\": 1}")});
  // Somewhere after it: inside a later region too.
  CHECK(scan("{\"d\": 0}<|end|>{\"a\": 1}<think><|return|></think>") ==
        std::vector<seen>{thought("{\"d\": 0}", "<|end|>"), answer("{\"a\": 1}")});
  // Gemma's markers are no harmony tokens.
  CHECK(scan("{\"a\": 1}<|end|><|channel>x<channel|>") ==
        std::vector<seen>{thought("{\"a\": 1}", "<channel|>")});
  // The first such marker counts: with no harmony-only token after the <|end|>, a later
  // closing tag does; with one, the <|end|> does and the closing tag is text.
  CHECK(scan("{\"a\": 1}<|end|>{\"b\": 2}</think>{\"c\": 3}") ==
        std::vector<seen>{thought("{\"a\": 1}", "</think>"), thought("{\"b\": 2}", "</think>"),
                          answer("{\"c\": 3}")});
  CHECK(scan("{\"a\": 1}<|end|>{\"b\": 2}</think>{\"c\": 3}<|start|>") ==
        std::vector<seen>{thought("{\"a\": 1}", "<|end|>"), answer("{\"b\": 2}"),
                          answer("{\"c\": 3}")});
  // Only before any other harmony token, as in v3.
  CHECK(scan("<|message|>{\"a\": 1}<|end|><|start|>{\"a\": 2}") ==
        std::vector<seen>{answer("{\"a\": 1}"), answer("{\"a\": 2}")});
}

namespace {

/// A text in which `f` makes `{"d": 0}` reasoning and leaves `{"a": 1}` answer text.
std::string text_of(llmjson::reasoning_format f) {
  using rf = llmjson::reasoning_format;
  auto tags = [](std::string open, std::string close) {
    return open + "{\"d\": 0}" + close + "{\"a\": 1}";
  };
  switch (f) {
    case rf::think: return tags("<think>", "</think>");
    case rf::thinking: return tags("<thinking>", "</thinking>");
    case rf::reasoning: return tags("<reasoning>", "</reasoning>");
    case rf::think_brackets: return tags("[THINK]", "[/THINK]");
    case rf::command_r: return tags("<|START_THINKING|>", "<|END_THINKING|>");
    case rf::begin_of_thought: return tags("<|begin_of_thought|>", "<|end_of_thought|>");
    case rf::seed_think: return tags("<seed:think>", "</seed:think>");
    case rf::kimi: return tags("\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/think\xE2\x96\xB7");
    case rf::scratchpad: return tags("<scratchpad>", "</scratchpad>");
    case rf::thought: return tags("<Thought>", "</Thought>");
    case rf::longcat_think: return tags("<longcat_think>", "</longcat_think>");
    case rf::gemma4_channel: return tags("<|channel>thought", "<channel|>");
    case rf::details: return tags("<details type=\"reasoning\">", "</details>");
    case rf::harmony:
      return tags("<|channel|>analysis<|message|>",
                  "<|end|><|start|>assistant<|channel|>final<|message|>");
    case rf::stripped_harmony: return tags("analysis ", " assistantfinal ");
    case rf::granite: return tags("Here is my thought process: ", " Here's my response: ");
    case rf::apriel: return tags("Here are my reasoning steps: ", " [BEGIN FINAL RESPONSE] ");
    case rf::ollama: return tags("Thinking... ", " ...done thinking. ");
  }
  return {};
}

}  // namespace

TEST_CASE("options::reasoning_off: a built-in format switched off is text",
          "[regions][rule §2 Parts]") {
  using rf = llmjson::reasoning_format;
  const auto& all = llmjson::enumerators<rf>;
  CHECK(all.size() == 18);
  const std::vector<rf> every(all.begin(), all.end());
  for (rf f : all) {
    INFO(to_string(f));
    const std::string text = text_of(f);
    const std::vector<seen> read = scan(text);
    REQUIRE(read.size() == 2);
    CHECK(read[0].reasoning);
    CHECK_FALSE(read[1].reasoning);
    // Off: its markers are text.
    llmjson::options off;
    off.reasoning_off = {f};
    CHECK(scan(text, off) == std::vector<seen>{answer("{\"d\": 0}"), answer("{\"a\": 1}")});
    // Every other format off: it alone still reads the text.
    llmjson::options alone;
    for (rf g : all)
      if (g != f) alone.reasoning_off.push_back(g);
    CHECK(scan(text, alone) == read);
    // All off, twice over: nothing is reasoning.
    llmjson::options none;
    none.reasoning_off = every;
    none.reasoning_off.push_back(f);
    CHECK(scan(text, none) == std::vector<seen>{answer("{\"d\": 0}"), answer("{\"a\": 1}")});
  }
  SECTION("harmony off: its seven tokens cut nothing, and no <|end|> ends a region") {
    llmjson::options off;
    off.reasoning_off = {rf::harmony};
    // (On, the part after <|start|> is a string that never closes.)
    CHECK(first("x {\"a\": \"<|start|>\"}") == "error truncated");
    CHECK(first("x {\"a\": \"<|start|>\"}", off) == R"({"a":"<|start|>"})");
    CHECK(scan("{\"a\": 1}<|end|><|start|>{\"b\": 2}", off) ==
          std::vector<seen>{answer("{\"a\": 1}"), answer("{\"b\": 2}")});
    // options::start reasoning: only tag pairs' closers end the region the prompt opened.
    off.start = llmjson::output_start::reasoning;
    CHECK(scan("{\"a\": 1}<|end|>{\"b\": 2}</think>{\"c\": 3}", off) ==
          std::vector<seen>{thought("{\"a\": 1}", "</think>"), thought("{\"b\": 2}", "</think>"),
                            answer("{\"c\": 3}")});
  }
  SECTION("apriel off: [END FINAL RESPONSE] is text too") {
    const std::string text =
        "Here are my reasoning steps: {\"d\": 0} [BEGIN FINAL RESPONSE] {\"a\": \"[END FINAL "
        "RESPONSE]\"}";
    CHECK(first(text) == "error truncated");  // the part after the cut: `"}`
    llmjson::options off;
    off.reasoning_off = {rf::apriel};
    CHECK(first(text, off) == R"({"d":0})");
  }
  SECTION("a tag pair off: its closer is no already-open closer") {
    llmjson::options off;
    off.reasoning_off = {rf::think};
    CHECK(scan("{\"a\": 1}</think>{\"b\": 2}</thinking>{\"c\": 3}", off) ==
          std::vector<seen>{thought("{\"a\": 1}", "</thinking>"),
                            thought("{\"b\": 2}", "</thinking>"), answer("{\"c\": 3}")});
  }
  SECTION("a value that names no format switches nothing off") {
    llmjson::options odd;
    odd.reasoning_off = {static_cast<rf>(18), static_cast<rf>(200)};
    for (rf f : all) CHECK(scan(text_of(f), odd) == scan(text_of(f)));
  }
  SECTION("the caller's markers still count with every format off") {
    llmjson::options mine;
    mine.reasoning_off = every;
    mine.reasoning_markers = {{"<think>", "</think>"}};
    CHECK(scan(text_of(rf::think), mine) ==
          std::vector<seen>{thought("{\"d\": 0}", "<think>"), answer("{\"a\": 1}")});
  }
}

}  // namespace llmjson_tests::regions_test
