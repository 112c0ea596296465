// llmjson: the tool's reader of a reply (--response): an OpenAI-compatible /chat/completions
// response, its JSON body or its streamed form
// SPDX-License-Identifier: MIT
//
// The usage is read by the library (llmjson::openai::read_usage); the rest stays here, because
// the library's reader is an adapter's and this one checks a file. For an adapter a reply is
// something to retry: no choices, or a content that is not text, is an empty message; a refusal
// a bad_response; the body's first choice is taken whatever its index. --response tells a
// person why a file is not a chat completion, in its own words (exit 2), and the tests hold it
// to them (tests/cli/cli_test.py, group response): of their seventeen inputs that are refused,
// llmjson::openai::read_response and sse_reader read eight as a message (no choices, an empty
// one, one of index 2, a content of 5, text that is no stream) and word three otherwise.
// Checking the shape here and then reading with read_response, which takes the bytes, would
// parse every body twice, and the parse is most of a --jsonl --response line's cost.
#ifndef LLMJSON_EXAMPLES_CLI_REPLY_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_REPLY_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/openai.hpp>

namespace llmjson_cli {

/// What --response reads from an OpenAI-compatible /chat/completions response.
struct chat_response {
  std::string content;                       // the first choice's content: the text extracted
  std::optional<std::string> finish_reason;  // the first choice's, if it has one
  std::optional<llmjson::usage> usage;       // the response's, if well-formed
  std::string reasoning;  // the first choice's reasoning_content (or reasoning), "" when none
  std::string problem;    // why the input is not such a response; empty when it is
};

/// Appends the text of a `content` to `out`: a string, null (nothing), or an array of parts
/// (`[{"type": "text", "text": "..."}]`, the text of each). Returns false for anything else.
inline bool append_text(const nlohmann::json& content, std::string& out) {
  if (content.is_null()) return true;
  if (content.is_string()) {
    out += content.get_ref<const std::string&>();
    return true;
  }
  if (!content.is_array()) return false;
  for (const auto& part : content)
    if (part.is_object())
      if (const auto t = part.find("text"); t != part.end() && t->is_string())
        out += t->get_ref<const std::string&>();
  return true;
}

/// The problem of a response that is an `error` object: `the response is an API error: ...`.
inline std::string api_error_problem(const nlohmann::json& e) {
  std::string what = e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (e.is_object())
    if (const auto m = e.find("message"); m != e.end() && m->is_string())
      what = m->get<std::string>();
  if (e.is_string()) what = e.get<std::string>();
  return "the response is an API error, not a completion: " + what;
}

/// Reads the first choice (`index` 0, or the first without an index) of `choices` into `r`,
/// from `field` (`message` in a body, `delta` in a chunk). Returns false when `choices` holds none.
inline bool read_choices(const nlohmann::json& choices, const char* field, chat_response& r) {
  if (!choices.is_array()) {
    r.problem = "\"choices\" is not an array";
    return false;
  }
  for (const auto& choice : choices) {
    if (!choice.is_object()) {
      r.problem = "\"choices\" is not an array of objects";
      return false;
    }
    const auto index = choice.find("index");
    if (index != choice.end() && !(index->is_number_integer() && *index == 0)) continue;
    if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
      r.finish_reason = f->get<std::string>();
    const auto m = choice.find(field);
    if (m == choice.end() || m->is_null()) return true;
    if (!m->is_object()) {
      r.problem = "\"" + std::string(field) + "\" is not an object";
      return false;
    }
    for (const char* name : {"reasoning_content", "reasoning"}) {  // as the OpenAI adapter
      const auto t = m->find(name);
      if (t == m->end() || !t->is_string() || t->get_ref<const std::string&>().empty()) continue;
      r.reasoning += t->get_ref<const std::string&>();
      break;
    }
    if (const auto c = m->find("content"); c != m->end() && !append_text(*c, r.content)) {
      r.problem = "\"content\" is not a string, null or an array of parts";
      return false;
    }
    return true;
  }
  return false;
}

/// Reads a JSON response body (`{"choices": [{"message": {"content": ...}}], ...}`).
inline chat_response read_body(std::string_view bytes) {
  chat_response r;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    std::string_view what = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (auto end = what.find("] "); what.substr(0, 1) == "[" && end != std::string_view::npos)
      what.remove_prefix(end + 2);
    r.problem = "the body is not valid JSON: " + std::string(what);
    return r;
  }
  if (!j.is_object()) {
    r.problem = "the body is not a JSON object";
    return r;
  }
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    r.problem = api_error_problem(*e);
    return r;
  }
  r.usage = llmjson::openai::read_usage(j);
  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null()) {
    r.problem = "the body has no \"choices\": not a chat completion";
  } else if (!read_choices(*choices, "message", r) && r.problem.empty()) {
    r.problem = "\"choices\" is empty: the response holds no message";
  }
  return r;
}

/// Reads the streamed form: Server-Sent Events (LF, CRLF or CR line ends), each `data:` a
/// `chat.completion.chunk`, their `delta.content` concatenated, up to `data: [DONE]`.
inline chat_response read_stream(std::string_view bytes) {
  chat_response r;
  std::size_t events = 0;
  bool choice = false, done = false;
  std::string data;
  bool has_data = false;
  auto dispatch = [&] {
    if (!has_data) return;
    has_data = false;
    ++events;
    if (data == "[DONE]") {
      done = true;
      return;
    }
    const auto j = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
    const std::string which = "event " + std::to_string(events);
    if (j.is_discarded() || !j.is_object()) {
      r.problem =
          which + " is not a JSON object: " + data.substr(0, 80) + (data.size() > 80 ? "..." : "");
      return;
    }
    if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
      r.problem = api_error_problem(*e);
      return;
    }
    if (auto u = llmjson::openai::read_usage(j))
      r.usage = u;  // the usage chunk, last; or a running total
    const auto choices = j.find("choices");
    if (choices == j.end() || choices->is_null()) return;
    if (read_choices(*choices, "delta", r)) choice = true;
    if (!r.problem.empty()) r.problem = which + ": " + r.problem;
  };
  for (std::size_t at = 0; at < bytes.size() && !done && r.problem.empty();) {
    std::size_t end = bytes.find_first_of("\r\n", at);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view line = bytes.substr(at, end - at);
    at = end + (bytes.substr(end, 2) == "\r\n" ? 2 : 1);
    if (line.empty()) {
      dispatch();
      data.clear();
      continue;
    }
    if (line.front() == ':') continue;  // a comment
    const std::size_t colon = line.find(':');
    if (line.substr(0, colon) != "data") continue;  // event, id, retry
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (has_data) data += '\n';
    data.append(value);
    has_data = true;
  }
  if (!done && r.problem.empty()) dispatch();  // an event the input ends in
  if (!r.problem.empty()) return r;
  if (events == 0)
    r.problem =
        "the input is neither a JSON body (it does not start with '{') nor a stream of "
        "\"data:\" events";
  else if (!choice)
    r.problem = "no event of the stream has a choice: it holds no message";
  return r;
}

/// Reads a /chat/completions response, a JSON body or its streamed form (told apart by the first
/// byte that is not white space: `{` or `[` for a body).
inline chat_response read_response(std::string_view bytes) {
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '['))
    return read_body(bytes);
  return read_stream(bytes);
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_REPLY_HPP_INCLUDED
