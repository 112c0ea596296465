// llmjson: tests of usage (adapter.hpp) and total_usage (retry_types.hpp): the tokens each attempt
// was billed for, and the true cost of an answer
// SPDX-License-Identifier: MIT
#include <llmjson/retry.hpp>

#include "catch_compat.hpp"
#include "retry_fixtures.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmjson_tests::usage_test {

namespace {

using llmjson::attempt_outcome;
using llmjson_tests::retry_fixtures::plan;  // the typed answer of the retry tests

struct connection_reset : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A fake adapter that replays `replies` in order, one per call, and throws connection_reset at
// call `throw_at` (1-based; 0: never).
struct billed_script {
  std::deque<llmjson::completion> replies;
  std::size_t throw_at = 0;
  std::size_t calls = 0;
};

auto replay(billed_script& s) {
  return [&s](const std::string&) -> llmjson::completion {
    ++s.calls;
    if (s.calls == s.throw_at) throw connection_reset("connection reset by peer");
    if (s.replies.empty()) throw std::logic_error("the script has no reply left");
    llmjson::completion c = std::move(s.replies.front());
    s.replies.pop_front();
    return c;
  };
}

llmjson::message billed(std::string content, std::optional<llmjson::usage> u) {
  return llmjson::message{.content = std::move(content),
                          .finish_reason = "stop",
                          .role = "assistant",
                          .reasoning = "",
                          .usage = u};
}

constexpr llmjson::usage u1{.prompt_tokens = 100, .completion_tokens = 40, .reasoning_tokens = 25};
constexpr llmjson::usage u2{.prompt_tokens = 120, .completion_tokens = 30, .reasoning_tokens = 0};
constexpr llmjson::usage u3{.prompt_tokens = 7, .completion_tokens = 3, .reasoning_tokens = 1};

const std::string fenced_plan = "```json\n{\"steps\": [\"boil\", \"pour\"]}\n```";

}  // namespace

TEST_CASE("usage adds count by count, saturates instead of wrapping, totals prompt and completion",
          "[usage]") {
  static_assert((u1 + u2) == llmjson::usage{220, 70, 25});
  llmjson::usage sum = u1;
  sum += u3;
  CHECK(sum == llmjson::usage{107, 43, 26});
  CHECK(sum.total_tokens() == 150);
  CHECK(llmjson::usage{}.total_tokens() == 0);
  CHECK_FALSE(u1 == u2);

  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  llmjson::usage big{max - 1, max, 5};
  big += llmjson::usage{2, 1, 0};
  CHECK(big.prompt_tokens == max);
  CHECK(big.completion_tokens == max);
  CHECK(big.reasoning_tokens == 5);
  CHECK(big.total_tokens() == max);
  CHECK(llmjson::usage{max - 10, 10, 0}.total_tokens() == max);
  CHECK(llmjson::usage{max - 11, 10, 0}.total_tokens() == max - 1);
}

TEST_CASE("each attempt keeps its usage, and the total counts the failed attempts too",
          "[retry][usage]") {
  billed_script s;
  s.replies = {billed("no JSON here", u1),
               llmjson::bad_response{"the 200 body has no choices", "{\"usage\":{}}", u3},
               billed(fenced_plan, u2)};
  std::vector<std::optional<llmjson::usage>> seen;
  llmjson::retry_options opts{.max_attempts = 3};
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a.usage); };
  auto r = llmjson::retrying(replay(s), opts).extract<plan>(std::string("plan"));
  REQUIRE(r);
  CHECK(r->steps == std::vector<std::string>{"boil", "pour"});
  REQUIRE(r.attempts.size() == 3);
  CHECK(r.attempts[0].outcome == attempt_outcome::no_json);
  CHECK(r.attempts[0].usage == u1);
  CHECK(r.attempts[1].outcome == attempt_outcome::bad_response);
  CHECK(r.attempts[1].usage == u3);  // a body that was billed, though unreadable
  CHECK(r.attempts[2].outcome == attempt_outcome::ok);
  CHECK(r.attempts[2].usage == u2);
  CHECK(seen == std::vector<std::optional<llmjson::usage>>{u1, u3, u2});

  const llmjson::usage_total t = r.total_usage();
  CHECK(t.tokens == u1 + u3 + u2);
  CHECK(t.tokens.total_tokens() == 300);
  CHECK(t.reported == 3);
  CHECK(t.unreported == 0);
  CHECK(t.exact());
  CHECK(t == llmjson::total_usage(r.attempts));
}

TEST_CASE("complete returns the message with its usage, and on failure the total is still there",
          "[retry][usage]") {
  SECTION("the answer's message carries its usage") {
    billed_script s;
    s.replies = {billed("", u3), billed("hello", u1)};
    auto r = llmjson::retrying(replay(s)).complete(std::string("say hello"));
    REQUIRE(r);
    CHECK(r->usage == u1);
    CHECK(r.attempts[0].outcome == attempt_outcome::empty_content);
    CHECK(r.total_usage().tokens == u1 + u3);
  }
  SECTION("no answer after every attempt: what they cost") {
    billed_script s;
    s.replies = {billed("nothing", u1), billed("still nothing", u2)};
    auto r = llmjson::retrying(replay(s)).extract<plan>(std::string("plan"));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == llmjson::retry_error_kind::parse_error);
    CHECK(r.total_usage() == llmjson::usage_total{u1 + u2, 2, 0});
  }
}

TEST_CASE("calls that report no usage are counted, so the total says it is only a lower bound",
          "[retry][usage]") {
  SECTION("a message without usage") {
    billed_script s;
    s.replies = {billed("no JSON", std::nullopt), billed(fenced_plan, u2)};
    auto r = llmjson::retrying(replay(s)).extract<plan>(std::string("plan"));
    REQUIRE(r);
    CHECK_FALSE(r.attempts[0].usage.has_value());
    const llmjson::usage_total t = r.total_usage();
    CHECK(t.tokens == u2);
    CHECK(t.reported == 1);
    CHECK(t.unreported == 1);
    CHECK_FALSE(t.exact());
  }
  SECTION("an api_error carries none: unreported, and not retried") {
    billed_script s;
    s.replies = {billed("no JSON", u1), llmjson::api_error{500, "upstream failed"}};
    auto r = llmjson::retrying(replay(s)).extract<plan>(std::string("plan"));
    REQUIRE_FALSE(r);
    REQUIRE(r.attempts.size() == 2);
    CHECK_FALSE(r.attempts[1].usage.has_value());
    CHECK(r.total_usage() == llmjson::usage_total{u1, 1, 1});
  }
  SECTION("no attempt at all reports: zero tokens, not exact") {
    llmjson::attempt a;
    a.outcome = attempt_outcome::no_json;
    const llmjson::usage_total t = llmjson::total_usage({a});
    CHECK(t == llmjson::usage_total{{}, 0, 1});
    CHECK_FALSE(t.exact());
    CHECK(llmjson::total_usage({}).exact());
  }
}

#if LLMJSON_HAS_STOP_TOKEN
TEST_CASE("a cancelled attempt made no call: it counts neither as reported nor as unreported",
          "[retry][usage]") {
  billed_script s;
  s.replies = {billed("no JSON", u1)};
  std::stop_source stop;
  llmjson::retry_options opts{.max_attempts = 3};
  opts.stop = stop.get_token();
  opts.on_attempt = [&](const llmjson::attempt&) { stop.request_stop(); };
  auto r = llmjson::retrying(replay(s), opts).extract<plan>(std::string("plan"));
  REQUIRE_FALSE(r);
  REQUIRE(r.attempts.size() == 2);
  CHECK(r.attempts[1].outcome == attempt_outcome::cancelled);
  CHECK_FALSE(r.attempts[1].usage.has_value());
  CHECK(r.total_usage() == llmjson::usage_total{u1, 1, 0});
}
#endif

TEST_CASE("the attempts of an attempt_exception keep the usage of the calls before the throw",
          "[retry][usage]") {
  billed_script s;
  s.replies = {billed("no JSON", u1), billed("none either", u2)};
  s.throw_at = 3;
  auto model = llmjson::retrying(replay(s), {.max_attempts = 3});
  std::optional<llmjson::usage_total> total;
  std::vector<llmjson::attempt> attempts;
  try {
    (void)model.extract<plan>(std::string("plan"));
  } catch (const llmjson::attempt_exception& e) {
    attempts = e.attempts();
    total = llmjson::total_usage(e.attempts());
  }
  REQUIRE(total);
  REQUIRE(attempts.size() == 3);
  CHECK(attempts[0].usage == u1);
  CHECK(attempts[1].usage == u2);
  CHECK(attempts[2].outcome == attempt_outcome::exception);
  CHECK_FALSE(attempts[2].usage.has_value());
  CHECK(*total == llmjson::usage_total{u1 + u2, 2, 1});
}

#if LLMJSON_HAS_STOP_TOKEN
namespace {

// A fake streaming adapter: pushes `text` in pieces of 4 bytes, checking its token before each;
// it reports `u` only when it read the whole stream (a provider sends its usage last), and returns
// `content` as the message's content (empty: the usual streaming form).
struct streamed_call {
  std::string text;
  std::optional<llmjson::usage> u;
  std::string content;
};

auto stream_replay(std::deque<streamed_call>& calls) {
  return [&calls](const std::string&, const llmjson::sink& out,
                  const std::stop_token& stop) -> llmjson::completion {
    if (calls.empty()) throw std::logic_error("the script has no reply left");
    streamed_call c = std::move(calls.front());
    calls.pop_front();
    for (std::size_t at = 0; at < c.text.size(); at += 4) {
      if (stop.stop_requested()) return llmjson::message{.content = "", .finish_reason = ""};
      out(std::string_view(c.text).substr(at, 4));
    }
    return billed(std::move(c.content), c.u);
  };
}

}  // namespace

TEST_CASE("a streaming adapter's usage is kept per attempt and totalled",
          "[retry][usage][stream]") {
  SECTION("read to the end: the final message's usage") {
    std::deque<streamed_call> calls{{"no JSON in this one", u1, ""}, {fenced_plan, u2, ""}};
    auto r = llmjson::retrying(stream_replay(calls)).extract<plan>(std::string("plan"));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 2);
    CHECK(r.attempts[0].usage == u1);
    CHECK(r.attempts[1].usage == u2);
    CHECK_FALSE(r.attempts[1].stopped_early);
    CHECK(r.total_usage() == llmjson::usage_total{u1 + u2, 2, 0});
  }
  SECTION("stopped early, before the provider sent its usage: unreported") {
    std::string talk = "Plan: {\"steps\": [\"boil\"]} ";
    for (int i = 0; i < 20; ++i) talk += "and then some more words that nobody needs. ";
    std::deque<streamed_call> calls{{std::move(talk), u1, ""}};
    llmjson::retry_options opts{.extraction = {.start = llmjson::output_start::answer}};
    opts.extraction.policy = llmjson::policy::first;
    auto r = llmjson::retrying(stream_replay(calls), opts).extract<plan>(std::string("plan"));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 1);
    CHECK(r.attempts[0].stopped_early);
    CHECK_FALSE(r.attempts[0].usage.has_value());
    CHECK(r.total_usage() == llmjson::usage_total{{}, 0, 1});
  }
  SECTION("a returned content that is not the streamed one: a bad_response that keeps the usage") {
    std::deque<streamed_call> calls{{"streamed text", u3, "other text"}, {fenced_plan, u2, ""}};
    auto r = llmjson::retrying(stream_replay(calls)).extract<plan>(std::string("plan"));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 2);
    CHECK(r.attempts[0].outcome == attempt_outcome::bad_response);
    CHECK(r.attempts[0].usage == u3);
    CHECK(r.total_usage().tokens == u3 + u2);
  }
}
#endif

}  // namespace llmjson_tests::usage_test
