// llmjson: the README's typed decoder example, a fragment at namespace scope, called and checked
// SPDX-License-Identifier: MIT
#include <string>
#include <string_view>

#include <llmjson/llmjson.hpp>

#include "typed_decoder.inc"

int main() {
  // The draft answers another thread: the check rejects it, and the answer is unique.
  const std::string text =
      "draft: {\"thread_id\": \"thr_1\", \"decision\": \"skip\"}\n"
      "final: {\"thread_id\": \"thr_2\", \"decision\": \"reply\"}\n";
  llmjson::result<reply> r = read_reply(text, "thr_2");
  if (!r || r->decision != "reply") return 1;
  // Both rejected: a key the type does not declare, and the check's own reason.
  const std::string wrong =
      "{\"thread_id\": \"thr_2\", \"decision\": \"reply\", \"draft\": true}\n"
      "{\"thread_id\": \"thr_1\", \"decision\": \"reply\"}\n";
  llmjson::result<reply> w = read_reply(wrong, "thr_2");
  if (w || w.error().candidates.size() != 2) return 1;
  if (w.error().candidates[0].message != "unknown key \"draft\"") return 1;
  return w.error().candidates[1].message == "thread_id: expected \"thr_2\", got \"thr_1\"" ? 0 : 1;
}
