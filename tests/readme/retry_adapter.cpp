// llmjson: the README's adapter over an HTTP client, a fragment in a function returning int, with
// a scripted client: the first reply has no answer, the second has the plan
// SPDX-License-Identifier: MIT
#include <cstddef>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/llmjson.hpp>

namespace {

struct http_response {
  int status = 0;
  std::string body;
};

struct http_client {
  std::vector<http_response> replies;
  std::size_t calls = 0;
  http_response post(std::string_view path, const std::string& body) {
    if (path != "/v1/chat/completions" || body.find("Plan tea") == std::string::npos) return {};
    return replies.at(calls++);
  }
};

std::string chat_body(std::string_view prompt) {
  return nlohmann::json{{"messages", {{{"role", "user"}, {"content", prompt}}}}}.dump();
}

struct plan {
  std::vector<std::string> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, steps)

int ask(http_client& client, const std::string& question) {
#include "retry_adapter.inc"
  return r->steps == std::vector<std::string>{"boil", "pour"} && r.attempts.size() == 2 ? 0 : 1;
}

}  // namespace

int main() {
  http_client client;
  client.replies = {
      {200, R"({"choices": [{"message": {"content": "I will plan it.",
                "reasoning_content": "Tea: boil, then pour."}, "finish_reason": "stop"}]})"},
      {200, R"({"choices": [{"message": {"content": "{\"steps\": [\"boil\", \"pour\"]}"},
                "finish_reason": "stop"}]})"},
  };
  return ask(client, "Plan tea") == 0 && client.calls == 2 ? 0 : 1;
}
