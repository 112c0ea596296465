// llmjson example: an Adapter over libcurl for any OpenAI-compatible /chat/completions endpoint
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
#define LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>

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
};

/// Thrown when no HTTP response came back: connection refused or dropped, timeout, DNS, TLS,
/// or the transfer was cancelled through the stop token (where the standard library has one).
/// llmjson's wrapper never retries it.
class transport_error : public std::runtime_error {
 public:
  transport_error(CURLcode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] CURLcode code() const noexcept { return code_; }

 private:
  CURLcode code_;
};

/// Returns the JSON body of a `/chat/completions` request.
inline nlohmann::json request_body(const config& cfg, const chat_request& req) {
  nlohmann::json body = {{"model", cfg.model}, {"messages", nlohmann::json::array()}};
  for (const auto& m : req.messages)
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  if (req.max_tokens) body["max_tokens"] = *req.max_tokens;
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

}  // namespace detail

/// Returns what an HTTP response from `/chat/completions` means for llmjson.
///
/// Not 200: an `api_error` with the provider's `error.message` (or the start of the body).
/// 200 that is not a JSON object: a `bad_response` (with the whole body as its `raw`). 200 with an
/// `error` object: an `api_error`. 200 with no choices, or a null or empty content: an empty
/// `message` with the first choice's `finish_reason` ("" when there is no choice). Otherwise the
/// first choice's message. Either way, the reasoning some providers send beside the content goes
/// to `message::reasoning`: the message's `reasoning_content` (as DeepSeek's API names it) or
/// `reasoning` (as OpenRouter's does), the first of the two that is a non-empty string.
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
  auto bad = [&](const std::string& what) {
    return llmjson::bad_response{what + ": " + detail::excerpt(body), std::string(body)};
  };
  if (j.is_discarded()) return bad("the 200 body is not JSON");
  if (!j.is_object()) return bad("the 200 body is not a JSON object");
  if (j.contains("error") && !j["error"].is_null())
    return llmjson::api_error{200, provider_message()};

  llmjson::message m;
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
  std::string url = cfg.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/chat/completions";
  const std::string body = request_body(cfg, req).dump();
  std::string response;
  char errbuf[CURL_ERROR_SIZE] = {};

  detail::header_list headers;
  headers.add("Content-Type: application/json");
  headers.add("Expect:");  // no 100-continue round trip
  if (!cfg.api_key.empty()) headers.add("Authorization: Bearer " + cfg.api_key);

  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.head);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &detail::append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, cfg.timeout_seconds);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
#if LLMJSON_HAS_STOP_TOKEN
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &detail::abort_on_stop);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &stop);
#endif

  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    std::string what = "POST " + url + ": " + curl_easy_strerror(rc);
    if (errbuf[0] != '\0') what += std::string(" (") + errbuf + ")";
    throw transport_error(rc, what);
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return read_response(status, response);
}

/// Returns the adapter: a lambda, called with a `chat_request` (and the stop token, where the
/// standard library has one), that makes one POST per call. The configuration is copied into it.
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

}  // namespace openai_example

#endif  // LLMJSON_EXAMPLES_OPENAI_ADAPTER_HPP_INCLUDED
