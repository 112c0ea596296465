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
#include <variant>

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

/// Appends the text of a `content` to `out`: a string as it is, nothing for null, the texts of
/// an array of parts (`[{"type": "text", "text": "..."}]`) joined (other parts are skipped).
/// Returns false, `out` unchanged, for anything else.
LLMJSON_INLINE bool append_text(const nlohmann::json& content, std::string& out) {
  if (content.is_string()) {
    out += content.get_ref<const std::string&>();
    return true;
  }
  if (content.is_null()) return true;
  if (!content.is_array()) return false;
  for (const auto& part : content)
    if (part.is_object())
      if (const auto t = part.find("text"); t != part.end() && t->is_string())
        out += t->get_ref<const std::string&>();
  return true;
}

/// The words for a `content` that `append_text` cannot read.
inline constexpr const char* bad_content = "\"content\" is not a string, null or an array of parts";

/// Returns the choice a reader takes of `choices`: the first whose `index` is 0 or not an integer
/// (absent, as some servers send it); null when none is. Sets `why` (and returns null) when
/// `choices` is not an array of objects: no choice of such an array is read.
LLMJSON_INLINE const nlohmann::json* choice_taken(const nlohmann::json& choices, std::string& why) {
  if (!choices.is_array()) {
    why = "\"choices\" is not an array";
    return nullptr;
  }
  const nlohmann::json* taken = nullptr;
  for (const auto& choice : choices) {
    if (!choice.is_object()) {
      why = "\"choices\" is not an array of objects";
      return nullptr;
    }
    if (taken) continue;
    const auto index = choice.find("index");
    if (index == choice.end() || !index->is_number_integer() || *index == 0) taken = &choice;
  }
  return taken;
}

/// Returns nlohmann's reason why `body` is not JSON, without its `[json.exception...] ` tag:
/// `parse error at line 1, column 13: syntax error while parsing value - unexpected end of input;
/// expected '[', '{', or a literal`.
LLMJSON_INLINE std::string parse_failure(std::string_view body) {
  try {
    [[maybe_unused]] const auto j = nlohmann::json::parse(body.begin(), body.end());
  } catch (const nlohmann::json::exception& e) {
    std::string_view what = e.what();
    if (const auto end = what.find("] "); what.substr(0, 1) == "[" && end != std::string_view::npos)
      what.remove_prefix(end + 2);
    return std::string(what);
  }
  return "not a single JSON value";  // not reached: the caller's parse failed
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
inline constexpr std::string_view refusal_words = "the model refused: ";

LLMJSON_INLINE bad_response refused(std::string refusal, std::optional<usage> used) {
  std::string what = std::string(refusal_words) + excerpt(refusal);
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

/// Reads the taken choice's `message` into `m` (and its refusal into `refusal`); returns why it
/// could not, or "".
LLMJSON_INLINE std::string read_message(const nlohmann::json& msg, message& m,
                                        std::string& refusal) {
  if (!msg.is_object()) return "\"message\" is not an object";
  if (const auto r = msg.find("role"); r != msg.end() && r->is_string())
    m.role = r->get<std::string>();
  if (const auto c = msg.find("content"); c != msg.end() && !append_text(*c, m.content))
    return bad_content;
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
  auto bad = [&](std::string what) {
    return bad_response{std::move(what), std::string(body), used};
  };
  if (j.is_discarded())
    return bad("the body is not valid JSON: " + detail::openai::parse_failure(body));
  if (!j.is_object()) return bad("the body is not a JSON object");
  if (const auto e = j.find("error"); e != j.end() && !e->is_null())
    return api_error{200, detail::openai::error_text(j, body)};

  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null())
    return bad("the body has no \"choices\": not a chat completion");
  if (choices->is_array() && choices->empty())
    return bad("\"choices\" is empty: the response holds no message");
  std::string why;
  const nlohmann::json* choice = detail::openai::choice_taken(*choices, why);
  if (!why.empty()) return bad(std::move(why));
  if (!choice) return bad("no choice has \"index\" 0: the response holds no message");
  message m;
  m.usage = used;
  if (const auto f = choice->find("finish_reason"); f != choice->end() && f->is_string())
    m.finish_reason = f->get<std::string>();
  const auto msg = choice->find("message");
  if (msg == choice->end() || msg->is_null()) return m;  // a content_filter stop, say
  std::string refusal;
  if (why = detail::openai::read_message(*msg, m, refusal); !why.empty())
    return bad(std::move(why));
  if (!refusal.empty() && m.content.empty())
    return detail::openai::refused(std::move(refusal), used);
  return m;
}

LLMJSON_INLINE bool is_refusal(const completion& c) noexcept {
  const auto* b = std::get_if<bad_response>(&c);
  return b && std::string_view(b->message).starts_with(detail::openai::refusal_words);
}

LLMJSON_INLINE completion sse_reader::result() const {
  if (ended_) return *ended_;
  if (events_ == 0)
    return bad_response{
        "the stream has no \"data:\" event: it holds no message", {}, message_.usage};
  if (!had_choice_)
    return bad_response{
        "no event of the stream has a choice: it holds no message", {}, message_.usage};
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
  ended_ = bad_response{"event " + std::to_string(events_) + what, data_, message_.usage};
}

LLMJSON_INLINE void sse_reader::dispatch(piece_sink content) {
  ++events_;
  if (data_ == "[DONE]") {
    done_ = true;
    return;
  }
  const nlohmann::json j = nlohmann::json::parse(data_, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return end_bad(" is not a JSON object: " + detail::openai::excerpt(data_));
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    ended_ = api_error{200, detail::openai::error_text(j, data_)};
    return;
  }
  if (auto u = read_usage(j)) message_.usage = u;
  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null()) return;
  std::string why;
  const nlohmann::json* choice = detail::openai::choice_taken(*choices, why);
  if (!why.empty()) return end_bad(": " + why);
  if (choice) read_choice(*choice, content);
}

LLMJSON_INLINE void sse_reader::read_choice(const nlohmann::json& choice, piece_sink content) {
  had_choice_ = true;
  if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
    message_.finish_reason = f->get<std::string>();
  const auto delta = choice.find("delta");
  if (delta == choice.end() || delta->is_null()) return;
  if (!delta->is_object()) return end_bad(": \"delta\" is not an object");
  if (const auto r = delta->find("role"); r != delta->end() && r->is_string())
    message_.role = r->get<std::string>();
  if (const std::string* r = detail::openai::reasoning_of(*delta)) message_.reasoning += *r;
  if (const std::string* r = detail::openai::nonempty_string(*delta, "refusal")) refusal_ += *r;
  const auto c = delta->find("content");
  if (c == delta->end()) return;
  if (c->is_string()) {  // the usual piece: handed over as it is
    const std::string& piece = c->get_ref<const std::string&>();
    if (piece.empty()) return;
    had_content_ = true;
    return content.call(content.target, piece);
  }
  std::string piece;
  if (!detail::openai::append_text(*c, piece))
    return end_bad(": " + std::string(detail::openai::bad_content));
  if (piece.empty()) return;
  had_content_ = true;
  content.call(content.target, piece);
}

}  // namespace llmjson::openai

#endif  // LLMJSON_DETAIL_OPENAI_OPENAI_INL_HPP_INCLUDED
