// llmjson: the tool's --jsonl: many outputs, one a line, each line read, extracted and
// written in input order
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_JSONL_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_JSONL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>

#include "flags.hpp"
#include "input.hpp"
#include "json_line.hpp"
#include "ordered_lines.hpp"
#include "output.hpp"
#include "reply.hpp"
#include "report.hpp"

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace llmjson_cli {

/// What each line holds, where: the pointers of --at (or the whole line), --id-at and
/// --reasoning-at, read once.
struct line_layout {
  json_pointer output;
  std::optional<json_pointer> id;
  std::vector<json_pointer> reasoning;
  json_pointer error{"/error", {"error"}};  // a Batch API line's, when --at misses
  std::vector<const json_pointer*> asked;   // output, id?, reasoning...
  std::vector<const json_pointer*> all;     // asked, then error when --at is given
  bool whole_line_string = false;           // only the output, the whole line

  explicit line_layout(const settings& s) {
    std::string problem;  // parse_command_line checked them
    output = *json_pointer::parse(s.at.value_or(""), problem);
    if (s.id_at) id = json_pointer::parse(*s.id_at, problem);
    for (const auto& p : s.reasoning_at) reasoning.push_back(*json_pointer::parse(p, problem));
    asked.push_back(&output);
    if (id) asked.push_back(&*id);
    for (const auto& p : reasoning) asked.push_back(&p);
    all = asked;
    if (!output.tokens.empty()) all.push_back(&error);
    whole_line_string = all.size() == 1 && output.tokens.empty();
  }
};

/// What one worker thread keeps from line to line.
struct line_worker {
  json_line_reader reader;
  std::vector<std::optional<std::string_view>> found;
  std::string text;
  std::string line;  // read_string_line's buffer: the usual line's output, at its start
  std::string reasoning;
};

/// The JSON type of the value whose bytes start with `c`, for a person: `an object`.
inline std::string_view type_of(char c) {
  switch (c) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
  }
}

/// Where a pointer is, in a message: `at /custom_id`, or `the line` for the empty pointer.
inline std::string where(const json_pointer& p) {
  return p.text.empty() ? std::string("the line") : "the value at " + p.text;
}

/// Appends the start of a result line: `{"id":ID,"line":N,"ok":`. Piece by piece: a line's own
/// output allocates nothing when `out` has room.
inline void append_head(std::string& out, std::string_view id, std::string_view number) {
  out += "{\"id\":";
  out += id;
  out += ",\"line\":";
  out += number;
  out += ",\"ok\":";
}

/// Appends the result line of a line with no answer, and returns false (it failed).
inline bool append_error(std::string& out, std::string_view id, std::string_view number,
                         std::string_view kind, std::string_view message) {
  append_head(out, id, number);
  out += "false,\"error\":{\"kind\":\"";
  out += kind;
  out += "\",\"message\":";
  out += dump(nlohmann::json(one_line(message)), false);
  out += "}}\n";
  return false;
}

/// The notes of an answer (notes(): "llmjson: note: ...\n" lines) as one line: `A; B`.
inline std::string joined_notes(const outcome& o) {
  const std::string note = notes(o);
  std::string joined;
  for (std::size_t at = 0; at < note.size();) {
    const std::size_t end = note.find('\n', at);
    std::string_view one = std::string_view(note).substr(at, end - at);
    if (one.substr(0, 15) == "llmjson: note: ") one.remove_prefix(15);
    joined += (joined.empty() ? "" : "; ") + std::string(one);
    at = end + 1;
  }
  return joined;
}

/// Appends the --jsonl line of an output that was read, `text`, with the `reasoning` beside it
/// (and its length in --report when `say_reasoning`), and returns whether it has an answer.
template <class S>
bool jsonl_answer(const settings& s, const S& sel, const llmjson::options& opts,
                  std::string_view text, const std::string& reasoning,
                  const chat_response* response, bool say_reasoning, const std::string& id,
                  const std::string& number, std::string& out) {
  const auto r = llmjson::extract(text, sel, opts);
  outcome o;
  o.response = response;
  o.policy = s.policy.value_or(llmjson::default_policy_of<S>());
  if (say_reasoning) o.reasoning_bytes = reasoning.size();
  llmjson::error failure;
  if (r) {
    o.answer = &*r;
  } else {
    failure = r.error();
    say_why_cut(failure, reasoning, response);
    o.failure = &failure;
  }
  if (s.report) {
    o.qualifies_as = qualifies_as(s);
    out += "{\"id\":";
    out += id;
    out += ",\"line\":";
    out += number;
    out += ',';
    out.append(report_line(s, o), 1);
    out += '\n';
    return o.answer != nullptr;
  }
  if (!o.answer)
    return append_error(out, id, number, llmjson::to_string(failure.kind), failure.message);
  append_head(out, id, number);
  out += "true,\"value\":";
  append_answer_text(s, *o.answer, out);
  if (o.answer->fallback || !o.answer->later_qualifying.empty() || o.answer->truncation ||
      o.answer->chosen().raw_controls) {
    o.qualifies_as = qualifies_as(s);
    out += ",\"note\":" + dump(nlohmann::json(joined_notes(o)), false);
  }
  out += "}\n";
  return true;
}

/// Why the line `number` that json_line_reader read into `w.found` has no output to extract (a
/// reader problem, no id, no output), or empty when it has one; sets `id` to the line's id (`null`
/// where
/// --id-at finds none). `error_hint`: `w.found`'s last value is the line's "error".
inline std::string missing_fields(const line_layout& layout, const line_worker& w,
                                  std::string_view line, const std::string& number, bool error_hint,
                                  std::string& id) {
  const json_line_reader& reader = w.reader;
  if (!reader.problem().empty()) {
    if (layout.id) id = "null";
    const std::string byte = " (byte " + std::to_string(reader.offset() + 1) + ")";
    if (reader.ambiguous()) return "line " + number + ": " + reader.problem() + byte;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      return "line " + number + " is empty: each line holds one output";
    return "line " + number + " is not JSON: " + reader.problem() + byte;
  }
  if (layout.id) {
    const auto& found = w.found[1];
    if (!found) {
      id = "null";
      return "line " + number + " has no id at " + layout.id->text;
    }
    id = llmjson::minify(*found);
  }
  if (w.found[0]) return {};
  std::string why = "line " + number + " has no value at " + layout.output.text;
  // A Batch API line whose request failed says why in its "error": {"message": ...}.
  if (const auto& e = w.found.back(); error_hint && e && e->front() == '{') {
    const auto error = nlohmann::json::parse(*e, nullptr, false);
    if (const auto m = error.find("message"); m != error.end() && m->is_string())
      why += "; its \"error\" says: " + m->get<std::string>();
  }
  return why;
}

/// Decodes the output that json_line_reader found (`w.found[0]`) into `w.text`, or with --response
/// reads the chat completion it is into `response`, and the first non-empty reasoning of
/// --reasoning-at into `w.reasoning`. Returns why the line cannot be extracted, or empty.
inline std::string decode_fields(const settings& s, const line_layout& layout, line_worker& w,
                                 const std::string& number,
                                 std::optional<chat_response>& response) {
  const std::string_view output = *w.found[0];
  if (s.response) {
    response = read_body(output);
    if (!response->problem.empty())
      return "line " + number + ": " + where(layout.output) +
             " is not a chat completion: " + response->problem;
  } else if (output.front() != '"') {
    std::string why = "line " + number + ": " + where(layout.output) + " is " +
                      std::string(type_of(output.front())) + ", not a string";
    if (output.front() == '{')  // maybe a chat completion (a Batch API line's response body)
      why += layout.output.tokens.empty()
                 ? "; a Batch API line needs --response --at /response/body"
                 : "; if it is a chat completion, add --response";
    return why;
  } else {
    decode_string(output, w.text);
  }
  const std::size_t first = layout.id ? 2 : 1;  // after the output and the id
  for (std::size_t k = 0; k < layout.reasoning.size(); ++k) {
    const auto& found = w.found[first + k];
    if (!found || found->front() == 'n') continue;  // absent, or null
    if (found->front() != '"')
      return "line " + number + ": " + where(layout.reasoning[k]) + " is " +
             std::string(type_of(found->front())) + ", not a string";
    decode_string(*found, w.reasoning);
    if (!w.reasoning.empty()) break;
  }
  return {};
}

/// Appends one line of --jsonl output for `in`, and returns whether it has an answer.
template <class S>
bool jsonl_line(const settings& s, const line_layout& layout, const S& sel,
                const llmjson::options& opts, line_worker& w, const input_line& in,
                std::string& out) {
  const std::string number = std::to_string(in.number);
  std::string id = number;
  if (in.too_long)
    return append_error(out, id, number, "too_large",
                        "line " + number + " is longer than --max-bytes (" +
                            std::to_string(s.max_bytes) + " bytes): not read");
  w.text.clear();
  w.reasoning.clear();
  // The usual line, one string and nothing asked of it but the output: checked and decoded in
  // one pass. Any other line, or one that is not JSON, is read below (which says why).
  if (layout.whole_line_string && !s.response) {
    if (const std::optional<std::size_t> n = read_string_line(in.bytes, w.line))
      return jsonl_answer(s, sel, opts, std::string_view(w.line.data(), *n), w.reasoning, nullptr,
                          false, id, number, out);
  }
  bool error_hint = layout.all.size() > layout.asked.size();
  if (!w.reader.read(in.bytes, layout.all, w.found) && error_hint && w.reader.ambiguous()) {
    error_hint = false;  // "error" repeated: the hint is not worth failing the line for
    w.reader.read(in.bytes, layout.asked, w.found);
  }
  std::optional<chat_response> response;
  std::string why = missing_fields(layout, w, in.bytes, number, error_hint, id);
  if (why.empty()) why = decode_fields(s, layout, w, number, response);
  if (!why.empty()) return append_error(out, id, number, "input", why);
  const std::string_view text = response ? std::string_view(response->content) : w.text;
  const std::string& reasoning = response ? response->reasoning : w.reasoning;
  return jsonl_answer(s, sel, opts, text, reasoning, response ? &*response : nullptr,
                      s.response || !layout.reasoning.empty(), id, number, out);
}

/// --jsonl: every line of the input through `sel`, on --jobs threads; returns the exit code.
template <class S>
int run_jsonl(const settings& s, const S& sel) {
  std::string problem;
  std::FILE* in = open_input(s.input, problem);
  if (!in) {
    write(stderr, "llmjson: " + one_line(problem) + "\n");
    return exit_usage;
  }
  const line_layout layout(s);
  const llmjson::options opts = options_of(s);
  lines_options lo;
  lo.jobs = s.jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
  lo.max_line = s.max_bytes;
  lo.first_line = s.first_line.value_or(1);
  lo.out_lock = &output_lock;
#ifdef _WIN32
  lo.progress = _isatty(_fileno(stderr)) != 0;
#else
  lo.progress = isatty(fileno(stderr)) != 0;
#endif
  std::vector<line_worker> workers(lo.jobs);
  const auto run =
      map_lines(in, stdout, lo, [&](unsigned worker, const input_line& line, std::string& out) {
        try {
          return jsonl_line(s, layout, sel, opts, workers[worker], line, out);
        } catch (const std::exception& e) {  // out of memory: that line fails, the run goes on
          const std::string number = std::to_string(line.number);
          return append_error(out, number, number, "internal", e.what());
        }
      });
  if (in != stdin) std::fclose(in);
  if (!run.read_problem.empty()) {
    write(stderr, "llmjson: cannot read '" + (s.input == "-" ? std::string("stdin") : s.input) +
                      "': " + run.read_problem + " (after " + std::to_string(run.lines) +
                      " lines)\n");
    return exit_usage;
  }
  if (run.write_failed) {
    write(stderr, "llmjson: cannot write to stdout: " + run.write_problem + "\n");
    return exit_usage;
  }
  return run.failed ? exit_no_answer : exit_answer;
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_JSONL_HPP_INCLUDED
