// llmjson: the README's key-set example, a fragment: `text` and `log` declared, the result checked
// SPDX-License-Identifier: MIT
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/llmjson.hpp>

namespace {
std::vector<std::string> logged;
void log(std::string_view line) { logged.emplace_back(line); }
}  // namespace

int main() {
  // Valid JSON, but none of the keys: the fallback, which the fragment logs.
  const std::string text = "Status first: {\"ok\": true}\n";
  {
#include "key_set.inc"
    if (!r || !r->fallback || r->json() != nlohmann::json{{"ok", true}}) return 1;
  }
  return logged.size() == 1 ? 0 : 1;
}
