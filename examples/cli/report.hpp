// llmjson: the tool's report: what came out of an output (the answer or the error), as the
// flags ask to show it: the answer, the notes, --explain's table, --report's object
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_REPORT_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_REPORT_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>

#include "flags.hpp"
#include "input.hpp"
#include "normal_form.hpp"
#include "output.hpp"
#include "reply.hpp"
#include "text.hpp"

namespace llmjson_cli {

/// The extraction's outcome, seen the same way whether it succeeded or failed.
struct outcome {
  const llmjson::extraction* answer = nullptr;  // set on success
  const llmjson::error* failure = nullptr;      // set on failure
  llmjson::policy policy = llmjson::policy::first;
  const early_read* early = nullptr;           // with --early: how the reading ended
  std::size_t bytes_read = 0;                  // with --early: the bytes read
  const chat_response* response = nullptr;     // with --response: what the response said
  std::string qualifies_as;                    // what qualifying means: `is a JSON object`
  std::optional<std::size_t> reasoning_bytes;  // with --jsonl: the reasoning beside the output

  [[nodiscard]] const std::vector<llmjson::candidate>& candidates() const {
    return answer ? answer->candidates : failure->candidates;
  }
  [[nodiscard]] const std::optional<llmjson::cut>& truncation() const {
    return answer ? answer->truncation : failure->truncation;
  }
};

/// The candidate's verdict: chosen, fallback, qualifies, rejected, malformed or reasoning.
inline std::string_view verdict_of(const outcome& o, std::size_t i) {
  const llmjson::candidate& c = o.candidates()[i];
  if (o.answer && o.answer->index == i) return o.answer->fallback ? "fallback" : "chosen";
  if (c.in_reasoning) return "reasoning";
  if (!c.valid) return "malformed";
  return c.qualifies ? "qualifies" : "rejected";
}

/// Why the candidate does not qualify (for a malformed one, what is wrong with it), or "": its
/// `message`, without the `malformed: ` that the verdict column already says.
inline std::string_view message_of(const llmjson::candidate& c) {
  constexpr std::string_view malformed = "malformed: ";
  std::string_view m = c.message;
  if (!c.valid && !c.in_reasoning && m.substr(0, malformed.size()) == malformed)
    m.remove_prefix(malformed.size());
  return m;
}

inline const std::vector<llmjson::near_miss> no_near_misses;

/// The near misses of a `no_json` failure: closed spans that look like objects, not JSON.
inline const std::vector<llmjson::near_miss>& near_misses_of(const outcome& o) {
  return o.failure ? o.failure->near_misses : no_near_misses;
}

/// Where the candidate was found, in the library's words (`prose`, `in fence "json"`, `fence
/// "json"`, `whole part`, `whole output`), with ` (enclosed)` when a frame encloses it (a piece of
/// something bigger, never the fallback).
inline std::string source_column(const llmjson::candidate& c) {
  std::string label = llmjson::source_label(c);
  if (c.enclosed) label += " (enclosed)";
  return label;
}

/// How many columns `s` (valid UTF-8) takes: one per code point.
inline std::size_t width(std::string_view s) {
  std::size_t w = 0;
  for (char ch : s) w += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return w;
}

/// The --explain table: every candidate, one aligned row each, then the cut if there is one.
inline std::string explain_table(const outcome& o) {
  const auto& cs = o.candidates();
  std::vector<std::vector<std::string>> rows{
      {"#", "line:col", "source", "bytes", "verdict", "reason"}};
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const llmjson::candidate& c = cs[i];
    std::string reason(message_of(c));
    if (c.raw_controls)  // valid once they are escaped (rules §3): said, whatever the verdict
      reason = "raw line breaks or tabs in strings" + (reason.empty() ? "" : "; " + reason);
    rows.push_back({std::to_string(i + 1), std::to_string(c.line) + ":" + std::to_string(c.column),
                    source_column(c), std::to_string(c.text.size()), std::string(verdict_of(o, i)),
                    reason.empty() ? "-" : one_line(reason)});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], width(row[k]));
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      out += row[k];
      if (k + 1 < row.size()) out.append(widths[k] - width(row[k]) + 2, ' ');
    }
    out += '\n';
  }
  if (cs.empty()) out += "(no candidates)\n";
  if (const auto& cut = o.truncation()) out += "cut: " + one_line(cut->message) + "\n";
  for (const llmjson::near_miss& m : near_misses_of(o)) {
    out += "near miss: " + std::to_string(m.line) + ":" + std::to_string(m.column) + " ";
    out += one_line(m.text.substr(0, 60));
    if (m.text.size() > 60) out += "...";
    out += ": " + one_line(m.message) + "\n";
  }
  return out;
}

/// Where report_object() leaves the answer's tokens to be spliced in (splice_value): a string no
/// input can put at that place, as nlohmann dumps escape control characters and quotes in strings.
constexpr std::string_view value_slot = "\x01llmjson: the answer as written\x01";

/// The --report object: ok, error, value, text, truncated, candidates (and policy, fallback), in
/// that order (ordered_json keeps the order in which members are added). `value` is
/// `value_slot`, for splice_value to replace with the answer.
inline nlohmann::ordered_json report_object(const outcome& o) {
  using json = nlohmann::ordered_json;
  json r = json::object();
  r["ok"] = o.answer != nullptr;
  r["error"] = o.failure ? json{{"kind", llmjson::to_string(o.failure->kind)},
                                {"message", o.failure->message},
                                {"offset", o.failure->offset}}
                         : json(nullptr);
  r["value"] = o.answer ? json(std::string(value_slot)) : json(nullptr);
  r["text"] = o.answer ? json(std::string(o.answer->text())) : json(nullptr);
  const auto& cut = o.truncation();
  r["truncated"] = cut ? json{{"offset", cut->position()},
                              {"line", cut->line},
                              {"column", cut->column},
                              {"message", cut->message},
                              {"reasoning", cut->reasoning},
                              {"marker", cut->reasoning && !cut->marker.empty() ? json(cut->marker)
                                                                                : json(nullptr)}}
                       : json(nullptr);
  r["policy"] = llmjson::to_string(o.answer ? o.answer->policy : o.policy);
  r["fallback"] = o.answer && o.answer->fallback;
  // The answer's text holds raw line breaks or tabs in strings: `value` has them escaped.
  r["raw_controls"] = o.answer && o.answer->chosen().raw_controls;
  // Under policy first, the qualifying candidates after the answer: indices into `candidates`.
  r["later_qualifying"] = o.answer ? json(o.answer->later_qualifying) : json::array();
  json list = json::array();
  const auto& cs = o.candidates();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const llmjson::candidate& c = cs[i];
    const bool fenced = c.source == llmjson::source::fence || c.in_fence;
    list.push_back({{"line", c.line},
                    {"column", c.column},
                    {"offset", c.position()},
                    {"length", c.text.size()},
                    {"source", llmjson::to_string(c.source)},
                    {"in_fence", c.in_fence},
                    {"info", fenced ? json(std::string(c.info)) : json(nullptr)},
                    {"enclosed", c.enclosed},
                    {"raw_controls", c.raw_controls},
                    {"verdict", verdict_of(o, i)},
                    {"qualifies", c.qualifies},
                    {"message", std::string(message_of(c))},
                    {"in_reasoning", c.in_reasoning},
                    {"marker", c.in_reasoning ? json(std::string(c.marker)) : json(nullptr)}});
  }
  r["candidates"] = std::move(list);
  json near = json::array();
  for (const llmjson::near_miss& m : near_misses_of(o))
    near.push_back({{"line", m.line},
                    {"column", m.column},
                    {"offset", m.position()},
                    {"length", m.text.size()},
                    {"text", std::string(m.text)},
                    {"message", m.message}});
  r["near_misses"] = std::move(near);
  if (o.early) r["early"] = json{{"settled", o.early->settled}, {"bytes_read", o.bytes_read}};
  if (o.reasoning_bytes) r["reasoning_bytes"] = *o.reasoning_bytes;
  if (o.response) {
    const auto& u = o.response->usage;
    r["finish_reason"] =
        o.response->finish_reason ? json(*o.response->finish_reason) : json(nullptr);
    r["usage"] = u ? json{{"prompt_tokens", u->prompt_tokens},
                          {"completion_tokens", u->completion_tokens},
                          {"reasoning_tokens", u->reasoning_tokens},
                          {"total_tokens", u->total_tokens()}}
                   : json(nullptr);
  }
  return r;
}

/// Dumps `v` so that raw input bytes (in reasons, info strings) can never make it throw.
template <class Json>
std::string dump(const Json& v, bool pretty) {
  return v.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The compact dump of a report with `value`, one line of JSON, at the slot of its value.
inline std::string splice_value(std::string dumped, std::string_view value) {
  // The member as dump() wrote it (`"value":"\u0001llmjson: ..."`), found where no string's
  // content can hold it: a quote inside a string is always escaped.
  constexpr std::string_view key = "\"value\":";
  const std::string slot = std::string(key) + dump(nlohmann::json(std::string(value_slot)), false);
  if (const auto at = dumped.find(slot); at != std::string::npos)
    dumped.replace(at + key.size(), slot.size() - key.size(), value);
  return dumped;
}

/// Appends the answer on one line, as the flags ask: its tokens as written, or nlohmann's
/// re-serialization (--normalize, written from the answer's text: no value is built for it);
/// either goes straight into `out` (a batch's usual answer: no string of its own).
inline void append_answer_line(const settings& s, const llmjson::extraction& answer,
                               std::string& out) {
  if (!s.normalize) {
    llmjson::minify(answer.text(), out);
  } else if (!append_normalized(answer.text(), out)) {
    // What the text writer leaves to nlohmann (a key with an escape and a raw control character):
    // the value, the extraction's when one was built, else nlohmann's reading of the minified
    // text.
    if (!answer.json().is_null()) {
      append_dump(answer.json(), out);
    } else {
      append_dump(nlohmann::json::parse(llmjson::minify(answer.text())), out);
    }
  }
}

/// The --report object on one line, the answer in its `value` as `append_answer_line` writes it.
inline std::string report_line(const settings& s, const outcome& o) {
  std::string text = dump(report_object(o), false);
  if (o.answer) {
    std::string value;
    append_answer_line(s, *o.answer, value);
    text = splice_value(std::move(text), value);
  }
  return text;
}

/// Appends the answer as the flags ask: `append_answer_line`'s, or --pretty's indented form.
inline void append_answer_text(const settings& s, const llmjson::extraction& answer,
                               std::string& out) {
  if (!s.pretty) {
    append_answer_line(s, answer, out);
  } else {
    out += s.normalize ? dump(answer.json(), true) : llmjson::pretty(answer.text());
  }
}

/// `2 later candidates also qualify: 5:1, 9:1; policy first printed the one at 1:9`: the
/// qualifying candidates policy `first` passed over, at most eight named (as the library's
/// messages name candidates).
inline std::string later_qualifying_note(const llmjson::extraction& x) {
  const auto& later = x.later_qualifying;
  std::string out =
      std::to_string(later.size()) + (later.size() == 1 ? " later candidate also qualifies: "
                                                        : " later candidates also qualify: ");
  const std::size_t shown = std::min<std::size_t>(later.size(), 8);
  for (std::size_t k = 0; k < shown; ++k) {
    const llmjson::candidate& c = x.candidates[later[k]];
    out += (k ? ", " : "") + std::to_string(c.line) + ":" + std::to_string(c.column);
  }
  if (later.size() > shown) out += ", and " + std::to_string(later.size() - shown) + " more";
  const llmjson::candidate& c = x.chosen();
  return out + "; policy first printed the one at " + std::to_string(c.line) + ":" +
         std::to_string(c.column);
}

/// The notes on stderr for an answer that hides a doubt: it is the fallback (nothing qualified),
/// later candidates qualify too (policy first took the first), or the output was cut after it.
/// Empty when there is none.
inline std::string notes(const outcome& o) {
  std::string out;
  if (!o.answer) return out;
  if (o.answer->fallback) {
    const llmjson::candidate& c = o.answer->chosen();
    out += "llmjson: note: no candidate " + std::string(o.qualifies_as) +
           "; printed the first valid value (fallback at " + std::to_string(c.line) + ":" +
           std::to_string(c.column) + "); --no-fallback makes this an error\n";
  }
  if (!o.answer->later_qualifying.empty())
    out += "llmjson: note: " + later_qualifying_note(*o.answer) +
           "; --policy unique makes this an error\n";
  if (const auto& cut = o.answer->truncation)
    out += "llmjson: note: the output was cut after the answer: " + one_line(cut->message) +
           "; --policy unique makes this an error\n";
  if (const llmjson::candidate& c = o.answer->chosen(); c.raw_controls)
    out += "llmjson: note: the answer at " + std::to_string(c.line) + ":" +
           std::to_string(c.column) +
           " holds raw line breaks or tabs in its strings, which JSON forbids; printed with them "
           "escaped\n";
  return out;
}

/// Prints the outcome as the flags ask and returns the exit code.
inline int print_outcome(const settings& s, const outcome& o) {
  std::string unwritten;  // why stdout did not take the output
  if (s.report) {
    const std::string text = report_line(s, o);
    unwritten = write_out((s.pretty ? llmjson::pretty(text) : text) + "\n");
  } else if (o.answer) {
    std::string text;
    append_answer_text(s, *o.answer, text);
    unwritten = write_out(text + "\n");
  } else {
    write(stderr, "llmjson: " + std::string(llmjson::to_string(o.failure->kind)) + ": " +
                      one_line(o.failure->message) + "\n");
  }
  if (!unwritten.empty()) {
    write(stderr, "llmjson: cannot write to stdout: " + unwritten + "\n");
    return exit_usage;
  }
  write(stderr, notes(o));
  if (s.explain) write(stderr, explain_table(o));
  return o.answer ? exit_answer : exit_no_answer;
}

/// What a qualifying candidate is, in the words of the fallback note: `has key "zzz"`.
inline std::string qualifies_as(const settings& s) {
  if (s.schema_path) return "is valid under the schema";
  if (s.keys.empty()) return "is a JSON object";
  std::string words = s.keys.size() == 1 ? "has key " : "has any of the keys ";
  for (std::size_t i = 0; i < s.keys.size(); ++i)
    words += (i ? ", " : "") + dump(nlohmann::json(s.keys[i]), false);
  return words;
}

/// Adds to an `empty` or `truncated` error what the provider said beside the output: how much
/// reasoning came instead of an empty answer, the model's refusal (`; the model refused: ...`),
/// and the response's `finish_reason` (`length`: the token limit cut it). The same words in
/// single mode and with --jsonl.
inline void say_why_cut(llmjson::error& e, const std::string& reasoning,
                        const chat_response* response) {
  if (e.kind == llmjson::error_kind::empty && !reasoning.empty())
    e.message += "; the reasoning beside it holds " + std::to_string(reasoning.size()) +
                 " bytes: the answer was never written";
  if (e.kind == llmjson::error_kind::empty && response && !response->refusal.empty())
    e.message += "; " + response->refusal;
  if (response && response->finish_reason &&
      (e.kind == llmjson::error_kind::empty || e.kind == llmjson::error_kind::truncated))
    e.message += " (finish_reason \"" + *response->finish_reason + "\")";
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_REPORT_HPP_INCLUDED
