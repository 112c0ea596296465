// llmjson: the reference implementation (tests/reference/) on every corpus case and on each rule
// SPDX-License-Identifier: MIT
#include "reference/reference.hpp"

#include "catch_compat.hpp"
#include "read_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

// The tests may use nlohmann (to read .expect.json) and llmjson's schema (as the selector of
// the corpus cases that name a schema); the reference itself uses neither.
#include <llmjson/schema.hpp>
#include <nlohmann/json.hpp>

#ifndef LLMJSON_CORPUS_DIR
#error "LLMJSON_CORPUS_DIR must name tests/corpus"
#endif

namespace llmjson_tests::reference_test {

namespace ref = llmjson_ref;

namespace {

using llmjson_tests::read_file;

/// One line per scan: each candidate as `source text`, with ` invalid` and ` reasoning` when
/// they apply, then `cut@OFFSET` (and ` reasoning`) when the output is truncated.
/// Texts are spans of the text read (the prefill, then the output); ` raw` marks a candidate valid
/// with raw controls; the cut is a position in the output (negative in the prefill).
std::string describe(const ref::scan_result& s) {
  std::string out;
  for (const ref::candidate& c : s.candidates) {
    if (!out.empty()) out += " | ";
    out += std::string(ref::to_string(c.src)) + " " + std::string(s.span(c));
    if (!c.valid) out += " invalid";
    if (c.raw_controls) out += " raw";
    if (c.in_reasoning) out += " reasoning";
  }
  if (s.truncation.truncated) {
    if (!out.empty()) out += " | ";
    out += "cut@" + std::to_string(s.position(s.truncation.offset));
    if (s.truncation.reasoning) out += " reasoning";
  }
  return out;
}

std::string scan(std::string_view text, const ref::options& opts = {}) {
  return describe(ref::candidates(text, opts));
}

/// A reference value as nlohmann's, to compare with an `expect` (numbers through their exact
/// decimal, `digits` e `exponent`, read back as a double).
nlohmann::json to_nlohmann(const ref::value& v) {
  switch (v.kind) {
    case ref::value_kind::null: return nullptr;
    case ref::value_kind::boolean: return v.boolean;
    case ref::value_kind::number:
      return nlohmann::json::parse((v.neg ? "-" : "") + (v.digits.empty() ? "0" : v.digits) + "e" +
                                   v.exponent);
    case ref::value_kind::string: return v.str;
    case ref::value_kind::array: {
      nlohmann::json a = nlohmann::json::array();
      for (const ref::value& x : v.items) a.push_back(to_nlohmann(x));
      return a;
    }
    case ref::value_kind::object: {
      nlohmann::json o = nlohmann::json::object();
      for (std::size_t k = 0; k < v.keys.size(); ++k) o[v.keys[k]] = to_nlohmann(v.items[k]);
      return o;
    }
  }
  return nullptr;
}

/// The outcome of one policy as `error_kind` or the chosen candidate's text (`~` = fallback).
std::string pick(std::string_view text, ref::policy p, const std::vector<std::string>& keys = {},
                 const ref::options& opts = {}) {
  const ref::result r = ref::extract(text, keys, opts);
  const ref::outcome& o = p == ref::policy::first               ? r.first
                          : p == ref::policy::first_no_fallback ? r.first_no_fallback
                          : p == ref::policy::unique            ? r.unique
                                                                : r.last;
  if (o.error != ref::error_kind::none) return std::string(ref::to_string(o.error));
  const ref::candidate& c = r.scan.candidates[o.index];
  return (o.fallback ? "~" : "") + std::string(r.scan.span(c));
}

/// The outcome of one policy, with its message (no_match only).
ref::outcome outcome_of(std::string_view text, ref::policy p,
                        const std::vector<std::string>& keys = {}) {
  const ref::result r = ref::extract(text, keys);
  return p == ref::policy::first               ? r.first
         : p == ref::policy::first_no_fallback ? r.first_no_fallback
         : p == ref::policy::unique            ? r.unique
                                               : r.last;
}

/// Each candidate's problem text (empty when the reference gives none), `|`-separated.
std::string problems(std::string_view text) {
  std::string out;
  for (const ref::candidate& c : ref::candidates(text).candidates) {
    if (!out.empty()) out += " | ";
    out += c.message;
  }
  return out;
}

/// Each candidate's `enclosed` flag as `E` (inside a frame) or `-`.
std::string enclosed(std::string_view text) {
  std::string out;
  for (const ref::candidate& c : ref::candidates(text).candidates) out += c.enclosed ? 'E' : '-';
  return out;
}

/// The properties every scan has: spans inside the text, in document order, never overlapping.
void check_shape(std::string_view text, const ref::scan_result& s) {
  std::size_t end = 0;
  for (const ref::candidate& c : s.candidates) {
    CHECK(c.begin >= end);
    CHECK(c.begin < c.end);
    CHECK(c.end <= text.size());
    end = c.end;
  }
  if (s.truncation.truncated) CHECK(s.truncation.offset <= text.size());
}

ref::policy policy_named(const std::string& s) {
  if (s == "unique") return ref::policy::unique;
  if (s == "last") return ref::policy::last;
  REQUIRE(s == "first");
  return ref::policy::first;
}

}  // namespace

TEST_CASE("the reference gives every corpus case its expected answer or error", "[reference]") {
  std::vector<std::filesystem::path> all;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_CORPUS_DIR))
    if (e.path().extension() == ".txt") all.push_back(e.path());
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() == 102);  // 85 of rules v3, 17 of v4
  std::size_t by_keys = 0, by_schema = 0, prefilled = 0;
  for (const auto& txt : all) {
    auto expect_path = txt;
    expect_path.replace_extension(".expect.json");
    const std::string text = read_file(txt);
    const nlohmann::json spec = nlohmann::json::parse(read_file(expect_path));
    const nlohmann::json& sel = spec.at("select");
    INFO("case " << txt.filename().string() << ": " << spec.value("why", ""));
    // §7: "prefill (optional; absent means none): the text the caller prefilled (section 2), a
    // non-empty string ... The .txt holds the output alone".
    ref::options opts;
    if (spec.contains("prefill")) {
      opts.prefill = spec["prefill"].get<std::string>();
      REQUIRE_FALSE(opts.prefill.empty());
      ++prefilled;
    }

    const ref::scan_result s = ref::candidates(text, opts);
    INFO("scan: " << describe(s).substr(0, 2000));
    check_shape(s.text, s);
    // The selector. Keys and "any object" are the reference's own; a schema is llmjson's,
    // used here only as the test's oracle of "qualifies" (the reference has no schema code):
    // what is checked is everything else, the candidates, the cut and the policy.
    std::function<bool(const ref::candidate&)> qualifies;
    std::optional<llmjson::schema> schema;
    if (sel.contains("schema")) {
      schema.emplace(sel["schema"]);
      ++by_schema;
      qualifies = [&](const ref::candidate& c) { return (*schema)(to_nlohmann(c.val)).ok; };
    } else {
      std::vector<std::string> keys;
      if (sel.contains("keys")) keys = sel["keys"].get<std::vector<std::string>>();
      ++by_keys;
      qualifies = [keys](const ref::candidate& c) { return ref::has_any_key(c, keys); };
    }
    const ref::outcome o =
        ref::select(s, policy_named(spec.at("policy").get<std::string>()), qualifies, opts);
    if (!spec.at("error").is_null()) {
      CHECK(std::string(ref::to_string(o.error)) == spec["error"].get<std::string>());
    } else {
      REQUIRE(o.error == ref::error_kind::none);
      const ref::candidate& c = s.candidates[o.index];
      CHECK(c.valid);
      CHECK_FALSE(c.in_reasoning);
      // The value: as written, or "as if escaped" when valid with raw controls (§7: "For an
      // answer valid with raw controls, expect is its value").
      CHECK(to_nlohmann(c.val) == spec.at("expect"));
      if (!c.raw_controls) CHECK(nlohmann::json::parse(s.span(c)) == spec.at("expect"));
    }
  }
  std::cout << "reference corpus: " << by_keys << " cases with keys or any object, " << by_schema
            << " with a schema (llmjson::schema as the selector), " << prefilled
            << " with a prefill\n";
  CHECK(by_keys + by_schema == all.size());
  CHECK(prefilled >= 2);
}

// --- §1 Valid JSON ----------------------------------------------------------------------------

TEST_CASE("reference section 1: valid JSON, prefixes and where a prefix stops",
          "[reference][rule §1 Valid JSON]") {
  auto status = [](std::string_view t) { return ref::check_json(t, 0, t.size()).status; };
  auto stop = [](std::string_view t) { return ref::check_json(t, 0, t.size()).stop; };
  using st = ref::json_status;
  CHECK(status(R"({"a":[1,2.5e3,-0,true,false,null,"x\u00e9\ud83d\ude00"]})") == st::complete);
  CHECK(status(" 12 ") == st::complete);
  // The README's examples of prefixes and non-prefixes.
  for (std::string_view p : {"[1, 2", "{\"a\":", "\"abc", "tr", "-", "1.", "1e+", "{\"a\":1,\"a"})
    CHECK(status(p) == st::prefix);
  CHECK(status("-.5") == st::invalid);
  CHECK(stop("-.5") == 1);
  CHECK(status("{\"a\":1,\"a\":") == st::invalid);
  CHECK(stop("{\"a\":1,\"a\":") == 9);                    // the repeated key's closing quote
  CHECK(status(R"({"a":1,"\u0061":2})") == st::invalid);  // keys compared after unescaping
  CHECK(status(R"({"a":1,"A":2})") == st::complete);
  // Nothing repaired.
  for (std::string_view bad : {"[1,]", "{'a':1}", "[NaN]", "{\"a\":True}", "[1] // c", "\"a\tb\"",
                               "[01]", "[1.]", "[.5]", "[+1]", "\"\\x\""})
    CHECK(status(bad) == st::invalid);
  // UTF-8 and surrogates, byte by byte.
  CHECK(status("\"\xC3\xA9\"") == st::complete);
  CHECK(status("\"\xC3") == st::prefix);
  CHECK(status("\"\xC0\xAF\"") == st::invalid);          // overlong
  CHECK(status("\"\xED\xA0\x80\"") == st::invalid);      // a surrogate in UTF-8
  CHECK(status("\"\xF4\x90\x80\x80\"") == st::invalid);  // above U+10FFFF
  CHECK(status("\"\xFF\"") == st::invalid);
  CHECK(status(R"("\ud800")") == st::invalid);
  CHECK(stop(R"("\ud800")") == 7);
  CHECK(status(R"("\ud800\u)") == st::prefix);
  CHECK(status(R"("\ud800\uD)") == st::prefix);
  CHECK(status(R"("\ud800\uD8)") == st::invalid);
  CHECK(status(R"("\udc00")") == st::invalid);
  CHECK(stop(R"("\udc00")") == 4);
  CHECK(status(R"("\uDB)") == st::prefix);
  // Depth: 512 levels pass, 513 do not, and the 513th bracket is where it stops.
  const std::string ok = std::string(512, '[') + std::string(512, ']');
  const std::string deep = std::string(513, '[') + std::string(513, ']');
  CHECK(status(ok) == st::complete);
  CHECK(status(deep) == st::invalid);
  CHECK(stop(deep) == 512);
  CHECK(status(std::string(513, '[')) == st::invalid);
  // NUL is a byte like any other: in a string it is a control character, outside it breaks.
  CHECK(status(std::string("[1]\0", 4)) == st::invalid);
  CHECK(status(std::string("\"\0\"", 3)) == st::invalid);
  // Numbers beyond a double: valid JSON text, no value.
  const ref::json_verdict big = ref::check_json("[1e400]", 0, 7);
  CHECK(big.status == st::complete);
  CHECK(big.overflow);
  CHECK_FALSE(ref::check_json("[1e308, -1e-400]", 0, 16).overflow);
  // Keys come out unescaped.
  const ref::json_verdict k = ref::check_json(R"({"a\"b":1,"\u00e9":2})", 0, 21);
  REQUIRE(k.is_object);
  CHECK(k.keys == std::vector<std::string>{"a\"b", "\xC3\xA9"});
}

// --- §3 The scan -------------------------------------------------------------------------------

TEST_CASE(
    "reference scan: brackets open a frame only before a brace, a bracket, a quote or the end",
    "[reference][rule §3 The scan]") {
  CHECK(scan("see [1] and [2], x") == "");
  CHECK(scan("a [text](url) b {\"a\":1}") == "scan {\"a\":1}");
  CHECK(scan("- [ ] todo\n- [x] done") == "");
  CHECK(scan("See [[Main]] here") == "scan [[Main]] invalid");
  CHECK(scan("rows: [\"a\", \"b\"] ok") == "scan [\"a\", \"b\"]");
  CHECK(scan("rows: [1, 2] ok") == "");  // a number first: no frame
  CHECK(scan("x [[1,2],[3]] y") == "scan [[1,2],[3]]");
  CHECK(scan("x [ {\"a\":1} ] y") == "scan [ {\"a\":1} ]");
  // `[` at the end of the segment opens a frame, which is a prefix: the output is cut there.
  CHECK(scan("Here: [") == "cut@6");
  CHECK(scan("Here: [  \n") == "cut@6");
  // `}` is text in a bracket frame and `]` is text in a brace frame.
  CHECK(scan("x [\"a\" } ] y") == "scan [\"a\" } ] invalid");
  CHECK(scan("x {\"a\": ] } y") == "scan {\"a\": ] } invalid");
}

TEST_CASE("reference scan: a brace frame's kind, and what each kind keeps",
          "[reference][rule §3 The scan]") {
  // Prose-like frames keep what is inside; quotes mean nothing in them.
  CHECK(scan("f(x) { return {\"a\":1}; }") == "scan {\"a\":1}");
  CHECK(scan("use {format \"like} then {\"v\":2}") == "scan {\"v\":2}");
  CHECK(scan("{{name}} and {\"a\":1}") == "scan {\"a\":1}");
  CHECK(scan("{\"a\" x {\"b\":1}}") == "scan {\"b\":1}");  // a first string without ':'
  // A control character ends the first string: prose-like.
  CHECK(scan("{\"a\n\" {\"b\":1} }") == "scan {\"b\":1}");
  // JSON-like frames that close: a candidate, or malformed, owning all inside either way.
  CHECK(scan("x {} y") == "scan {}");
  CHECK(scan("x {\"a\": {\"b\":1}} y") == "scan {\"a\": {\"b\":1}}");
  CHECK(scan("x {\"a\": {\"b\":1},} y") == "scan {\"a\": {\"b\":1},} invalid");
  CHECK(scan("x [{\"b\":1},] y") == "scan [{\"b\":1},] invalid");
  // A prose-like frame opens bracket frames as prose does.
  CHECK(scan("{ see [\"a\"] }") == "scan [\"a\"]");
  // §3 The scan: a later string of a JSON-like frame ends only at an unescaped quote; a backslash
  // escapes a raw line break, which is a string byte. Here the string runs on to `"b`, the frame
  // dies at `b` (read as the scan reads it) and never closes: nothing.
  CHECK(scan("{\"a\": \"x\\\n} {\"b\":1}") == "");
  // A first string still ends at a control character, even after a backslash: prose-like.
  CHECK(scan("{\"x\\\n} {\"b\":1}") == "scan {\"b\":1}");
  // Braces in strings are text.
  CHECK(scan("x {\"a\": \"}{\"} y") == "scan {\"a\": \"}{\"}");
}

TEST_CASE("reference scan: frames that never close", "[reference][rule §3 The scan]") {
  // The outermost prefix swallows all inside it: at the end of the text, a cut.
  CHECK(scan("x {\"a\": {\"b\":1}, \"c\": ") == "cut@2");
  CHECK(scan("x [{\"id\":1}, {\"id\":2}, {\"i") == "cut@2");
  // An owner that went wrong drops the pieces before the byte where it went wrong...
  CHECK(scan("R: {\"s\": {\"id\": 7}, 'x': 1") == "");
  // ... and keeps what comes after it.
  CHECK(scan("T: {\"d\": <a|b>, \"w\": <t>\nA: {\"d\": \"a\"}") == "scan {\"d\": \"a\"}");
  CHECK(scan("M [\"fast\", or {\"mode\": \"fast\"} [here](u)") == "scan {\"mode\": \"fast\"}");
  // A prose-like opener never swallows; a prefix inside it does.
  CHECK(scan("a { b {\"x\": 1") == "cut@6");
  CHECK(scan("a { b {\"x\": 1} c") == "scan {\"x\": 1}");
  // Cut by a fence line (not the end of the text): malformed, from its opener to the segment end.
  CHECK(scan("x {\"a\": 1\n```\ny") == "scan {\"a\": 1\n invalid");
  // A pending frame: `{"abc` is a prefix.
  CHECK(scan("x {\"abc") == "cut@2");
  CHECK(scan("x {") == "cut@2");
}

// --- §3 Whole output, §3 Whole parts, §3 Fence bodies ------------------------------------------

TEST_CASE("reference: the whole output, whole or cut", "[reference][rule §3 Whole output]") {
  CHECK(scan(" [1, 2] ") == "whole [1, 2]");
  CHECK(scan("\"just text\"") == "whole \"just text\"");
  CHECK(scan("7") == "whole 7");
  CHECK(scan("[0.12, 0.57") == "cut@0");
  CHECK(scan("  \"The answer is") == "cut@2");
  CHECK(scan("tr") == "cut@0");
  // Markers inside the whole value are text.
  CHECK(scan("{\"a\": \"<think>\"}") == "whole {\"a\": \"<think>\"}");
  CHECK(scan("[\"</think>\", 1") == "cut@0");
  // A number beyond a double: the one candidate, invalid.
  CHECK(scan("{\"v\": 1e400}") == "whole {\"v\": 1e400} invalid");
  // BOM: removed first; offsets count it.
  CHECK(scan("\xEF\xBB\xBF{\"a\":1}") == "whole {\"a\":1}");
  CHECK(ref::candidates("\xEF\xBB\xBF{\"a\":1}").candidates[0].begin == 3);
  CHECK(scan("\xEF\xBB\xBF[1,") == "cut@3");
}

TEST_CASE("reference: whole parts", "[reference][rule §3 Whole parts]") {
  CHECK(scan("<think>x</think>\n[1, 2]\n") == "part [1, 2]");
  CHECK(scan("<think>x</think>42") == "part 42");
  CHECK(scan("<think>x</think>\n[1, 2") == "cut@17");
  CHECK(scan("<think>x</think>\"abc") == "cut@16");
  // Cut by a part boundary instead of the end: no whole-part cut; the scan reads it.
  CHECK(scan("<|channel|>final<|message|>{\"a\": 1<|return|>") == "scan {\"a\": 1 invalid");
  CHECK(scan("<|channel|>final<|message|>[1, 2<|return|>") == "");
  // Empty or white-space parts yield nothing (§3 Whole parts): `</think>` at the end is no cut.
  CHECK(scan("<think>{\"a\":1}</think>") == "scan {\"a\":1} reasoning");
  CHECK(scan("<think>a</think>  \n") == "");
  // Inside the whole part, markers are gone already; the part's value owns all inside it.
  CHECK(scan("<think>a</think>{\"x\": {\"y\": 1}}") == "part {\"x\": {\"y\": 1}}");
}

TEST_CASE("reference: fences", "[reference][rule §2 Fences][rule §3 Fence bodies]") {
  CHECK(scan("x\n```json\n[1, 2]\n```\n") == "fence [1, 2]");
  CHECK(scan("x\n~~~\n\"s\"\n~~~\n") == "fence \"s\"");
  CHECK(scan("x\n```\n12") == "fence 12");  // a complete value, even unclosed
  CHECK(scan("x\n```\n[1, 2") == "cut@6");  // an unfinished array: cut right after the opener
  CHECK(scan("x\n```\n\"ab") == "cut@6");
  CHECK(scan("x\n```json\n") == "cut@10");  // an info string and an empty body
  CHECK(scan("x\n```json\n  \n") == "cut@10");
  CHECK(scan("{\"a\":1}\n```\n") == "scan {\"a\":1}");  // a bare fence line: no cut
  CHECK(scan("x\n```\n{\"a\": 1") == "cut@6");          // an object: the scan's cut
  CHECK(scan("x\n```\n{\"a\": [1, {\"b\":2}], \"c\"") == "cut@6");
  // The unfinished array owns what is inside it.
  CHECK(scan("x\n```\n[1, {\"a\":1}, 2") == "cut@6");
  // Bodies that are not one value are scanned; a fence line cuts a frame.
  CHECK(scan("x\n```\nsee {\"a\":1} and {\"b\":2}\n```") == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("x {\"a\": 1,\n```\n{\"b\":2}\n```") == "scan {\"a\": 1,\n invalid | fence {\"b\":2}");
  // Indent, runs, info strings, closers.
  CHECK(scan("x\n    ```\n[1]\n```") == "");  // 4 spaces: no fence
  CHECK(scan("x\n   ```\n[1]\n   ```") == "fence [1]");
  CHECK(scan("x\n``` `x`\n[\"a\"]\n```") == "scan [\"a\"]");  // a backtick in the info string
  CHECK(scan("x\n~~~ `x`\n[\"a\"]\n~~~") == "fence [\"a\"]");
  CHECK(scan("````\n```\n[\"a\"]\n```\n````") == "scan [\"a\"]");
  CHECK(scan("x\n```\n[\"a\"]\n``` x\n```") == "scan [\"a\"]");  // "``` x" closes nothing
  CHECK(scan("x\r\n```json\r\n{\"a\":1}\r\n```\r\n") == "fence {\"a\":1}");
  CHECK(scan("x\r```\r[\"a\"]\r```") == "fence [\"a\"]");
}

// --- §2 Reasoning regions, §2 Parts -------------------------------------------------------------

TEST_CASE("reference: each built-in marker pair makes a region",
          "[reference][rule §2 Reasoning regions]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"<think>", "</think>"},
      {"<THINKING>", "</Thinking>"},
      {"<reasoning>", "</reasoning>"},
      {"[THINK]", "[/think]"},
      {"<|START_THINKING|>", "<|END_THINKING|>"},
      {"<|begin_of_thought|>", "<|end_of_thought|>"},
      {"<seed:think>", "</seed:think>"},
      {"\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/THINK\xE2\x96\xB7"},
      {"<Scratchpad>", "</SCRATCHPAD>"},
      {"<details type=\"reasoning\" done=\"true\" duration=\"4\">", "</details>"}};
  for (const auto& [open, close] : pairs) {
    INFO(open);
    const std::string t = "a " + open + "{\"d\":1}" + close + " b {\"e\":2}";
    CHECK(scan(t) == "scan {\"d\":1} reasoning | scan {\"e\":2}");
    CHECK(pick(t, ref::policy::unique, {"d"}) == "no_match");
    const std::string cut = "a " + open + "{\"d\":1}";
    CHECK(scan(cut) == "scan {\"d\":1} reasoning | cut@2 reasoning");
  }
  // Regions do not nest; another pair's closer inside is text.
  CHECK(scan("<think><reasoning>{\"a\":1}</reasoning>{\"b\":2}</think>{\"c\":3}") ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | part {\"c\":3}");
  // A closing tag after a region is text.
  CHECK(scan("<think>a</think> x </think> {\"c\":3}") == "scan {\"c\":3}");
  // Markers count inside strings and fences.
  CHECK(scan("{\"a\": \"<think>\", \"b\": 1} tail") == "scan {\"a\": \" invalid | cut@7 reasoning");
}

TEST_CASE("reference: harmony messages", "[reference][rule §2 Harmony]") {
  const std::string h =
      "<|channel|>analysis<|message|>draft {\"a\":1}<|end|><|start|>assistant<|channel|>final"
      "<|message|>{\"a\":2}<|return|>";
  CHECK(scan(h) == "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(pick(h, ref::policy::last, {"a"}) == "{\"a\":2}");
  // Channel names are compared case-insensitively; only `final` is answer text.
  CHECK(scan("<|channel|>FINAL<|message|>{\"a\":2}") == "part {\"a\":2}");
  CHECK(scan("<|channel|>final_x<|message|>{\"a\":2}") ==
        "scan {\"a\":2} reasoning | cut@0 reasoning");
  CHECK(scan("<|channel|> final<|message|>{\"a\":2}<|end|>") == "scan {\"a\":2} reasoning");
  // A harmony region stops before <|start|> or <|channel|>, which are then read as markers.
  CHECK(scan("<|channel|>analysis {\"a\":1}<|start|>{\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("<|channel|>commentary {\"a\":1}<|channel|>final<|message|>{\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  // <|call|> ends a commentary message; a tool call is not an answer.
  CHECK(pick("<|channel|>commentary<|message|>{\"city\":\"x\"}<|call|>", ref::policy::first) ==
        "no_json");
  // Harmony tokens cut answer text into parts; a part starts a line, so a fence opens there.
  CHECK(scan("<|message|>```json\n[80]\n```<|return|>") == "fence [80]");
  // Inside a tag region, harmony tokens are text.
  CHECK(scan("<think><|end|>{\"a\":1}</think>{\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
}

TEST_CASE("reference: the already-open rule", "[reference][rule §2 Already open]") {
  // A closing tag before any opening marker ends a region from the start of the text.
  CHECK(scan("draft {\"a\":1}\n</think>\n{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // ... even after harmony tokens that are no opening markers (§2 Already open): they are inside
  // the region.
  CHECK(scan("x<|start|>{\"a\":1}</think>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // <|end|> or <|call|> before any harmony token too, when a harmony-only token follows it (v4);
  // after another harmony token, it is a plain cut.
  CHECK(scan("{\"a\":1} x<|end|>{\"a\":2}<|start|>") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("{\"a\":1} x<|call|>{\"a\":2}<|return|>") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("{\"a\":1}<|message|>x<|end|>{\"a\":2}") == "part {\"a\":1} | part {\"a\":2}");
  CHECK(scan("{\"a\":1}<|return|>x<|end|>{\"a\":2}") == "part {\"a\":1} | part {\"a\":2}");
  // An opening marker first: no already-open region, the later closer is text.
  CHECK(scan("<think>a</think>{\"a\":1} </think> {\"b\":2}") == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("<|channel|>analysis x<|end|> {\"a\":1} </think>") == "scan {\"a\":1}");
  // <|channel|>final is no opening marker, but a harmony token.
  CHECK(scan("<|channel|>final x {\"a\":1} </think> {\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("<|channel|>final x {\"a\":1} <|end|> {\"b\":2}") ==
        "scan {\"a\":1} | part {\"b\":2}");
  // The first such closer counts.
  CHECK(scan("a </think> {\"x\":1} </think> {\"y\":2}") == "scan {\"x\":1} | scan {\"y\":2}");
}

TEST_CASE("reference: options for regions, markers and the output's start",
          "[reference][rule §2 Parts]") {
  ref::options off;
  off.reasoning_regions = false;
  CHECK(scan("<think>{\"a\":1}</think>{\"b\":2}", off) == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("<think>{\"a\":1}", off) == "scan {\"a\":1}");
  CHECK(scan("<|channel|>analysis<|message|>```json\n[1]\n```", off) == "");

  ref::options custom;
  custom.markers = {{"<scratch>", "</scratch>"}};
  CHECK(scan("<SCRATCH>{\"a\":1}</scratch>{\"b\":2}", custom) ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("x {\"a\":1} </scratch> {\"b\":2}", custom) ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("<scratch>{\"a\":1}", custom) == "scan {\"a\":1} reasoning | cut@0 reasoning");
  // The longest match wins, then built-in before the caller's (tests/reference/README.md, 6).
  ref::options longer;
  longer.markers = {{"<think>>", "<<end>"}};
  CHECK(scan("<think>>{\"a\":1}</think>{\"b\":2}<<end>{\"c\":3}", longer) ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | part {\"c\":3}");
  ref::options same;
  same.markers = {{"<think>", "<<end>"}};
  CHECK(scan("<think>{\"a\":1}<<end>{\"b\":2}</think>{\"c\":3}", same) ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | part {\"c\":3}");

  ref::options in_reasoning;
  in_reasoning.start = ref::output_start::reasoning;
  CHECK(scan("{\"a\":1} x <|end|> {\"b\":2}", in_reasoning) ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("<think> {\"a\":1} </think> {\"b\":2}", in_reasoning) ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("x <|start|> {\"a\":1} <|call|> {\"b\":2}", in_reasoning) ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  CHECK(scan("x {\"a\":1} y", in_reasoning) == "scan {\"a\":1} reasoning | cut@0 reasoning");
  CHECK(scan("\xEF\xBB\xBFx {\"a\":1}", in_reasoning) ==
        "scan {\"a\":1} reasoning | cut@3 reasoning");
  CHECK(pick("x {\"a\":1} y", ref::policy::first, {}, in_reasoning) == "truncated");

  ref::options answer;
  answer.start = ref::output_start::answer;
  CHECK(scan("{\"a\":1} </think> {\"b\":2}", answer) == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("{\"a\":1} <|end|> {\"b\":2}", answer) == "part {\"a\":1} | part {\"b\":2}");
}

// --- Sections 4-6 -------------------------------------------------------------------------------

TEST_CASE("reference: policies, the fallback, the cut and the error kinds",
          "[reference][rule §5 Selection and policies]") {
  using p = ref::policy;
  const std::string two = "{\"a\":1} and {\"a\":2} and [\"x\"]";
  CHECK(pick(two, p::first, {"a"}) == "{\"a\":1}");
  CHECK(pick(two, p::last, {"a"}) == "{\"a\":2}");
  CHECK(pick(two, p::unique, {"a"}) == "ambiguous");
  CHECK(pick(two, p::first, {"zz"}) == "~{\"a\":1}");
  CHECK(pick(two, p::first_no_fallback, {"zz"}) == "no_match");
  CHECK(pick(two, p::unique, {"zz"}) == "no_match");
  CHECK(pick(two, p::last, {"zz"}) == "no_match");
  CHECK(pick("[\"x\"] then", p::first) == "~[\"x\"]");  // the fallback is of any type
  CHECK(pick("[\"x\"] then", p::unique) == "no_match");
  // Keys are compared after unescaping; an empty list means any object.
  CHECK(pick("x {\"\\u0061\":1}", p::unique, {"a"}) == "{\"\\u0061\":1}");
  CHECK(pick("x {\"b\":1}", p::unique, {}) == "{\"b\":1}");
  // Truncated: first takes what qualifies before the cut, never the fallback.
  const std::string cut = "{\"a\":1} then {\"b\": [1,";
  CHECK(pick(cut, p::first, {"a"}) == "{\"a\":1}");
  CHECK(pick(cut, p::first, {"zz"}) == "truncated");
  CHECK(pick(cut, p::unique, {"a"}) == "truncated");
  CHECK(pick(cut, p::last, {"a"}) == "truncated");
  // Reasoning and invalid candidates are left out of everything.
  CHECK(pick("<think>{\"a\":1}</think> no", p::first) == "no_json");
  CHECK(pick("x {\"a\":1,} y", p::first) == "no_json");
  CHECK(pick("x {\"v\": 1e400} y {\"v\": 2}", p::first, {"v"}) == "{\"v\": 2}");
  // empty: ASCII white space after the BOM (form feed and vertical tab included).
  CHECK(pick("", p::first) == "empty");
  CHECK(pick("\xEF\xBB\xBF \t\r\n\f\v", p::first) == "empty");
  CHECK(pick("\xEF\xBB\xBF \xC2\xA0", p::first) == "no_json");
  // too_large comes first, counted in bytes.
  ref::options small;
  small.max_input_bytes = 4;
  CHECK(pick("{\"a\":1}", p::first, {}, small) == "too_large");
  CHECK(pick("     ", p::first, {}, small) == "too_large");
  small.max_input_bytes = 7;
  CHECK(pick("{\"a\":1}", p::first, {}, small) == "{\"a\":1}");
}

// --- Lines, markers, strings, the fallback and no_match ----------------------------------------

TEST_CASE("reference v3: lines end at LF, at a lone CR, or at CR LF",
          "[reference][v3][rule §2 Lines]") {
  // Lone CRs end lines: the fence holds the scalar (corpus 30-lone-cr-fenced-scalar).
  CHECK(scan("How many?\r\r```json\r42\r```\r") == "fence 42");
  CHECK(scan("x\r~~~\r[\"a\"]\r~~~") == "fence [\"a\"]");
  // CR LF is one line ending, not two (the body is one line, no empty line in it).
  CHECK(scan("x\r\n```\r\n[\"a\"]\r\n```\r\n") == "fence [\"a\"]");
  // A part's first line: after </think> a fence opens at once, with lone-CR lines.
  CHECK(scan("<think>a</think>```json\r[1]\r```") == "fence [1]");
  // Without a line ending, a fence run in the middle of a line opens nothing.
  CHECK(scan("x ```json [1] ```") == "");
  // The closing line: only spaces and tabs after the fence characters.
  CHECK(scan("x\n```\n[\"a\"]\n``` \t\n") == "fence [\"a\"]");
  CHECK(scan("x\n```\n[\"a\"]\n```\f\n") == "scan [\"a\"]");  // a form feed: no closer
  CHECK(scan("x\n```\n[\"a\"]\n```\v") == "scan [\"a\"]");    // nor a vertical tab
}

TEST_CASE("reference v3: the <scratchpad> pair", "[reference][v3][rule §2 Reasoning regions]") {
  CHECK(scan("<scratchpad>{\"a\":1}</scratchpad>{\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  // Already open (corpus 30-scratchpad-prefilled-already-open).
  CHECK(scan("draft {\"a\":1}\n</scratchpad>\n{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(pick("draft {\"a\":1}\n</scratchpad>\n{\"a\":2}", ref::policy::first, {"a"}) ==
        "{\"a\":2}");
  // After an opening marker, a later </scratchpad> is text.
  CHECK(scan("<think>a</think>{\"a\":1} </scratchpad> {\"b\":2}") ==
        "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("<scratchpad>{\"a\":1}") == "scan {\"a\":1} reasoning | cut@0 reasoning");
}

TEST_CASE("reference v3: Open WebUI's <details type=\"reasoning\"> block",
          "[reference][v3][rule §2 Open WebUI's reasoning block]") {
  const std::string block =
      "<details type=\"reasoning\" done=\"true\" duration=\"4\">\n<summary>Thought</summary>\n"
      "> maybe {\"a\":1}\n</details>\n{\"a\":2}";
  CHECK(scan(block) == "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(pick(block, ref::policy::unique, {"a"}) == "{\"a\":2}");
  // Matched as markers are: ASCII letters case-insensitively; nothing between `<details` and the
  // attribute is required to be a space.
  CHECK(scan("<DETAILS Type=\"Reasoning\">{\"a\":1}</Details>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // Never closed: truncated (corpus 30-openwebui-details-reasoning-unfinished).
  CHECK(scan("<details type=\"reasoning\">\n{\"a\":1}") ==
        "scan {\"a\":1} reasoning | cut@0 reasoning");
  // Without type="reasoning" up to the first `>`, it opens nothing: text, </details> too.
  CHECK(scan("<details>\n<summary>x</summary>\n{\"a\":1}\n</details>") == "scan {\"a\":1}");
  CHECK(scan("<details open>{\"a\":1}</details> type=\"reasoning\">") == "scan {\"a\":1}");
  CHECK(scan("<details type=\"reasoning\" {\"a\":1}") == "scan {\"a\":1}");  // no `>` follows
  // The search goes on from the byte after its `<`: a marker right after is found.
  CHECK(scan("<details><think>{\"a\":1}</think>{\"b\":2}") ==
        "scan {\"a\":1} reasoning | part {\"b\":2}");
  // </details> outside a region is text: never already open, unlike the other closing tags.
  CHECK(scan("draft {\"a\":1}</details>{\"a\":2}") == "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("draft {\"a\":1}</think>{\"a\":2}") == "scan {\"a\":1} reasoning | part {\"a\":2}");
  // ... and the already-open search passes over it to a later closing tag.
  CHECK(scan("x {\"a\":1} </details> {\"b\":2} </think> {\"c\":3}") ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | part {\"c\":3}");
  // The prompt opened the reasoning: </details> does not end it.
  ref::options in_reasoning;
  in_reasoning.start = ref::output_start::reasoning;
  CHECK(scan("{\"a\":1}</details>{\"b\":2}</think>{\"c\":3}", in_reasoning) ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | part {\"c\":3}");
  CHECK(scan("x {\"a\":1}</details>{\"b\":2}", in_reasoning) ==
        "scan {\"a\":1} reasoning | scan {\"b\":2} reasoning | cut@0 reasoning");
}

TEST_CASE("reference v3: a harmony region's opening marker includes the channel name",
          "[reference][v3][rule §2 Harmony]") {
  // The part starts after `analysis`, so it starts a line with a fence opener.
  CHECK(scan("<|channel|>analysis```json\n[1]\n```<|end|>") == "fence [1] reasoning");
  // `final` opens no region: the name is text of the part after <|channel|>.
  CHECK(scan("<|channel|>final```json\n[1]\n```") == "");
}

TEST_CASE("reference v3: stripped harmony (analysis...assistantfinal)",
          "[reference][v3][rule §2 Stripped harmony]") {
  const std::string t =
      "analysis draft {\"a\":1} assistantcommentary {\"t\":0} assistantfinal{\"a\":2}";
  CHECK(scan(t) == "scan {\"a\":1} reasoning | scan {\"t\":0} reasoning | part {\"a\":2}");
  CHECK(pick(t, ref::policy::unique, {"a"}) == "{\"a\":2}");
  // After the BOM and JSON white space; letters case-insensitively.
  CHECK(scan("\xEF\xBB\xBF \n\tAnalysis {\"a\":1} AssistantFinal {\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // Only the first `assistantfinal` closes it; the second is answer text.
  CHECK(scan("analysis x assistantfinal {\"a\":2} assistantfinal") == "scan {\"a\":2}");
  // Inside the region no other marker counts; after it, markers count as usual.
  CHECK(scan("analysis <think> {\"a\":1} assistantfinal {\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("analysis x assistantfinal <think>{\"a\":1}</think>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // The already-open rule does not apply: a later closing tag is text.
  CHECK(scan("analysis x assistantfinal {\"a\":1} </think> {\"b\":2}") ==
        "scan {\"a\":1} | scan {\"b\":2}");
  // Nothing after the region: no answer, no cut.
  CHECK(scan("analysis {\"a\":1} assistantfinal") == "scan {\"a\":1} reasoning");
  CHECK(pick("analysis {\"a\":1} assistantfinal", ref::policy::first) == "no_json");
  // Whatever options::start says.
  ref::options in_reasoning, answer;
  in_reasoning.start = ref::output_start::reasoning;
  answer.start = ref::output_start::answer;
  CHECK(scan("analysis {\"a\":1} assistantfinal {\"a\":2} </think> {\"b\":3}", in_reasoning) ==
        "scan {\"a\":1} reasoning | scan {\"a\":2} | scan {\"b\":3}");
  CHECK(scan("analysis {\"a\":1} assistantfinal {\"a\":2}", answer) ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // Not applied: regions off; no `assistantfinal` (corpus 30-leading-analysis-word-is-text);
  // `assistantfinal` only before the word; not at the start; a harmony token anywhere.
  ref::options off;
  off.reasoning_regions = false;
  CHECK(scan("analysis {\"a\":1} assistantfinal {\"a\":2}", off) ==
        "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("Analysis: {\"a\":1} and {\"a\":2}") == "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("analysis {\"a\":1}") == "scan {\"a\":1}");
  CHECK(scan("x analysis {\"a\":1} assistantfinal {\"a\":2}") == "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("analysis {\"a\":1} assistantfinal {\"a\":2}<|return|>") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("<|start|>analysis {\"a\":1} assistantfinal {\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  // With a harmony token, the token rules apply instead (here <|end|>: a cut, and already open
  // when a harmony-only token follows it, v4).
  CHECK(scan("analysis {\"a\":1} assistantfinal <|end|>{\"a\":2}") ==
        "scan {\"a\":1} | part {\"a\":2}");
  CHECK(scan("analysis {\"a\":1} assistantfinal <|end|>{\"a\":2}<|message|>") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
}

TEST_CASE("reference v3: a closing marker at the very end closes its region",
          "[reference][v3][rule §2 Reasoning regions]") {
  CHECK(scan("<think>{\"a\":1}</think>") == "scan {\"a\":1} reasoning");
  CHECK(scan("<|channel|>analysis<|message|>{\"a\":1}<|end|>") == "scan {\"a\":1} reasoning");
  // A frame, string or fence still open where the region's text ends is cut by the part
  // boundary: malformed, never a cut (corpus 30-think-closes-at-end-of-output).
  CHECK(scan("<think>{\"a\": 1</think>") == "scan {\"a\": 1 invalid reasoning");
  CHECK(scan("<think>[\"a\", \"b</think>") == "scan [\"a\", \"b invalid reasoning");
  CHECK(scan("<|channel|>analysis<|message|>{\"a\": 1<|end|>") ==
        "scan {\"a\": 1 invalid reasoning");
  CHECK(scan("<think>\n```json\n[1, 2</think>") == "");
  CHECK(scan("<think>\n```json\n</think>") == "");
  CHECK(pick("<think>\n```json\n{\"t\": \"x</think>", ref::policy::first) == "no_json");
  // Not closed: the region runs to the end and the output is truncated.
  CHECK(scan("<think>[\"a\", \"b") == "cut@0 reasoning");
}

TEST_CASE("reference v3: first strings end at a raw control character, later strings do not",
          "[reference][v3][rule §3 The scan]") {
  // A brace frame's first string: a line break ends it, the frame is prose-like.
  CHECK(scan("{\"a\nb\": 1} {\"c\":2}") == "scan {\"c\":2}");
  CHECK(scan("body={\"\nnext {\"c\":2}\nbody={\"\n") == "scan {\"c\":2}");
  // A later string of a JSON-like brace frame holds it: the frame closes, owning all; with only
  // raw LF, CR or tab it is valid with raw controls (v4), otherwise malformed.
  CHECK(scan("{\"a\": \"x\ny\"} {\"c\":2}") == "scan {\"a\": \"x\ny\"} raw | scan {\"c\":2}");
  // Anything else keeps it malformed: an unescaped quote, another control character.
  CHECK(scan("{\"a\": \"x\n{\"c\":2}\n\"} tail") == "scan {\"a\": \"x\n{\"c\":2}\n\"} invalid");
  CHECK(scan("{\"a\": \"x\fy\"} {\"c\":2}") == "scan {\"a\": \"x\fy\"} invalid | scan {\"c\":2}");
  CHECK(scan("{\"a\": \"x\\\ny\"}") == "scan {\"a\": \"x\\\ny\"} invalid");  // after a backslash
  // A nested brace frame's first string is a first string again.
  CHECK(scan("x {\"a\": {\"k\n\": 1}} y") == "scan {\"a\": {\"k\n\": 1}} invalid");
  // A bracket frame's first string: a raw control character means it was no frame at all; the
  // scan goes on after it, outside (the object is then no piece: it can be the fallback).
  CHECK(scan("[\"a\nb\", {\"c\":2}]") == "scan {\"c\":2}");
  CHECK(enclosed("[\"a\nb\", {\"c\":2}]") == "-");
  CHECK(pick("[\"a\nb\", {\"c\":2}]", ref::policy::first, {"zz"}) == "~{\"c\":2}");
  CHECK(scan("[ \"a\\\tb\", {\"c\":2}]") == "scan {\"c\":2}");  // even after a backslash
  // ... or in the prose-like frame around it.
  CHECK(scan("{ see [\"a\nb\"] {\"c\":2} }") == "scan {\"c\":2}");
  CHECK(enclosed("{ see [\"a\nb\"] {\"c\":2} }") == "E");
  // Not its first string: the first byte after `[` is not a quote. The string holds the control
  // character; the frame closes malformed and owns its inside.
  CHECK(scan("[{\"c\":2}, \"a\nb\"]") == "scan [{\"c\":2}, \"a\nb\"] raw");
  CHECK(scan("[\"a\", \"b\tc\", {\"c\":2}]") == "scan [\"a\", \"b\tc\", {\"c\":2}] raw");
  CHECK(scan("[{\"c\":2}, \"a\x1B"
             "b\"]") ==
        "scan [{\"c\":2}, \"a\x1B"
        "b\"] invalid");
  // Corpus 30-bracket-raw-tabs-log-lines-unique: the payloads are pieces of the malformed array.
  CHECK(pick("L: [\"ok\", \"t\tauth\t{\"user_id\": 4}\"]", ref::policy::unique, {"user_id"}) ==
        "no_json");
}

TEST_CASE("reference v3: the segment-end tests read strings as the scan does",
          "[reference][v3][rule §3 The scan]") {
  using st = ref::json_status;
  auto as_scanned = [](std::string_view t) { return ref::check_json_as_scanned(t, 0, t.size()); };
  auto strict = [](std::string_view t) { return ref::check_json(t, 0, t.size()); };
  // A raw control character is a string byte, alone or after a backslash...
  CHECK(as_scanned("{\"a\": \"x\ny").status == st::prefix);
  CHECK(as_scanned("{\"a\": \"x\\\ny\", \"b\": \"\t").status == st::prefix);
  CHECK(as_scanned("[\"a\n\", \"b\x01").status == st::prefix);
  CHECK(as_scanned("{\"a\": \"x\ny\"}").status == st::complete);
  // ... except in an object's first key, read strictly (at any depth).
  CHECK(as_scanned("{\"a\nb").status == st::invalid);
  CHECK(as_scanned("{\"a\nb").stop == 3);
  CHECK(as_scanned("{\"a\": {\"k\n").status == st::invalid);
  CHECK(as_scanned("{\"a\": 1, \"k\n").status == st::prefix);  // a later key
  // Other checks stay: an escape that is not JSON, surrogates.
  CHECK(as_scanned("{\"a\": \"\\x").status == st::invalid);
  CHECK(as_scanned("{\"a\": \"\\ud83d\n").status == st::invalid);
  // Everywhere else the reading is strict, and names the control character.
  CHECK(strict("{\"a\": \"x\ny").status == st::invalid);
  CHECK(strict("{\"a\": \"x\ny").stop == 8);
  CHECK(strict("{\"a\": \"x\ny").stop_control);
  CHECK(strict("\"\\u00\n").stop_control);
  CHECK_FALSE(strict("{\"a\": \"\\x\"}").stop_control);
  // So an answer whose strings hold raw line breaks, cut by the end of the text, is truncated
  // (corpus 30-code-string-raw-newlines-cut-truncated)...
  const std::string code = "Here: {\"code\": \"import os\n\nfor r in rows:\n    print(r";
  CHECK(scan(code) == "cut@6");
  CHECK(pick(code, ref::policy::first, {"code"}) == "truncated");
  CHECK(scan("x [\"a\", \"b\nc") == "cut@2");
  // ... and a frame does not stop being a prefix there: what it holds before the byte where it
  // went wrong is dropped, what comes after is kept.
  CHECK(scan("T: {\"d\": \"a\nb\", \"e\": {\"id\": 7}, \"w\": <t>, {\"d\": 2}") ==
        "scan {\"d\": 2}");
  // Not applied: a first key holding a line break is prose, and the end of the text cuts nothing.
  CHECK(scan("Here: {\"co\nde\": \"x") == "");
  CHECK(pick("Here: {\"co\nde\": \"x", ref::policy::first) == "no_json");
  CHECK(scan("x [\"a\nb\", \"c") == "");
  // Whole output, whole part and fence body: strict. Not a value, not a prefix: scanned.
  CHECK(scan("\"a\nb\"") == "");
  CHECK(scan("{\"a\": \"x\ny") == "cut@0");  // the scan's cut, the whole output is no prefix
  CHECK(scan("x\n```\n[\"a\", \"b\nc\"]\n```") == "scan [\"a\", \"b\nc\"] raw");
}

TEST_CASE("reference v3: a raw control character in a string, named in the problem",
          "[reference][v3]") {
  // v4: raw LF, CR and tab alone make a frame valid with raw controls, with no problem.
  CHECK(problems("{\"a\": \"x\ny\"}  ") == "");
  CHECK(problems("x {\"a\": \"x\ry\"}") == "");
  CHECK(problems("x [\"a\", \"b\tc\"]") == "");
  CHECK(problems("x {\"a\": \"x\fy\"}") ==
        "line 1 col 11: a raw control character (U+000C) in a string");
  CHECK(problems(std::string("x {\"a\": \"\x01\"}")) ==
        "line 1 col 10: a raw control character (U+0001) in a string");
  CHECK(problems(std::string("x {\"a\": \"\x1F\"}")) ==
        "line 1 col 10: a raw control character (U+001F) in a string");
  CHECK(problems(std::string("x {\"a\": \"\0\"}", 12)) ==
        "line 1 col 10: a raw control character (U+0000) in a string");
  // The byte after a backslash, and the first offending byte only.
  CHECK(problems("x {\"a\": \"x\\\ny\"}") == "line 1 col 12: a raw line break in a string");
  // v4: the first byte the raw-controls reading refuses, past the LF it accepts.
  CHECK(problems("x {\"a\": \"x\ny\", \"b\": \"\f\"}") ==
        "line 2 col 11: a raw control character (U+000C) in a string");
  // Lines end at LF, lone CR and CR LF; columns count code points; a leading BOM takes none.
  CHECK(problems("\xC3\xA9\r\n\r{\"a\": \"\xC3\xA9\fy\"}") ==
        "line 3 col 9: a raw control character (U+000C) in a string");
  CHECK(problems("\xEF\xBB\xBFx {\"a\": \"\f\"}") ==
        "line 1 col 10: a raw control character (U+000C) in a string");
  // A nested first key: the first offending byte.
  CHECK(problems("x {\"a\": {\"k\n\": 1}}") == "line 1 col 12: a raw line break in a string");
  // Other problems are not given by the reference; an earlier one wins over a control character.
  CHECK(problems("x {\"a\": 1,}") == "");
  CHECK(problems("x {\"a\": 01, \"b\": \"\n\"}") == "");
  CHECK(problems("x {\"a\": 1} y") == "");
}

TEST_CASE("reference v3: the fallback is never a piece of a frame",
          "[reference][v3][rule §5 Selection and policies]") {
  using p = ref::policy;
  // A blockquoted object is prose-like; its nested object is a piece (corpus
  // 30-fallback-refuses-piece-in-blockquote).
  const std::string quote = "Pasted:\n> {\n>   \"c\": {\"id\": 1},\n>   \"x\": 2\n> }\nok";
  CHECK(scan(quote) == "scan {\"id\": 1}");
  CHECK(enclosed(quote) == "E");
  CHECK(pick(quote, p::first, {"refund"}) == "no_match");
  CHECK(pick(quote, p::first_no_fallback, {"refund"}) == "no_match");
  CHECK(pick(quote, p::unique, {"refund"}) == "no_match");
  CHECK(pick(quote, p::first, {"id"}) == "{\"id\": 1}");  // a piece still qualifies
  // A Python repr (corpus 30-fallback-refuses-piece-in-python-repr).
  const std::string repr = "It returned {'status': 404, 'h': {\"ct\": \"json\"}, 'ok': False}.";
  CHECK(pick(repr, p::first, {"user_id"}) == "no_match");
  CHECK(pick(repr, p::first, {"ct"}) == "{\"ct\": \"json\"}");
  // Inside a JSON-like frame that died or never closed.
  CHECK(pick("T: {\"d\": <a|b>, \"w\": {\"x\": 1}", p::first, {"zz"}) == "no_match");
  CHECK(pick("f(x) { return {\"a\":1}; }", p::first, {"zz"}) == "no_match");
  // A candidate no frame encloses is the fallback, even after pieces.
  CHECK(pick("{'a': {\"b\": 1}} and {\"c\": 2}", p::first, {"zz"}) == "~{\"c\": 2}");
  CHECK(enclosed("{'a': {\"b\": 1}} and {\"c\": 2}") == "E-");
  CHECK(pick("{k: {\"b\": 1}}\n```json\n[\"id\"]\n```", p::first, {"zz"}) == "~[\"id\"]");
  CHECK(pick("<think>x</think>[1]", p::first, {"zz"}) == "~[1]");
  CHECK(pick("{\"a\": 1}", p::first, {"zz"}) == "~{\"a\": 1}");
  // A closed JSON-like frame is no enclosure of what follows it.
  CHECK(pick("{\"a\": {\"b\": 1}} {\"c\": 2}", p::first, {"zz"}) == "~{\"a\": {\"b\": 1}}");
}

TEST_CASE("reference v3: no_match has one message shape, fallback off or impossible",
          "[reference][v3][rule §6 Errors]") {
  using p = ref::policy;
  const std::string quote = "> {\n>   \"c\": {\"id\": 1}\n> }";
  // No candidate can be the fallback.
  CHECK(outcome_of(quote, p::first, {"refund"}).message == "1 candidate, none qualifies");
  // The fallback turned off, unique, last: the same.
  CHECK(outcome_of(quote, p::first_no_fallback, {"refund"}).message ==
        "1 candidate, none qualifies");
  CHECK(outcome_of(quote, p::unique, {"refund"}).message == "1 candidate, none qualifies");
  CHECK(outcome_of(quote, p::last, {"refund"}).message == "1 candidate, none qualifies");
  // Counted: the candidates outside reasoning regions, malformed ones included.
  const std::string more = "<think>{\"r\":1}</think> x {\"a\":1,} {'p': {\"b\": 2}}";
  CHECK(outcome_of(more, p::first, {"zz"}).error == ref::error_kind::no_match);
  CHECK(outcome_of(more, p::first, {"zz"}).message == "2 candidates, none qualifies");
  // Other outcomes carry no message.
  CHECK(outcome_of("{\"a\": 1} x", p::first, {"zz"}).message.empty());
  CHECK(outcome_of("x {\"a\": 1", p::first, {"zz"}).message.empty());
}

// --- Rules v4 -----------------------------------------------------------------------------------

namespace {

ref::options with_prefill(std::string prefill) {
  ref::options o;
  o.prefill = std::move(prefill);
  return o;
}

ref::options with_off(ref::reasoning_format f) {
  ref::options o;
  o.reasoning_off = {f};
  return o;
}

ref::value value_of(std::string_view json) { return ref::value_reader(json, 0).read(); }

}  // namespace

TEST_CASE("reference v4: a frame valid with raw controls",
          "[reference][v4][rule §3 Raw controls]") {
  // Raw LF, CR, tab in strings other than an object's first key: a candidate, value as if escaped.
  CHECK(scan("x {\"note\": \"line one\nline two\"} y") ==
        "scan {\"note\": \"line one\nline two\"} raw");
  CHECK(scan("x {\"a\": \"1\r2\", \"b\": [\"\t\"]} y") ==
        "scan {\"a\": \"1\r2\", \"b\": [\"\t\"]} raw");
  CHECK(scan("x {\"a\": {\"k\": 1, \"k\ttwo\": 2}} y") ==
        "scan {\"a\": {\"k\": 1, \"k\ttwo\": 2}} raw");  // a later key may hold one
  const ref::scan_result s = ref::candidates("x {\"note\": \"one\ntwo\r\tthree\"} y");
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.candidates[0].valid);
  CHECK(s.candidates[0].keys == std::vector<std::string>{"note"});
  CHECK(ref::same_value(s.candidates[0].val, value_of("{\"note\": \"one\\ntwo\\r\\tthree\"}")));
  CHECK(to_nlohmann(s.candidates[0].val) == nlohmann::json{{"note", "one\ntwo\r\tthree"}});
  CHECK(pick("x {\"a\": \"1\n2\"} y", ref::policy::first, {"a"}) == "{\"a\": \"1\n2\"}");
  // Other raw control characters, one right after a backslash, one in the first key of an object
  // inside it, an unescaped quote, a trailing comma: malformed, owning everything inside.
  CHECK(scan("x {\"a\": \"1\f2\"} y") == "scan {\"a\": \"1\f2\"} invalid");
  CHECK(scan(std::string("x {\"a\": \"1\0002\"} y", 16)) ==
        std::string("scan {\"a\": \"1\0002\"} invalid", 25));
  CHECK(scan("x {\"a\": \"\x1B[0m\"} y") == "scan {\"a\": \"\x1B[0m\"} invalid");
  CHECK(scan("x {\"a\": \"1\\\n2\"} y") == "scan {\"a\": \"1\\\n2\"} invalid");
  CHECK(scan("x {\"a\": {\"k\ny\": {\"b\":1}}} y") ==
        "scan {\"a\": {\"k\ny\": {\"b\":1}}} invalid");
  CHECK(scan("x {\"a\": \"1\n\" \"2\"} y") == "scan {\"a\": \"1\n\" \"2\"} invalid");
  CHECK(scan("x {\"a\": \"1\n2\",} y") == "scan {\"a\": \"1\n2\",} invalid");
  CHECK(scan("x {\"a\": \"\n{\\\"b\\\": 1}\f\"} y") ==
        "scan {\"a\": \"\n{\\\"b\\\": 1}\f\"} invalid");
  // The frame's own first string: prose-like, no frame (v3, unchanged).
  CHECK(scan("x {\"k\ny\": 1} y") == "");
  // The whole output, a whole part and a fence body stay strict: the scan then reads them.
  CHECK(scan("{\"a\": \"1\n2\"}") == "scan {\"a\": \"1\n2\"} raw");
  CHECK(scan("<think>t</think>{\"a\": \"1\n2\"}") == "scan {\"a\": \"1\n2\"} raw");
  CHECK(scan("```json\n{\"a\": \"1\n2\"}\n```") == "scan {\"a\": \"1\n2\"} raw");
  CHECK(scan("```json\n{\"a\": \"1\\n2\"}\n```") == "fence {\"a\": \"1\\n2\"}");
  // A bare string or number as a whole part with a raw control: no value, no frame.
  CHECK(scan("<think>t</think>\"1\n2\"") == "");
  // Fence lines cut first: a frame a fence line cuts is no candidate, never valid with raw
  // controls.
  CHECK(scan("x {\"a\": \"1\n```\n2\"} y") == "scan {\"a\": \"1\n invalid");
  CHECK(scan("x {\"a\": \"1\n~~~\n2\"} y\n~~~\nz") == "scan {\"a\": \"1\n invalid");
  // Cut by the end of the text: truncated (v3, unchanged).
  CHECK(scan("x {\"a\": \"1\n2") == "cut@2");
}

TEST_CASE("reference v4: unique counts equal values once", "[reference][v4][rule §5 unique]") {
  CHECK(pick("{\"a\":1} and {\"a\":1}", ref::policy::unique) == "{\"a\":1}");
  CHECK(pick("x {\"a\":1} {\"a\":1.0} {\"a\":10e-1} {\"a\":0.1E+1}", ref::policy::unique) ==
        "{\"a\":1}");
  CHECK(pick("x {\"a\":1.0} {\"a\":1}", ref::policy::unique) == "{\"a\":1.0}");  // the first
  CHECK(pick("x {\"a\":1,\"b\":[2]} {\"b\":[2],\"a\":1}", ref::policy::unique) ==
        "{\"a\":1,\"b\":[2]}");  // key order aside
  CHECK(pick("x {\"a\":\"\\u0031\"} {\"a\":\"1\"}", ref::policy::unique) ==
        "{\"a\":\"\\u0031\"}");  // strings after unescaping
  CHECK(pick("x {\"a\":\"1\n2\"} {\"a\":\"1\\n2\"}", ref::policy::unique) == "{\"a\":\"1\n2\"}");
  CHECK(pick("x {\"a\":-0} {\"a\":0.0e5}", ref::policy::unique) == "{\"a\":-0}");
  // Different values: ambiguous.
  CHECK(pick("x {\"a\":1} {\"a\":true}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":1} {\"a\":\"1\"}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":[1,2]} {\"a\":[2,1]}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":1} {\"a\":1,\"b\":null}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":1} {\"a\":1} {\"a\":2}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":0.1} {\"a\":0.10000000000000001}", ref::policy::unique) == "ambiguous");
  CHECK(pick("x {\"a\":12345678901234567890} {\"a\":12345678901234567891}", ref::policy::unique) ==
        "ambiguous");
  // Only qualifying candidates count; last is unchanged.
  CHECK(pick("x {\"a\":1} {\"b\":2} {\"a\":1.0}", ref::policy::unique, {"a"}) == "{\"a\":1}");
  CHECK(pick("x {\"a\":1} {\"a\":1.0}", ref::policy::last) == "{\"a\":1.0}");
  // The value model: exact decimals, exponents of any size.
  CHECK(ref::same_value(value_of("100"), value_of("1e2")));
  CHECK(ref::same_value(value_of("1E+2"), value_of("100.000")));
  CHECK(ref::same_value(value_of("-0.0"), value_of("0")));
  CHECK(
      ref::same_value(value_of("1e-99999999999999999999"), value_of("10e-100000000000000000000")));
  CHECK_FALSE(ref::same_value(value_of("1e-99999999999999999999"), value_of("0")));
  CHECK_FALSE(ref::same_value(value_of("-1"), value_of("1")));
  CHECK_FALSE(ref::same_value(value_of("1"), value_of("true")));
  CHECK_FALSE(ref::same_value(value_of("null"), value_of("false")));
  CHECK(ref::same_value(value_of("\"\\ud83d\\ude00\""), value_of("\"\xF0\x9F\x98\x80\"")));
  const ref::value n = value_of("-12.3400e-3");
  CHECK(n.neg);
  CHECK(n.digits == "1234");
  CHECK(n.exponent == "-5");
}

TEST_CASE("reference v4: the new tag pairs", "[reference][v4][rule §2 Reasoning regions]") {
  CHECK(scan("<thought>d {\"a\":1}</thought>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("<Thought>d {\"a\":1}</THOUGHT>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("<longcat_think>d {\"a\":1}</longcat_think>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("<|channel>thought d {\"a\":1}<channel|>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // Already open, and unclosed.
  CHECK(scan("d {\"a\":1}</thought>{\"a\":2}") == "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("d {\"a\":1}</longcat_think>{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("d {\"a\":1}<channel|>{\"a\":2}") == "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("x <thought>{\"a\":1}") == "scan {\"a\":1} reasoning | cut@2 reasoning");
  CHECK(scan("x <|channel>thought{\"a\":1}") == "scan {\"a\":1} reasoning | cut@2 reasoning");
  // A `<|channel>` not followed by `thought` is text; neither Gemma marker is a harmony token.
  CHECK(scan("x <|channel>final {\"a\":1} y") == "scan {\"a\":1}");
  CHECK(scan("<think>t</think>{\"a\":1}<channel|>{\"b\":2}") == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("<think>t</think>{\"a\":1}<|channel>{\"b\":2}") == "scan {\"a\":1} | scan {\"b\":2}");
  CHECK(scan("<think>t</think>{\"a\":1}<|channel|>final<|message|>{\"b\":2}") ==
        "part {\"a\":1} | part {\"b\":2}");
}

TEST_CASE("reference v4: phrase pairs at the start of the text",
          "[reference][v4][rule §2 Phrase pairs]") {
  const std::string answer = " {\"a\":1} ";
  for (const char* open : {"Here is my thought process:", "Here's my thought process:"})
    for (const char* close : {"Here is my response:", "Here's my response:"})
      CHECK(scan(std::string(open) + answer + close + " {\"a\":2}") ==
            "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("Here are my reasoning steps:\n{\"a\":1}\n[BEGIN FINAL RESPONSE]\n{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("Thinking...\n{\"a\":1}\n...done thinking.\n\n{\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // After the BOM and JSON white space only; byte for byte.
  CHECK(scan("\xEF\xBB\xBF \r\n\tThinking... {\"a\":1} ...done thinking. {\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("x Thinking... {\"a\":1} ...done thinking. {\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("thinking... {\"a\":1} ...done thinking. {\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("Thinking... {\"a\":1} ...Done thinking. {\"a\":2}") ==
        "scan {\"a\":1} reasoning | scan {\"a\":2} reasoning | cut@0 reasoning");
  CHECK(scan("here is my thought process: {\"a\":1} Here is my response: {\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  // A closing phrase alone is text.
  CHECK(scan("{\"a\":1} ...done thinking. {\"a\":2}") == "scan {\"a\":1} | scan {\"a\":2}");
  // Unclosed: truncated, the cut at the opening phrase.
  CHECK(scan("\n\nThinking...\n{\"a\":1}") == "scan {\"a\":1} reasoning | cut@2 reasoning");
  CHECK(pick("Here is my thought process: {\"a\":1}", ref::policy::first) == "truncated");
  // The closing phrase comes after the opening one (reference README, 25).
  CHECK(scan("Thinking...done thinking. {\"a\":1}") ==
        "scan {\"a\":1} reasoning | cut@0 reasoning");
  // Inside, no other marker counts; the already-open rule does not apply; the caller's start
  // does not matter.
  CHECK(scan("Thinking... <think> {\"a\":1} ...done thinking. {\"a\":2}") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("Thinking... t ...done thinking. {\"a\":1} </think> {\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
  ref::options starts_in_reasoning;
  starts_in_reasoning.start = ref::output_start::reasoning;
  CHECK(scan("Thinking... t ...done thinking. {\"a\":1}", starts_in_reasoning) == "part {\"a\":1}");
  // Apriel's [END FINAL RESPONSE] cuts, each one, outside regions, after an Apriel region only.
  CHECK(scan("Here are my reasoning steps: t [BEGIN FINAL RESPONSE] {\"a\":1}[END FINAL "
             "RESPONSE]{\"a\":2}[END FINAL RESPONSE]{\"a\":3}") ==
        "part {\"a\":1} | part {\"a\":2} | part {\"a\":3}");
  CHECK(scan("Here are my reasoning steps: t [BEGIN FINAL RESPONSE] {\"a\":1}[end final "
             "response]{\"a\":2}") == "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("Here are my reasoning steps: t [BEGIN FINAL RESPONSE] {\"a\":1}<think>[END FINAL "
             "RESPONSE]</think>{\"a\":2}") == "part {\"a\":1} | part {\"a\":2}");
  CHECK(scan("<think>t</think>{\"a\":1}[END FINAL RESPONSE]{\"a\":2}") ==
        "scan {\"a\":1} | scan {\"a\":2}");
}

TEST_CASE("reference v4: harmony's <|end|> opens nothing without a harmony-only token after it",
          "[reference][v4][rule §2 Already open]") {
  CHECK(scan("{\"name\": \"Ada\"}<|end|>") == "part {\"name\": \"Ada\"}");
  CHECK(pick("{\"name\": \"Ada\"}<|end|>", ref::policy::first) == "{\"name\": \"Ada\"}");
  CHECK(scan("{\"a\":1}<|end|>{\"a\":2}<|end|>") == "part {\"a\":1} | part {\"a\":2}");
  for (const char* token :
       {"<|start|>", "<|channel|>final", "<|message|>", "<|constrain|>", "<|return|>"})
    CHECK(scan(std::string("{\"a\":1}<|end|>{\"a\":2}") + token) ==
          "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("{\"a\":1}<|call|> {\"a\":2} <|START|>") ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  // A second <|end|> is no harmony-only token, and after the first it no longer counts.
  CHECK(scan("{\"a\":1}<|end|>{\"a\":2}<|end|>{\"a\":3}") ==
        "part {\"a\":1} | part {\"a\":2} | part {\"a\":3}");
  // A later tag closer still does.
  CHECK(scan("{\"a\":1}<|end|>{\"a\":2}</think>{\"a\":3}") ==
        "scan {\"a\":1} reasoning | scan {\"a\":2} reasoning | part {\"a\":3}");
}

TEST_CASE("reference v4: the prefill, then the output, as one text",
          "[reference][v4][rule §2 The text]") {
  // Spans in the text read; positions in the output, negative in the prefill.
  const ref::scan_result s = ref::candidates("\"a\": 1}", with_prefill("{"));
  CHECK(s.text == "{\"a\": 1}");
  REQUIRE(s.candidates.size() == 1);
  CHECK(s.position(s.candidates[0].begin) == -1);
  CHECK(describe(s) == "whole {\"a\": 1}");
  CHECK(scan("{\"a\":1}\n```", with_prefill("```json\n")) == "fence {\"a\":1}");
  CHECK(ref::candidates("{\"a\":1}\n```", with_prefill("```json\n")).candidates[0].begin == 8);
  CHECK(scan("d {\"a\":1}</think>{\"a\":2}", with_prefill("<think>")) ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("d {\"a\":1}\n[BEGIN FINAL RESPONSE]\n{\"a\":2}[END FINAL RESPONSE]",
             with_prefill("Here are my reasoning steps:\n")) ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
  CHECK(scan("\"a\": [1,", with_prefill("{")) == "cut@-1");
  CHECK(scan("\"a\": \"x\ny\"} z", with_prefill("w {")) == "scan {\"a\": \"x\ny\"} raw");
  CHECK(ref::candidates("\"a\": 1}", with_prefill("x {")).candidates[0].begin == 2);
  CHECK(scan("x", with_prefill("<think>")) == "cut@-7 reasoning");
  // empty looks at the output alone; too_large at both.
  CHECK(pick("", ref::policy::first, {}, with_prefill("{\"a\":1}")) == "empty");
  CHECK(pick(" \n\f", ref::policy::first, {}, with_prefill("{")) == "empty");
  CHECK(pick("}", ref::policy::first, {}, with_prefill("{\"a\":1")) == "{\"a\":1}");
  ref::options limited = with_prefill("{");
  limited.max_input_bytes = 7;
  CHECK(pick("\"a\": 1}", ref::policy::first, {}, limited) == "too_large");
  limited.max_input_bytes = 8;
  CHECK(pick("\"a\": 1}", ref::policy::first, {}, limited) == "{\"a\": 1}");
  // One leading BOM of the text read: the prefill's, or the output's when the prefill is empty.
  CHECK(scan("\"a\":1}", with_prefill("\xEF\xBB\xBF{")) == "whole {\"a\":1}");
  CHECK(pick("\xEF\xBB\xBF", ref::policy::first, {}, with_prefill("\xEF\xBB\xBF")) == "no_json");
  CHECK(pick("\xEF\xBB\xBF", ref::policy::first, {}) == "empty");
  CHECK(pick("\xEF\xBB\xBF", ref::policy::first, {}, with_prefill("x")) == "no_json");
  CHECK(scan("\xEF\xBB\xBF{\"a\":1}", with_prefill("x ")) == "scan {\"a\":1}");
}

TEST_CASE("reference v4: a reasoning format switched off is text",
          "[reference][v4][rule §2 Reasoning regions]") {
  using f = ref::reasoning_format;
  struct sample {
    f format;
    std::string text;  // with the format on: {"a":1} is reasoning, {"a":2} an answer part
  };
  const std::vector<sample> samples = {
      {f::think, "<think>{\"a\":1}</think>{\"a\":2}"},
      {f::thinking, "<thinking>{\"a\":1}</thinking>{\"a\":2}"},
      {f::reasoning, "<reasoning>{\"a\":1}</reasoning>{\"a\":2}"},
      {f::think_brackets, "[THINK]{\"a\":1}[/THINK]{\"a\":2}"},
      {f::command_r, "<|START_THINKING|>{\"a\":1}<|END_THINKING|>{\"a\":2}"},
      {f::begin_of_thought, "<|begin_of_thought|>{\"a\":1}<|end_of_thought|>{\"a\":2}"},
      {f::seed_think, "<seed:think>{\"a\":1}</seed:think>{\"a\":2}"},
      {f::kimi, "\xE2\x97\x81think\xE2\x96\xB7{\"a\":1}\xE2\x97\x81/think\xE2\x96\xB7{\"a\":2}"},
      {f::scratchpad, "<scratchpad>{\"a\":1}</scratchpad>{\"a\":2}"},
      {f::thought, "<thought>{\"a\":1}</thought>{\"a\":2}"},
      {f::longcat_think, "<longcat_think>{\"a\":1}</longcat_think>{\"a\":2}"},
      {f::gemma4_channel, "<|channel>thought{\"a\":1}<channel|>{\"a\":2}"},
      {f::details, "<details type=\"reasoning\">{\"a\":1}</details>{\"a\":2}"},
      {f::harmony, "<|channel|>analysis{\"a\":1}<|end|>{\"a\":2}"},
      {f::stripped_harmony, "analysis{\"a\":1}assistantfinal{\"a\":2}"},
      {f::granite, "Here is my thought process:{\"a\":1}Here is my response:{\"a\":2}"},
      {f::apriel, "Here are my reasoning steps:{\"a\":1}[BEGIN FINAL RESPONSE]{\"a\":2}"},
      {f::ollama, "Thinking...{\"a\":1}...done thinking.{\"a\":2}"}};
  REQUIRE(samples.size() == ref::reasoning_format_count);
  for (const sample& x : samples) {
    INFO("format " << static_cast<unsigned>(x.format) << ": " << x.text);
    CHECK(scan(x.text) == "scan {\"a\":1} reasoning | part {\"a\":2}");
    CHECK(scan(x.text, with_off(x.format)) == "scan {\"a\":1} | scan {\"a\":2}");
  }
  // Off, a format's closer no longer ends a region already open, nor the prompt's.
  CHECK(scan("{\"a\":1}</think>{\"a\":2}", with_off(f::think)) ==
        "scan {\"a\":1} | scan {\"a\":2}");
  ref::options prompt = with_off(f::think);
  prompt.start = ref::output_start::reasoning;
  CHECK(scan("{\"a\":1}</think>{\"a\":2}", prompt) ==
        "scan {\"a\":1} reasoning | scan {\"a\":2} reasoning | cut@0 reasoning");
  // Harmony off: all seven tokens are text (no cut either); apriel off: no END cut.
  CHECK(scan("{\"a\":1}<|end|>{\"a\":2}<|start|>", with_off(f::harmony)) ==
        "scan {\"a\":1} | scan {\"a\":2}");
  CHECK(scan("Here are my reasoning steps: t [BEGIN FINAL RESPONSE] {\"a\":1}[END FINAL "
             "RESPONSE]{\"a\":2}",
             with_off(f::apriel)) == "scan {\"a\":1} | scan {\"a\":2}");
  // The others stay on.
  CHECK(scan("<think>{\"a\":1}</think>{\"a\":2}", with_off(f::thought)) ==
        "scan {\"a\":1} reasoning | part {\"a\":2}");
}

}  // namespace llmjson_tests::reference_test
