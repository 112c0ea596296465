// llmjson: llmjson::openai, the request body of an OpenAI-compatible /chat/completions call and
// the reader of its reply, whole or streamed: everything of an adapter but the HTTP call
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_OPENAI_HPP_INCLUDED
#define LLMJSON_OPENAI_HPP_INCLUDED

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/schema_of.hpp>

/// The shape every OpenAI-compatible server answers in (OpenAI, vLLM, llama.cpp's server, Ollama,
/// OpenRouter, LM Studio, ...): what an adapter sends to `/chat/completions` and how it reads
/// what comes back, whole or as Server-Sent Events. No HTTP: your client posts the body and hands
/// over the status and the bytes it got.
namespace llmjson::openai {

/// One message of a chat request.
struct chat_message {
  std::string role;  ///< `system`, `user`, `assistant`
  std::string content;

  friend bool operator==(const chat_message&, const chat_message&) = default;
};

/// What a chat request sends, but the model and the stream flag (`request_body` takes those):
/// the messages, the token budget if any, the response format if any.
struct chat_request {
  std::vector<chat_message> messages;
  std::optional<long> max_tokens = std::nullopt;  ///< sent as `max_tokens` when set
  /// Sent as `response_format` when set: `llmjson::openai_response_format<T>()` (the schema of a
  /// declared type) or `response_format(name, schema)` (any JSON Schema) asks for JSON that
  /// follows the schema (OpenAI's structured outputs).
  std::optional<nlohmann::ordered_json> response_format = std::nullopt;
};

/// Adds `m` to `request` as a chat message (its role and content): how `llmjson::reask` adds
/// the failed reply and the instruction to a `chat_request`. Throws only `std::bad_alloc`.
///
/// **Example**: `llmjson::retrying(adapter, {}, llmjson::reask(llmjson::openai::append_message))`
void append_message(chat_request& request, const message& m);

/// Returns the `response_format` that asks for JSON following `schema`: `{"type": "json_schema",
/// "json_schema": {"name": name, "strict": true, "schema": schema}}`, as
/// `llmjson::openai_response_format<T>()` writes it for a declared type.
///
/// `schema` is any JSON Schema: `llmjson::schema_of<T>(llmjson::schema_style::openai_strict)`,
/// or one of your own (an `nlohmann::json` converts, its keys sorted then). OpenAI's strict mode
/// takes a subset of JSON Schema; for a schema outside it, set `["json_schema"]["strict"]` to
/// false. Throws `std::invalid_argument` when `name` is not 1 to 64 ASCII letters, digits, `_`
/// or `-` (OpenAI's rule).
[[nodiscard]] nlohmann::ordered_json response_format(const std::string& name,
                                                     nlohmann::ordered_json schema);

/// Returns the JSON body of a `/chat/completions` request for `model`: the messages, then
/// `max_tokens` and `response_format` when the request has them. With `stream`, `"stream": true`
/// and `"stream_options": {"include_usage": true}`, which asks for the usage chunk at the end of
/// the stream (without it, OpenAI sends no usage when streaming).
///
/// An `ordered_json`: the schema of a `response_format` lists its properties in the order the
/// model is to write them, which an `nlohmann::json` would sort. Throws what `dump()` of it
/// throws for text that is not UTF-8 (`nlohmann::json::type_error` 316), only when dumped.
[[nodiscard]] nlohmann::ordered_json request_body(std::string_view model,
                                                  const chat_request& request, bool stream = false);

/// Returns the `usage` of a `/chat/completions` body or stream chunk `j`: `prompt_tokens`,
/// `completion_tokens` and `completion_tokens_details.reasoning_tokens` (0 when absent or null).
///
/// std::nullopt when there is no usage (absent or null), and when it is malformed: not an
/// object, `prompt_tokens` or `completion_tokens` missing, a count that is not a non-negative
/// integer. A malformed usage is never read as zeros, and never fails the call: the tokens are
/// then unreported (`llmjson::usage_total::unreported`).
[[nodiscard]] std::optional<usage> read_usage(const nlohmann::json& j);

/// Returns what an HTTP response from `/chat/completions` means for llmjson.
///
/// Not 200: an `api_error` with the provider's `error.message` (or `error` when it is a string,
/// else the start of the body). 200 with an `error` that is not null: an `api_error` (status
/// 200). Otherwise the message of the choice taken: the first whose `index` is 0 or not an
/// integer (absent, as some servers send it): its `role`, its `finish_reason`, and its `content`, a
/// string, null (read as "") or an array of parts (`[{"type": "text", "text": "..."}]`, the texts
/// joined); a choice with no `message` (or a null one) is a message with no content and its
/// `finish_reason`. Either way, the reasoning some providers send beside the content goes to
/// `message::reasoning`: the message's `reasoning_content` (as DeepSeek's API names it) or
/// `reasoning` (as OpenRouter's does), the first of the two that is a non-empty string.
///
/// **Not a chat completion**: a 200 that is not one is a `bad_response` whose `raw` is the whole
/// body and whose `message` says why, in words that read right for an HTTP reply as for a file:
/// `the body is not valid JSON: ` and nlohmann's reason, `the body is not a JSON object`, `the
/// body has no "choices": not a chat completion` (absent or null), `"choices" is empty: the
/// response holds no message`, `"choices" is not an array`, `"choices" is not an array of
/// objects`, `no choice has "index" 0: the response holds no message`, `"message" is not an
/// object`, `"content" is not a string, null or an array of parts`. Never an empty message.
///
/// **A refusal** (OpenAI's `refusal`: a non-empty string, the content empty or null) is a
/// `bad_response` whose `message` is `the model refused: ` and the start of the refusal, and
/// whose `raw` is the refusal (`is_refusal` tells it from the others): a reply without an answer,
/// kept in the attempt record and retried within `max_attempts`, as an empty `content_filter`
/// reply is (a `next_request` hook that returns `std::nullopt` for it declines). A refusal
/// beside a content is ignored: the answer is looked for in the content.
///
/// The body's `usage` (`read_usage`) goes to the message's `usage`, or to the `bad_response`'s
/// when the body is a JSON object that is no chat completion or that refuses (a 200 is billed
/// all the same); never to an `api_error`. Throws only `std::bad_alloc`.
[[nodiscard]] completion read_response(long status, std::string_view body);

/// Returns whether `c` is the `bad_response` of a refusal, as `read_response` and
/// `sse_reader::result` return one (its `message` starts with `the model refused: `, which no
/// other message of theirs does). Does not throw.
[[nodiscard]] bool is_refusal(const completion& c) noexcept;

/// Reads a `/chat/completions` response sent with `"stream": true`: Server-Sent Events, each
/// event's data a `chat.completion.chunk` object, and `data: [DONE]` at the end.
///
/// Fed the body as it arrives, split anywhere (`read`), it splits lines (LF, CRLF or CR; a line,
/// or a CRLF, may be split across reads), skips comments (`: keep-alive`), empty keep-alive
/// lines and fields other than `data` (`event`, `id`, `retry`), and joins the `data` lines of
/// one event, which ends at an empty line (an event the body ends in the middle of is dropped,
/// as the SSE standard says). Of each chunk it reads the choice `read_response` takes (the first
/// whose `index` is 0 or not an integer): each piece of `delta.content` goes at once to the
/// caller's `content(piece)`; `delta.reasoning_content` or `delta.reasoning` (the first non-empty
/// string of the two, as `read_response` reads them) is added to the message's `reasoning`,
/// `delta.refusal` to the refusal; `delta.role` and `finish_reason` (usually in the last chunk) are
/// kept. A chunk's `usage` (`read_usage`; OpenAI sends it in a last chunk whose `choices` is empty,
/// when asked with `stream_options`) goes to the message's `usage`, the last one read winning (some
/// servers send a running total in every chunk). An `error` that is not null ends the stream
/// as an `api_error` (status 200: the HTTP status the stream came with). An event that is not
/// a chat chunk ends it as a `bad_response` with the event's data as its `raw` (and the usage
/// read so far, if any), its `message` naming the event by number: `event 2
/// is not a JSON object: ` and the start of the event, `event 1: "choices" is not an array`
/// (`... an array of objects`), `event 1: "delta" is not an object`, `event 1: "content" is not
/// a string, null or an array of parts`.
///
/// **Example**:
/// ```cpp
/// llmjson::openai::sse_reader reader;
/// for (std::string_view bytes : reads) if (!reader.read(bytes, out)) break;  // out: a sink
/// llmjson::completion c = reader.result();  // the message, its content left empty
/// ```
class sse_reader {
 public:
  /// Reads the next bytes of the body, calling `content(std::string_view)` with each piece of
  /// content: an `llmjson::sink`, or any callable (taken by reference, never copied). Returns
  /// false once the stream is over (`[DONE]`, an error, a bad event): the bytes after that are
  /// not read. Throws what `content` throws, and `std::bad_alloc`.
  template <class F>
    requires std::invocable<F&, std::string_view>
  bool read(std::string_view bytes, F&& content) {
    auto call = [](void* f, std::string_view piece) {
      (*static_cast<std::remove_reference_t<F>*>(f))(piece);
    };
    return read_bytes(bytes,
                      {const_cast<void*>(static_cast<const void*>(std::addressof(content))), call});
  }

  /// Returns whether `data: [DONE]` came. Does not throw.
  [[nodiscard]] bool done() const noexcept { return done_; }
  /// Returns whether the stream is over: `[DONE]`, an error object or a bad event came. Does
  /// not throw.
  [[nodiscard]] bool over() const noexcept { return done_ || ended_.has_value(); }

  /// Returns the number of events read so far (`data: [DONE]` included). Does not throw.
  [[nodiscard]] std::size_t events() const noexcept { return events_; }

  /// Returns what the stream came to: the `api_error` or `bad_response` that ended it; a
  /// `bad_response` when no event came (`the stream has no "data:" event: it holds no message`)
  /// or none had a choice of index 0 (`no event of the stream has a choice: it holds no
  /// message`; its `raw` empty, its `usage` the last read), never an empty message; a refusal
  /// (`delta.refusal`, with no content) as `read_response` reads one, its `raw` the refusal's
  /// pieces joined; or the message so far (role, reasoning, finish_reason, usage; its content
  /// is empty: it went to `content`). Throws only `std::bad_alloc`.
  [[nodiscard]] completion result() const;

 private:
  /// The caller's `content`, its type erased so that the reading is compiled once.
  struct piece_sink {
    void* target;
    void (*call)(void*, std::string_view);
  };

  bool read_bytes(std::string_view bytes, piece_sink content);
  void take_line(piece_sink content);
  void dispatch(piece_sink content);
  void read_choice(const nlohmann::json& choice, piece_sink content);
  void end_bad(const std::string& what);

  std::string line_;      // the line read so far
  bool skip_lf_ = false;  // the last line ended with a CR: an LF right after it belongs to it
  std::string data_;      // the data lines of the event so far, joined by LF
  bool has_data_ = false;
  message message_;
  std::string refusal_;              // the pieces of delta.refusal so far
  bool had_content_ = false;         // a piece of content went to the caller
  bool had_choice_ = false;          // an event had a choice of index 0
  std::size_t events_ = 0;           // the events read, [DONE] included
  std::optional<completion> ended_;  // the api_error or bad_response that ended it
  bool done_ = false;
};

}  // namespace llmjson::openai

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/openai/openai-inl.hpp>
#endif

#endif  // LLMJSON_OPENAI_HPP_INCLUDED
