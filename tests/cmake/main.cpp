// llmjson: the user program that each tests/cmake/<way> project builds and runs
// SPDX-License-Identifier: MIT
#include <llmjson/llmjson.hpp>

#include <cstdio>
#include <string_view>

int main() {
  // An analysis object first, then the plan: the answer is the one with "orders".
  constexpr std::string_view text =
      "First, what was asked:\n"
      "```json\n{\"analysis\": \"two items, one is urgent\"}\n```\n"
      "The plan:\n"
      "```json\n{\"orders\": [{\"sku\": \"A-1\", \"qty\": 2}, {\"sku\": \"B-7\", \"qty\": 1}]}\n```\n";
  auto r = llmjson::extract(text, llmjson::any_key({"orders"}));
  if (!r.has_value()) {
    std::puts("no answer");
    return 1;
  }
  const nlohmann::json& answer = r->value();
  if (!answer.contains("orders") || answer.contains("analysis") || answer["orders"].size() != 2 ||
      answer["orders"][1]["sku"] != "B-7") {
    std::printf("wrong answer: %s\n", answer.dump().c_str());
    return 1;
  }
  std::printf("ok: %s\n", answer.dump().c_str());
  return 0;
}
