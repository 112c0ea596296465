// llmjson tests: the same drafts in every form of reasoning region, then an answer
// SPDX-License-Identifier: MIT
//
// What the tests of "no value is built in reasoning" read, in candidates(), extract() and the
// stream.
#ifndef LLMJSON_TESTS_REASONING_FORMS_HPP_INCLUDED
#define LLMJSON_TESTS_REASONING_FORMS_HPP_INCLUDED

#include <llmjson/candidate.hpp>
#include <llmjson/options.hpp>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace llmjson_test {

/// The drafts every form's reasoning holds, in document order, and the answer after it.
struct drafts {
  /// A draft in prose, with an exponent and an escaped quote (its numbers fit a double).
  static constexpr const char* prose = R"({"a": [1, 2.5e3, -0.5E-2, "x\"}"], "b": {"c": null}})";
  /// A fence body of 256 bytes and more: the length at which a body outside reasoning is
  /// checked and built in one nlohmann pass.
  static std::string fence_body() {
    std::string body = R"({"steps": [)";
    for (int i = 0; i < 24; ++i)
      body += (i ? ", " : "") + std::string(R"("step \u00e9 )") + std::to_string(i) + "\"";
    return body + R"(], "n": 1e300})";
  }
  /// Valid JSON but for a number no double holds: malformed, in reasoning as elsewhere.
  static constexpr const char* too_big = R"({"n": [1, 1e400]})";
  static constexpr const char* answer = R"({"b": 2})";

  /// The reasoning's body: the three drafts, across lines.
  static std::string body() {
    return std::string("Drafting: ") + prose + " then\n```json\n" + fence_body() + "\n```\nand " +
           too_big + " no.\n";
  }
};

/// A form: the output, the options that read it, and the marker its drafts show.
struct reasoning_form {
  std::string name;
  std::string text;
  llmjson::options opts;
  std::string marker;  ///< candidate::marker of the drafts
};

/// Every form of reasoning region the rules know, plus the caller's markers and the two ways
/// an output starts inside reasoning.
inline std::vector<reasoning_form> reasoning_forms() {
  const std::string body = drafts::body(), answer = drafts::answer;
  std::vector<reasoning_form> out;
  out.push_back({"<think>", "<think>\n" + body + "</think>\n" + answer, {}, "<think>"});
  out.push_back({"harmony analysis",
                 "<|channel|>analysis<|message|>" + body +
                     "<|end|><|start|>assistant<|channel|>final<|message|>" + answer,
                 {},
                 "<|channel|>analysis"});
  out.push_back(
      {"stripped harmony", "analysis\n" + body + "assistantfinal" + answer, {}, "analysis"});
  out.push_back({"[THINK]", "[THINK]" + body + "[/THINK]" + answer, {}, "[THINK]"});
  out.push_back({"<details type=\"reasoning\">",
                 "<details type=\"reasoning\" done=\"true\">\n" + body + "</details>\n" + answer,
                 {},
                 "<details type=\"reasoning\" done=\"true\">"});
  // Rules v4.
  out.push_back({"<Thought>", "<Thought>\n" + body + "</Thought>\n" + answer, {}, "<Thought>"});
  out.push_back({"Gemma 4's channel",
                 "<|channel>thought\n" + body + "<channel|>" + answer,
                 {},
                 "<|channel>thought"});
  out.push_back({"Granite's phrases",
                 "Here is my thought process:\n" + body + "Here's my response:\n" + answer,
                 {},
                 "Here is my thought process:"});
  out.push_back({"Apriel's phrases",
                 "Here are my reasoning steps:\n" + body + "[BEGIN FINAL RESPONSE]\n" + answer +
                     "\n[END FINAL RESPONSE]\n<|end|>",
                 {},
                 "Here are my reasoning steps:"});
  out.push_back({"Ollama's transcript",
                 "Thinking...\n" + body + "...done thinking.\n\n" + answer,
                 {},
                 "Thinking..."});
  out.push_back({"already open (a harmony <|end|>, then a harmony-only token)",
                 body + "<|end|><|start|>assistant<|channel|>final<|message|>" + answer,
                 {},
                 "<|end|>"});
  llmjson::options custom;
  custom.reasoning_markers = {{"<notes>", "</notes>"}};
  out.push_back({"custom markers", "<notes>" + body + "</notes>" + answer, custom, "<notes>"});
  out.push_back(
      {"already open (a closing marker first)", body + "</think>\n" + answer, {}, "</think>"});
  llmjson::options prompt;
  prompt.start = llmjson::output_start::reasoning;
  out.push_back(
      {"opened by the prompt (options::start)", body + "</think>\n" + answer, prompt, "</think>"});
  return out;
}

/// {line, column} of `offset` in an ASCII text.
inline std::pair<std::size_t, std::size_t> ascii_position(const std::string& text,
                                                          std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

/// The candidates of a form, from candidates(), extract() or a stream (`selected`: after
/// selection, where a draft's message says it lies in reasoning): the drafts valid or not as
/// anywhere else, with their spans, positions and marker, and no value; the answer with its
/// value.
inline void check_drafts(const std::vector<llmjson::candidate>& cs, const reasoning_form& f,
                         bool selected) {
  INFO("form: " << f.name);
  const std::string fence = drafts::fence_body();
  const std::vector<std::string> spans{drafts::prose, fence, drafts::too_big, drafts::answer};
  REQUIRE(cs.size() == spans.size());
  std::size_t from = 0;
  for (std::size_t k = 0; k < spans.size(); ++k) {
    const llmjson::candidate& c = cs[k];
    INFO("candidate " << k << ": " << spans[k]);
    const std::size_t at = f.text.find(spans[k], from);
    REQUIRE(at != std::string::npos);
    from = at + spans[k].size();
    CHECK(c.text == spans[k]);
    CHECK(c.offset == at);
    CHECK(std::pair(c.line, c.column) == ascii_position(f.text, at));
    const bool draft = k + 1 < spans.size();
    CHECK(c.in_reasoning == draft);
    CHECK(c.marker == (draft ? f.marker : std::string()));
    CHECK(c.valid == (spans[k] != drafts::too_big));
    if (draft) {
      CHECK(c.json == nullptr);  // in reasoning: never the answer, no value built
      CHECK_FALSE(c.qualifies);
    } else {
      REQUIRE(c.json != nullptr);
      CHECK(*c.json == nlohmann::json::parse(drafts::answer));
    }
  }
  CHECK(cs[1].source == llmjson::source::fence);
  CHECK(cs[1].in_fence);
  if (selected) {
    for (std::size_t k = 0; k + 1 < cs.size(); ++k) CHECK(cs[k].message.rfind("inside ", 0) == 0);
    CHECK(cs.back().qualifies);
  } else {
    CHECK(cs[0].message.empty());
    CHECK(cs[1].message.empty());
    const auto [line, column] = ascii_position(f.text, cs[2].offset);
    CHECK(cs[2].message == "line " + std::to_string(line) + " col " + std::to_string(column) +
                               ": a number is out of range for a double");
  }
}

}  // namespace llmjson_test

#endif  // LLMJSON_TESTS_REASONING_FORMS_HPP_INCLUDED
