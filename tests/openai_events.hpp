// llmjson: chunk_event, one chat.completion.chunk Server-Sent Event, for the tests of
// llmjson::openai (tests/openai_test.cpp) and of the libcurl example (examples/openai)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_OPENAI_EVENTS_HPP_INCLUDED
#define LLMJSON_TESTS_OPENAI_EVENTS_HPP_INCLUDED

#include <string>

#include <nlohmann/json.hpp>

/// Returns the event of one chat.completion.chunk whose first choice has `delta` and
/// `finish_reason`, and the empty line that ends it, each line ended by `eol`.
inline std::string chunk_event(const nlohmann::json& delta, const nlohmann::json& finish = nullptr,
                               const std::string& eol = "\n") {
  const nlohmann::json chunk = {
      {"id", "chatcmpl-1"},
      {"object", "chat.completion.chunk"},
      {"choices",
       nlohmann::json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
  return "data: " + chunk.dump() + eol + eol;
}

#endif  // LLMJSON_TESTS_OPENAI_EVENTS_HPP_INCLUDED
