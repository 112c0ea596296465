// llmjson: tests of retry.hpp: exceptions of adapters, hooks and selectors, nested with the record
// SPDX-License-Identifier: MIT
#include <llmjson/retry.hpp>

#include "catch_compat.hpp"
#include "retry_fixtures.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
