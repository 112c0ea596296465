// llmjson example test: the libcurl adapter and retrying() against a scripted local HTTP server
// SPDX-License-Identifier: MIT
//
// Each case starts fake_openai.py (127.0.0.1, an ephemeral port) with a list of scripted
// responses, runs the adapter through llmjson::retrying, then checks both what came back and what
// reached the server: one POST per attempt, the model, the messages; for a streamed response,
// how many bytes the server wrote before the client closed the connection. The reading of the
// reply alone (llmjson::openai) is tested in tests/openai_test.cpp. Paths come from CMake:
// LLMJSON_PYTHON, LLMJSON_FAKE_SERVER, LLMJSON_OPENAI_MAIN.
#include "openai_adapter.hpp"
#include "openai_events.hpp"  // tests/

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/json_text.hpp>
#include <llmjson/retry.hpp>

#if LLMJSON_HAS_STOP_TOKEN
#include <thread>
#endif

namespace {

using nlohmann::json;

int checks = 0, failures = 0;

void check(bool ok, const char* what, int line) {
  ++checks;
  if (!ok) {
    ++failures;
    std::cerr << "openai_test.cpp:" << line << ": FAILED: " << what << "\n";
  }
}
#define EXPECT(cond) check(static_cast<bool>(cond), #cond, __LINE__)

std::string sh_quote(const std::string& s) {  // for /bin/sh: '...'
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<std::string> read_line(FILE* f) {
  std::string line;
  int c = 0;
  while ((c = std::fgetc(f)) != EOF && c != '\n') line += static_cast<char>(c);
  if (c == EOF && line.empty()) return std::nullopt;
  return line;
}

// A run of fake_openai.py, serving `steps`.
class fake_server {
 public:
  explicit fake_server(const json& steps) {
    char name[] = "/tmp/llmjson-openai-script-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    close(fd);
    script_ = name;
    std::ofstream(script_) << steps.dump();
    const std::string cmd = sh_quote(LLMJSON_PYTHON) + " " + sh_quote(LLMJSON_FAKE_SERVER) + " " +
                            sh_quote(script_) + " --timeout 600";  // a hang guard: quit() ends it
    out_ = popen(cmd.c_str(), "r");
    if (!out_) throw std::runtime_error("popen failed: " + cmd);
    auto first = read_line(out_);
    if (!first) throw std::runtime_error("the fake server printed nothing");
    port_ = json::parse(*first).at("port").get<int>();
  }
  fake_server(const fake_server&) = delete;
  fake_server& operator=(const fake_server&) = delete;
  ~fake_server() {
    if (out_) (void)finish();
  }

  [[nodiscard]] std::string base_url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
  }

  // Stops the server and returns the requests it received, in order. The records of its
  // streamed responses are then in streams().
  std::vector<json> finish() {
    quit();
    std::vector<json> requests;
    while (auto line = read_line(out_)) {
      json j = json::parse(*line);
      if (j.contains("method")) requests.push_back(std::move(j));
      if (j.contains("stream")) streams_.push_back(std::move(j["stream"]));
    }
    pclose(out_);
    out_ = nullptr;
    std::filesystem::remove(script_);
    return requests;
  }

 private:
  void quit() const {
    CURL* c = curl_easy_init();
    if (!c) return;
    const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/__quit";
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(
        c, CURLOPT_WRITEFUNCTION,
        +[](char*, std::size_t s, std::size_t n, void*) { return s * n; });
    (void)curl_easy_perform(c);  // a server that already exited refuses it: fine
    curl_easy_cleanup(c);
  }

  FILE* out_ = nullptr;
  int port_ = 0;
  std::string script_;
  std::vector<json> streams_;

 public:
  // After finish(): per streamed response, {"sent", "total", "pieces_sent", "pieces",
  // "client_closed"}.
  [[nodiscard]] const std::vector<json>& streams() const noexcept { return streams_; }
};

struct plan {
  std::string goal;
  std::vector<std::string> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, goal, steps)

// A 200 /chat/completions body with one choice.
json reply(const json& content, const std::string& finish) {
  return {{"status", 200},
          {"json",
           {{"id", "chatcmpl-1"},
            {"object", "chat.completion"},
            {"model", "test-model"},
            {"choices", json::array({{{"index", 0},
                                      {"message", {{"role", "assistant"}, {"content", content}}},
                                      {"finish_reason", finish}}})}}}};
}

// The same, with the reasoning beside the content under `field` (`reasoning_content`, `reasoning`).
json reply_with_reasoning(const json& content, const std::string& field,
                          const std::string& reasoning, const std::string& finish) {
  json r = reply(content, finish);
  r["json"]["choices"][0]["message"][field] = reasoning;
  return r;
}

json api_failure(int status, const std::string& message) {
  return {{"status", status}, {"json", {{"error", {{"message", message}, {"type", "error"}}}}}};
}

const std::string preamble_then_plan =
    "The user wants a plan. Their input, as I understand it:\n"
    "```json\n{\"task\": \"make tea\", \"constraints\": [\"no sugar\"]}\n```\n"
    "Now the plan itself.\n"
    "```json\n{\"goal\": \"make tea\", \"steps\": [\"boil water\", \"steep 3 minutes\", "
    "\"pour\"]}\n```\n";
const std::string plan_json = R"({"goal": "make tea", "steps": ["boil water", "pour"]})";
const std::string truncated =
    "Here it is:\n```json\n{\"goal\": \"make tea\", \"steps\": [\"boil wa";

llmjson::openai::chat_request tea_request() {
  return {{{"system", "Answer with one JSON object."}, {"user", "Plan: make tea"}}, std::nullopt};
}

openai_example::config config_for(const fake_server& server) {
  return {server.base_url(), "test-key", "test-model", 30};
}

// What every request of these tests must look like on the wire.
void expect_tea_request(const json& r, std::optional<long> max_tokens = std::nullopt) {
  EXPECT(r["path"] == "/v1/chat/completions");
  EXPECT(r["authorization"] == "Bearer test-key");
  EXPECT(r["content_type"] == "application/json");
  const json& body = r["body"];
  EXPECT(body["model"] == "test-model");
  EXPECT(body["messages"] ==
         json::parse(R"([{"role": "system", "content": "Answer with one JSON object."},
                                              {"role": "user", "content": "Plan: make tea"}])"));
  if (max_tokens)
    EXPECT(body["max_tokens"] == *max_tokens);
  else
    EXPECT(!body.contains("max_tokens"));
}

void preamble_with_its_own_fence_then_the_plan() {
  fake_server server(json::array({reply(preamble_then_plan, "stop"), reply(plan_json, "stop")}));
  auto model = llmjson::retrying(openai_example::make_adapter(config_for(server)));
  auto r = model.extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  if (r) {
    EXPECT(r->goal == "make tea");
    EXPECT(r->steps.size() == 3);
  }
  EXPECT(requests.size() == 1);
  if (!requests.empty()) expect_tea_request(requests[0]);
  EXPECT(r.attempts.size() == 1);
  EXPECT(r.attempts[0].content == preamble_then_plan);
  EXPECT(r.attempts[0].finish_reason == "stop");
  EXPECT(r.attempts[0].role == "assistant");
}

void empty_at_length_then_the_plan() {
  fake_server server(json::array({reply(nullptr, "length"), reply(plan_json, "stop")}));
  auto model = llmjson::retrying(openai_example::make_adapter(config_for(server)));
  auto r = model.extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  for (const auto& q : requests) expect_tea_request(q);
  EXPECT(r.attempts.size() == 2);
  EXPECT(r.attempts[0].empty_at_length());
  EXPECT(r.attempts[0].content.empty());
}

void empty_at_length_with_a_hook_that_raises_max_tokens() {
  fake_server server(json::array({reply("", "length"), reply(plan_json, "stop")}));
  auto raise = [](const llmjson::openai::chat_request& previous, const llmjson::attempt& failed) {
    llmjson::openai::chat_request next = previous;
    if (failed.empty_at_length()) next.max_tokens = previous.max_tokens.value_or(1000) * 4;
    return next;
  };
  auto request = tea_request();
  request.max_tokens = 1000;
  llmjson::retrying model(openai_example::make_adapter(config_for(server)), {}, raise);
  auto r = model.extract<plan>(request);
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  if (requests.size() == 2) {
    expect_tea_request(requests[0], 1000);
    expect_tea_request(requests[1], 4000);
  }
  EXPECT(request.max_tokens == 1000);
}

void empty_at_length_twice() {
  fake_server server(
      json::array({reply(nullptr, "length"), reply("", "length"), reply(plan_json, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)))
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(!r);
  EXPECT(requests.size() == 2);
  if (!r) {
    EXPECT(r.error().kind == llmjson::retry_error_kind::parse_error);
    EXPECT(r.error().cause == llmjson::attempt_outcome::empty_content);
    EXPECT(r.error().finish_reason == "length");
    std::cout << "empty twice: " << llmjson::to_string(r.error().kind) << ": " << r.error().message
              << "\n";
  }
}

void truncated_twice() {
  fake_server server(json::array({reply(truncated, "length"), reply(truncated, "length")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)))
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(!r);
  EXPECT(requests.size() == 2);
  if (!r) {
    EXPECT(r.error().cause == llmjson::attempt_outcome::truncated);
    EXPECT(r.error().finish_reason == "length");
    EXPECT(r.error().extraction && r.error().extraction->kind == llmjson::error_kind::truncated);
    std::cout << "truncated twice: " << llmjson::to_string(r.error().kind) << ": "
              << r.error().message << "\n";
  }
}

void api_error_is_surfaced_after_one_request(int status, const std::string& message) {
  fake_server server(json::array({api_failure(status, message), reply(plan_json, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)), {.max_attempts = 3})
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(!r);
  EXPECT(requests.size() == 1);
  if (!r) {
    EXPECT(r.error().kind == llmjson::retry_error_kind::api_error);
    EXPECT(r.error().api && r.error().api->status == status);
    EXPECT(r.error().api && r.error().api->message == message);
  }
  EXPECT(r.attempts.size() == 1 && r.attempts[0].status == status);
}

void malformed_body_then_the_plan() {
  fake_server server(json::array(
      {json{{"status", 200}, {"raw", "{\"choices\": [{\"message\": "}}, reply(plan_json, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)))
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  EXPECT(r.attempts.size() == 2 && r.attempts[0].outcome == llmjson::attempt_outcome::bad_response);
  EXPECT(r.attempts.size() == 2 &&
         r.attempts[0].message.find("the body is not valid JSON: parse error") == 0);
  EXPECT(r.attempts.size() == 2 && r.attempts[0].raw == "{\"choices\": [{\"message\": ");
}

void no_choices_then_the_plan() {
  fake_server server(
      json::array({json{{"status", 200}, {"json", {{"id", "x"}, {"choices", json::array()}}}},
                   reply(plan_json, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)))
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  EXPECT(r.attempts.size() == 2 && r.attempts[0].outcome == llmjson::attempt_outcome::bad_response);
  EXPECT(r.attempts.size() == 2 &&
         r.attempts[0].message == "\"choices\" is empty: the response holds no message");
}

void dropped_connection_throws_after_one_request() {
  fake_server server(json::array({json{{"drop", true}}, reply(plan_json, "stop")}));
  std::vector<llmjson::attempt> seen;
  llmjson::retry_options opts;
  opts.max_attempts = 3;
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a); };
  auto model = llmjson::retrying(openai_example::make_adapter(config_for(server)), opts);
  bool thrown = false;
  try {
    (void)model.extract<plan>(tea_request());
  } catch (const openai_example::transport_error& e) {
    thrown = true;
    EXPECT(e.code() == CURLE_GOT_NOTHING);
    // An llmjson::attempts_record: the wrapper filled in the record and threw it as it was.
    EXPECT(e.attempts().size() == 1 &&
           e.attempts()[0].outcome == llmjson::attempt_outcome::exception);
  }
  auto requests = server.finish();
  EXPECT(thrown);
  EXPECT(requests.size() == 1);
  EXPECT(seen.size() == 1 && seen[0].outcome == llmjson::attempt_outcome::exception);
}

// DeepSeek's field: the reasoning, with a draft in it, beside the answer. The draft is never taken.
void reasoning_content_is_kept_apart() {
  const std::string reasoning = "The user wants tea. Draft: {\"goal\": \"coffee\", \"steps\": []}";
  fake_server server(
      json::array({reply_with_reasoning(plan_json, "reasoning_content", reasoning, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)))
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  if (r) EXPECT(r->goal == "make tea");
  EXPECT(requests.size() == 1);
  EXPECT(r.attempts.size() == 1);
  if (!r.attempts.empty()) {
    EXPECT(r.attempts[0].reasoning == reasoning);
    EXPECT(r.attempts[0].content == plan_json);
  }
}

// OpenRouter's field: all the budget went to reasoning, the content is empty, at `length`.
void reasoning_at_length_is_declined() {
  const std::string reasoning = "Let me think about tea. First, the water";
  fake_server server(json::array(
      {reply_with_reasoning(nullptr, "reasoning", reasoning, "length"), reply(plan_json, "stop")}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)),
                             {.max_attempts = 3, .retry_reasoning_at_length = false})
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(!r);
  EXPECT(requests.size() == 1);
  EXPECT(r.attempts.size() == 1);
  if (!r.attempts.empty()) {
    const auto& a = r.attempts[0];
    EXPECT(a.outcome == llmjson::attempt_outcome::empty_content);
    EXPECT(a.reasoning == reasoning);
    EXPECT(a.reasoning_at_length());
    EXPECT(a.message.find("after 40 bytes of reasoning: the token budget went to reasoning") !=
           std::string::npos);
  }
  if (!r)
    EXPECT(r.error().message.find("(not retried: retry_reasoning_at_length is off)") !=
           std::string::npos);
}

#if LLMJSON_HAS_STOP_TOKEN
void stop_requested_before_the_call_sends_nothing() {
  fake_server server(json::array({reply(plan_json, "stop")}));
  std::stop_source source;
  source.request_stop();
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)),
                             {.stop = source.get_token()})
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(!r && r.error().kind == llmjson::retry_error_kind::cancelled);
  EXPECT(requests.empty());
}
#endif

// What the example program did: its exit status (pclose's) and what it wrote to the pipe.
struct program_run {
  int status = -1;
  std::string out;
  [[nodiscard]] bool exited_with(int code) const {
    return WIFEXITED(status) && WEXITSTATUS(status) == code;
  }
};

// Runs the example program against `server` with `args` (shell words, redirections included);
// std::nullopt when it could not be started.
std::optional<program_run> run_example(const fake_server& server, const std::string& args) {
  const std::string cmd = "OPENAI_BASE_URL=" + sh_quote(server.base_url()) +
                          " OPENAI_API_KEY=test-key LLMJSON_MODEL=test-model " +
                          sh_quote(LLMJSON_OPENAI_MAIN) + " " + args;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  program_run r;
  while (auto line = read_line(p)) r.out += *line + "\n";
  r.status = pclose(p);
  return r;
}

void the_example_program() {
  fake_server server(json::array({reply(preamble_then_plan, "stop")}));
  const auto run = run_example(server, "--keys goal Plan: make tea");
  auto requests = server.finish();
  EXPECT(run && run->exited_with(0));
  if (!run) return;
  const std::string& out = run->out;
  // The answer as the model wrote it, laid out by llmjson::pretty: not nlohmann's re-serialization.
  EXPECT(out == llmjson::pretty(
                    R"({"goal": "make tea", "steps": ["boil water", "steep 3 minutes", "pour"]})") +
                    "\n");
  EXPECT(requests.size() == 1);
  if (!requests.empty()) {
    EXPECT(requests[0]["body"]["model"] == "test-model");
    EXPECT(requests[0]["body"]["messages"] ==
           json::parse(R"([{"role": "user", "content": "Plan: make tea"}])"));
  }
}

// The example program prints each call's usage on its attempt line, and the total.
void the_example_program_reports_usage() {
  json first = reply("No JSON, sorry.", "stop");
  first["usage"] = {{"prompt_tokens", 12},
                    {"completion_tokens", 80},
                    {"completion_tokens_details", {{"reasoning_tokens", 64}}}};
  json second = reply(plan_json, "stop");
  second["usage"] = {{"prompt_tokens", 12}, {"completion_tokens", 20}};
  fake_server server(json::array({first, second}));
  const auto run = run_example(server, "Plan: make tea 2>&1 >/dev/null");
  server.finish();
  EXPECT(run && run->exited_with(0));
  if (!run) return;
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; (end = run->out.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(run->out.substr(at, end - at));
  EXPECT(lines.size() == 3);
  if (lines.size() != 3) return;
  EXPECT(lines[0].find(", 12 prompt + 80 completion tokens (64 reasoning): ") != std::string::npos);
  EXPECT(lines[1].find(" ms, 12 prompt + 20 completion tokens") != std::string::npos);
  EXPECT(lines[2] ==
         "usage: 2 calls, 124 tokens: 24 prompt + 100 completion tokens (64 reasoning)");
}

// The usage the server reports reaches each attempt, and the total counts the failed attempts and
// the call whose usage could not be read.
void usage_per_attempt_and_in_total() {
  const json used1 = {{"prompt_tokens", 31},
                      {"completion_tokens", 120},
                      {"total_tokens", 151},
                      {"completion_tokens_details", {{"reasoning_tokens", 100}}}};
  const json used3 = {{"prompt_tokens", 31}, {"completion_tokens", 40}, {"total_tokens", 71}};
  json first = reply("I would rather not answer in JSON.", "stop");
  first["usage"] = used1;
  json second = reply(truncated, "length");
  second["usage"] = {{"prompt_tokens", "31"}, {"completion_tokens", 12}};  // malformed
  json third = reply(plan_json, "stop");
  third["usage"] = used3;
  fake_server server(json::array({first, second, third}));
  auto r = llmjson::retrying(openai_example::make_adapter(config_for(server)), {.max_attempts = 3})
               .extract<plan>(tea_request());
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 3);
  for (const auto& q : requests) EXPECT(!q["body"].contains("stream_options"));
  EXPECT(r.attempts.size() == 3);
  if (r.attempts.size() != 3) return;
  EXPECT(r.attempts[0].usage == (llmjson::usage{31, 120, 100}));
  EXPECT(!r.attempts[1].usage);
  EXPECT(r.attempts[2].usage == (llmjson::usage{31, 40, 0}));
  const llmjson::usage_total t = r.total_usage();
  EXPECT(t.tokens == (llmjson::usage{62, 160, 100}));
  EXPECT(t.tokens.total_tokens() == 222);
  EXPECT(t.reported == 2);
  EXPECT(t.unreported == 1);
  EXPECT(!t.exact());
}

// The program's retry tells the model what was wrong: the second request carries the failed
// reply and the instruction (llmjson::reask).
void the_example_program_reasks() {
  const std::string single_quoted = "{'goal': 'make tea', 'steps': ['boil water', 'pour']}";
  fake_server server(json::array({reply(single_quoted, "stop"), reply(plan_json, "stop")}));
  const auto run = run_example(server, "--keys goal Plan: make tea 2>/dev/null");
  auto requests = server.finish();
  EXPECT(run && run->exited_with(0));
  if (!run) return;
  const std::string& out = run->out;
  EXPECT(out == llmjson::pretty(plan_json) + "\n");
  EXPECT(requests.size() == 2);
  if (requests.size() == 2) {
    const json& messages = requests[1]["body"]["messages"];
    EXPECT(messages.size() == 3);
    if (messages.size() == 3) {
      EXPECT(messages[0] == json::parse(R"({"role": "user", "content": "Plan: make tea"})"));
      EXPECT(messages[1] == json({{"role", "assistant"}, {"content", single_quoted}}));
      EXPECT(messages[2]["role"] == "user");
      EXPECT(messages[2]["content"] ==
             "Your reply is not valid JSON: line 1 col 1: single quotes are not JSON strings (use "
             "double quotes). Reply with the corrected JSON only.");
    }
  }
}

// --plan: the request carries the schema llmjson::schema_of derives from the program's `plan`
// type (OpenAI's strict subset); a reply the strict decoding refuses (2.5 minutes) is asked again.
void the_example_program_with_a_plan() {
  const std::string bad = R"({"goal": "tea", "steps": [{"action": "boil", "minutes": 2.5}],
                              "caveat": null})";
  const std::string good = R"({"goal": "tea", "steps": [{"action": "boil", "minutes": 3}],
                               "caveat": null})";
  fake_server server(json::array({reply(bad, "stop"), reply(good, "stop")}));
  const auto run = run_example(server, "--plan Plan: make tea 2>/dev/null");
  auto requests = server.finish();
  EXPECT(run && run->exited_with(0));
  if (!run) return;
  const std::string& out = run->out;
  EXPECT(json::parse(out, nullptr, false) == json::parse(good));
  EXPECT(requests.size() == 2);
  const json expected = json::parse(R"({"type": "json_schema", "json_schema": {
    "name": "plan", "strict": true, "schema": {
      "type": "object",
      "properties": {
        "goal": {"type": "string", "description": "the goal, restated"},
        "steps": {"type": "array", "description": "in order", "items": {
          "type": "object",
          "properties": {
            "action": {"type": "string", "description": "what to do, in a few words"},
            "minutes": {"type": "integer", "description": "how long it takes, in minutes"}},
          "required": ["action", "minutes"],
          "additionalProperties": false}},
        "caveat": {"type": ["string", "null"], "description": "a risk worth knowing, if any"}},
      "required": ["goal", "steps", "caveat"],
      "additionalProperties": false}}})");
  for (const auto& q : requests) EXPECT(q["body"]["response_format"] == expected);
}

// ---------------------------------------------------------------------------------------------
// Streaming: the streaming adapter against the server

#if LLMJSON_HAS_STOP_TOKEN
// The events of `content` in pieces of `piece` bytes after a role chunk, then the finish chunk
// and [DONE]: one write each.
std::vector<std::string> sse_writes(const std::string& content, std::size_t piece,
                                    const std::string& finish = "stop") {
  std::vector<std::string> writes{chunk_event({{"role", "assistant"}, {"content", ""}})};
  for (std::size_t at = 0; at < content.size(); at += piece)
    writes.push_back(chunk_event({{"content", content.substr(at, piece)}}));
  writes.push_back(chunk_event(json::object(), finish));
  writes.push_back("data: [DONE]\n\n");
  return writes;
}

json streamed_reply(const std::vector<std::string>& writes, double interval = 0.02) {
  return {{"sse", writes}, {"interval", interval}};
}

std::size_t total_bytes(const std::vector<std::string>& writes) {
  std::size_t n = 0;
  for (const auto& w : writes) n += w.size();
  return n;
}

// A plan in a fence, then a long explanation that nobody needs once the plan is settled.
const std::string plan_then_explanation = [] {
  std::string s = "Here is the plan:\n```json\n" + plan_json + "\n```\n";
  for (int i = 0; i < 12; ++i)
    s += "Step " + std::to_string(i % 2 + 1) + " comes " + (i % 2 ? "last" : "first") +
         " because the water must be hot before it is poured, and the cup warm. ";
  return s;
}();

llmjson::retry_options streaming_options() {
  llmjson::retry_options opts;
  opts.extraction.start = llmjson::output_start::answer;  // the model does not reason in its text
  return opts;
}

void streaming_stops_at_the_settled_answer() {
  const auto writes = sse_writes(plan_then_explanation, 12);
  json step = streamed_reply(writes);
  step["usage"] = {{"prompt_tokens", 31}, {"completion_tokens", 250}};  // never sent: closed before
  fake_server server(json::array({step}));
  auto model = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)),
                                 streaming_options());
  const auto start = std::chrono::steady_clock::now();
  auto r = model.extract(tea_request(), llmjson::any_key({"goal"}));
  const auto took = std::chrono::steady_clock::now() - start;
  auto requests = server.finish();
  EXPECT(r);
  if (r) EXPECT(r->json == json::parse(plan_json));
  EXPECT(requests.size() == 1);
  if (!requests.empty()) {
    expect_tea_request(requests[0]);
    EXPECT(requests[0]["body"]["stream"] == true);
  }
  EXPECT(r.attempts.size() == 1);
  const auto& streams = server.streams();
  EXPECT(streams.size() == 1);
  if (r.attempts.empty() || streams.empty()) return;
  const llmjson::attempt& a = r.attempts[0];
  const json& sent = streams[0];
  EXPECT(a.stopped_early);
  EXPECT(a.finish_reason.empty());  // closed before the provider said why it stopped
  EXPECT(!a.usage);                 // and before it sent the usage
  EXPECT(r.total_usage() == (llmjson::usage_total{{}, 0, 1}));
  EXPECT(a.content == plan_then_explanation.substr(0, a.received));
  EXPECT(a.received < plan_then_explanation.size());
  EXPECT(sent["client_closed"] == true);
  EXPECT(sent["sent"].get<std::size_t>() < sent["total"].get<std::size_t>());
  // The writes, and the usage chunk the server would have sent before [DONE].
  EXPECT(sent["usage_chunk"] == true);
  EXPECT(sent["pieces"].get<std::size_t>() == writes.size() + 1);
  EXPECT(sent["total"].get<std::size_t>() > total_bytes(writes));
  EXPECT(sent["pieces_sent"].get<std::size_t>() < writes.size());
  // Written 20 ms apart: the whole stream would take writes.size() * 20 ms.
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  EXPECT(ms < static_cast<long long>(writes.size()) * 20);
  std::cout << "streaming, early close: the server wrote " << sent["sent"] << " of "
            << sent["total"] << " bytes (" << sent["pieces_sent"] << " of " << sent["pieces"]
            << " writes) before the client closed the connection; the client had " << a.received
            << " of " << plan_then_explanation.size() << " bytes of content, in " << ms << " ms\n";
}

// Streamed to the end: the request asks for the usage chunk, and each attempt keeps its usage.
void streaming_usage_per_attempt_and_in_total() {
  json first = streamed_reply(sse_writes("No JSON today, sorry.", 8), 0.002);
  first["usage"] = {{"prompt_tokens", 31},
                    {"completion_tokens", 9},
                    {"completion_tokens_details", {{"reasoning_tokens", 0}}}};
  json second = streamed_reply(sse_writes(plan_then_explanation, 40), 0.002);
  second["usage"] = {{"prompt_tokens", 31},
                     {"completion_tokens", 250},
                     {"completion_tokens_details", {{"reasoning_tokens", 64}}}};
  fake_server server(json::array({first, second}));
  llmjson::retry_options opts = streaming_options();
  opts.stop_early = false;
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)), opts)
               .extract(tea_request(), llmjson::any_key({"goal"}));
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  for (const auto& q : requests)
    EXPECT(q["body"]["stream_options"] == json::parse(R"({"include_usage": true})"));
  EXPECT(server.streams().size() == 2);
  for (const auto& sent : server.streams()) EXPECT(sent["usage_chunk"] == true);
  EXPECT(r.attempts.size() == 2);
  if (r.attempts.size() != 2) return;
  EXPECT(r.attempts[0].outcome == llmjson::attempt_outcome::no_json);
  EXPECT(r.attempts[0].usage == (llmjson::usage{31, 9, 0}));
  EXPECT(r.attempts[1].usage == (llmjson::usage{31, 250, 64}));
  EXPECT(r.total_usage() == (llmjson::usage_total{{62, 259, 64}, 2, 0}));
}

void streaming_to_the_end_when_asked() {
  const auto writes = sse_writes(plan_then_explanation, 24);
  fake_server server(json::array({streamed_reply(writes, 0.005)}));
  llmjson::retry_options opts = streaming_options();
  opts.stop_early = false;
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)), opts)
               .extract(tea_request(), llmjson::any_key({"goal"}));
  server.finish();
  EXPECT(r);
  EXPECT(r.attempts.size() == 1);
  EXPECT(server.streams().size() == 1);
  if (r.attempts.empty() || server.streams().empty()) return;
  EXPECT(!r.attempts[0].stopped_early);
  EXPECT(r.attempts[0].content == plan_then_explanation);
  EXPECT(r.attempts[0].finish_reason == "stop");
  EXPECT(r.attempts[0].role == "assistant");
  EXPECT(server.streams()[0]["client_closed"] == false);
  EXPECT(server.streams()[0]["sent"] == server.streams()[0]["total"]);
}

void streaming_error_mid_stream_is_an_api_error() {
  auto writes = sse_writes("Here is the plan:\n```json\n{\"goal\": ", 8);
  writes.resize(writes.size() - 2);  // no finish chunk, no [DONE]: an error instead
  writes.push_back(
      "data: {\"error\": {\"message\": \"The server is overloaded\", \"code\": 503}}\n\n");
  fake_server server(json::array({streamed_reply(writes, 0.002), reply(plan_json, "stop")}));
  llmjson::retry_options opts = streaming_options();
  opts.max_attempts = 3;
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)), opts)
               .extract(tea_request(), llmjson::any_key({"goal"}));
  auto requests = server.finish();
  EXPECT(!r);
  EXPECT(requests.size() == 1);
  if (!r) {
    EXPECT(r.error().kind == llmjson::retry_error_kind::api_error);
    EXPECT((r.error().api == llmjson::api_error{200, "The server is overloaded"}));
  }
  EXPECT(r.attempts.size() == 1 &&
         r.attempts[0].content == "Here is the plan:\n```json\n{\"goal\": ");
}

// CRLF lines, comments and keep-alives, a line split across writes, the reasoning sent apart,
// and a reply cut at length: retried, and the second one streams the plan.
void streaming_reasoning_crlf_and_a_cut() {
  std::vector<std::string> first = {
      ": keep-alive\r\n\r\n",
      chunk_event({{"role", "assistant"}, {"content", ""}}, nullptr, "\r\n"),
      chunk_event({{"reasoning_content", "The user wants tea. "}}, nullptr, "\r\n"),
      "\r\n",
      chunk_event({{"reasoning_content", "Water first."}}, nullptr, "\r\n"),
      chunk_event({{"content", "```json\n{\"goal\": \"make tea\", \"steps\": [\"bo"}}, nullptr,
                  "\r\n"),
      chunk_event(json::object(), "length", "\r\n"),
      "data: [DO",
      "NE]\r\n\r\n"};
  fake_server server(json::array({streamed_reply(first, 0.002),
                                  streamed_reply(sse_writes(plan_then_explanation, 40), 0.002)}));
  llmjson::retry_options opts = streaming_options();
  opts.stop_early = false;
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)), opts)
               .extract(tea_request(), llmjson::any_key({"goal"}));
  auto requests = server.finish();
  EXPECT(r);
  EXPECT(requests.size() == 2);
  EXPECT(r.attempts.size() == 2);
  if (r.attempts.size() != 2) return;
  const llmjson::attempt& cut = r.attempts[0];
  EXPECT(cut.outcome == llmjson::attempt_outcome::truncated);
  EXPECT(cut.finish_reason == "length");
  EXPECT(cut.reasoning == "The user wants tea. Water first.");
  EXPECT(cut.content == "```json\n{\"goal\": \"make tea\", \"steps\": [\"bo");
  EXPECT(r.attempts[1].outcome == llmjson::attempt_outcome::ok);
}

// Not a stream: an error status, and a provider that answers with one JSON body even so.
void streaming_adapter_reads_whole_bodies_too() {
  fake_server server(
      json::array({api_failure(429, "Rate limit reached"), reply(plan_json, "stop")}));
  auto model = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)),
                                 streaming_options());
  auto refused = model.extract(tea_request(), llmjson::any_key({"goal"}));
  auto whole = model.extract(tea_request(), llmjson::any_key({"goal"}));
  server.finish();
  EXPECT((!refused && refused.error().api == llmjson::api_error{429, "Rate limit reached"}));
  EXPECT(whole);
  EXPECT(whole.attempts.size() == 1);
  if (!whole.attempts.empty()) {
    EXPECT(whole.attempts[0].content == plan_json);
    EXPECT(whole.attempts[0].received == 0);
    EXPECT(whole.attempts[0].finish_reason == "stop");
  }
}

// The caller stops the call while the server is silent between two events: the progress
// callback ends the transfer, long before the next event would come.
void streaming_stop_while_nothing_comes() {
  const std::vector<std::string> writes = {chunk_event({{"role", "assistant"}, {"content", ""}}),
                                           chunk_event({{"content", "Here is the plan: "}}),
                                           chunk_event({{"content", plan_json}}),
                                           chunk_event(json::object(), "stop"), "data: [DONE]\n\n"};
  fake_server server(json::array({streamed_reply(writes, 4.0)}));
  std::stop_source source;
  std::thread user([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    source.request_stop();  // the user pressed ^C
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)),
                             streaming_options())
               .extract(tea_request(), llmjson::any_key({"goal"}), source.get_token());
  const auto took = std::chrono::steady_clock::now() - start;
  user.join();
  server.finish();
  EXPECT(!r && r.error().kind == llmjson::retry_error_kind::cancelled);
  EXPECT(r.attempts.size() == 2);
  if (r.attempts.size() == 2) {
    EXPECT(r.attempts[0].outcome == llmjson::attempt_outcome::empty_content);
    EXPECT(!r.attempts[0].stopped_early);
    EXPECT(r.attempts[0].role == "assistant");
  }
  EXPECT(took < std::chrono::milliseconds(3000));
  EXPECT(server.streams().size() == 1 && server.streams()[0]["client_closed"] == true &&
         server.streams()[0]["pieces_sent"] == 1);
}

void streaming_dropped_connection_throws() {
  fake_server server(json::array({json{{"drop", true}}, streamed_reply(sse_writes(plan_json, 8))}));
  bool thrown = false;
  try {
    (void)llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)),
                            streaming_options())
        .extract(tea_request(), llmjson::any_key({"goal"}));
  } catch (const openai_example::transport_error& e) {
    thrown = true;
    EXPECT(e.code() == CURLE_GOT_NOTHING);
  }
  auto requests = server.finish();
  EXPECT(thrown);
  EXPECT(requests.size() == 1);
}

void streaming_stop_requested_before_the_call_sends_nothing() {
  fake_server server(json::array({streamed_reply(sse_writes(plan_json, 8))}));
  std::stop_source source;
  source.request_stop();
  auto r = llmjson::retrying(openai_example::make_streaming_adapter(config_for(server)),
                             {.stop = source.get_token()})
               .extract(tea_request(), llmjson::any_key({"goal"}));
  auto requests = server.finish();
  EXPECT(!r && r.error().kind == llmjson::retry_error_kind::cancelled);
  EXPECT(requests.empty());
}

void the_example_program_streaming() {
  fake_server server(json::array({streamed_reply(sse_writes(plan_then_explanation, 12))}));
  const auto run =
      run_example(server, "--stream --starts-in answer --keys goal Plan: make tea 2>&1");
  auto requests = server.finish();
  EXPECT(run && run->exited_with(0));
  if (!run) return;
  const std::string& out = run->out;
  EXPECT(out.find("stopped early at the settled answer after ") != std::string::npos);
  const std::size_t brace = out.find('{');
  EXPECT(brace != std::string::npos &&
         json::parse(out.substr(brace), nullptr, false) == json::parse(plan_json));
  EXPECT(requests.size() == 1);
  EXPECT(server.streams().size() == 1 && server.streams()[0]["client_closed"] == true);
}
#endif

}  // namespace

int main() {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  preamble_with_its_own_fence_then_the_plan();
  empty_at_length_then_the_plan();
  empty_at_length_with_a_hook_that_raises_max_tokens();
  empty_at_length_twice();
  truncated_twice();
  api_error_is_surfaced_after_one_request(429, "Rate limit reached for requests");
  api_error_is_surfaced_after_one_request(500,
                                          "The server had an error while processing your request.");
  malformed_body_then_the_plan();
  no_choices_then_the_plan();
  dropped_connection_throws_after_one_request();
  reasoning_content_is_kept_apart();
  reasoning_at_length_is_declined();
#if LLMJSON_HAS_STOP_TOKEN
  stop_requested_before_the_call_sends_nothing();
#endif
  the_example_program();
  usage_per_attempt_and_in_total();
  the_example_program_reports_usage();
  the_example_program_reasks();
  the_example_program_with_a_plan();
#if LLMJSON_HAS_STOP_TOKEN
  streaming_stops_at_the_settled_answer();
  streaming_usage_per_attempt_and_in_total();
  streaming_to_the_end_when_asked();
  streaming_error_mid_stream_is_an_api_error();
  streaming_reasoning_crlf_and_a_cut();
  streaming_adapter_reads_whole_bodies_too();
  streaming_stop_while_nothing_comes();
  streaming_dropped_connection_throws();
  streaming_stop_requested_before_the_call_sends_nothing();
  the_example_program_streaming();
#endif
  curl_global_cleanup();
  std::cout << "openai_test: " << checks << " checks, " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}
