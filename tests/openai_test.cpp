// llmjson: tests of llmjson::openai (openai.hpp): the request body, the reply read whole, and the
// streamed reply read as Server-Sent Events split anywhere
// SPDX-License-Identifier: MIT
#include <llmjson/openai.hpp>

#include "catch_compat.hpp"
#include "openai_events.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/feedback.hpp>
#include <llmjson/retry.hpp>
#include <llmjson/schema_of.hpp>

namespace llmjson_tests::openai_test {

namespace {

using llmjson::api_error;
using llmjson::bad_response;
using llmjson::completion;
using llmjson::message;
using llmjson::usage;
using llmjson::openai::read_response;
using nlohmann::json;

// A type whose declaration order is not the alphabetical one.
struct openai_plan {
  std::string goal;
  std::vector<std::string> steps;
  std::optional<std::string> caveat;
};
LLMJSON_DEFINE_TYPE(openai_plan, goal, steps, caveat)

std::optional<usage> usage_of(const std::string& usage_json) {
  return llmjson::openai::read_usage(json::parse(R"({"usage": )" + usage_json + "}"));
}

// The reply to a body whose first choice's message is `message_json`.
completion reply_with(const std::string& message_json, const std::string& finish = "stop") {
  return read_response(200, R"({"choices": [{"message": )" + message_json +
                                R"(, "finish_reason": ")" + finish + "\"}]}");
}

std::string reasoning_of(const std::string& message_json) {
  const completion c = reply_with(message_json);
  return std::holds_alternative<message>(c) ? std::get<message>(c).reasoning : "<not a message>";
}

// What the reader made of `reads`, read in that order.
struct sse_read {
  std::string content;
  completion result;
  bool over = false;
  bool done = false;
  bool operator==(const sse_read&) const = default;
};

sse_read read_sse(const std::vector<std::string_view>& reads) {
  llmjson::openai::sse_reader reader;
  sse_read out;
  auto append = [&](std::string_view piece) { out.content += piece; };
  for (std::string_view bytes : reads)
    if (!reader.read(bytes, append)) break;
  out.result = reader.result();
  out.over = reader.over();
  out.done = reader.done();
  return out;
}

// Returns the first byte at which `stream`, split in two there, does not read to `expected`;
// npos when every split does.
std::size_t first_bad_split(const std::string& stream, const sse_read& expected) {
  const std::string_view s = stream;
  for (std::size_t k = 0; k <= s.size(); ++k)
    if (!(read_sse({s.substr(0, k), s.substr(k)}) == expected)) return k;
  return std::string::npos;
}

// Checks that `stream` reads to `expected` whole, split in two at every byte, and byte by byte.
void expect_any_split(const std::string& stream, const sse_read& expected) {
  CHECK(read_sse({stream}) == expected);
  CHECK(first_bad_split(stream, expected) == std::string::npos);
  std::vector<std::string_view> bytes;
  for (std::size_t k = 0; k < stream.size(); ++k)
    bytes.push_back(std::string_view(stream).substr(k, 1));
  CHECK(read_sse(bytes) == expected);
}

TEST_CASE("openai request_body: model, messages, max_tokens, response_format, stream") {
  llmjson::openai::chat_request request{{{"system", "Answer with JSON."}, {"user", "Plan tea"}}};
  CHECK(json(llmjson::openai::request_body("m", request)) == json::parse(R"({"model": "m",
      "messages": [{"role": "system", "content": "Answer with JSON."},
                   {"role": "user", "content": "Plan tea"}]})"));
  request.max_tokens = 64;
  const json streamed = llmjson::openai::request_body("m", request, /*stream=*/true);
  CHECK(streamed["max_tokens"] == 64);
  CHECK(streamed["stream"] == true);
  CHECK(streamed["stream_options"] == json::parse(R"({"include_usage": true})"));
  CHECK_FALSE(streamed.contains("response_format"));

  // The schema of a declared type, in declaration order (goal, steps, caveat), not sorted.
  request.response_format = llmjson::openai_response_format<openai_plan>();
  const std::string sent = llmjson::openai::request_body("m", request).dump();
  CHECK(sent.find("\"goal\"") < sent.find("\"steps\""));
  CHECK(sent.find("\"steps\"") < sent.find("\"caveat\""));
  CHECK(json(llmjson::openai::request_body("m", request)["response_format"]) ==
        json(*request.response_format));
}

TEST_CASE("openai response_format from any schema, named as OpenAI requires") {
  const json schema = json::parse(R"({"type": "object", "properties": {"a": {"type": "string"}},
                                      "required": ["a"], "additionalProperties": false})");
  CHECK(json(llmjson::openai::response_format("my-answer_2", schema)) ==
        json{{"type", "json_schema"},
             {"json_schema", {{"name", "my-answer_2"}, {"strict", true}, {"schema", schema}}}});
  // The same object as for a declared type.
  CHECK(llmjson::openai::response_format(
            "openai_plan", llmjson::schema_of<openai_plan>(llmjson::schema_style::openai_strict)) ==
        llmjson::openai_response_format<openai_plan>());
  CHECK_THROWS_AS(llmjson::openai::response_format("my answer", schema), std::invalid_argument);
  CHECK_THROWS_AS(llmjson::openai::response_format("", schema), std::invalid_argument);
  CHECK_THROWS_AS(llmjson::openai::response_format(std::string(65, 'a'), schema),
                  std::invalid_argument);
}

TEST_CASE("openai append_message is how reask adds to a chat_request") {
  llmjson::openai::chat_request request{{{"user", "Plan tea"}}};
  llmjson::openai::append_message(request, message{"{'a': 1}", "stop", "assistant", "hidden"});
  CHECK(request.messages.back() == llmjson::openai::chat_message{"assistant", "{'a': 1}"});

  // Through the wrapper: the second request carries the reply and the instruction.
  std::vector<llmjson::openai::chat_request> sent;
  auto adapter = [&](const llmjson::openai::chat_request& r) -> completion {
    sent.push_back(r);
    return message{sent.size() == 1 ? "{'goal': 'tea'}" : R"({"goal": "tea"})", "stop"};
  };
  auto r = llmjson::retrying(adapter, {}, llmjson::reask(llmjson::openai::append_message))
               .extract(llmjson::openai::chat_request{{{"user", "Plan tea"}}});
  REQUIRE(r);
  REQUIRE(sent.size() == 2);
  REQUIRE(sent[1].messages.size() == 3);
  CHECK(sent[1].messages[1] == llmjson::openai::chat_message{"assistant", "{'goal': 'tea'}"});
  CHECK(sent[1].messages[2].role == "user");
}

TEST_CASE("openai read_usage: read when well-formed, never zeros when not") {
  CHECK(usage_of(R"({"prompt_tokens": 120, "completion_tokens": 48, "total_tokens": 168,
                     "completion_tokens_details": {"reasoning_tokens": 32},
                     "prompt_tokens_details": {"cached_tokens": 64}})") == (usage{120, 48, 32}));
  CHECK(usage_of(R"({"prompt_tokens": 5, "completion_tokens": 0})") == (usage{5, 0, 0}));
  CHECK(usage_of(R"({"prompt_tokens": 5, "completion_tokens": 2,
                     "completion_tokens_details": null})") == (usage{5, 2, 0}));
  CHECK(usage_of(R"({"prompt_tokens": 5, "completion_tokens": 2,
                     "completion_tokens_details": {"audio_tokens": 0}})") == (usage{5, 2, 0}));
  CHECK(usage_of(R"({"prompt_tokens": 5, "completion_tokens": 2,
                     "completion_tokens_details": {"reasoning_tokens": null}})") ==
        (usage{5, 2, 0}));
  CHECK(usage_of(R"({"prompt_tokens": 18446744073709551615, "completion_tokens": 1})") ==
        (usage{18446744073709551615ULL, 1, 0}));
  for (const char* bad :
       {R"(null)", R"(12)", R"("many")", R"([])", R"({})", R"({"prompt_tokens": 5})",
        R"({"completion_tokens": 5})", R"({"prompt_tokens": null, "completion_tokens": 5})",
        R"({"prompt_tokens": "5", "completion_tokens": 2})",
        R"({"prompt_tokens": -1, "completion_tokens": 2})",
        R"({"prompt_tokens": 1.5, "completion_tokens": 2})",
        R"({"prompt_tokens": 5, "completion_tokens": 2,
            "completion_tokens_details": {"reasoning_tokens": "4"}})",
        R"({"prompt_tokens": 5, "completion_tokens": 2, "completion_tokens_details": 4})"}) {
    INFO(bad);
    CHECK_FALSE(usage_of(bad));
  }
  CHECK_FALSE(llmjson::openai::read_usage(json::parse(R"({"choices": []})")));
  CHECK_FALSE(llmjson::openai::read_usage(json::parse("[1]")));
}

TEST_CASE("openai read_response: statuses and error objects") {
  CHECK(read_response(502, "<html>Bad Gateway</html>") ==
        completion(api_error{502, "<html>Bad Gateway</html>"}));
  CHECK(read_response(429, R"({"error": {"message": "Rate limit reached", "type": "x"}})") ==
        completion(api_error{429, "Rate limit reached"}));
  CHECK(read_response(500, R"({"error": "down"})") == completion(api_error{500, "down"}));
  CHECK(read_response(401, R"({"error": {"code": 401}})") ==
        completion(api_error{401, R"({"error": {"code": 401}})"}));
  // Only 200 is a reply: another 2xx is an error, however well-formed its body.
  const std::string fine = R"({"choices": [{"message": {"content": "{}"}}]})";
  CHECK(read_response(201, fine) == completion(api_error{201, fine}));
  CHECK(read_response(200, fine) == completion(message{"{}"}));
  const std::string long_page(300, 'x');
  CHECK(read_response(503, long_page) == completion(api_error{503, std::string(200, 'x') + "..."}));
  // A 200 with an error is an api_error; a null error is none.
  CHECK(read_response(200, R"({"error": {"message": "overloaded"}})") ==
        completion(api_error{200, "overloaded"}));
  CHECK(read_response(200, R"({"error": "busy"})") == completion(api_error{200, "busy"}));
  CHECK(read_response(200, R"({"error": null, "choices": [{"message": {"content": "{}"}}]})") ==
        completion(message{"{}"}));
}

// The message of the bad_response that `body` (status 200) is; "<not a bad_response>" if none.
std::string why_bad(const std::string& body) {
  const completion c = read_response(200, body);
  return std::holds_alternative<bad_response>(c) ? std::get<bad_response>(c).message
                                                 : "<not a bad_response>";
}

TEST_CASE("openai read_response: bodies that are not a chat completion") {
  CHECK(why_bad("") ==
        "the body is not valid JSON: parse error at line 1, column 1: syntax error while parsing "
        "value - unexpected end of input; expected '[', '{', or a literal");
  CHECK(why_bad(R"({"choices": [)") ==
        "the body is not valid JSON: parse error at line 1, column 14: syntax error while parsing "
        "value - unexpected end of input; expected '[', '{', or a literal");
  CHECK(read_response(200, "[1]") ==
        completion(bad_response{"the body is not a JSON object", "[1]"}));
  CHECK(why_bad("\"choices\"") == "the body is not a JSON object");
  CHECK(read_response(200, R"({"choices": "none"})") ==
        completion(bad_response{R"("choices" is not an array)", R"({"choices": "none"})"}));
  CHECK(why_bad(R"({"choices": [1]})") == R"("choices" is not an array of objects)");
  // Every choice must be an object, the one taken or not.
  CHECK(why_bad(R"({"choices": [{"message": {"content": "{}"}}, 2]})") ==
        R"("choices" is not an array of objects)");
  CHECK(why_bad(R"({"choices": [{"message": 3}]})") == R"("message" is not an object)");
  // No choices, or none of index 0: never an empty message.
  for (const char* body :
       {R"({})", R"({"choices": null})", R"({"id": "x", "object": "chat.completion"})"}) {
    INFO(body);
    CHECK(why_bad(body) == R"(the body has no "choices": not a chat completion)");
  }
  CHECK(why_bad(R"({"choices": []})") == R"("choices" is empty: the response holds no message)");
  CHECK(why_bad(R"({"choices": [{"index": 2, "message": {"content": "{}"}}]})") ==
        R"(no choice has "index" 0: the response holds no message)");
  // A content that is no text.
  for (const char* content : {"12", "true", R"({"text": "{}"})"}) {
    INFO(content);
    CHECK(why_bad(std::string(R"({"choices": [{"message": {"content": )") + content + "}}]}") ==
          R"("content" is not a string, null or an array of parts)");
  }
  // A bad response keeps the whole body, newlines and all; its message is one line.
  const std::string html = "<html>\n<body>\r\nBad Gateway\n</body>\n</html>";
  const completion c = read_response(200, html);
  REQUIRE(std::holds_alternative<bad_response>(c));
  CHECK(std::get<bad_response>(c).raw == html);
  CHECK(std::get<bad_response>(c).message ==
        "the body is not valid JSON: parse error at line 1, column 1: syntax error while parsing "
        "value - invalid literal; last read: '<'");
  CHECK_FALSE(llmjson::openai::is_refusal(c));
}

TEST_CASE("openai read_response: the message of the choice of index 0") {
  CHECK(reply_with(R"({"role": "assistant", "content": [{"type": "text", "text": "a"},
                       {"type": "image"}, 7, {"type": "text", "text": "b"}]})") ==
        completion(message{"ab", "stop", "assistant"}));
  CHECK(reply_with(R"({"role": "tool", "content": "x"})") ==
        completion(message{"x", "stop", "tool"}));
  CHECK(reply_with(R"({"content": null})", "length") == completion(message{"", "length"}));
  CHECK(read_response(200, R"({"choices": [{"message": {"content": "first"}},
                                           {"message": {"content": "second"}}]})") ==
        completion(message{"first"}));
  // The choice of index 0, wherever it stands; else the first with no integer index.
  CHECK(read_response(200, R"({"choices": [{"index": 1, "message": {"content": "one"}},
                                           {"index": 0, "message": {"content": "zero"}}]})") ==
        completion(message{"zero"}));
  CHECK(read_response(200, R"({"choices": [{"index": 3, "message": {"content": "three"}},
                                           {"message": {"content": "none"}},
                                           {"index": 0, "message": {"content": "zero"}}]})") ==
        completion(message{"none"}));
  CHECK(read_response(200, R"({"choices": [{"index": "1", "message": {"content": "odd"}}]})") ==
        completion(message{"odd"}));
  // A choice with no message: no content, the finish_reason if any.
  CHECK(read_response(200, R"({"choices": [{"finish_reason": "content_filter"}]})") ==
        completion(message{"", "content_filter"}));
  CHECK(read_response(200, R"({"choices": [{"message": null, "finish_reason": 3}]})") ==
        completion(message{}));
}

TEST_CASE("openai read_response: reasoning beside the content, under either name") {
  CHECK(reasoning_of(R"({"content": "{}", "reasoning_content": "deep"})") == "deep");
  CHECK(reasoning_of(R"({"content": "{}", "reasoning": "routed"})") == "routed");
  CHECK(reasoning_of(R"({"content": "{}", "reasoning_content": "a", "reasoning": "b"})") == "a");
  CHECK(reasoning_of(R"({"content": "{}", "reasoning_content": "", "reasoning": "b"})") == "b");
  CHECK(reasoning_of(R"({"content": "{}", "reasoning_content": null, "reasoning": 3})").empty());
  CHECK(reasoning_of(R"({"content": "{}"})").empty());
  CHECK(reply_with(R"({"content": null, "reasoning": "r"})", "length") ==
        completion(message{"", "length", "assistant", "r"}));
}

TEST_CASE("openai read_response: the usage goes with a message or a bad_response, not an error") {
  const std::string u = R"("usage": {"prompt_tokens": 7, "completion_tokens": 3})";
  CHECK(read_response(200, R"({"choices": [{"message": {"content": "{}"}, "finish_reason":
                                            "stop"}], )" +
                               u + "}") ==
        completion(message{"{}", "stop", "assistant", "", usage{7, 3, 0}}));
  CHECK(read_response(200, R"({"choices": [], )" + u + "}") ==
        completion(bad_response{R"("choices" is empty: the response holds no message)",
                                R"({"choices": [], )" + u + "}", usage{7, 3, 0}}));
  const completion bad = read_response(200, R"({"choices": "none", )" + u + "}");
  REQUIRE(std::holds_alternative<bad_response>(bad));
  CHECK(std::get<bad_response>(bad).usage == (usage{7, 3, 0}));
  CHECK(read_response(500, R"({"error": {"message": "down"}, )" + u + "}") ==
        completion(api_error{500, "down"}));
  CHECK(read_response(200, R"({"error": {"message": "x"}, )" + u + "}") ==
        completion(api_error{200, "x"}));
  // Malformed: the message is read, its usage unreported.
  CHECK(read_response(200, R"({"choices": [{}], "usage": {"prompt_tokens": "7",
                                                        "completion_tokens": 3}})") ==
        completion(message{}));
}

TEST_CASE("openai read_response: a refusal is a bad_response that keeps it") {
  const std::string body = R"({"choices": [{"message": {"role": "assistant", "content": null,
      "refusal": "I'm sorry, I can't help with that."}, "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 9, "completion_tokens": 10}})";
  CHECK(read_response(200, body) ==
        completion(bad_response{"the model refused: I'm sorry, I can't help with that.",
                                "I'm sorry, I can't help with that.", usage{9, 10, 0}}));
  CHECK(llmjson::openai::is_refusal(read_response(200, body)));
  // A long or multi-line refusal: its start on one line in the message, whole in raw.
  const std::string long_refusal = "No.\n" + std::string(300, 'n');
  const completion c = reply_with(json{{"content", ""}, {"refusal", long_refusal}}.dump());
  REQUIRE(std::holds_alternative<bad_response>(c));
  CHECK(std::get<bad_response>(c).message ==
        "the model refused: No. " + std::string(196, 'n') + "...");
  CHECK(std::get<bad_response>(c).raw == long_refusal);
  // No refusal (null, empty, not a string), or a content beside it: a message.
  CHECK(reply_with(R"({"content": "{}", "refusal": null})") == completion(message{"{}", "stop"}));
  CHECK(reply_with(R"({"content": null, "refusal": ""})") == completion(message{"", "stop"}));
  CHECK(reply_with(R"({"content": null, "refusal": 1})") == completion(message{"", "stop"}));
  CHECK(reply_with(R"({"content": "{}", "refusal": "no"})") == completion(message{"{}", "stop"}));
}

TEST_CASE("openai sse_reader: a whole stream, LF, CRLF or CR, split anywhere") {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    INFO("line end of " << eol.size() << " bytes, " << (eol[0] == '\r' ? "CR" : "LF") << " first");
    // Comments, keep-alives, other fields, a role, reasoning under both names, content as a
    // string and as parts, a usage chunk, the finish_reason, [DONE], then bytes never read.
    const std::string stream =
        ": OPENROUTER PROCESSING" + eol + eol + "event: message" + eol + "id: 7" + eol +
        "retry: 100" + eol + chunk_event({{"role", "assistant"}, {"content", ""}}, nullptr, eol) +
        eol + ":" + eol + chunk_event({{"reasoning_content", "Let me "}}, nullptr, eol) +
        chunk_event({{"reasoning", "think."}}, nullptr, eol) +
        chunk_event({{"content", "Here: "}}, nullptr, eol) +
        chunk_event({{"content", "{\"a\": 1}"}}, nullptr, eol) +
        chunk_event({{"content", json::array({{{"type", "text"}, {"text", " done"}}})}}, nullptr,
                    eol) +
        chunk_event(json::object(), "stop", eol) +
        "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 12, \"completion_tokens\": 9, "
        "\"total_tokens\": 21, \"completion_tokens_details\": {\"reasoning_tokens\": 4}}}" +
        eol + eol + "data: [DONE]" + eol + eol + "data: {\"choices\": not read" + eol + eol;
    expect_any_split(
        stream,
        sse_read{"Here: {\"a\": 1} done",
                 message{"", "stop", "assistant", "Let me think.", usage{12, 9, 4}}, true, true});
  }
}

TEST_CASE("openai sse_reader: data lines, choices of other indexes, an event left open") {
  // `data:` without a space; one event over two data lines (joined by a line feed); a choice of
  // another index; a field with no colon; an event the body ends in the middle of (dropped, as
  // SSE says).
  expect_any_split(
      "data:{\"choices\": [{\"index\": 0,\ndata: \"delta\": {\"content\": \"x\"}}, "
      "{\"index\": 1, \"delta\": {\"content\": \"y\", \"role\": \"tool\"}, \"finish_reason\": "
      "\"length\"}]}\ndata\n\n" +
          chunk_event({{"content", "z"}}).substr(0, 40) + "\n",
      sse_read{"x", message{"", "", "assistant"}, false, false});
  // The same over CRLF: the LF after a CR is no empty line, wherever the reads split them.
  expect_any_split("data: {\"choices\": [{\"delta\":\r\ndata: {\"content\": \"x\"}}]}\r\n\r\n",
                   sse_read{"x", message{}, false, false});
  // A choice without an index is read, the first of them; a later one is not.
  expect_any_split("data: {\"choices\": [{\"delta\": {\"content\": \"a\"}}, {\"delta\": 3}]}\n\n",
                   sse_read{"a", message{}, false, false});
  // The choice of index 0 after one of index 1 in the same chunk; a null delta, no content.
  expect_any_split(
      "data: {\"choices\": [{\"index\": 1, \"delta\": {\"content\": \"b\"}}, {\"index\": 0, "
      "\"delta\": {\"content\": \"a\"}}]}\n\ndata: {\"choices\": [{\"delta\": null}]}\n\n",
      sse_read{"a", message{}, false, false});
  // The last usage read wins, and a malformed one does not erase it.
  expect_any_split(
      chunk_event({{"content", "{}"}}) +
          "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 1, \"completion_tokens\": 1}}\n\n"
          "data: {\"usage\": {\"prompt_tokens\": 1, \"completion_tokens\": 5}}\n\n"
          "data: {\"choices\": null, \"usage\": {\"prompt_tokens\": 1}}\n\n",
      sse_read{"{}", message{"", "", "assistant", "", usage{1, 5, 0}}, false, false});
}

TEST_CASE("openai sse_reader: an error event ends the stream as an api_error") {
  expect_any_split(
      chunk_event({{"content", "{\"a\""}}) +
          "data: {\"error\": {\"message\": \"overloaded\", \"type\": \"server\"}}\n\n" +
          chunk_event({{"content", ": 1}"}}),
      sse_read{"{\"a\"", api_error{200, "overloaded"}, true, false});
  expect_any_split("data: {\"error\": \"busy\"}\n\n",
                   sse_read{"", api_error{200, "busy"}, true, false});
  expect_any_split("data: {\"error\": 5}\n\n",
                   sse_read{"", api_error{200, "{\"error\": 5}"}, true, false});
  // A null error is none.
  expect_any_split("data: {\"error\": null, \"choices\": [{\"delta\": {}}]}\n\n",
                   sse_read{"", message{}, false, false});
}

TEST_CASE("openai sse_reader: events that are not chat chunks end it as a bad_response") {
  const std::string usage_chunk =
      "data: {\"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}\n\n";
  expect_any_split(chunk_event({{"content", "a"}}) + usage_chunk + "data: {\"choices\": [\n\n",
                   sse_read{"a",
                            bad_response{"event 3 is not a JSON object: {\"choices\": [",
                                         "{\"choices\": [", usage{3, 2, 0}},
                            true, false});
  expect_any_split(
      "data: [1]\n\n",
      sse_read{"", bad_response{"event 1 is not a JSON object: [1]", "[1]"}, true, false});
  expect_any_split(
      "data: {\"choices\": \"none\"}\n\n",
      sse_read{"", bad_response{"event 1: \"choices\" is not an array", "{\"choices\": \"none\"}"},
               true, false});
  // Every choice must be an object: nothing of such an event is read.
  expect_any_split(chunk_event({{"content", "a"}}) +
                       "data: {\"choices\": [{\"delta\": {\"content\": \"b\"}}, 2]}\n\n",
                   sse_read{"a",
                            bad_response{"event 2: \"choices\" is not an array of objects",
                                         "{\"choices\": [{\"delta\": {\"content\": \"b\"}}, 2]}"},
                            true, false});
  expect_any_split("data: {\"choices\": [{\"delta\": 3}]}\n\n",
                   sse_read{"",
                            bad_response{"event 1: \"delta\" is not an object",
                                         "{\"choices\": [{\"delta\": 3}]}"},
                            true, false});
  const std::string bad_content = chunk_event({{"content", 5}});  // its data: the raw
  expect_any_split(bad_content,
                   sse_read{"",
                            bad_response{"event 1: \"content\" is not a string, null or an array "
                                         "of parts",
                                         bad_content.substr(6, bad_content.size() - 8)},
                            true, false});
}

TEST_CASE("openai sse_reader: a stream with no choice is a bad_response, and the events count") {
  // No event at all: text, comments, an event the body ends in.
  for (const std::string body :
       {"", "Here is the plan: {\"a\": 1}\n\n", ": ping\n\n", "data: {\"choices\": []}"}) {
    INFO(body);
    llmjson::openai::sse_reader reader;
    std::string got;
    auto append = [&](std::string_view piece) { got += piece; };
    CHECK(reader.read(body, append));
    CHECK(reader.events() == 0);
    CHECK(reader.result() ==
          completion(bad_response{"the stream has no \"data:\" event: it holds no message"}));
  }
  // Events, none with a choice of index 0: the usage is kept.
  const std::string no_choice =
      "data: {\"choices\": [{\"index\": 1, \"delta\": {\"content\": \"{}\"}}]}\n\n"
      "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 1, \"completion_tokens\": 2}}\n\n"
      "data: [DONE]\n\n";
  expect_any_split(no_choice,
                   sse_read{"",
                            bad_response{"no event of the stream has a choice: it holds no message",
                                         "", usage{1, 2, 0}},
                            true, true});
  llmjson::openai::sse_reader reader;
  auto ignore = [](std::string_view) {};
  CHECK_FALSE(reader.read(no_choice + chunk_event({{"content", "late"}}), ignore));
  CHECK(reader.events() == 3);
  llmjson::openai::sse_reader only_done;
  CHECK_FALSE(only_done.read("data: [DONE]\n\n", ignore));
  CHECK(only_done.events() == 1);
  CHECK(std::get<bad_response>(only_done.result()).message ==
        "no event of the stream has a choice: it holds no message");
}

TEST_CASE("openai sse_reader: a refusal streamed without content") {
  expect_any_split(
      chunk_event({{"role", "assistant"}, {"content", nullptr}, {"refusal", ""}}) +
          chunk_event({{"refusal", "I can't "}}) + chunk_event({{"refusal", "help."}}) +
          chunk_event(json::object(), "stop") + "data: [DONE]\n\n",
      sse_read{"", bad_response{"the model refused: I can't help.", "I can't help."}, true, true});
  llmjson::openai::sse_reader reader;
  auto ignore = [](std::string_view) {};
  reader.read(chunk_event({{"refusal", "no"}}), ignore);
  CHECK(llmjson::openai::is_refusal(reader.result()));
  // Beside content, the refusal is ignored.
  expect_any_split(chunk_event({{"refusal", "no"}}) + chunk_event({{"content", "{}"}}),
                   sse_read{"{}", message{}, false, false});
}

TEST_CASE("openai sse_reader: reads into an llmjson::sink, no byte after the end") {
  llmjson::openai::sse_reader reader;
  std::string got;
  auto append = [&](std::string_view piece) noexcept { got += piece; };
#if LLMJSON_HAS_STOP_TOKEN
  const llmjson::sink out(append);
#else
  auto& out = append;
#endif
  CHECK(reader.read(chunk_event({{"content", "{}"}}), out));
  CHECK_FALSE(reader.over());
  CHECK_FALSE(reader.read("data: [DONE]\r\r", out));
  CHECK(reader.done());
  CHECK_FALSE(reader.read(chunk_event({{"content", "late"}}), out));
  CHECK(got == "{}");
  CHECK(reader.result() == completion(message{}));
}

}  // namespace

}  // namespace llmjson_tests::openai_test
