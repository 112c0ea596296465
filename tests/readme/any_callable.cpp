// llmjson: the README's any-callable example, a fragment: `text` declared, the result checked
// SPDX-License-Identifier: MIT
#include <string>

#include <llmjson/llmjson.hpp>

int main() {
  // Two objects of version 4: policy last takes the second.
  const std::string text =
      "v3: {\"version\": 3}\nv4: {\"version\": 4, \"n\": 1}\nfixed: {\"version\": 4, \"n\": 2}\n";
  {
#include "any_callable.inc"
    return r && r->json()["n"] == 2 ? 0 : 1;
  }
}
