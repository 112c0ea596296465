// llmjson: what the retry tests (retry_*_test.cpp) share: a plan to extract, scripted fake
// adapters, and the replies they replay
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_RETRY_FIXTURES_HPP_INCLUDED
#define LLMJSON_TESTS_RETRY_FIXTURES_HPP_INCLUDED

#include <cstddef>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/retry.hpp>

namespace llmjson_tests::retry_fixtures {

using llmjson::attempt_outcome;
using llmjson::retry_error_kind;

struct plan {
  std::vector<std::string> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, steps)

struct network_down : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An adapter's exception type that carries the record: the wrapper fills it in and rethrows it.
struct network_error : std::runtime_error, llmjson::attempts_record {
  using std::runtime_error::runtime_error;
};

// Runs `call`; returns a copy of the llmjson::attempt_exception it throws, if it throws one.
template <class Call>
std::optional<llmjson::attempt_exception> attempt_exception_of(Call call) {
  try {
    call();
  } catch (const llmjson::attempt_exception& e) {
    return e;
  }
  return std::nullopt;
}

// What the fake adapter replays, and what it saw.
struct script {
  std::deque<llmjson::completion> replies;  // replayed in order, one per call
  std::size_t throw_at = 0;                 // the call (1-based) that throws network_down; 0: none
  bool recorded = false;                    // throw network_error instead
  std::vector<std::string> seen;            // every request received, in order
  std::size_t calls = 0;
};

// A fake adapter: replays the script's queue and counts calls.
inline auto replay(script& s) {
  return [&s](const std::string& request) -> llmjson::completion {
    s.seen.push_back(request);
    ++s.calls;
    if (s.calls == s.throw_at && s.recorded) throw network_error("connection reset by peer");
    if (s.calls == s.throw_at) throw network_down("connection reset by peer");
    if (s.replies.empty())
      throw std::logic_error("the script has no reply left: one call too many");
    llmjson::completion c = std::move(s.replies.front());
    s.replies.pop_front();
    return c;
  };
}

inline llmjson::message msg(std::string content, std::string finish = "stop") {
  return llmjson::message{std::move(content), std::move(finish), "assistant"};
}

inline const std::string good_plan =
    "Here is the plan:\n```json\n{\"steps\": [\"boil\", \"pour\"]}\n```\n";
inline const std::string truncated_plan = "Here is the plan:\n```json\n{\"steps\": [\"boil\", \"po";
inline const std::string two_plans =
    "Draft: {\"steps\": [\"boil\"]}\nFinal: {\"steps\": [\"boil\", \"pour\"]}\n";

}  // namespace llmjson_tests::retry_fixtures

#endif  // LLMJSON_TESTS_RETRY_FIXTURES_HPP_INCLUDED
