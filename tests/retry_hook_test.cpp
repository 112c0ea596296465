// llmjson: tests of retry.hpp: next_request hooks: what they build, and every shape of one
// SPDX-License-Identifier: MIT
#include <llmjson/retry.hpp>

#include "catch_compat.hpp"
#include "retry_fixtures.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace llmjson_tests::retry_fixtures;  // the scripted adapters every case uses

TEST_CASE("the retry hook builds the next request, and the caller's request is untouched",
          "[retry]") {
  script s;
  s.replies = {msg(two_plans), msg(truncated_plan, "length"), msg(good_plan)};
  std::vector<std::size_t> hook_saw;
  auto feedback = [&](const std::string& previous, const llmjson::attempt& failed) {
    hook_saw.push_back(failed.number);
    return previous + "\n[attempt " + std::to_string(failed.number) + ": " +
           std::string(llmjson::to_string(failed.outcome)) + "]";
  };
  const std::string prompt = "plan";
  llmjson::retrying model(replay(s), {.max_attempts = 3}, feedback);
  auto r = model.extract<plan>(prompt);
  REQUIRE(r);
  CHECK(prompt == "plan");
  CHECK(hook_saw == std::vector<std::size_t>{1, 2});
  REQUIRE(s.seen.size() == 3);
  CHECK(s.seen[0] == "plan");
  CHECK(s.seen[1] == "plan\n[attempt 1: ambiguous]");
  CHECK(s.seen[2] == "plan\n[attempt 1: ambiguous]\n[attempt 2: truncated]");
}

namespace {
struct chat_request {
  std::vector<std::string> messages;
  int max_tokens = 100;
};
}  // namespace

TEST_CASE("a hook may raise max_tokens after a length cut, or decline to retry", "[retry]") {
  std::vector<int> budgets;
  auto adapter = [&](const chat_request& req) -> llmjson::completion {
    budgets.push_back(req.max_tokens);
    return llmjson::message{req.max_tokens < 1000 ? "" : good_plan,
                            req.max_tokens < 1000 ? "length" : "stop", "assistant"};
  };
  const chat_request request{{"plan"}, 100};
  SECTION("raise the budget") {
    auto raise = [](const chat_request& previous, const llmjson::attempt& failed) {
      chat_request next = previous;
      if (failed.empty_at_length()) next.max_tokens *= 10;
      return next;
    };
    auto r = llmjson::retrying(adapter, {.max_attempts = 3}, raise).extract<plan>(request);
    REQUIRE(r);
    CHECK(budgets == std::vector<int>{100, 1000});
    CHECK(request.max_tokens == 100);
  }
  SECTION("decline") {
    auto decline = [](const chat_request& previous,
                      const llmjson::attempt& failed) -> std::optional<chat_request> {
      if (failed.empty_at_length()) return std::nullopt;
      return previous;
    };
    auto r = llmjson::retrying(adapter, {.max_attempts = 3}, decline).extract<plan>(request);
    REQUIRE_FALSE(r);
    CHECK(budgets == std::vector<int>{100});
    CHECK(r.error().message.find("(not retried: the next_request hook returned no request)") !=
          std::string::npos);
  }
}

TEST_CASE(
    "a hook or a callback that throws: the exception reaches the caller, the wrapper stays usable",
    "[retry]") {
  std::string prompt = "p";
  SECTION("the hook") {
    script s;
    s.replies = {msg(""), msg("ok"), msg("ok")};
    auto hook = [](const std::string&, const llmjson::attempt&) -> std::string {
      throw std::runtime_error("hook");
    };
    llmjson::retrying model(replay(s), {}, hook);
    REQUIRE_THROWS_AS((void)model.complete(prompt), std::runtime_error);
    CHECK(s.calls == 1);
    auto r = model.complete(prompt);
    REQUIRE(r);
    CHECK(s.calls == 2);
  }
  SECTION("on_attempt, on a successful attempt") {
    script s;
    s.replies = {msg("ok"), msg("again")};
    int seen = 0;
    llmjson::retry_options opts;
    opts.on_attempt = [&](const llmjson::attempt&) {
      if (++seen == 1) throw std::runtime_error("callback");
    };
    llmjson::retrying model(replay(s), opts);
    // As thrown, not nested: the callback saw every attempt.
    bool caught = false;
    try {
      (void)model.complete(prompt);
    } catch (const std::runtime_error& e) {
      caught = true;
      CHECK(std::string(e.what()) == "callback");
      CHECK(dynamic_cast<const llmjson::attempts_record*>(&e) == nullptr);
    }
    CHECK(caught);
    CHECK(s.calls == 1);
    auto r = model.complete(prompt);
    REQUIRE(r);
    CHECK(r->content == "again");
    CHECK(seen == 2);
  }
}

// Every shape of next_request hook, over five attempts: the request each one builds must reach
// the adapter whole, even when the hook hands back a reference into the request it was given.
// Run under AddressSanitizer by .ci/run; the long requests live on the heap, so a copy from a
// destroyed one is a heap-use-after-free there, and garbage or a crash elsewhere.
namespace {

const std::string long_prompt(120, 'p');

template <class Req, class Hook>
std::vector<std::string> requests_over_five_attempts(const Req& first, Hook hook) {
  std::vector<std::string> seen;
  auto adapter = [&](const Req& request) -> llmjson::completion {
    if constexpr (std::same_as<Req, std::string>) {
      seen.push_back(request);
    } else {
      seen.push_back(request.text());
    }
    return msg(seen.size() < 5 ? "" : "ok");
  };
  auto r = llmjson::retrying(adapter, {.max_attempts = 5}, hook).complete(first);
  CHECK(r);
  CHECK(r.attempts.size() == 5);
  return seen;
}

// A request that counts copies made from it after its destruction: the check does not need a
// sanitizer (the storage of a destroyed request in the wrapper's std::optional stays mapped).
class tracked_request {
 public:
  static inline int copies_from_dead = 0;
  explicit tracked_request(std::string text) : text_(std::move(text)) {}
  tracked_request(const tracked_request& other) : text_(copy_of(other)) {}
  tracked_request& operator=(const tracked_request& other) {
    text_ = copy_of(other);
    return *this;
  }
  ~tracked_request() { canary_ = dead; }
  [[nodiscard]] std::string text() const { return canary_ == live ? text_ : "<dead>"; }

 private:
  static constexpr unsigned live = 0x600DF00D, dead = 0xDEADBEEF;
  static std::string copy_of(const tracked_request& other) {
    if (other.canary_ == live) return other.text_;
    ++copies_from_dead;
    return "<dead>";
  }
  std::string text_;
  unsigned canary_ = live;
};

// Returns its own copy of the request, by non-const reference.
struct edits_own_copy {
  std::string mine;
  std::string& operator()(const std::string& previous, const llmjson::attempt&) {
    mine = previous + "+";
    return mine;
  }
};

}  // namespace

TEST_CASE("a hook returning the request by value: five attempts, each request whole",
          "[retry][hook]") {
  auto seen = requests_over_five_attempts(
      long_prompt, [](const std::string& previous, const llmjson::attempt& failed) {
        return previous + " " + std::to_string(failed.number);
      });
  CHECK(seen == std::vector<std::string>{long_prompt, long_prompt + " 1", long_prompt + " 1 2",
                                         long_prompt + " 1 2 3", long_prompt + " 1 2 3 4"});
}

TEST_CASE(
    "a hook returning the previous request by const reference: five attempts, the same "
    "request each time",
    "[retry][hook]") {
  auto hook = [](const std::string& previous, const llmjson::attempt&) -> const std::string& {
    return previous;
  };
  auto seen = requests_over_five_attempts(long_prompt, hook);
  CHECK(seen == std::vector<std::string>(5, long_prompt));

  SECTION("a request that would notice a copy made from it after its destruction") {
    tracked_request::copies_from_dead = 0;
    auto same = [](const tracked_request& previous,
                   const llmjson::attempt&) -> const tracked_request& { return previous; };
    auto tracked = requests_over_five_attempts(tracked_request(long_prompt), same);
    CHECK(tracked_request::copies_from_dead == 0);
    CHECK(tracked == std::vector<std::string>(5, long_prompt));
  }
}

TEST_CASE("a hook returning a request by non-const reference: five attempts, each request whole",
          "[retry][hook]") {
  SECTION("a reference into the previous request") {
    auto hook = [](const std::string& previous, const llmjson::attempt&) -> std::string& {
      return const_cast<std::string&>(previous);  // NOLINT: returned, never written
    };
    CHECK(requests_over_five_attempts(long_prompt, hook) ==
          std::vector<std::string>(5, long_prompt));
    tracked_request::copies_from_dead = 0;
    auto tracked_hook = [](const tracked_request& previous,
                           const llmjson::attempt&) -> tracked_request& {
      return const_cast<tracked_request&>(previous);  // NOLINT: returned, never written
    };
    CHECK(requests_over_five_attempts(tracked_request(long_prompt), tracked_hook) ==
          std::vector<std::string>(5, long_prompt));
    CHECK(tracked_request::copies_from_dead == 0);
  }
  SECTION("a reference to the hook's own copy") {
    CHECK(requests_over_five_attempts(long_prompt, edits_own_copy{}) ==
          std::vector<std::string>{long_prompt, long_prompt + "+", long_prompt + "++",
                                   long_prompt + "+++", long_prompt + "++++"});
  }
}

TEST_CASE("a hook returning std::optional of the request: five attempts, each request whole",
          "[retry][hook]") {
  auto seen = requests_over_five_attempts(
      long_prompt,
      [](const std::string& previous, const llmjson::attempt&) -> std::optional<std::string> {
        return previous + "?";
      });
  CHECK(seen == std::vector<std::string>{long_prompt, long_prompt + "?", long_prompt + "??",
                                         long_prompt + "???", long_prompt + "????"});
  tracked_request::copies_from_dead = 0;
  auto tracked = requests_over_five_attempts(
      tracked_request(long_prompt),
      [](const tracked_request& previous,
         const llmjson::attempt&) -> std::optional<tracked_request> { return previous; });
  CHECK(tracked_request::copies_from_dead == 0);
  CHECK(tracked == std::vector<std::string>(5, long_prompt));
}
