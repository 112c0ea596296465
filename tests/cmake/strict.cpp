// llmjson: a user's program built with the strict warning set (tests/cmake/strict): it includes
// every public header and calls every entry point, so that their templates are instantiated
// SPDX-License-Identifier: MIT
#include <public_headers.hpp>  // written by tests/cmake/strict/CMakeLists.txt

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <version>

struct plan {
  std::string decision;
  int steps = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, decision, steps)

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("failed: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  const std::string text =
      "draft: {\"decision\": \"skip\"}\n"
      "```json\n{\"decision\": \"reply\", \"steps\": 2}\n```\n";

  auto any = llmjson::extract(text);
  expect(any.has_value() ? any->json().is_object() : !any.error().message.empty(), "extract(text)");
  auto keyed = llmjson::extract(text, llmjson::any_key({"steps"}), llmjson::options{});
  expect(keyed.has_value() && keyed->json()["steps"] == 2, "extract(text, any_key)");
  auto typed = llmjson::extract<plan>(text);
  expect(typed.has_value() && typed->steps == 2, "extract<plan>(text)");
  auto checked = llmjson::extract<plan>(text, [](const plan& p) { return p.steps > 0; });
  expect(checked.has_value() && checked->decision == "reply", "extract<plan>(text, check)");
  auto decoded = llmjson::extract(text, llmjson::decode<plan>{});
  expect(decoded.has_value() && decoded->chosen().line == 3, "extract(text, decode<plan>)");
  expect(llmjson::candidates(text).candidates.size() == 2, "candidates(text)");
  expect(llmjson::fences(text).size() == 1, "fences(text)");

  const llmjson::schema schema(nlohmann::json::parse(R"({
    "required": ["steps"],
    "properties": {"steps": {"type": "integer", "minimum": 1}, "decision": {"pattern": "^re"}}
  })"));
  expect(llmjson::extract(text, schema).has_value(), "extract(text, schema)");
  const llmjson::schema_result bad =
      llmjson::schema::compile(nlohmann::json::parse(R"({"$ref": "#"})"));
  expect(!bad.has_value() && !bad.error().empty(), "schema::compile");

  // A model that answers with the prompt itself, after one empty reply.
  int calls = 0;
  auto adapter = [&calls](const std::string& prompt) -> llmjson::completion {
    if (++calls % 2 == 1) return llmjson::message{};
    return llmjson::message{.content = prompt, .finish_reason = "stop"};
  };
  auto model = llmjson::retrying(adapter, {.max_attempts = 3});
  auto completed = model.complete(text);
  expect(completed.has_value() && completed.attempts.size() == 2, "retrying::complete");
  auto answered = model.extract(text, schema);
  expect(answered.has_value() && answered->json["steps"] == 2, "retrying::extract(schema)");
  auto retyped = model.extract<plan>(text);
  expect(retyped.has_value() && retyped->steps == 2, "retrying::extract<plan>");
  // reask: a chat model whose first reply is malformed, told what to fix, and a request type
  // of the caller's own through an append.
  int chats = 0;
  auto chat_model = [&chats](const std::vector<llmjson::message>& request) -> llmjson::completion {
    if (++chats == 1) return llmjson::message{.content = "{'steps': 2}", .finish_reason = "stop"};
    // Answers once the instruction came: the prompt, the failed reply, the instruction.
    return llmjson::message{.content = request.size() == 3 ? "{\"steps\": 2}" : "no"};
  };
  auto reasked = llmjson::retrying(chat_model, {}, llmjson::reask{})
                     .extract(std::vector<llmjson::message>{{.content = "Plan", .role = "user"}});
  expect(reasked.has_value() &&
             llmjson::feedback(reasked.attempts[0]).text == reasked.attempts[0].feedback,
         "retrying with reask");
  struct own_request {
    std::vector<std::string> lines;
  };
  auto own_model = [](const own_request& r) -> llmjson::completion {
    return llmjson::message{.content = r.lines.size() == 1 ? "none"
                                                           : "{\"decision\": \"x\", \"steps\": 2}"};
  };
  auto own = llmjson::retrying(own_model, {},
                               llmjson::reask([](own_request& r, const llmjson::message& m) {
                                 r.lines.push_back(m.content);
                               }))
                 .extract<plan>(own_request{{"Plan"}});
  expect(own.has_value() && own.attempts.size() == 2, "retrying with reask(append)");
  expect(!llmjson::feedback(llmjson::error{}).text.empty(), "feedback(error)");
  // The stream, fed in pieces, settles under policy first and finishes as extract() does.
  llmjson::stream streamed(llmjson::any_key({"decision"}),
                           llmjson::options{.start = llmjson::output_start::answer});
  for (std::size_t at = 0; at < text.size(); at += 5) streamed.feed(text.substr(at, 5));
  streamed.sync();
  expect(streamed.settled() != nullptr, "stream::settled");
  expect(streamed.finish().has_value(), "stream::finish");
#if LLMJSON_HAS_STOP_TOKEN
  // The stop-token form, where the standard library has std::stop_token.
  auto stoppable = [](const std::string& prompt, std::stop_token) -> llmjson::completion {
    return llmjson::message{.content = prompt, .finish_reason = "stop"};
  };
  auto cancellable = llmjson::retrying(stoppable);
  expect(cancellable.extract<plan>(text).has_value(), "retrying with a stop token");
  // The streaming form: chunks into the sink as they come.
  auto streaming = [](const std::string& prompt, const llmjson::sink& out,
                      const std::stop_token&) -> llmjson::completion {
    for (std::size_t at = 0; at < prompt.size(); at += 7)
      out(std::string_view(prompt).substr(at, 7));
    return llmjson::message{.finish_reason = "stop"};
  };
  auto streamer = llmjson::retrying(streaming);
  expect(streamer.extract(text, llmjson::any_key({"decision"})).has_value(),
         "retrying a streaming adapter");
#endif

  std::printf("%s: %d failed\n", llmjson::version_string, failures);
  return failures == 0 ? 0 : 1;
}
