// llmjson: a program of the parent's users, built against the parent's installed package
// SPDX-License-Identifier: MIT
#include <orders.hpp>

#include <cstdio>

int main() {
  const auto orders =
      parent::orders_in("Draft: {\"risk\": 1}\n```json\n{\"orders\": [\"A-1\"]}\n```\n");
  if (!orders || *orders != nlohmann::json::array({"A-1"})) {
    std::puts("wrong answer");
    return 1;
  }
  std::printf("ok: %s\n", orders->dump().c_str());
  return 0;
}
