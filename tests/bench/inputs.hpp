// llmjson benchmark inputs: model outputs generated at run time (no large files in the repo)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_BENCH_INPUTS_HPP_INCLUDED
#define LLMJSON_BENCH_INPUTS_HPP_INCLUDED

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../repeat.hpp"

namespace llmjson_bench {

/// A small deterministic generator: the same inputs on every machine and every run.
class lcg {
 public:
  explicit lcg(std::uint64_t seed) : s_(seed) {}
  std::size_t below(std::size_t n) {
    s_ = s_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((s_ >> 33) % n);
  }

 private:
  std::uint64_t s_;
};

/// The answer the traces end with; the key selector of the benchmark is `orders`.
inline constexpr std::string_view answer =
    R"({"orders": ["come about", "full impulse"], "helm": "heading 270 mark 15", "engineering": "divert power to aft shields", "eta_min": 12})";

/// Reasoning prose as models write it: braces in set notation and templates, Python dicts,
/// unquoted keys, valid drafts that are not the answer, analysis fences, stray and unclosed
/// openers (`{"partial": [3, 4` never closes), citations and lists.
inline std::string reasoning_prose(std::size_t bytes, std::uint64_t seed) {
  static constexpr std::array<std::string_view, 20> sentences{
      "Let me work through the assignment carefully, writing down every attempt. ",
      "Scratch: {Cy: C, Bo: D} is not valid yet, keys need quotes. ",
      "Maybe {'answer': 'A for Fay'}? No, too early. ",
      "Partial draft {\"draft\": {\"answer\": \"C\"}, \"sure\": false} but I'm not sure yet. ",
      "Using True/None like {\"ok\": True, \"why\": None} is a habit I should avoid. ",
      "In the notes the placeholder {{room}} was never filled in. ",
      "Candidate slots for Cy: [6, 6, 8]. See [1] and [the schedule](https://example.org). ",
      "The constraint block { still feels open here, let me keep going. ",
      "Closing brace from before: } there, done with that block. ",
      "Sub-result: {\"slot\": 5, \"room\": \"B\"} looked fine until Dee objected. ",
      "The set {x | x > 3} has two members, and \\frac{a}{b} is the ratio. ",
      "Earlier I wrote {\"partial\": [3, 4 and never finished it. ",
      "Conflict count went from 9 to 3; that's progress. ",
      "As a Python dict that would be {'Bo': 'D', 'Eli': 'C'} but that's not JSON. ",
      "Quoted \"text with {braces} inside\" is still prose here. ",
      "Wait, that breaks something. The projector only works in room C. ",
      "Options: [\"A\", \"B\", \"C\"] minus the ones already taken. ",
      "\n\n```json\n{\"draft_rooms\": {\"A\": \"Cy\", \"B\": \"Bo\"}, \"conflicts\": 2}\n```\n\n",
      "Hmm, let me reconsider.\n\n",
      "- [ ] check Fay's slot\n- [x] check the projector\n",
  };
  lcg rng(seed);
  std::string out;
  out.reserve(bytes + 256);
  while (out.size() < bytes) out += sentences[rng.below(sentences.size())];
  return out;
}

/// "mixed": a reasoning trace with drafts, then the answer. With `markers`, the trace is in
/// `<think>`...`</think>` as reasoning models write it; without, the same bytes as plain prose.
inline std::string mixed(std::size_t bytes, bool markers) {
  std::string out = markers ? "<think>\n" : "";
  out += reasoning_prose(bytes, 1);
  out += markers ? "\n</think>\n\n" : "\n\nFinal answer:\n";
  out += answer;
  out += "\n";
  return out;
}

/// "mixed, prompt opened": the mixed trace of a model whose prompt opened `<think>` (DeepSeek
/// R1's template): the same reasoning, then `</think>` and the answer, with no opening marker.
inline std::string mixed_prompt_opened(std::size_t bytes) {
  std::string out = reasoning_prose(bytes, 1);
  out += "\n</think>\n\n";
  out += answer;
  out += "\n";
  return out;
}

/// "clean": prose without braces, then one answer.
inline std::string clean(std::size_t bytes) {
  static constexpr std::array<std::string_view, 6> sentences{
      "The ship is at warp six and closing on the nebula. ",
      "Sensors report two contacts bearing 045, range 30,000 km. ",
      "Shields are at 40 percent; engineering reports the port nacelle is stable. ",
      "The captain asks for a plan that keeps the crew safe. ",
      "Tactical suggests a wide turn to starboard before the nebula. ",
      "\n\n",
  };
  lcg rng(2);
  std::string out;
  out.reserve(bytes + 256);
  while (out.size() < bytes) out += sentences[rng.below(sentences.size())];
  out += "\nHere is the plan:\n";
  out += answer;
  out += "\n";
  return out;
}

/// "whole": the whole output one JSON value (an array of records).
inline std::string whole(std::size_t bytes) {
  std::string out = "[";
  lcg rng(3);
  for (std::size_t i = 0; out.size() < bytes; ++i) {
    if (i) out += ",\n";
    out += R"({"id": )" + std::to_string(i) + R"(, "name": "item )" +
           std::to_string(rng.below(1000)) + R"(", "score": 0.)" +
           std::to_string(rng.below(100000)) +
           R"(, "tags": ["a", "b\u00e9", "c"], "ok": true, "next": null})";
  }
  out += "]";
  return out;
}

/// A typical reply, 1,341 bytes: a short preamble, the answer in a fence, a closing line.
inline std::string typical_reply() {
  std::string out =
      "Sure! I looked at the sensor logs and the crew roster. The safest plan keeps the ship "
      "out of the nebula's ion storm and gives engineering time to stabilize the port nacelle. "
      "Here is the plan in the format you asked for:\n\n```json\n";
  std::string body = R"({"orders": [)";
  for (int i = 0; i < 14; ++i) {
    if (i) body += ", ";
    body += R"({"step": )" + std::to_string(i) + R"(, "who": "helm", "do": "turn to heading )" +
            std::to_string(90 + i) + R"(", "eta_min": )" + std::to_string(i * 3) + "}";
  }
  body += R"(], "notes": "all hands to stations"})";
  out += body;
  out += "\n```\n\nLet me know if you want an alternative that risks the nebula.\n";
  return out;
}

/// The answer of `typical_reply()` alone, for nlohmann's baseline.
inline std::string typical_answer() {
  const std::string r = typical_reply();
  const std::size_t b = r.find("```json\n") + 8, e = r.find("\n```\n\nLet");
  return r.substr(b, e - b);
}

/// A JSON Schema (draft 7) that `typical_answer()` passes: each of its 14 orders an object with
/// typed, bounded members, the answer closed to other keys. What `schema/typical answer` and the
/// `schema` measure judge it by.
inline std::string typical_schema() {
  return R"({"type": "object", "required": ["orders", "notes"], "additionalProperties": false,
    "properties": {
      "orders": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["step", "who", "do"],
        "properties": {
          "step": {"type": "integer", "minimum": 0},
          "who": {"type": "string", "enum": ["helm", "engineering", "tactical"]},
          "do": {"type": "string", "minLength": 1},
          "eta_min": {"type": "number", "minimum": 0}}}},
      "notes": {"type": "string"}}})";
}

/// "prose": text without a brace, bracket or marker.
inline std::string prose(std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 128);
  lcg rng(4);
  static constexpr std::array<std::string_view, 4> words{
      "The quick brown fox jumps over the lazy dog. ", "Lorem ipsum dolor sit amet. ",
      "Sphinx of black quartz, judge my vow.\n", "Pack my box with five dozen liquor jugs. "};
  while (out.size() < bytes) out += words[rng.below(words.size())];
  return out;
}

using llmjson_tests::repeat;  // tests/repeat.hpp: a unit repeated to a size

/// "reasoning then answer": a long reasoning region without a brace, then the answer.
inline std::string reasoning_then_answer(std::size_t bytes) {
  std::string out = "<think>\n";
  out += prose(bytes);
  out += "\n</think>\n";
  out += answer;
  out += "\n";
  return out;
}

/// The stream's linearity input (issue 16): a first quarter of `{'x ` (prose frames that never
/// close), then prose with a small object in every sentence. Each read of the stream sees all
/// those frames open, and every object makes a candidate.
inline std::string open_frames_then_objects(std::size_t bytes) {
  std::string out = repeat("{'x ", bytes / 4);
  out.reserve(bytes + 64);
  static constexpr std::string_view sentence =
      "some prose with an object {\"a\": 1} and more words here. ";
  while (out.size() < bytes) out += sentence;
  return out;
}

/// The hostile families: the linearity tests' inputs, and more. Each makes `bytes` bytes.
inline std::vector<std::pair<std::string, std::function<std::string(std::size_t)>>> hostile() {
  using gen = std::function<std::string(std::size_t)>;
  auto rep = [](std::string unit) -> gen {
    return [unit](std::size_t n) { return repeat(unit, n); };
  };
  return {
      {"{ repeated", rep("{")},
      {"{} repeated", rep("{}")},
      {"{\"a\": repeated", rep("{\"a\":")},
      {"{\"a\":1} repeated", rep("{\"a\":1} ")},
      {"\"{ repeated", rep("\"{")},
      {"[{ repeated", rep("[{")},
      {"[\" repeated", rep("[\"")},
      {"[[ then ]]",
       [](std::size_t n) { return std::string(n / 2, '[') + std::string(n - n / 2, ']'); }},
      {"[ then {", [](std::size_t n) { return "[" + std::string(n - 1, '{'); }},
      {"[{\"a\":[ and ]", rep("[{\"a\":[]")},
      {"deep [ in an object", [](std::size_t n) { return "{\"a\": " + std::string(n, '['); }},
      {"fences", rep("```json\n{\"i\": 1}\n```\n")},
      {"fence lines", rep("```json\n")},
      {"<think> repeated", rep("<think>")},
      {"</think> repeated", rep("</think>")},
      {"<|channel|>analysis repeated", rep("<|channel|>analysis")},
      {"markers and braces", rep("<think>{</think>{")},
      {"prose braces", rep("set {x | x > \"0} and {{name}} \\frac{a}{b} ")},
      // Rules v3 (issue 17): strings that run over raw line breaks, stripped harmony, Open
      // WebUI's reasoning blocks.
      {"{\"a\": \" and raw line breaks",
       [](std::size_t n) { return "x {\"a\": \"" + repeat("code line\n", n); }},
      {"analysis and assistantfinal", rep("analysis assistantfinal ")},
      {"<details type=\"reasoning\"> repeated", rep("<details type=\"reasoning\">")},
      // Rules v4: a phrase region with near misses of its closing phrase; Gemma 4's opening
      // tag, one region that never closes.
      {"Thinking... then ...done thinkin repeated",
       [](std::size_t n) { return "Thinking..." + repeat("...done thinkin ", n); }},
      {"<|channel>thought repeated", rep("<|channel>thought")},
  };
}

/// Issue 33 (the partial answer): a short `<think>` region, then a plan of `bytes` bytes in all
/// whose steps a UI shows as they come: `{"title": ..., "steps": [{"t": ..., "minutes": N}, ...]}`.
inline std::string plan_answer(std::size_t bytes) {
  std::string s = "<think>The user wants a plan; list the steps.</think>\n";
  s += "{\"title\": \"Move the service to the new cluster\", \"steps\": [";
  for (std::size_t i = 0; s.size() + 80 < bytes; ++i) {
    if (i) s += ", ";
    s += "{\"t\": \"step " + std::to_string(i) +
         ": drain the node, copy its volume and check the \\\"health\\\" probe\", \"minutes\": " +
         std::to_string(i % 60) + "}";
  }
  s += "]}";
  return s;
}

/// Issue 33 §1 Cost: a long `<think>` region (all but 2 KB of `bytes`), then the answer in a
/// ```json fence after a line of prose: a 2 KB plan as `plan_answer` writes it.
inline std::string reasoning_then_plan(std::size_t bytes) {
  std::string s = "<think>";
  const std::size_t plan_bytes = std::min<std::size_t>(2048, bytes / 2);
  for (std::size_t i = 0; s.size() + plan_bytes < bytes; ++i)
    s += "Step " + std::to_string(i) +
         " of the thinking: the node drains first, then its volume is copied; the health probe "
         "says when the copy is done.\n";
  s += "</think>\n\nHere is the plan:\n\n```json\n";
  std::string plan = plan_answer(plan_bytes + 55);  // its `<think>` line left out
  s += plan.substr(plan.find('\n') + 1);
  s += "\n```\n";
  return s;
}

/// Issue 33: feeds `text` to a stream in `chunk`-byte chunks (with `sync()` after each when
/// `sync`) and reads the partial answer whenever `partial_version()` changed, as a UI does.
/// Returns how many partials were read (the answer's presence counted once more).
template <class Stream>
std::size_t read_partials(Stream& s, std::string_view text, std::size_t chunk, bool sync) {
  std::size_t reads = 0;
  std::uint64_t seen = 0;
  for (std::size_t at = 0; at < text.size(); at += chunk) {
    s.feed(text.substr(at, chunk));
    if (sync) s.sync();
    if (s.partial_version() == seen) continue;
    seen = s.partial_version();
    if (s.partial()) ++reads;
  }
  auto r = s.finish();
  return reads + (r.has_value() ? 1U : 0U);
}

}  // namespace llmjson_bench

#endif  // LLMJSON_BENCH_INPUTS_HPP_INCLUDED
