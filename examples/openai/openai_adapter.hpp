// llmjson example: Adapters over libcurl for any OpenAI-compatible /chat/completions endpoint
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
#define LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/retry_types.hpp>

namespace openai_example {

/// Where to send requests: `base_url` is the API root (`https://api.openai.com/v1`), to which
/// `/chat/completions` is appended.
struct config {
  std::string base_url;
  std::string api_key;  ///< sent as `Authorization: Bearer ...`; none when empty
  std::string model;
  long timeout_seconds = 300;  ///< the whole transfer; reasoning models can take minutes
};

/// Returns the configuration from `OPENAI_BASE_URL` (default `https://api.openai.com/v1`),
/// `OPENAI_API_KEY` and `LLMJSON_MODEL`.
inline config config_from_env() {
  auto get = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  return config{get("OPENAI_BASE_URL", "https://api.openai.com/v1"), get("OPENAI_API_KEY", ""),
                get("LLMJSON_MODEL", ""), 300};
}

/// One chat message of a request.
struct chat_message {
  std::string role;  ///< `system`, `user`, `assistant`
  std::string content;
};

/// The request type of this adapter: the messages, and the token budget if any.
struct chat_request {
  std::vector<chat_message> messages;
  std::optional<long> max_tokens;  ///< sent as `max_tokens` when set
  /// Sent as `response_format` when set: `llmjson::openai_response_format<T>()` asks for JSON
  /// that follows T's schema (OpenAI's structured outputs).
  std::optional<nlohmann::ordered_json> response_format = std::nullopt;
};

/// Thrown when no HTTP response came back: connection refused or dropped, timeout, DNS, TLS,
/// or the transfer was cancelled through the stop token (where the standard library has one).
/// llmjson's wrapper never retries it. It is an `llmjson::attempts_record`: the wrapper fills in
/// the record of the call's attempts (`attempts()`) and rethrows it as it is, so a handler of
/// `transport_error` catches it, with every earlier reply.
class transport_error : public std::runtime_error, public llmjson::attempts_record {
 public:
  transport_error(CURLcode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] CURLcode code() const noexcept { return code_; }

 private:
  CURLcode code_;
};

/// Returns the JSON body of a `/chat/completions` request; with `stream`, `"stream": true` and
/// `"stream_options": {"include_usage": true}`, which asks for the usage chunk at the end of the
/// stream (without it, OpenAI sends no usage when streaming).
inline nlohmann::ordered_json request_body(const config& cfg, const chat_request& req,
                                           bool stream = false) {
  // Ordered: the schema of a response_format lists its properties in the order the model is to
  // write them, and a nlohmann::json would sort them.
  nlohmann::ordered_json body = {{"model", cfg.model},
                                 {"messages", nlohmann::ordered_json::array()}};
  for (const auto& m : req.messages)
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  if (req.max_tokens) body["max_tokens"] = *req.max_tokens;
  if (req.response_format) body["response_format"] = *req.response_format;
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

namespace detail {

inline std::string excerpt(std::string_view s) {
  constexpr std::size_t most = 200;
  std::string out(s.substr(0, most));
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() > most) out += "...";
  return out;
}

inline std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;  // content parts: [{"type": "text", "text": "..."}, ...]
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        out += part["text"].get<std::string>();
  return out;
}

/// Returns the count `name` of `obj`: std::nullopt when it is absent or null, `bad` when it is
/// not a non-negative integer.
inline std::optional<std::uint64_t> token_count(const nlohmann::json& obj, const char* name,
                                                bool& bad) {
  const auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_unsigned()) {
    bad = true;
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

}  // namespace detail

/// Returns the `usage` of a `/chat/completions` body or stream chunk `j`: `prompt_tokens`,
/// `completion_tokens` and `completion_tokens_details.reasoning_tokens` (0 when absent or null).
///
/// std::nullopt when there is no usage (absent or null), and when it is malformed: not an
/// object, `prompt_tokens` or `completion_tokens` missing, a count that is not a non-negative
/// integer. A malformed usage is never read as zeros, and never fails the call: the tokens are
/// then unreported (`llmjson::usage_total::unreported`).
inline std::optional<llmjson::usage> read_usage(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto u = j.find("usage");
  if (u == j.end() || !u->is_object()) return std::nullopt;
  bool bad = false;
  const auto prompt = detail::token_count(*u, "prompt_tokens", bad);
  const auto completion = detail::token_count(*u, "completion_tokens", bad);
  std::optional<std::uint64_t> reasoning;
  if (const auto d = u->find("completion_tokens_details"); d != u->end() && !d->is_null()) {
    if (d->is_object())
      reasoning = detail::token_count(*d, "reasoning_tokens", bad);
    else
      bad = true;
  }
  if (bad || !prompt || !completion) return std::nullopt;
  return llmjson::usage{*prompt, *completion, reasoning.value_or(0)};
}

/// Returns what an HTTP response from `/chat/completions` means for llmjson.
///
/// Not 200: an `api_error` with the provider's `error.message` (or the start of the body).
/// 200 that is not a JSON object: a `bad_response` (with the whole body as its `raw`). 200 with an
/// `error` object: an `api_error`. 200 with no choices, or a null or empty content: an empty
/// `message` with the first choice's `finish_reason` ("" when there is no choice). Otherwise the
/// first choice's message. Either way, the reasoning some providers send beside the content goes
/// to `message::reasoning`: the message's `reasoning_content` (as DeepSeek's API names it) or
/// `reasoning` (as OpenRouter's does), the first of the two that is a non-empty string. The
/// body's `usage` (`read_usage`) goes to the message's `usage`, or to the `bad_response`'s when
/// the body is a JSON object whose choices cannot be read (a 200 is billed all the same).
inline llmjson::completion read_response(long status, std::string_view body) {
  nlohmann::json j =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  auto provider_message = [&]() -> std::string {
    if (j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        return e["message"].get<std::string>();
      if (e.is_string()) return e.get<std::string>();
    }
    return detail::excerpt(body);
  };
  if (status != 200) return llmjson::api_error{static_cast<int>(status), provider_message()};
  const std::optional<llmjson::usage> used = read_usage(j);
  auto bad = [&](const std::string& what) {
    return llmjson::bad_response{what + ": " + detail::excerpt(body), std::string(body), used};
  };
  if (j.is_discarded()) return bad("the 200 body is not JSON");
  if (!j.is_object()) return bad("the 200 body is not a JSON object");
  if (j.contains("error") && !j["error"].is_null())
    return llmjson::api_error{200, provider_message()};

  llmjson::message m;
  m.usage = used;
  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null() || (choices->is_array() && choices->empty()))
    return m;
  if (!choices->is_array() || !(*choices)[0].is_object())
    return bad("\"choices\" is not an array of objects");
  const auto& choice = (*choices)[0];
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
    m.finish_reason = choice["finish_reason"].get<std::string>();
  if (!choice.contains("message") || choice["message"].is_null()) return m;
  const auto& msg = choice["message"];
  if (!msg.is_object()) return bad("\"message\" is not an object");
  if (msg.contains("role") && msg["role"].is_string()) m.role = msg["role"].get<std::string>();
  if (msg.contains("content")) m.content = detail::text_of(msg["content"]);
  for (const char* field : {"reasoning_content", "reasoning"}) {
    const auto it = msg.find(field);
    if (it != msg.end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
      m.reasoning = it->get<std::string>();
      break;
    }
  }
  return m;
}

/// Reads a `/chat/completions` response sent with `"stream": true`: Server-Sent Events, each
/// event's data a `chat.completion.chunk` object, and `data: [DONE]` at the end.
///
/// Fed the body as it arrives, split anywhere (`read`), it splits lines (LF, CRLF or CR; a line,
/// or a CRLF, may be split across reads), skips comments (`: keep-alive`), empty keep-alive
/// lines and fields other than `data` (`event`, `id`, `retry`), and joins the `data` lines of
/// one event, which ends at an empty line (an event the body ends in the middle of is dropped,
/// as the SSE standard says). Of each chunk it reads the first choice (`index` 0): each piece of
/// `delta.content` goes at once to the caller's `content(piece)`; `delta.reasoning_content` or
/// `delta.reasoning` (the first non-empty string of the two, as `read_response` reads them) is
/// added to the message's `reasoning`; `delta.role` and `finish_reason` (usually in the last
/// chunk) are kept. A chunk's `usage` (`read_usage`; OpenAI sends it in a last chunk whose
/// `choices` is empty, when asked with `stream_options`) goes to the message's `usage`, the last
/// one read winning (some servers send a running total in every chunk). An `error` object ends
/// the stream as an `api_error` (status 200: the HTTP status the stream came with); an event that
/// is not a JSON object, or whose `choices` is not an array of objects, ends it as a
/// `bad_response` with the event's data as its `raw` (and the usage read so far, if any).
///
/// **Example**:
/// ```cpp
/// openai_example::sse_reader reader;
/// for (std::string_view bytes : reads) if (!reader.read(bytes, sink)) break;
/// llmjson::completion c = reader.result();  // the message, its content left empty
/// ```
class sse_reader {
 public:
  /// Reads the next bytes of the body, calling `content(std::string_view)` with each piece of
  /// content. Returns false once the stream is over (`[DONE]`, an error, a bad event): the
  /// bytes after that are not read.
  template <class F>
  bool read(std::string_view bytes, F&& content) {
    while (!bytes.empty() && !over()) {
      if (skip_lf_) {  // the CR of a CRLF ended the last read
        skip_lf_ = false;
        if (bytes.front() == '\n') {
          bytes.remove_prefix(1);
          continue;
        }
      }
      const std::size_t end = bytes.find_first_of("\r\n");
      if (end == std::string_view::npos) {
        line_.append(bytes);
        break;
      }
      line_.append(bytes.substr(0, end));
      skip_lf_ = bytes[end] == '\r';
      bytes.remove_prefix(end + 1);
      take_line(content);
      line_.clear();
    }
    return !over();
  }

  /// Returns whether `data: [DONE]` came.
  [[nodiscard]] bool done() const noexcept { return done_; }
  /// Returns whether the stream is over: `[DONE]`, an error object or a bad event came.
  [[nodiscard]] bool over() const noexcept { return done_ || ended_.has_value(); }

  /// Returns what the stream came to: the `api_error` or `bad_response` that ended it, or the
  /// message so far (role, reasoning, finish_reason, usage; its content is empty: it went to
  /// `content`).
  [[nodiscard]] llmjson::completion result() const {
    return ended_ ? *ended_ : llmjson::completion(message_);
  }

 private:
  template <class F>
  void take_line(F& content) {
    std::string_view line = line_;
    if (line.empty()) {  // the end of an event
      if (has_data_) dispatch(content);
      data_.clear();
      has_data_ = false;
      return;
    }
    if (line.front() == ':') return;  // a comment: a keep-alive, a provider's note
    const std::size_t colon = line.find(':');
    std::string_view field = line.substr(0, colon), value;
    if (colon != std::string_view::npos) {
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field != "data") return;  // event, id, retry: nothing this reader needs
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  }

  template <class F>
  void dispatch(F& content) {
    if (data_ == "[DONE]") {
      done_ = true;
      return;
    }
    const nlohmann::json j = nlohmann::json::parse(data_, nullptr, /*allow_exceptions=*/false);
    auto bad = [&](const std::string& what) {
      ended_ = llmjson::bad_response{what + ": " + detail::excerpt(data_), data_, message_.usage};
    };
    if (j.is_discarded()) return bad("a stream event is not JSON");
    if (!j.is_object()) return bad("a stream event is not a JSON object");
    if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
      std::string text = detail::excerpt(data_);
      if (e->is_object() && e->contains("message") && (*e)["message"].is_string())
        text = (*e)["message"].get<std::string>();
      else if (e->is_string())
        text = e->get<std::string>();
      ended_ = llmjson::api_error{200, std::move(text)};
      return;
    }
    if (auto u = read_usage(j)) message_.usage = u;
    const auto choices = j.find("choices");
    if (choices == j.end() || choices->is_null()) return;
    if (!choices->is_array()) return bad("\"choices\" is not an array");
    for (const auto& choice : *choices) {
      if (!choice.is_object()) return bad("\"choices\" is not an array of objects");
      const auto index = choice.find("index");
      if (index != choice.end() && index->is_number_integer() && *index != 0) continue;
      if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
        message_.finish_reason = f->get<std::string>();
      const auto delta = choice.find("delta");
      if (delta == choice.end() || !delta->is_object()) continue;
      if (const auto r = delta->find("role"); r != delta->end() && r->is_string())
        message_.role = r->get<std::string>();
      for (const char* field : {"reasoning_content", "reasoning"}) {
        const auto it = delta->find(field);
        if (it != delta->end() && it->is_string() && !it->get_ref<const std::string&>().empty()) {
          message_.reasoning += it->get_ref<const std::string&>();
          break;
        }
      }
      if (const auto c = delta->find("content"); c != delta->end()) {
        const std::string piece = detail::text_of(*c);
        if (!piece.empty()) content(std::string_view(piece));
      }
    }
  }

  std::string line_;      // the line read so far
  bool skip_lf_ = false;  // the last line ended with a CR: an LF right after it belongs to it
  std::string data_;      // the data lines of the event so far, joined by LF
  bool has_data_ = false;
  llmjson::message message_;
  std::optional<llmjson::completion> ended_;  // the api_error or bad_response that ended it
  bool done_ = false;
};

namespace detail {

/// The most of a response body kept; a longer one fails the transfer (a transport error).
inline constexpr std::size_t max_response_bytes = std::size_t{256} << 20;

/// libcurl's write callback: no exception may cross its C frames, so a failure to store the bytes
/// (too long, or out of memory) is reported to curl as a short write, which ends the transfer.
inline std::size_t append(char* data, std::size_t size, std::size_t n, void* out) noexcept {
  auto* body = static_cast<std::string*>(out);
  if (body->size() + size * n > max_response_bytes) return 0;
  try {
    body->append(data, size * n);
  } catch (...) {
    return 0;
  }
  return size * n;
}

#if LLMJSON_HAS_STOP_TOKEN
inline int abort_on_stop(void* token, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::stop_token*>(token)->stop_requested() ? 1 : 0;
}

/// One streamed transfer: what the write callback has seen, and why it ended the transfer.
struct stream_transfer {
  CURL* curl = nullptr;
  const llmjson::sink* out = nullptr;
  const std::stop_token* stop = nullptr;
  long status = -1;      // the HTTP status, once the body starts
  bool events = false;   // a 200 with Content-Type text/event-stream: read as events
  std::string body;      // any other body, kept whole for read_response
  std::size_t read = 0;  // bytes of events read
  sse_reader reader;
  bool stopped = false;   // ended by this side, for the stop token
  bool over = false;      // ended by this side: [DONE], an error event, a bad event
  bool too_long = false;  // over max_response_bytes
  std::exception_ptr thrown;
};

inline bool starts_with_event_stream(const char* type) {
  constexpr std::string_view want = "text/event-stream";
  if (!type) return false;
  std::string_view t = type;
  if (t.size() < want.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(t[i])) != want[i]) return false;
  return true;
}

/// libcurl's write callback of a streamed transfer: events go through the reader to the sink as
/// they come. Returning less than it was given ends the transfer (closes the connection): once
/// the stop token is stopped (checked before and after the bytes are read, so a stop the sink
/// itself requested is seen at once), and once the stream is over. No exception crosses curl.
inline std::size_t read_events(char* data, std::size_t size, std::size_t n, void* p) noexcept {
  auto& t = *static_cast<stream_transfer*>(p);
  const std::size_t bytes = size * n;
  try {
    if (t.status < 0) {
      curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &t.status);
      char* type = nullptr;
      curl_easy_getinfo(t.curl, CURLINFO_CONTENT_TYPE, &type);
      t.events = t.status == 200 && starts_with_event_stream(type);
    }
    if (t.stop->stop_requested()) {
      t.stopped = true;
      return 0;
    }
    if (!t.events) return append(data, size, n, &t.body);
    t.read += bytes;
    if (t.read > max_response_bytes) {
      t.too_long = true;
      return 0;
    }
    const bool more = t.reader.read(std::string_view(data, bytes),
                                    [&](std::string_view piece) { (*t.out)(piece); });
    if (!more) {
      t.over = true;
      return 0;
    }
    if (t.stop->stop_requested()) {
      t.stopped = true;
      return 0;
    }
    return bytes;
  } catch (...) {
    t.thrown = std::current_exception();
    return 0;
  }
}

/// The progress callback of a streamed transfer: ends it when the stop token is stopped while no
/// bytes come (before the response, or between events).
inline int stop_events(void* p, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& t = *static_cast<stream_transfer*>(p);
  if (!t.stop->stop_requested()) return 0;
  t.stopped = true;
  return 1;
}
#endif

struct easy_deleter {
  void operator()(CURL* c) const noexcept { curl_easy_cleanup(c); }
};
struct header_list {
  curl_slist* head = nullptr;
  header_list() = default;
  header_list(const header_list&) = delete;
  header_list& operator=(const header_list&) = delete;
  ~header_list() { curl_slist_free_all(head); }
  void add(const std::string& h) {
    curl_slist* next = curl_slist_append(head, h.c_str());  // on failure, head is left intact
    if (!next) throw transport_error(CURLE_OUT_OF_MEMORY, "curl_slist_append failed");
    head = next;
  }
};

}  // namespace detail

namespace detail {

/// The URL of `/chat/completions` under `cfg.base_url`.
inline std::string chat_url(const config& cfg) {
  std::string url = cfg.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/chat/completions";
}

/// Sets the options every request of this example shares: one POST of `body` to `url`, a fresh
/// connection, no redirects, the timeout.
inline void set_post(CURL* c, const config& cfg, const std::string& url, const std::string& body,
                     header_list& headers, char* errbuf) {
  headers.add("Content-Type: application/json");
  headers.add("Expect:");  // no 100-continue round trip
  if (!cfg.api_key.empty()) headers.add("Authorization: Bearer " + cfg.api_key);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.head);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, cfg.timeout_seconds);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
}

inline transport_error failed(CURLcode rc, const std::string& url, const char* errbuf) {
  std::string what = "POST " + url + ": " + curl_easy_strerror(rc);
  if (errbuf[0] != '\0') what += std::string(" (") + errbuf + ")";
  return transport_error(rc, what);
}

}  // namespace detail

/// Sends one POST to `cfg.base_url + "/chat/completions"` and returns what came back.
///
/// Exactly one request per call: a fresh connection each time (libcurl may silently resend a
/// request on a reused connection that turns out dead), no redirects followed, no retries.
/// Throws `transport_error` when no response came back (including a stop request, which aborts
/// the transfer). `curl_global_init` should have been called once by the program.
#if LLMJSON_HAS_STOP_TOKEN
inline llmjson::completion post_chat(const config& cfg, const chat_request& req,
                                     std::stop_token stop = {}) {
#else
inline llmjson::completion post_chat(const config& cfg, const chat_request& req) {
#endif
  std::unique_ptr<CURL, detail::easy_deleter> curl(curl_easy_init());
  if (!curl) throw transport_error(CURLE_FAILED_INIT, "curl_easy_init failed");
  const std::string url = detail::chat_url(cfg);
  const std::string body = request_body(cfg, req).dump();
  std::string response;
  char errbuf[CURL_ERROR_SIZE] = {};
  detail::header_list headers;
  CURL* c = curl.get();
  detail::set_post(c, cfg, url, body, headers, errbuf);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &detail::append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
#if LLMJSON_HAS_STOP_TOKEN
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &detail::abort_on_stop);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &stop);
#endif

  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) throw detail::failed(rc, url, errbuf);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return read_response(status, response);
}

#if LLMJSON_HAS_STOP_TOKEN
/// Sends one POST with `"stream": true` to `cfg.base_url + "/chat/completions"`, pushes each
/// piece of content into `out` as it arrives, and returns the rest of what came back.
///
/// A 200 `text/event-stream` response is read by `sse_reader`: the result is its message (the
/// content left empty: it went to `out`), or the `api_error` or `bad_response` an event ended it
/// with. Any other response (an error status, or a provider that answered with one JSON body
/// even so) is read whole by `read_response`, and nothing goes to `out`.
///
/// When `stop` is requested, the transfer ends at once (the connection is closed) and the result
/// is the message so far, with the `finish_reason` the provider sent, if any (usually none).
/// Exactly one request per call, as `post_chat`. Throws `transport_error` when no response came
/// back, or the connection failed before the stream was over.
inline llmjson::completion stream_chat(const config& cfg, const chat_request& req,
                                       const llmjson::sink& out, const std::stop_token& stop) {
  std::unique_ptr<CURL, detail::easy_deleter> curl(curl_easy_init());
  if (!curl) throw transport_error(CURLE_FAILED_INIT, "curl_easy_init failed");
  const std::string url = detail::chat_url(cfg);
  const std::string body = request_body(cfg, req, /*stream=*/true).dump();
  char errbuf[CURL_ERROR_SIZE] = {};
  detail::header_list headers;
  headers.add("Accept: text/event-stream");
  CURL* c = curl.get();
  detail::set_post(c, cfg, url, body, headers, errbuf);
  detail::stream_transfer t;
  t.curl = c;
  t.out = &out;
  t.stop = &stop;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &detail::read_events);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &detail::stop_events);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);

  const CURLcode rc = curl_easy_perform(c);
  if (t.thrown) std::rethrow_exception(t.thrown);
  if (rc != CURLE_OK && !t.stopped && !t.over) throw detail::failed(rc, url, errbuf);
  if (t.events) return t.reader.result();
  if (t.status < 0) return llmjson::message{};  // stopped before the response began
  return read_response(t.status, t.body);
}
#endif

/// Returns the adapter: a lambda, called with a `chat_request` (and the stop token, where the
/// standard library has one), that makes one POST per call (`post_chat`). The configuration is
/// copied into it.
///
/// **Example**:
/// ```cpp
/// auto model = llmjson::retrying(openai_example::make_adapter(openai_example::config_from_env()));
/// auto r = model.extract<plan>(openai_example::chat_request{{{"user", "Plan: make tea"}}, {}});
/// ```
inline auto make_adapter(config cfg) {
#if LLMJSON_HAS_STOP_TOKEN
  return [cfg = std::move(cfg)](const chat_request& req,
                                const std::stop_token& stop) -> llmjson::completion {
    return post_chat(cfg, req, stop);
  };
#else
  return [cfg = std::move(cfg)](const chat_request& req) -> llmjson::completion {
    return post_chat(cfg, req);
  };
#endif
}

#if LLMJSON_HAS_STOP_TOKEN
/// Returns the streaming adapter (`llmjson::StreamingAdapter`): a lambda, called with a
/// `chat_request`, a sink and the stop token, that makes one streamed POST per call
/// (`stream_chat`). Through `llmjson::retrying`, the call is ended once the answer is settled.
///
/// **Example**:
/// ```cpp
/// auto model = llmjson::retrying(openai_example::make_streaming_adapter(cfg),
///                                {.extraction = {.start = llmjson::output_start::answer}});
/// auto r = model.extract(request, llmjson::any_key({"steps"}));  // stops at the answer
/// ```
inline auto make_streaming_adapter(config cfg) {
  return [cfg = std::move(cfg)](const chat_request& req, const llmjson::sink& out,
                                const std::stop_token& stop) -> llmjson::completion {
    return stream_chat(cfg, req, out, stop);
  };
}
#endif

}  // namespace openai_example

#endif  // LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
