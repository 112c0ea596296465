// llmjson: rules v4 (tests/corpus/README.md §9): raw controls in a frame's strings, equal values
// under unique, and the prefill, through candidates(), extract() and the stream
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/stream.hpp>

#include "catch_compat.hpp"
#include "same_result.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llmjson_tests::rules_v4_test {

namespace {

using json = nlohmann::json;
using llmjson::error_kind;
using llmjson::policy;

llmjson::options with(policy p) {
  llmjson::options o;
  o.policy = p;
  return o;
}

llmjson::options prefilled(std::string prefill, policy p = policy::first) {
  llmjson::options o = with(p);
  o.prefill = std::move(prefill);
  return o;
}

/// The stream fed `text` a byte at a time and whole: both finish as extract() does.
template <class S = llmjson::any_object>
void stream_agrees(std::string_view text, const llmjson::options& opts, const S& sel = S{}) {
  const auto expected = llmjson::extract(text, sel, opts);
  for (std::size_t step : {std::size_t{1}, text.size() + 1}) {
    llmjson::stream<S> s(sel, opts);
    for (std::size_t at = 0; at < text.size(); at += step) {
      s.feed(text.substr(at, step));
      s.sync();
    }
    const auto got = s.finish();
    INFO("chunks of " << step << ": " << llmjson_test::differs(got, expected));
    CHECK(llmjson_test::differs(got, expected).empty());
  }
}

}  // namespace

TEST_CASE("a frame whose only defect is raw LF, CR or tab in strings is valid with raw controls",
          "[rules v4][rule §3 Raw controls]") {
  const std::string text = "Result: {\"note\": \"line one\nline two\", \"cmd\": \"\tmake\r\"} done";
  const auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 1);
  const llmjson::candidate& c = s.candidates[0];
  CHECK(c.valid);
  CHECK(c.raw_controls);
  CHECK(c.offset == 8);
  REQUIRE(c.json);
  CHECK(*c.json == json{{"note", "line one\nline two"}, {"cmd", "\tmake\r"}});
  // Its text is as written; minify gives the JSON it means.
  CHECK(c.text.find('\n') != std::string_view::npos);
  CHECK(llmjson::minify(c.text) == "{\"note\":\"line one\\nline two\",\"cmd\":\"\\tmake\\r\"}");
  CHECK(llmjson::pretty(c.text) ==
        "{\n  \"note\": \"line one\\nline two\",\n  \"cmd\": \"\\tmake\\r\"\n}");
  auto r = llmjson::extract(text);
  REQUIRE(r);
  CHECK(r->chosen().raw_controls);
  CHECK(r->raw_controls());
  CHECK(r->json()["note"] == "line one\nline two");
  stream_agrees(text, {});
}

TEST_CASE("other defects keep a frame with raw controls malformed, with the real reason",
          "[rules v4][rule §3 Raw controls]") {
  struct row {
    std::string text, reason;
  };
  const std::vector<row> rows{
      {"x {\"a\": \"p\fq\"} y", "a raw control character (U+000C) in a string"},
      {"x {\"a\": \"p\x1bq\"} y", "a raw control character (U+001B) in a string"},
      {"x {\"a\": \"p\\\nq\"} y", "a raw line break in a string"},  // after a backslash
      {"x {\"a\": \"p\nq\", \"b\": 1,} y", "trailing comma"},
      {"x {\"a\": \"p\nq\", \"b\": \"say \"hi\"\"} y", "expected"},
      {"x {\"a\": {\"k\ney\": 1}} y", "a raw line break in a string"},  // an inner first key
      // A number beyond a double: nlohmann cannot hold the value (found by diff_fuzz).
      {"x {\"a\": \"p\nq\", \"b\": 1e400} y", "a number is out of range for a double"},
  };
  for (const row& w : rows) {
    INFO(w.text);
    const auto s = llmjson::candidates(w.text);
    bool malformed = false;
    for (const llmjson::candidate& c : s.candidates) {
      CHECK_FALSE(c.raw_controls);
      if (c.offset == 2 && !c.valid) {
        malformed = true;
        CHECK(c.message.find(w.reason) != std::string::npos);
      }
    }
    CHECK(malformed);
    CHECK_FALSE(llmjson::extract(w.text, llmjson::any_key({"a"})));
    stream_agrees(w.text, {});
  }
}

TEST_CASE("a frame with raw controls and a number beyond a double is malformed, in reasoning too",
          "[rules v4][rule §3 Raw controls]") {
  const std::string text = "<think>x {\"a\": \"p\nq\", \"b\": 1e400} y</think> {\"a\": 1}";
  const auto s = llmjson::candidates(text);
  REQUIRE(s.candidates.size() == 2);
  CHECK(s.candidates[0].in_reasoning);
  CHECK_FALSE(s.candidates[0].valid);
  CHECK_FALSE(s.candidates[0].raw_controls);
  CHECK(s.candidates[0].message.find("a number is out of range for a double") != std::string::npos);
  stream_agrees(text, {});
}

TEST_CASE("the whole output, whole parts and fence bodies stay strict, and fence lines cut first",
          "[rules v4][rule §3 Raw controls]") {
  // The whole output is no value: the scan reads it, and its frame is valid with raw controls.
  const std::string whole = "{\"a\": \"x\ny\"}";
  auto r = llmjson::extract(whole);
  REQUIRE(r);
  CHECK(r->chosen().source == llmjson::source::prose);
  CHECK(r->chosen().raw_controls);
  // A fence body likewise: the frame inside it, not the body.
  const std::string fenced = "```json\n{\"a\": \"x\ny\"}\n```\n";
  r = llmjson::extract(fenced);
  REQUIRE(r);
  CHECK(r->chosen().source == llmjson::source::prose);
  CHECK(r->chosen().in_fence);
  // A fence line inside the string ends the segment: the frame it cuts is no candidate.
  const std::string cut = "Code: {\"code\": \"a\n```\nb\"} end";
  const auto s = llmjson::candidates(cut);
  for (const llmjson::candidate& c : s.candidates) CHECK_FALSE((c.valid && c.offset == 6));
  // A string that is a frame's first one and holds a line break: the brace is prose.
  const std::string first_string = "say {\"x\ny\": 1} now";
  CHECK_FALSE(llmjson::extract(first_string));
  stream_agrees(whole, {});
  stream_agrees(fenced, {});
  stream_agrees(cut, {});
}

TEST_CASE("unique counts qualifying candidates with equal values once",
          "[rules v4][rule §5 Selection and policies]") {
  const std::string echo =
      "```json\n{\"a\": 12, \"b\": [true]}\n```\nSo the answer is {\"b\": [true], \"a\": 12.0}.";
  auto r = llmjson::extract(echo, with(policy::unique));
  REQUIRE(r);
  CHECK(r->index == 0);
  CHECK(r->later_qualifying.empty());
  stream_agrees(echo, with(policy::unique));
  // true is not 1; different values are ambiguous, named at the first that differs.
  const std::string differ = "{\"a\": true} then {\"a\": true} then {\"a\": 1}";
  r = llmjson::extract(differ, with(policy::unique));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::ambiguous);
  CHECK(r.error().offset == std::string_view(differ).rfind('{'));
  CHECK(r.error().message.find("different values") != std::string::npos);
  stream_agrees(differ, with(policy::unique));
  // Numbers compare as decimals, not as nlohmann's doubles: these round alike but differ.
  for (const std::string& pair :
       {std::string("{\"id\": 123456789012345678901} {\"id\": 123456789012345678902}"),
        std::string("{\"p\": 0.1} {\"p\": 0.10000000000000001}"),
        std::string("{\"p\": [1e400]} {\"p\": [1e400]}"),
        std::string("{\"p\": 1e-99999999999999999999} {\"p\": 1e-99999999999999999998}"),
        std::string("{\"p\": 1e-400} {\"p\": 0}")}) {
    INFO(pair);
    r = llmjson::extract(pair, with(policy::unique));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind ==
          (pair.find("e400") != std::string::npos ? error_kind::no_json : error_kind::ambiguous));
  }
  const std::string same =
      "{\"p\": 1.50, \"q\": -0, \"r\": 1.0e-99999999999999999999} "
      "{\"r\": 10E-100000000000000000000, \"q\": 0.0, \"p\": 15e-1}";
  r = llmjson::extract(same, with(policy::unique));
  REQUIRE(r);
  CHECK(r->index == 0);
  // A value valid with raw controls equals the same value escaped.
  const std::string raw = "{\"a\": \"x\ny\"} and {\"a\": \"x\\ny\"}";
  r = llmjson::extract(raw, with(policy::unique));
  REQUIRE(r);
  CHECK(r->index == 0);
}

TEST_CASE("the prefill is read before the output as one text", "[rules v4][rule §2 The text]") {
  const std::string output = "\n  \"name\": \"Mini\",\n  \"colors\": [\"black\"]\n}\nBye.";
  auto r = llmjson::extract(output, llmjson::any_key({"name"}), prefilled("{"));
  REQUIRE(r);
  const llmjson::candidate& c = r->chosen();
  CHECK(r->json() == json{{"name", "Mini"}, {"colors", {"black"}}});
  CHECK(c.position() == -1);
  CHECK(c.offset == 0);
  CHECK(c.prefilled == 1);
  CHECK(c.text == "{" + output.substr(0, output.find("}\n") + 1));
  REQUIRE(c.storage);
  CHECK(c.text.data() == c.storage->data());
  // Without the prefill, the answer is the array inside it.
  const auto without = llmjson::extract(output, llmjson::any_key({"name"}));
  CHECK((!without || without->chosen().text != c.text));
  stream_agrees(output, prefilled("{"), llmjson::any_key({"name"}));

  // A candidate in the output keeps views into the caller's text, at output offsets.
  const std::string later = "x {\"a\": 1}";
  r = llmjson::extract(later, prefilled("Sure: "));
  REQUIRE(r);
  CHECK(r->chosen().offset == 2);
  CHECK(r->chosen().prefilled == 0);
  CHECK(r->chosen().text.data() == later.data() + 2);
  CHECK_FALSE(r->chosen().storage);
}

TEST_CASE("the prefill: markers and fences, cuts, empty and too_large",
          "[rules v4][rule §2 The text]") {
  // A prefilled <think>: the output starts in the region.
  const std::string think = "draft {\"a\": 0}</think>{\"a\": 1}";
  auto r = llmjson::extract(think, prefilled("<think>"));
  REQUIRE(r);
  CHECK(r->json() == json{{"a", 1}});
  CHECK(r->candidates[0].in_reasoning);
  CHECK(r->candidates[0].marker == "<think>");  // the marker lies in the prefill: owned
  CHECK(r->candidates[0].storage);
  stream_agrees(think, prefilled("<think>"));
  // A prefilled fence opener: the body is the answer.
  const std::string fence = "{\"a\": [1, 2]}\n```\nDone.";
  r = llmjson::extract(fence, prefilled("```json\n"));
  REQUIRE(r);
  CHECK(r->chosen().source == llmjson::source::fence);
  CHECK(r->chosen().offset == 0);
  CHECK(r->chosen().prefilled == 0);
  stream_agrees(fence, prefilled("```json\n"));
  // A prefilled `{` the output never closes: cut at -1.
  const std::string open = "\"a\": [1, 2";
  r = llmjson::extract(open, prefilled("{"));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::truncated);
  REQUIRE(r.error().truncation);
  CHECK(r.error().truncation->position() == -1);
  stream_agrees(open, prefilled("{"));
  // `empty` looks at the output alone.
  const std::string blank = " \n";
  r = llmjson::extract(blank, prefilled("{\"a\": 1}"));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::empty);
  stream_agrees(" \n", prefilled("{\"a\": 1}"));
  // An output that is only a BOM and white space is blank only without a prefill: with one, the
  // BOM of the text read is the prefill's, and the output's U+FEFF is text.
  const std::string bom_only = "\xEF\xBB\xBF\n";
  r = llmjson::extract(bom_only);
  CHECK((!r && r.error().kind == error_kind::empty));
  r = llmjson::extract(bom_only, prefilled("Answer: "));
  CHECK((!r && r.error().kind == error_kind::no_json));
  stream_agrees(bom_only, prefilled("Answer: "));
  // `too_large` counts both.
  llmjson::options small = prefilled("{\"a\": ");
  small.max_input_bytes = 10;
  const std::string rest = "12345}";
  r = llmjson::extract(rest, small);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::too_large);
  CHECK(r.error().message.find("the prefill and the output are 12 bytes") != std::string::npos);
  stream_agrees("12345}", small);
  // A BOM starts the text read: the prefill's, not the output's.
  const std::string member = "\"a\": 1}";
  r = llmjson::extract(member, prefilled("\xEF\xBB\xBF{"));
  REQUIRE(r);
  CHECK(r->chosen().position() == -1);
}

TEST_CASE("a prefill's candidates outlive the options and the scan", "[rules v4][lifetime]") {
  const std::string output = "\"a\": \"b\"} and {\"c\": 2}";
  llmjson::result<llmjson::extraction> r = [&] {
    llmjson::options o;
    o.prefill = std::string("{");
    return llmjson::extract(output, llmjson::any_key({"a"}), o);
  }();
  REQUIRE(r);
  CHECK(r->text() == "{\"a\": \"b\"}");
  llmjson::scan_result s = [&] {
    llmjson::options o;
    o.prefill = "x {";
    return llmjson::candidates(output, o);
  }();
  REQUIRE(s.candidates.size() == 2);
  const llmjson::scan_result copy = s;  // copies share the storage
  s = llmjson::scan_result{};
  CHECK(copy.candidates[0].text == "{\"a\": \"b\"}");
  CHECK(copy.candidates[0].position() == -1);
  CHECK(copy.candidates[1].text == "{\"c\": 2}");
}

}  // namespace llmjson_tests::rules_v4_test
