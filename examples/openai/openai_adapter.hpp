// llmjson example: Adapters over libcurl for any OpenAI-compatible /chat/completions endpoint
// SPDX-License-Identifier: MIT
//
// Only the HTTP is here: the request body and the reading of the reply, whole or streamed, are
// the library's (<llmjson/openai.hpp>).
#ifndef LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
#define LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED

#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <curl/curl.h>

#include <llmjson/adapter.hpp>
#include <llmjson/openai.hpp>
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
  std::string body;      // any other body, kept whole for llmjson::openai::read_response
  std::size_t read = 0;  // bytes of events read
  llmjson::openai::sse_reader reader;
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
    const bool more = t.reader.read(std::string_view(data, bytes), *t.out);
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
inline llmjson::completion post_chat(const config& cfg, const llmjson::openai::chat_request& req,
                                     std::stop_token stop = {}) {
#else
inline llmjson::completion post_chat(const config& cfg, const llmjson::openai::chat_request& req) {
#endif
  std::unique_ptr<CURL, detail::easy_deleter> curl(curl_easy_init());
  if (!curl) throw transport_error(CURLE_FAILED_INIT, "curl_easy_init failed");
  const std::string url = detail::chat_url(cfg);
  const std::string body = llmjson::openai::request_body(cfg.model, req).dump();
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
  return llmjson::openai::read_response(status, response);
}

#if LLMJSON_HAS_STOP_TOKEN
/// Sends one POST with `"stream": true` to `cfg.base_url + "/chat/completions"`, pushes each
/// piece of content into `out` as it arrives, and returns the rest of what came back.
///
/// A 200 `text/event-stream` response is read by `llmjson::openai::sse_reader`: the result is its
/// message (the content left empty: it went to `out`), or the `api_error` or `bad_response` an
/// event ended it with. Any other response (an error status, or a provider that answered with one
/// JSON body even so) is read whole by `llmjson::openai::read_response`, and nothing goes to `out`.
///
/// When `stop` is requested, the transfer ends at once (the connection is closed) and the result
/// is the message so far, with the `finish_reason` the provider sent, if any (usually none).
/// Exactly one request per call, as `post_chat`. Throws `transport_error` when no response came
/// back, or the connection failed before the stream was over.
inline llmjson::completion stream_chat(const config& cfg, const llmjson::openai::chat_request& req,
                                       const llmjson::sink& out, const std::stop_token& stop) {
  std::unique_ptr<CURL, detail::easy_deleter> curl(curl_easy_init());
  if (!curl) throw transport_error(CURLE_FAILED_INIT, "curl_easy_init failed");
  const std::string url = detail::chat_url(cfg);
  const std::string body = llmjson::openai::request_body(cfg.model, req, /*stream=*/true).dump();
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
  return llmjson::openai::read_response(t.status, t.body);
}
#endif

/// Returns the adapter: a lambda, called with a `chat_request` (and the stop token, where the
/// standard library has one), that makes one POST per call (`post_chat`). The configuration is
/// copied into it.
///
/// **Example**:
/// ```cpp
/// auto model = llmjson::retrying(openai_example::make_adapter(openai_example::config_from_env()));
/// auto r = model.extract<plan>(llmjson::openai::chat_request{{{"user", "Plan: make tea"}}});
/// ```
inline auto make_adapter(config cfg) {
#if LLMJSON_HAS_STOP_TOKEN
  return [cfg = std::move(cfg)](const llmjson::openai::chat_request& req,
                                const std::stop_token& stop) -> llmjson::completion {
    return post_chat(cfg, req, stop);
  };
#else
  return [cfg = std::move(cfg)](const llmjson::openai::chat_request& req) -> llmjson::completion {
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
  return [cfg = std::move(cfg)](const llmjson::openai::chat_request& req, const llmjson::sink& out,
                                const std::stop_token& stop) -> llmjson::completion {
    return stream_chat(cfg, req, out, stop);
  };
}
#endif

}  // namespace openai_example

#endif  // LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
