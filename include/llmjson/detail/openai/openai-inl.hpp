// llmjson: the bodies of openai.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_OPENAI_OPENAI_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_OPENAI_OPENAI_INL_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/detail/config.hpp>
#include <llmjson/openai.hpp>
#include <llmjson/schema_of.hpp>

namespace llmjson::detail::openai {

/// Returns the first 200 bytes of `s` on one line (line ends made spaces), `...` after a cut:
/// the start of a body or an event in a message.
LLMJSON_INLINE std::string excerpt(std::string_view s) {
  constexpr std::size_t most = 200;
  std::string out(s.substr(0, most));
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() > most) out += "...";
  return out;
}

/// Returns the text of a `content`: a string as it is, the texts of an array of parts
/// (`[{"type": "text", "text": "..."}]`) joined, "" for anything else (null included).
LLMJSON_INLINE std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        out += part["text"].get_ref<const std::string&>();
  return out;
}

/// Returns the string `name` of the object `obj`; null when it is absent, not a string or empty.
LLMJSON_INLINE const std::string* nonempty_string(const nlohmann::json& obj, const char* name) {
  const auto it = obj.find(name);
  if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
    return nullptr;
  return &it->get_ref<const std::string&>();
}

/// Returns the reasoning of a message or a delta: its `reasoning_content` (DeepSeek's name) or
/// `reasoning` (OpenRouter's), the first of the two that is a non-empty string; null if neither.
LLMJSON_INLINE const std::string* reasoning_of(const nlohmann::json& m) {
  if (const std::string* r = nonempty_string(m, "reasoning_content")) return r;
  return nonempty_string(m, "reasoning");
}

/// Returns the provider's message in the `error` of `j`: `error.message`, or `error` when it is a
/// string; else `excerpt(source)`.
LLMJSON_INLINE std::string error_text(const nlohmann::json& j, std::string_view source) {
  if (j.is_object() && j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  return excerpt(source);
}

/// Returns the bad_response of a refusal (`refusal`, non-empty): its start in the message, the
/// whole of it as `raw`.
LLMJSON_INLINE bad_response refused(std::string refusal, std::optional<usage> used) {
  std::string what = "the model refused: " + excerpt(refusal);
  return bad_response{std::move(what), std::move(refusal), used};
}

/// Returns the count `name` of `obj`: std::nullopt when it is absent or null; sets `bad` when it
/// is not a non-negative integer.
LLMJSON_INLINE std::optional<std::uint64_t> token_count(const nlohmann::json& obj, const char* name,
                                                        bool& bad) {
  const auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_unsigned()) {
    bad = true;
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

/// Reads the first choice's `message` into `m`; returns why it could not, or "".
LLMJSON_INLINE std::string read_message(const nlohmann::json& msg, message& m,
                                        std::string& refusal) {
  if (!msg.is_object()) return "\"message\" is not an object";
  if (msg.contains("role") && msg["role"].is_string()) m.role = msg["role"].get<std::string>();
  if (msg.contains("content")) m.content = text_of(msg["content"]);
  if (const std::string* r = reasoning_of(msg)) m.reasoning = *r;
  if (const std::string* r = nonempty_string(msg, "refusal")) refusal = *r;
  return {};
}

}  // namespace llmjson::detail::openai

namespace llmjson::openai {

LLMJSON_INLINE void append_message(chat_request& request, const message& m) {
  request.messages.push_back({m.role, m.content});
}

LLMJSON_INLINE nlohmann::ordered_json response_format(const std::string& name,
                                                      nlohmann::ordered_json schema) {
  return detail::response_format(name, std::move(schema));
}

LLMJSON_INLINE nlohmann::ordered_json request_body(std::string_view model,
                                                   const chat_request& request, bool stream) {
  nlohmann::ordered_json body = {{"model", std::string(model)},
                                 {"messages", nlohmann::ordered_json::array()}};
  for (const auto& m : request.messages)
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  if (request.max_tokens) body["max_tokens"] = *request.max_tokens;
  if (request.response_format) body["response_format"] = *request.response_format;
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

LLMJSON_INLINE std::optional<usage> read_usage(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto u = j.find("usage");
  if (u == j.end() || !u->is_object()) return std::nullopt;
  bool bad = false;
  const auto prompt = detail::openai::token_count(*u, "prompt_tokens", bad);
  const auto generated = detail::openai::token_count(*u, "completion_tokens", bad);
  std::optional<std::uint64_t> reasoning;
  if (const auto d = u->find("completion_tokens_details"); d != u->end() && !d->is_null()) {
    if (d->is_object())
      reasoning = detail::openai::token_count(*d, "reasoning_tokens", bad);
    else
      bad = true;
  }
  if (bad || !prompt || !generated) return std::nullopt;
  return usage{*prompt, *generated, reasoning.value_or(0)};
}

LLMJSON_INLINE completion read_response(long status, std::string_view body) {
  const nlohmann::json j =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (status != 200)
    return api_error{static_cast<int>(status), detail::openai::error_text(j, body)};
  const std::optional<usage> used = read_usage(j);
  auto bad = [&](const std::string& what) {
    return bad_response{what + ": " + detail::openai::excerpt(body), std::string(body), used};
  };
  if (j.is_discarded()) return bad("the 200 body is not JSON");
  if (!j.is_object()) return bad("the 200 body is not a JSON object");
  if (j.contains("error") && !j["error"].is_null())
    return api_error{200, detail::openai::error_text(j, body)};

  message m;
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
  std::string refusal;
  if (std::string why = detail::openai::read_message(choice["message"], m, refusal); !why.empty())
    return bad(why);
  if (!refusal.empty() && m.content.empty())
    return detail::openai::refused(std::move(refusal), used);
  return m;
}

LLMJSON_INLINE completion sse_reader::result() const {
  if (ended_) return *ended_;
  if (!refusal_.empty() && !had_content_) return detail::openai::refused(refusal_, message_.usage);
  return message_;
}

LLMJSON_INLINE bool sse_reader::read_bytes(std::string_view bytes, piece_sink content) {
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

LLMJSON_INLINE void sse_reader::take_line(piece_sink content) {
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

LLMJSON_INLINE void sse_reader::end_bad(const std::string& what) {
  ended_ = bad_response{what + ": " + detail::openai::excerpt(data_), data_, message_.usage};
}

LLMJSON_INLINE void sse_reader::dispatch(piece_sink content) {
  if (data_ == "[DONE]") {
    done_ = true;
    return;
  }
  const nlohmann::json j = nlohmann::json::parse(data_, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return end_bad("a stream event is not JSON");
  if (!j.is_object()) return end_bad("a stream event is not a JSON object");
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    ended_ = api_error{200, detail::openai::error_text(j, data_)};
    return;
  }
  if (auto u = read_usage(j)) message_.usage = u;
  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null()) return;
  if (!choices->is_array()) return end_bad("\"choices\" is not an array");
  read_choices(*choices, content);
}

LLMJSON_INLINE void sse_reader::read_choices(const nlohmann::json& choices, piece_sink content) {
  for (const auto& choice : choices) {
    if (!choice.is_object()) return end_bad("\"choices\" is not an array of objects");
    const auto index = choice.find("index");
    if (index != choice.end() && index->is_number_integer() && *index != 0) continue;
    if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
      message_.finish_reason = f->get<std::string>();
    const auto delta = choice.find("delta");
    if (delta == choice.end() || !delta->is_object()) continue;
    if (const auto r = delta->find("role"); r != delta->end() && r->is_string())
      message_.role = r->get<std::string>();
    if (const std::string* r = detail::openai::reasoning_of(*delta)) message_.reasoning += *r;
    if (const std::string* r = detail::openai::nonempty_string(*delta, "refusal")) refusal_ += *r;
    if (const auto c = delta->find("content"); c != delta->end()) {
      const std::string piece = detail::openai::text_of(*c);
      if (piece.empty()) continue;
      had_content_ = true;
      content.call(content.target, piece);
    }
  }
}

}  // namespace llmjson::openai

#endif  // LLMJSON_DETAIL_OPENAI_OPENAI_INL_HPP_INCLUDED
