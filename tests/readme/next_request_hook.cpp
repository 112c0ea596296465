// llmjson: the README's next-request hook, a fragment: `chat_request` and `adapter` declared (the
// model answers once its budget is 4000 tokens), the calls checked
// SPDX-License-Identifier: MIT
#include <string>
#include <vector>

#include <llmjson/llmjson.hpp>

namespace {
struct chat_request {
  std::string prompt;
  int max_tokens = 1000;
};
}  // namespace

int main() {
  std::vector<int> budgets;
  auto adapter = [&](const chat_request& request) -> llmjson::completion {
    budgets.push_back(request.max_tokens);
    if (request.max_tokens < 4000) return llmjson::message{.finish_reason = "length"};
    return llmjson::message{.content = R"({"steps": ["boil"]})", .finish_reason = "stop"};
  };
  {
#include "next_request_hook.inc"
    const chat_request request{"Plan tea", 1000};
    auto r = model.extract(request);
    if (!r || request.max_tokens != 1000) return 1;
  }
  return budgets == std::vector<int>{1000, 4000} ? 0 : 1;
}
