// llmjson: extract() chooses one answer under a policy, or says why there is none
// SPDX-License-Identifier: MIT
#include <llmjson/error.hpp>
#include <llmjson/extract.hpp>

#include "catch_compat.hpp"

#include <optional>
#include <string>
#include <vector>

namespace llmjson_tests::extract_test {

namespace {

using json = nlohmann::json;
using llmjson::error_kind;
using llmjson::policy;

struct reply {
  std::string thread_id;
  std::string decision;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(reply, thread_id, decision)

llmjson::options with(policy p, bool fallback = true) {
  llmjson::options o;
  o.policy = p;
  o.fallback = fallback;
  return o;
}

}  // namespace

TEST_CASE("the plan fence after a ```json analysis fence, chosen by keys",
          "[extract][rule §5 Selection and policies]") {
  const std::string text =
      "Analysis:\n```json\n{\"analysis\": {\"threat\": \"high\"}, \"confidence\": 0.7}\n```\n"
      "Orders:\n```json\n{\"orders\": [{\"station\": \"helm\"}], \"helm\": {\"heading\": "
      "320}}\n```\n";
  auto r = llmjson::extract(text, llmjson::any_key({"orders", "helm", "engineering", "tactical"}));
  REQUIRE(r);
  CHECK(r->json()["helm"]["heading"] == 320);
  CHECK(r->index == 1);
  CHECK_FALSE(r->fallback);
  CHECK(r->candidates.size() == 2);
  CHECK_FALSE(r->candidates[0].qualifies);
  CHECK(r->candidates[0].message.find("has none of the keys") == 0);
  CHECK(r->chosen().line == 7);
}

TEST_CASE("a draft in the preamble: a strict decoder and policy unique take the answer only",
          "[extract][rule §5 Selection and policies]") {
  const std::string text =
      "I'll start from draft: {\"decision\":\"skip\"} but thread t-42 needs a reply.\n"
      "{\"thread_id\": \"t-42\", \"decision\": \"reply\"}\n";
  auto r = llmjson::extract<reply>(text);
  REQUIRE(r);
  CHECK(r->decision == "reply");
  auto full = llmjson::extract(text, llmjson::decode<reply>{});
  REQUIRE(full);
  CHECK(full->candidates[0].message == R"(missing key "thread_id")");
  CHECK(full->policy == policy::unique);
}

TEST_CASE("extract<T> of a temporary string: the value is owned, an error keeps no views",
          "[extract]") {
  auto reply_text = [](std::string_view s) { return std::string(s); };
  auto r = llmjson::extract<reply>(reply_text(
      "draft: {\"decision\":\"skip\"}\n{\"thread_id\": \"t-9\", \"decision\": \"reply\"}"));
  REQUIRE(r);
  CHECK(r->thread_id == "t-9");
  auto checked = llmjson::extract<reply>(reply_text(R"({"thread_id": "t-9", "decision": "reply"})"),
                                         [](const reply& x) { return x.decision == "skip"; });
  REQUIRE_FALSE(checked);
  CHECK(checked.error().kind == error_kind::no_match);
  REQUIRE(checked.error().candidates.size() == 1);
  CHECK(checked.error().candidates[0].text.empty());  // the text is gone: no view into it
  CHECK(checked.error().candidates[0].offset == 0);
  CHECK(checked.error().candidates[0].message == "rejected by the check");
  CHECK_FALSE(checked.error().message.empty());
  auto fenced = llmjson::extract<reply>(reply_text("<think>{}</think>\n```json\n{\"a\": 1,}\n```"));
  REQUIRE_FALSE(fenced);
  REQUIRE(fenced.error().candidates.size() >= 2);  // one inside <think>, one in a fence
  for (const auto& c : fenced.error().candidates) {
    CHECK(c.text.empty());
    CHECK(c.info.empty());
    CHECK(c.marker.empty());
  }
  auto near = llmjson::extract<reply>(reply_text("Sure:\n{'city': 'Paris'}\n"));
  REQUIRE_FALSE(near);
  REQUIRE(near.error().near_misses.size() == 1);
  CHECK(near.error().near_misses[0].text.empty());
  CHECK(near.error().near_misses[0].offset == 6);
  CHECK(near.error().near_misses[0].message == "single quotes are not JSON strings");
}

TEST_CASE("'not {}.' in the preamble: the empty object does not decode", "[extract]") {
  const std::string text =
      "The answer is not {}. It is:\n{\"thread_id\": \"t-1\", \"decision\": \"skip\"}";
  auto r = llmjson::extract<reply>(text);
  REQUIRE(r);
  CHECK(r->thread_id == "t-1");
}

TEST_CASE("the caller's check on the decoded value decides between two that decode", "[extract]") {
  const std::string text =
      R"(Old: {"thread_id": "t-7", "decision": "skip"} New: {"thread_id": "t-42", "decision": "reply"})";
  auto check = [](const reply& r) {
    return r.thread_id == "t-42" ? llmjson::verdict::pass()
                                 : llmjson::verdict::fail("thread_id: expected \"t-42\", got \"" +
                                                          r.thread_id + "\"");
  };
  auto r = llmjson::extract<reply>(text, check);
  REQUIRE(r);
  CHECK(r->decision == "reply");
  auto err = llmjson::extract<reply>(text);
  REQUIRE_FALSE(err);
  CHECK(err.error().kind == error_kind::ambiguous);
}

TEST_CASE("ambiguous: two qualifying candidates under unique, both positions named",
          "[extract][rule §6 Errors]") {
  const std::string text = "Example: {\"label\": \"spam\"}\n\nAnswer:\n{\"label\": \"ham\"}";
  auto r = llmjson::extract(text, llmjson::any_key({"label"}), with(policy::unique));
  REQUIRE_FALSE(r);
  const auto& e = r.error();
  CHECK(e.kind == error_kind::ambiguous);
  CHECK(e.message ==
        "2 candidates qualify with different values, policy unique takes exactly one: 1:10 "
        "prose; 4:1 prose");
  CHECK(e.offset == text.find("{\"label\": \"ham\"}"));
  CHECK(e.candidates.size() == 2);
}

TEST_CASE("policies first and last", "[extract][rule §5 Selection and policies]") {
  const std::string text = R"({"v": 1} then {"v": 2} finally {"v": 3} and {"other": 0})";
  llmjson::any_key v{"v"};
  CHECK(llmjson::extract(text, v, with(policy::first))->json()["v"] == 1);
  CHECK(llmjson::extract(text, v, with(policy::last))->json()["v"] == 3);
  CHECK(llmjson::extract(text, v)->policy == policy::first);  // a key set's default
}

TEST_CASE("first falls back to the first valid candidate, flagged, unless told not to",
          "[extract][rule §5 Selection and policies]") {
  const std::string text = "Tags:\n```json\n[\"billing\", \"refund\"]\n```\n";
  auto r = llmjson::extract(text);
  REQUIRE(r);
  CHECK(r->fallback);
  CHECK(r->json() == json::parse(R"(["billing","refund"])"));
  auto off = llmjson::extract(text, with(policy::first, false));
  REQUIRE_FALSE(off);
  CHECK(off.error().kind == error_kind::no_match);
  CHECK(off.error().message ==
        "1 candidate, none qualifies: 3:1 fence \"json\": not an object (array)");
  // A typed decoder never falls back: the value would not be a T.
  auto typed = llmjson::extract(text, llmjson::decode<reply>{}, with(policy::first));
  REQUIRE_FALSE(typed);
  CHECK(typed.error().kind == error_kind::no_match);
}

TEST_CASE("truncated: first returns an earlier qualifying candidate, unique and last never do",
          "[extract][rule §4 Truncation]") {
  const std::string text =
      "Draft route: {\"route\": [\"a\", \"b\"]}\n\nFinal: {\"route\": [\"b\", \"a\"], \"note\": "
      "\"uses the ring";
  llmjson::any_key route{"route"};
  auto first = llmjson::extract(text, route, with(policy::first));
  REQUIRE(first);
  CHECK(first->json()["route"][0] == "a");
  CHECK(first->truncation);
  for (auto p : {policy::unique, policy::last}) {
    auto r = llmjson::extract(text, route, with(p));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == error_kind::truncated);
    CHECK(r.error().truncation);
    CHECK(r.error().offset == text.find("{\"route\": [\"b\""));
  }
  auto last = llmjson::extract(text, route, with(policy::last));
  CHECK(last.error().message ==
        "the output was cut: the object opened at 3:8 never closes; 1 earlier candidate qualifies, "
        "but under "
        "policy last the cut value might have been the answer");
}

TEST_CASE("truncated: with nothing qualifying, first says truncated and never falls back",
          "[extract][rule §4 Truncation]") {
  const std::string text =
      "Analysis: {\"risk\": \"high\"}\nPlan: {\"orders\": [{\"helm\": 1}, {\"eng";
  auto r = llmjson::extract(text, llmjson::any_key({"orders"}), with(policy::first));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::truncated);
  CHECK(r.error().candidates.size() ==
        1);  // the analysis; the plan's inner objects are not candidates
}

TEST_CASE("no_json lists the malformed owners with their positions", "[extract][rule §6 Errors]") {
  const std::string text = "```json\n{\n  \"name\": \"x\",\n  \"tags\": [\"a\",],\n}\n```\n";
  auto r = llmjson::extract(text, llmjson::any_key({"name"}));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::no_json);
  CHECK(r.error().message ==
        "no JSON value in the output; 1 malformed candidate: 2:1 in fence \"json\": malformed: "
        "line 4 col 15: trailing comma");
}

TEST_CASE("empty, white space, and too large", "[extract][rule §6 Errors]") {
  CHECK(llmjson::extract(std::string_view("")).error().kind == error_kind::empty);
  CHECK(llmjson::extract(std::string_view(" \n\t\r\n")).error().kind == error_kind::empty);
  CHECK(llmjson::extract(std::string_view("\xEF\xBB\xBF  ")).error().kind == error_kind::empty);
  llmjson::options small;
  small.max_input_bytes = 8;
  auto r = llmjson::extract(std::string_view("{\"a\": 12345}"), small);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::too_large);
  CHECK(r.error().message ==
        "the output is 12 bytes, over the limit of 8 (options::max_input_bytes)");
  // A reader that stopped at the limit knows only that the output is over it.
  const llmjson::error e = llmjson::detail::too_large_error(std::nullopt, 8);
  CHECK(e.kind == error_kind::too_large);
  CHECK(e.offset == 8);
  CHECK(e.message == "the output is over the limit of 8 bytes (options::max_input_bytes)");
}

TEST_CASE("no_match lists each candidate's reason", "[extract][rule §6 Errors]") {
  const std::string text = R"(A {"a": 1} B {"b": 2})";
  auto r = llmjson::extract(text, llmjson::any_key({"c"}), with(policy::unique));
  REQUIRE_FALSE(r);
  CHECK(
      r.error().message ==
      R"(2 candidates, none qualifies: 1:3 prose: has none of the keys "c"; 1:14 prose: has none of the keys "c")");
}

TEST_CASE("the fast path: a whole-JSON output is taken as it is",
          "[extract][rule §3 Whole output]") {
  auto r = llmjson::extract(std::string_view("{\"id\": 17, \"inner\": {\"id\": 1}}"),
                            llmjson::any_key({"id"}));
  REQUIRE(r);
  CHECK(r->chosen().source == llmjson::source::whole);
  CHECK(r->candidates.size() == 1);
}

TEST_CASE("a message names at most eight candidates", "[extract]") {
  std::string text;
  for (int i = 0; i < 20; ++i) text += "{\"n\": " + std::to_string(i) + "} ";
  auto r = llmjson::extract(text, llmjson::any_key({"x"}), with(policy::last));
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("; and 12 more") != std::string::npos);
  CHECK(r.error().candidates.size() == 20);
}

TEST_CASE("no_json names near misses: objects the model meant, with what to fix",
          "[extract][near-miss]") {
  auto no_json = [](std::string_view text) {
    auto r = llmjson::extract(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == error_kind::no_json);
    return r.error();
  };
  SECTION("single quotes") {
    auto e = no_json("Sure:\n{'city': 'Paris'}\n");
    CHECK(e.message ==
          "no JSON value in the output; 1 near miss: 2:1 {'city': 'Paris'}: single quotes are "
          "not JSON strings");
    REQUIRE(e.near_misses.size() == 1);
    CHECK(e.near_misses[0].text == "{'city': 'Paris'}");
    CHECK(e.near_misses[0].offset == 6);
    CHECK(e.near_misses[0].line == 2);
    CHECK(e.offset == 6);
    CHECK(e.candidates.empty());  // a near miss is not a candidate
  }
  SECTION("each reason a person acts on") {
    const std::vector<std::pair<std::string_view, std::string_view>> cases{
        {"x {name: \"x\"}", "unquoted key name (keys take double quotes)"},
        {"x { \"a\" 1}", "unexpected '1', expected ':' after the key"},
        {"x {'a': 1, \"b\": 2,}", "single quotes are not JSON strings"},
        {"x {ok: True}", "unquoted key ok (keys take double quotes)"},
        {"x {\"a\" = 1}", "unexpected '=', expected ':' after the key"},
        {"x {\"line\n\": 1}", "a raw line break in a string"},
    };
    for (const auto& [text, reason] : cases) {
      INFO(text);
      auto e = no_json(text);
      REQUIRE(e.near_misses.size() == 1);
      CHECK(e.near_misses[0].message == reason);
    }
    // JSON-like spans are malformed candidates instead, with the same kind of reason.
    auto e = no_json("x {\"a\": True, \"b\": NaN, \"c\": 1,}");
    CHECK(e.near_misses.empty());
    CHECK(e.message ==
          "no JSON value in the output; 1 malformed candidate: 1:3 prose: malformed: line 1 col "
          "9: invalid literal True (Python; JSON has true, false, null)");
    CHECK(no_json("x {\"a\": 1, // note\n}").message.find("comments are not JSON") !=
          std::string::npos);
  }
  SECTION("at most three are named; only the outermost; none in the reasoning") {
    auto e = no_json("{'a': {'b': 1}} {x: 1} {y: 2} {z: 3} <think>{'r': 1}</think>");
    CHECK(e.near_misses.size() == 3);
    CHECK(e.near_misses[0].text == "{'a': {'b': 1}}");
    CHECK(e.message.find("4 near misses: ") != std::string::npos);
    CHECK(e.message.find("; and 1 more") != std::string::npos);
  }
  SECTION("not named: set notation, templates, code") {
    auto e = no_json("Let S = {1, 2} and {{name}} and {\\frac{a}{b}} and {x | x > 0}.");
    CHECK(e.near_misses.empty());
    CHECK(e.message == "no JSON value in the output");
  }
  SECTION("kept by no_match (maybe the answer meant), in no other error; never a change of kind") {
    auto r = llmjson::extract(std::string_view("{'a': 1} {\"b\": 2}"), llmjson::any_key({"c"}),
                              with(policy::unique));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == error_kind::no_match);
    REQUIRE(r.error().near_misses.size() == 1);
    CHECK(r.error().near_misses[0].text == "{'a': 1}");
    CHECK(r.error().message ==
          "1 candidate, none qualifies: 1:10 prose: has none of the keys \"c\"; 1 near miss: 1:1 "
          "{'a': 1}: single quotes are not JSON strings");
    auto twice =
        llmjson::extract(std::string_view("{'a': 1} {\"b\": 2} {\"b\": 3}"), with(policy::unique));
    REQUIRE_FALSE(twice);
    CHECK(twice.error().kind == error_kind::ambiguous);
    CHECK(twice.error().near_misses.empty());
  }
  SECTION("a long near miss is cut short in the message") {
    auto e = no_json("x {'k': '" + std::string(100, 'v') + "'}");
    CHECK(e.message.find("{'k': 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...: single quotes") !=
          std::string::npos);
  }
}

TEST_CASE("arrays in prose are answers, their elements never are",
          "[extract][arrays][rule §3 The scan]") {
  const std::string text = R"(Here they are: [{"name": "Ada"}, {"name": "Lin"}] (both active))";
  auto r = llmjson::extract(text);
  REQUIRE(r);
  CHECK(r->fallback);
  CHECK(r->json() == json::parse(R"([{"name": "Ada"}, {"name": "Lin"}])"));
  auto keyed = llmjson::extract(text, llmjson::any_key({"name"}), with(policy::unique));
  REQUIRE_FALSE(keyed);
  CHECK(keyed.error().kind == error_kind::no_match);
  auto cut = llmjson::extract(std::string_view("[[{}], [{"));
  REQUIRE_FALSE(cut);
  CHECK(cut.error().kind == error_kind::truncated);
  CHECK(cut.error().message == "the output was cut: the array opened at 1:1 never closes");
}

// --- §5 Selection and policies: the fallback is a candidate no frame encloses ----------------

TEST_CASE("the fallback is never a piece of something bigger",
          "[extract][fallback][rule §5 Selection and policies]") {
  const llmjson::any_key wanted{"user_id"};
  SECTION("a dict inside a Python repr: no fallback, no_match says why") {
    const std::string text =
        "The call returned {'status': 404, 'headers': {\"type\": \"json\"}, 'ok': False}.";
    auto r = llmjson::extract(text, wanted, with(policy::first));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == error_kind::no_match);
    CHECK(r.error().message ==
          "1 candidate, none qualifies: 1:46 prose: has none of the keys \"user_id\"; none can "
          "be the fallback: every valid one lies inside a frame (a piece of something bigger); "
          "1 near miss: 1:19 {'status': 404, 'headers': {\"type\": \"jso...: single quotes are "
          "not JSON strings");
    REQUIRE(r.error().candidates.size() == 1);
    CHECK(r.error().candidates[0].enclosed);
    // The fallback turned off: the message does not speak of it.
    auto off = llmjson::extract(text, wanted, with(policy::first, false));
    REQUIRE_FALSE(off);
    CHECK(off.error().message ==
          "1 candidate, none qualifies: 1:46 prose: has none of the keys \"user_id\"; 1 near "
          "miss: 1:19 {'status': 404, 'headers': {\"type\": \"jso...: single quotes are not JSON "
          "strings");
    // A piece still qualifies when the selector says so: only the fallback refuses it.
    auto typed = llmjson::extract(text, llmjson::any_key({"type"}), with(policy::first));
    REQUIRE(typed);
    CHECK_FALSE(typed->fallback);
    CHECK(typed->json() == json::parse(R"({"type": "json"})"));
  }
  SECTION("the fallback skips pieces for a later candidate that no frame encloses") {
    const std::string text =
        "The old client: {status: 'ok', data: {\"id\": 7}}; now:\n```json\n[\"id\"]\n```\n"
        "and {\"id\": 8}";
    auto r = llmjson::extract(text, wanted, with(policy::first));
    REQUIRE(r);
    CHECK(r->fallback);
    CHECK(r->json() == json::parse(R"(["id"])"));
    CHECK(r->chosen().source == llmjson::source::fence);
  }
  SECTION("inside a prose-like frame that never closes, or a JSON-like one that died") {
    for (std::string_view text : {std::string_view("{note: {\"a\": 1} and then nothing"),
                                  std::string_view("x {\"k\": oops {\"a\": 1}"),
                                  std::string_view("> {\n>   \"c\": {\"id\": 1}\n> }\n")}) {
      INFO(text);
      auto r = llmjson::extract(text, wanted, with(policy::first));
      REQUIRE_FALSE(r);
      CHECK(r.error().kind == error_kind::no_match);
      CHECK(r.error().message.find("none can be the fallback") != std::string::npos);
    }
  }
  SECTION("a top-level object, a whole part, a whole output are the fallback") {
    for (std::string_view text :
         {std::string_view("Result: {\"a\": 1} ok"), std::string_view("<think>x</think>{\"a\": 1}"),
          std::string_view("{\"a\": 1}"), std::string_view("[1, 2]")}) {
      INFO(text);
      auto r = llmjson::extract(text, wanted, with(policy::first));
      REQUIRE(r);
      CHECK(r->fallback);
      CHECK_FALSE(r->chosen().enclosed);
    }
  }
  SECTION("unique and last are unchanged: no_match, without a word on the fallback") {
    const std::string text = "x {'a': {\"b\": 1}}";
    for (policy p : {policy::unique, policy::last}) {
      auto r = llmjson::extract(text, wanted, with(p));
      REQUIRE_FALSE(r);
      CHECK(r.error().kind == error_kind::no_match);
      CHECK(r.error().message.find("fallback") == std::string::npos);
    }
  }
}

TEST_CASE("raw control characters in strings: the messages name the first defect",
          "[extract][control]") {
  // The raw line breaks are the rules' one reading (v4): the quote before `k` ends the string.
  const std::string text =
      "Here is the file as JSON:\n{\"name\": \"a.py\", \"code\": \"import os\n\nX = {\"k\": "
      "1}\n\"}\n";
  auto r = llmjson::extract(text);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == error_kind::no_json);
  CHECK(r.error().message ==
        "no JSON value in the output; 1 malformed candidate: 2:1 prose: malformed: line 4 col "
        "7: invalid literal k, expected ',' or '}'");
  REQUIRE(r.error().candidates.size() == 1);
  CHECK(r.error().candidates[0].message ==
        "malformed: line 4 col 7: invalid literal k, expected ',' or '}'");
  // Cut while such a string runs: truncated, never an answer from inside it.
  auto cut = llmjson::extract(std::string_view("{\"code\": \"a = {\\\"k\\\": 1}\nb = 2"));
  REQUIRE_FALSE(cut);
  CHECK(cut.error().kind == error_kind::truncated);
  // The first answer after a malformed one with raw line breaks.
  const std::string again =
      "{\"v\": \"2\", \"notes\": \"a\nsee {\"v\": 3}\"}\nCorrected: {\"v\": \"2\", \"notes\": "
      "\"a\\nsee\"}";
  auto ok = llmjson::extract(again, llmjson::any_key({"v"}), with(policy::first));
  REQUIRE(ok);
  CHECK(ok->json() == json::parse(R"({"v": "2", "notes": "a\nsee"})"));
}

TEST_CASE("policy first names the later candidates that also qualify",
          "[extract][rule §5 Selection and policies]") {
  const std::string text =
      "Example: {\"category\": \"other\"}\nMy answer:\n```json\n{\"category\": \"billing\"}\n"
      "```\nor {\"category\": \"incident\"} <think>{\"category\": \"x\"}</think> {\"note\": 1}\n";
  const auto sel = llmjson::any_key({"category"});
  SECTION("first: the answer is the first; the other two qualifying ones are listed") {
    auto r = llmjson::extract(text, sel, with(policy::first));
    REQUIRE(r);
    CHECK(r->index == 0);
    REQUIRE(r->later_qualifying.size() == 2);
    const auto& second = r->candidates[r->later_qualifying[0]];
    const auto& third = r->candidates[r->later_qualifying[1]];
    CHECK(second.text == R"({"category": "billing"})");
    CHECK(second.line == 4);
    CHECK(third.text == R"({"category": "incident"})");
    CHECK(third.line == 6);
    for (std::size_t k : r->later_qualifying) CHECK(r->candidates[k].qualifies);
  }
  SECTION("one qualifying candidate, last, and the fallback: none listed") {
    const std::string one = "{\"category\": \"other\"} and {\"note\": 1}";
    auto r = llmjson::extract(one, sel, with(policy::first));
    REQUIRE(r);
    CHECK(r->later_qualifying.empty());
    auto last = llmjson::extract(text, sel, with(policy::last));
    REQUIRE(last);
    CHECK(last->later_qualifying.empty());
    auto fell = llmjson::extract(text, llmjson::any_key({"zzz"}), with(policy::first));
    REQUIRE(fell);
    CHECK(fell->fallback);
    CHECK(fell->later_qualifying.empty());
  }
}

}  // namespace llmjson_tests::extract_test
