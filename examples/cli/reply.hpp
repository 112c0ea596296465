// llmjson: the tool's glue to the library's reader of replies (--response): what the report
// needs of an OpenAI-compatible /chat/completions response, its JSON body or its streamed form
// SPDX-License-Identifier: MIT
//
// The reading is the library's (llmjson::openai::read_response for a body, sse_reader for a
// stream): what a reply is, and the words for one that is not a chat completion, live there
// once. Here only which of the two the input is, and what each kind of completion means for
// the tool: a message is extracted; a refusal is a completion that holds no answer (exit 1, the
// extraction's `empty`, the refusal said); an api_error or any other bad_response is an input
// that is not a completion (exit 2).
#ifndef LLMJSON_EXAMPLES_CLI_REPLY_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_REPLY_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <llmjson/adapter.hpp>
#include <llmjson/openai.hpp>

namespace llmjson_cli {

/// What --response reads from an OpenAI-compatible /chat/completions response.
struct chat_response {
  std::string content;                       // the choice's content: the text extracted
  std::optional<std::string> finish_reason;  // the choice's, if it has one
  std::optional<llmjson::usage> usage;       // the response's, if well-formed
  std::string reasoning;  // the choice's reasoning_content (or reasoning), "" when none
  std::string refusal;    // a refusal, in the library's words (`the model refused: ...`)
  std::string problem;    // why the input is not a chat completion; empty when it is
};

/// Returns what `c`, a body's or a stream's completion, means for the tool; `content` is the
/// stream's content (a body's is in its message).
inline chat_response response_of(llmjson::completion c, std::string content = {}) {
  chat_response r;
  if (auto* m = std::get_if<llmjson::message>(&c)) {
    r.content = m->content.empty() ? std::move(content) : std::move(m->content);
    if (!m->finish_reason.empty()) r.finish_reason = std::move(m->finish_reason);
    r.usage = m->usage;
    r.reasoning = std::move(m->reasoning);
  } else if (auto* e = std::get_if<llmjson::api_error>(&c)) {
    r.problem = "the response is an API error, not a completion: " + e->message;
  } else {
    auto& b = std::get<llmjson::bad_response>(c);
    r.usage = b.usage;
    if (llmjson::openai::is_refusal(c))
      r.refusal = std::move(b.message);
    else
      r.problem = std::move(b.message);
  }
  return r;
}

/// Reads a JSON response body (`{"choices": [{"message": {"content": ...}}], ...}`).
inline chat_response read_body(std::string_view bytes) {
  return response_of(llmjson::openai::read_response(200, bytes));
}

/// Reads the streamed form: Server-Sent Events, each `data:` a `chat.completion.chunk`, their
/// content joined. The end of the input ends its last event, blank line or not.
inline chat_response read_stream(std::string_view bytes) {
  llmjson::openai::sse_reader reader;
  std::string content;
  auto append = [&](std::string_view piece) { content += piece; };
  if (reader.read(bytes, append)) reader.read("\n\n", append);
  if (reader.events() == 0) {
    chat_response r;
    r.problem =
        "the input is neither a JSON body (it does not start with '{') nor a stream of "
        "\"data:\" events";
    return r;
  }
  return response_of(reader.result(), std::move(content));
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
