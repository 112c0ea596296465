// llmjson: tests of retry.hpp: attempts interrupted: exceptions, stop tokens
// SPDX-License-Identifier: MIT
#include <llmjson/retry.hpp>

#include "catch_compat.hpp"
#include "retry_fixtures.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmjson_tests::retry_interrupt_test {

using namespace llmjson_tests::retry_fixtures;  // the scripted adapters every case uses

TEST_CASE("an adapter that throws: one call, recorded, the exception nested with the record",
          "[retry]") {
  script s;
  s.throw_at = 1;
  s.replies = {msg("never")};
  std::vector<llmjson::attempt> seen;
  llmjson::retry_options opts;
  opts.max_attempts = 3;
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a); };
  llmjson::retrying model(replay(s), opts);
  std::string prompt = "p";
  auto e = attempt_exception_of([&] { (void)model.complete(prompt); });
  REQUIRE(e);
  CHECK(s.calls == 1);
  CHECK_THROWS_AS(e->rethrow_nested(), network_down);
  CHECK_THROWS_WITH(e->rethrow_nested(), "connection reset by peer");
  CHECK(std::string(e->what()) ==
        "attempt 1 threw, not retried [1: exception]: the adapter or selector threw: connection "
        "reset by peer");
  REQUIRE(e->attempts().size() == 1);
  CHECK(e->attempts()[0].outcome == attempt_outcome::exception);
  CHECK(e->attempts()[0].raw == "connection reset by peer");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].outcome == attempt_outcome::exception);
  CHECK(seen[0].message == "the adapter or selector threw: connection reset by peer");
  CHECK(seen[0].content.empty());

  SECTION("and the wrapper is usable afterwards") {
    auto r = model.complete(prompt);
    REQUIRE(r);
    CHECK(r->content == "never");
    CHECK(s.calls == 2);
    CHECK(r.attempts.size() == 1);
  }
}

TEST_CASE("no JSON, then the adapter throws: both attempts reach the caller, not retried",
          "[retry]") {
  script s;
  s.throw_at = 2;
  s.replies = {msg("I could not find a plan.")};
  llmjson::retry_options opts;
  opts.max_attempts = 5;  // no on_attempt: the exception alone keeps the first reply
  std::string prompt = "p";
  auto check_attempts = [&](const std::vector<llmjson::attempt>& as) {
    CHECK(s.calls == 2);
    REQUIRE(as.size() == 2);
    CHECK(as[0].number == 1);
    CHECK(as[0].outcome == attempt_outcome::no_json);
    CHECK(as[0].content == "I could not find a plan.");
    CHECK(as[1].number == 2);
    CHECK(as[1].outcome == attempt_outcome::exception);
    CHECK(as[1].raw == "connection reset by peer");
  };

  SECTION("an exception type of the caller's: nested in an attempt_exception") {
    auto e = attempt_exception_of(
        [&] { (void)llmjson::retrying(replay(s), opts).extract<plan>(prompt); });
    REQUIRE(e);
    check_attempts(e->attempts());
    CHECK(std::string(e->what()) ==
          "attempt 2 threw, not retried [1: no_json, finish_reason \"stop\"; 2: exception]: the "
          "adapter or selector threw: connection reset by peer");
    // std::rethrow_if_nested gives the caller's exception back, to the caller's own handlers.
    bool caught = false;
    try {
      std::rethrow_if_nested(*e);
    } catch (const network_down& down) {
      caught = true;
      CHECK(std::string(down.what()) == "connection reset by peer");
    }
    CHECK(caught);
  }
  SECTION("a type of the caller's that is an attempts_record: the same exception, filled in") {
    s.recorded = true;
    bool caught = false;
    try {
      (void)llmjson::retrying(replay(s), opts).extract<plan>(prompt);
    } catch (const network_error& e) {  // the caller's own type, caught as before
      caught = true;
      CHECK(std::string(e.what()) == "connection reset by peer");
      check_attempts(e.attempts());
    }
    CHECK(caught);
  }
  SECTION("either way, catch (const llmjson::attempts_record&) has the record") {
    for (bool recorded : {false, true}) {
      s.calls = 0;
      s.replies = {msg("I could not find a plan.")};
      s.recorded = recorded;
      bool caught = false;
      try {
        (void)llmjson::retrying(replay(s), opts).extract<plan>(prompt);
      } catch (const llmjson::attempts_record& r) {
        caught = true;
        check_attempts(r.attempts());
      }
      CHECK(caught);
    }
  }
}

TEST_CASE("the adapters README's exception handlers: a type of yours, and any other",
          "[retry][readme]") {
  for (bool yours : {true, false}) {
    std::ostringstream out;
    int calls = 0;
    bool nested_out = false;
    try {
      auto model = llmjson::retrying([&, yours](const std::string&) -> llmjson::completion {
        if (++calls == 1) return msg("Let me think about it.");
        if (yours) throw network_error("connection reset by peer");
        throw network_down("connection reset by peer");
      });
      const std::string prompt = "Plan tea";
      // The README's block.
      try {
        if (auto r = model.extract<plan>(prompt)) out << r->steps.size() << " steps\n";
      } catch (const network_error& e) {  // caught as before, with the record
        for (const llmjson::attempt& a : e.attempts()) out << a.number << ": " << a.content << "\n";
      } catch (const llmjson::attempt_exception& e) {  // any other exception, nested
        for (const llmjson::attempt& a : e.attempts()) out << a.number << ": " << a.content << "\n";
        e.rethrow_nested();  // to your own handlers
      }
    } catch (const network_down&) {
      nested_out = true;
    }
    CHECK(calls == 2);
    CHECK(nested_out == !yours);
    CHECK(out.str() == "1: Let me think about it.\n2: \n");
  }
}

TEST_CASE("an exception not derived from std::exception is nested too", "[retry]") {
  int calls = 0;
  auto adapter = [&](const std::string&) -> llmjson::completion {
    ++calls;
    throw 42;
  };
  std::string prompt = "p";
  auto e = attempt_exception_of([&] { (void)llmjson::retrying(adapter).complete(prompt); });
  REQUIRE(e);
  CHECK(calls == 1);
  CHECK_THROWS_AS(e->rethrow_nested(), int);
  REQUIRE(e->attempts().size() == 1);
  CHECK(e->attempts()[0].message ==
        "the adapter or selector threw an exception not derived from std::exception");
}

TEST_CASE(
    "an attempts_record already filled in, from an inner retrying call, is nested, not "
    "overwritten",
    "[retry]") {
  script s;
  s.throw_at = 1;
  s.recorded = true;
  auto inner = llmjson::retrying(replay(s));
  int outer_calls = 0;
  auto outer = llmjson::retrying([&](const std::string& request) -> llmjson::completion {
    ++outer_calls;
    return inner.complete(request).value();
  });
  std::string prompt = "p";
  auto e = attempt_exception_of([&] { (void)outer.complete(prompt); });
  REQUIRE(e);
  CHECK(outer_calls == 1);
  REQUIRE(e->attempts().size() == 1);
  CHECK(e->attempts()[0].raw == "connection reset by peer");
  bool caught = false;
  try {
    e->rethrow_nested();
  } catch (const network_error& down) {
    caught = true;
    CHECK(down.attempts().size() == 1);  // the inner call's record
  }
  CHECK(caught);
}

TEST_CASE("an on_attempt that throws while an adapter's exception passes: the adapter's wins",
          "[retry]") {
  script s;
  s.throw_at = 1;
  llmjson::retry_options opts;
  opts.on_attempt = [](const llmjson::attempt&) { throw std::runtime_error("callback"); };
  std::string prompt = "p";
  auto e = attempt_exception_of([&] { (void)llmjson::retrying(replay(s), opts).complete(prompt); });
  REQUIRE(e);
  CHECK_THROWS_AS(e->rethrow_nested(), network_down);
  CHECK(e->attempts().size() == 1);
  CHECK(s.calls == 1);
}

TEST_CASE("a selector that throws: nested with the record, the content of each attempt kept",
          "[retry]") {
  script s;
  s.replies = {msg("no JSON here"), msg("{\"a\": 1}"), msg("{\"a\": 2}")};
  auto selector = [](const nlohmann::json&) -> bool { throw network_down("selector"); };
  std::vector<llmjson::attempt> seen;
  llmjson::retry_options opts;
  opts.max_attempts = 3;
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a); };
  std::string prompt = "p";
  auto e = attempt_exception_of(
      [&] { (void)llmjson::retrying(replay(s), opts).extract(prompt, selector); });
  REQUIRE(e);
  CHECK_THROWS_AS(e->rethrow_nested(), network_down);
  CHECK(s.calls == 2);
  REQUIRE(e->attempts().size() == 2);
  CHECK(e->attempts()[0].content == "no JSON here");
  CHECK(e->attempts()[1].outcome == attempt_outcome::exception);
  CHECK(e->attempts()[1].content == "{\"a\": 1}");
  CHECK(e->attempts()[1].finish_reason == "stop");
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].outcome == attempt_outcome::exception);
}

#if LLMJSON_HAS_STOP_TOKEN
TEST_CASE("stop requested before the first attempt: cancelled, no call", "[retry]") {
  script s;
  s.replies = {msg("hello")};
  std::stop_source source;
  source.request_stop();
  std::string prompt = "p";
  auto r = llmjson::retrying(replay(s), {.stop = source.get_token()}).complete(prompt);
  REQUIRE_FALSE(r);
  CHECK(s.calls == 0);
  CHECK(r.calls() == 0);
  CHECK(r.error().kind == retry_error_kind::cancelled);
  CHECK(r.error().cause == attempt_outcome::cancelled);
  CHECK(r.error().message == "stop requested before attempt 1: the adapter was not called");
  REQUIRE(r.attempts.size() == 1);
  CHECK(r.attempts[0].outcome == attempt_outcome::cancelled);
  CHECK_FALSE(r.attempts[0].called());
  CHECK(r.attempts[0].duration == std::chrono::nanoseconds{0});
}

TEST_CASE("stop requested between attempts: no second call", "[retry]") {
  script s;
  s.replies = {msg(truncated_plan, "length"), msg(good_plan)};
  std::stop_source source;
  llmjson::retry_options opts;
  opts.max_attempts = 3;
  opts.stop = source.get_token();
  opts.on_attempt = [&](const llmjson::attempt&) { source.request_stop(); };  // the user pressed ^C
  std::string prompt = "p";
  auto r = llmjson::retrying(replay(s), opts).extract<plan>(prompt);
  REQUIRE_FALSE(r);
  CHECK(s.calls == 1);
  const auto& e = r.error();
  CHECK(e.kind == retry_error_kind::cancelled);
  CHECK(e.finish_reason == "length");  // from the last call made
  REQUIRE(e.extraction);               // ditto, with its candidates
  CHECK(e.extraction->kind == llmjson::error_kind::truncated);
  CHECK(e.message == "stop requested before attempt 2 (1: truncated, finish_reason \"length\")");
  REQUIRE(r.attempts.size() == 2);
  CHECK(r.attempts[0].outcome == attempt_outcome::truncated);
  CHECK(r.attempts[1].outcome == attempt_outcome::cancelled);
  CHECK(r.attempts[1].number == 2);
  CHECK(r.calls() == 1);
}

TEST_CASE("stop requested by on_attempt: the retry hook is not called for a request never sent",
          "[retry]") {
  script s;
  s.replies = {msg("", "stop"), msg(good_plan)};
  std::stop_source source;
  llmjson::retry_options opts;
  opts.stop = source.get_token();
  opts.on_attempt = [&](const llmjson::attempt&) { source.request_stop(); };
  std::size_t hook_calls = 0;
  auto hook = [&](const std::string& previous, const llmjson::attempt&) {
    ++hook_calls;
    return previous + " (again)";
  };
  std::string prompt = "p";
  auto r = llmjson::retrying(replay(s), opts, hook).complete(prompt);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == retry_error_kind::cancelled);
  CHECK(s.calls == 1);
  CHECK(hook_calls == 0);
}

TEST_CASE("an adapter that takes the stop token gets it, and a stop during a call ends the retries",
          "[retry]") {
  std::stop_source source;
  int calls = 0;
  bool token_seen = false;
  auto adapter = [&](const std::string&, std::stop_token stop) -> llmjson::completion {
    ++calls;
    token_seen = stop == source.get_token();
    source.request_stop();  // cancelled while the request was in flight
    return llmjson::message{"", "stop", "assistant"};
  };
  std::string prompt = "p";
  auto r =
      llmjson::retrying(adapter, {.max_attempts = 4, .stop = source.get_token()}).complete(prompt);
  REQUIRE_FALSE(r);
  CHECK(calls == 1);
  CHECK(token_seen);
  CHECK(r.error().kind == retry_error_kind::cancelled);
  CHECK(r.attempts.size() == 2);

  SECTION("while a reply that came back anyway is kept") {
    std::stop_source src;
    auto answers = [&](const std::string&, std::stop_token) -> llmjson::completion {
      src.request_stop();
      return llmjson::message{"done", "stop", "assistant"};
    };
    auto q = llmjson::retrying(answers, {.stop = src.get_token()}).complete(prompt);
    REQUIRE(q);
    CHECK(q->content == "done");
  }
}

#endif  // LLMJSON_HAS_STOP_TOKEN

#if LLMJSON_HAS_STOP_TOKEN
TEST_CASE("a call's own stop token stops that call, and no other", "[retry][stop]") {
  script s;
  s.replies = {msg("hello")};
  const llmjson::retrying model(replay(s));
  std::stop_source source;
  source.request_stop();
  std::string prompt = "p";
  auto stopped = model.complete(prompt, source.get_token());
  REQUIRE_FALSE(stopped);
  CHECK(stopped.error().kind == retry_error_kind::cancelled);
  CHECK(s.calls == 0);
  auto other = model.complete(prompt);  // the same wrapper, another call
  REQUIRE(other);
  CHECK(s.calls == 1);

  SECTION("through every call that takes a token") {
    CHECK(model.extract(prompt, llmjson::any_object{}, source.get_token()).error().kind ==
          retry_error_kind::cancelled);
    CHECK(model.extract(prompt, llmjson::any_object{}, llmjson::policy::last, source.get_token())
              .error()
              .kind == retry_error_kind::cancelled);
    CHECK(model.extract(prompt, source.get_token()).error().kind == retry_error_kind::cancelled);
    CHECK(model.extract<plan>(prompt, source.get_token()).error().kind ==
          retry_error_kind::cancelled);
    CHECK(model
              .extract<plan>(
                  prompt, [](const plan&) { return true; }, source.get_token())
              .error()
              .kind == retry_error_kind::cancelled);
    CHECK(s.calls == 1);
  }
}

TEST_CASE("the adapter gets one token, stopped when the wrapper's or the call's is",
          "[retry][stop]") {
  std::stop_source wrapper, call;
  std::stop_source* stop_now = nullptr;  // which one the adapter stops during its call
  std::vector<bool> possible, stopped;
  auto adapter = [&](const std::string&, std::stop_token token) -> llmjson::completion {
    possible.push_back(token.stop_possible());
    if (stop_now) stop_now->request_stop();
    stopped.push_back(token.stop_requested());
    return msg("");
  };
  std::string prompt = "p";
  SECTION("no token anywhere: none can be stopped, and every attempt is made") {
    auto r = llmjson::retrying(adapter, {.max_attempts = 2}).complete(prompt);
    CHECK(r.error().kind == retry_error_kind::parse_error);
    CHECK(possible == std::vector<bool>{false, false});
  }
  SECTION("the call's, while the wrapper has one too") {
    stop_now = &call;
    llmjson::retrying model(adapter, {.max_attempts = 3, .stop = wrapper.get_token()});
    auto r = model.complete(prompt, call.get_token());
    CHECK(r.error().kind == retry_error_kind::cancelled);
    CHECK(stopped == std::vector<bool>{true});
    CHECK_FALSE(wrapper.stop_requested());
  }
  SECTION("the wrapper's, while the call has one too") {
    stop_now = &wrapper;
    llmjson::retrying model(adapter, {.max_attempts = 3, .stop = wrapper.get_token()});
    auto r = model.complete(prompt, call.get_token());
    CHECK(r.error().kind == retry_error_kind::cancelled);
    CHECK(stopped == std::vector<bool>{true});
    CHECK_FALSE(call.stop_requested());
  }
}

TEST_CASE("two threads share one const wrapper, and one call is cancelled alone", "[retry][stop]") {
  std::atomic<bool> slow_started{false};
  std::atomic<int> calls{0};
  std::thread::id fast_on, slow_on;  // each written by one call only, read after both ended
  // Called by both threads at once, without locking: it only touches atomics.
  auto adapter = [&](const std::string& request, std::stop_token stop) -> llmjson::completion {
    calls.fetch_add(1);
    (request == "fast" ? fast_on : slow_on) = std::this_thread::get_id();
    if (request == "fast") return msg(good_plan);
    slow_started.store(true);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!stop.stop_requested() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return msg("", "stop");  // a reply came back anyway, with nothing in it
  };
  const llmjson::retrying model(adapter, {.max_attempts = 3});
  std::stop_source slow_stop;
  std::optional<llmjson::retry_result<plan>> slow;
  std::thread slow_thread(
      [&] { slow.emplace(model.extract<plan>(std::string("slow"), slow_stop.get_token())); });
  const std::thread::id slow_id = slow_thread.get_id();
  while (!slow_started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto fast = model.extract<plan>(std::string("fast"));  // while the slow call is in flight
  slow_stop.request_stop();
  slow_thread.join();
  REQUIRE(fast);
  CHECK(fast->steps.size() == 2);
  REQUIRE(slow);
  REQUIRE_FALSE(*slow);
  CHECK(slow->error().kind == retry_error_kind::cancelled);
  CHECK(slow->calls() == 1);
  CHECK(calls.load() == 2);
  // Each call ran its adapter on the thread that made the call.
  CHECK(fast_on == std::this_thread::get_id());
  CHECK(slow_on == slow_id);
}
#endif  // LLMJSON_HAS_STOP_TOKEN

}  // namespace llmjson_tests::retry_interrupt_test
