// llmjson: stream — how long what the accessors return lives, a moved-from stream, a selector
// that throws, and a stop that is not a cut (issue 29)
// SPDX-License-Identifier: MIT
#include <llmjson/stream.hpp>

#include "catch_compat.hpp"
#include "same_result.hpp"

#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmjson_tests::stream_lifetime_test {

namespace {

/// A copy of everything a candidate shows, taken when the view was handed out.
struct snapshot {
  std::string text, info, marker, message, value;
  std::size_t offset = 0;
  bool qualifies = false, valid = false;

  static snapshot of(const llmjson::candidate& c) {
    return {std::string(c.text),
            std::string(c.info),
            std::string(c.marker),
            c.message,
            c.json ? c.json->dump() : std::string("-"),
            c.offset,
            c.qualifies,
            c.valid};
  }
  bool operator==(const snapshot&) const = default;
};

/// A view an accessor handed out, with what it showed then. `still_valid()` reads every byte of
/// it again: under AddressSanitizer a view into freed memory is a heap-use-after-free there, and
/// in any build a view whose bytes changed fails.
struct kept_view {
  std::string accessor;
  const llmjson::candidate* one = nullptr;   // settled()
  std::span<const llmjson::candidate> many;  // completed(), seen()
  std::string_view text;                     // text()
  std::vector<snapshot> then;
  std::string text_then;

  /// What `accessor` handed out (one of the three), with a copy of what it shows now.
  static kept_view of(std::string accessor, const llmjson::candidate* one,
                      std::span<const llmjson::candidate> many, std::string_view text) {
    kept_view v{std::move(accessor), one, many, text, {}, std::string(text)};
    v.then = v.shown();
    return v;
  }
  [[nodiscard]] std::vector<snapshot> shown() const {
    std::vector<snapshot> out;
    if (one) out.push_back(snapshot::of(*one));
    for (const llmjson::candidate& c : many) out.push_back(snapshot::of(c));
    return out;
  }
  [[nodiscard]] bool still_valid() const {
    return shown() == then && std::string(text) == text_then;
  }
};

using test_stream = llmjson::stream<llmjson::any_key>;

/// The message of the std::logic_error that `f` throws; "" when it throws none.
template <class F>
std::string logic_error_of(F f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

/// Every call a caller can make between two feeds, each keeping what it handed out.
struct call {
  const char* name;
  std::function<void(test_stream&, std::vector<kept_view>&)> run;
};

std::vector<call> calls() {
  // finish() or stop() after the stream ended throws std::logic_error: what was handed out
  // before stays valid all the same. Their results are dropped at once: what the accessors
  // gave must not depend on them.
  auto ending = [](auto end) {
    return [end](test_stream& s, std::vector<kept_view>&) {
      try {
        (void)end(s);
      } catch (const std::logic_error&) {  // ended already
      }
    };
  };
  return {
      {"settled",
       [](test_stream& s, std::vector<kept_view>& kept) {
         kept.push_back(kept_view::of("settled", s.settled(), {}, {}));
       }},
      {"completed",
       [](test_stream& s, std::vector<kept_view>& kept) {
         kept.push_back(kept_view::of("completed", nullptr, s.completed(), {}));
       }},
      {"seen",
       [](test_stream& s, std::vector<kept_view>& kept) {
         kept.push_back(kept_view::of("seen", nullptr, s.seen(), {}));
       }},
      {"text",
       [](test_stream& s, std::vector<kept_view>& kept) {
         kept.push_back(kept_view::of("text", nullptr, {}, s.text()));
       }},
      {"size", [](test_stream& s, std::vector<kept_view>&) { (void)s.size(); }},
      {"sync", [](test_stream& s, std::vector<kept_view>&) { s.sync(); }},
      {"finish", ending([](test_stream& s) { return s.finish(); })},
      {"stop", ending([](test_stream& s) { return s.stop(); })},
  };
}

/// A stream fed up to the point where the next call could move or free what it handed out.
struct scenario {
  const char* name;
  std::function<test_stream()> make;
};

std::vector<scenario> scenarios() {
  const llmjson::options answer{.policy = llmjson::policy::first,
                                .start = llmjson::output_start::answer};
  return {
      // The case: settled, then seen() makes 40 more candidates (the vector grows).
      {"settled, then 40 candidates to make",
       [answer] {
         test_stream s(llmjson::any_key({"b"}), answer);
         std::string text = "{\"b\": 1} then ";
         for (int k = 0; k < 40; ++k) text += "{\"c\": " + std::to_string(k) + "} ";
         s.feed(text);
         s.sync();
         return s;
       }},
      // Unread bytes whose reading grows the candidates: sync() makes them.
      {"unread candidates that sync() makes",
       [answer] {
         test_stream s(llmjson::any_key({"z"}), answer);
         s.feed("{\"a\": 1} {\"b\": 2} ");
         s.sync();
         for (int k = 0; k < 15; ++k) s.feed("{} ");  // 45 bytes: not read yet
         return s;
       }},
      // A closing marker not read yet: sync() reads the start again as reasoning and drops
      // every candidate made so far.
      {"a </think> that sync() reads",
       [] {
         test_stream s(llmjson::any_key({"a", "b", "c"}));
         s.feed("draft {\"a\": 1} more {\"b\": 2} ");
         s.sync();
         s.feed(" </think> {\"c\": 3}");  // 17 bytes: not read yet
         return s;
       }},
      // A resource limit that sync() crosses: every candidate is dropped.
      {"max_candidates crossed in sync()",
       [] {
         test_stream s(llmjson::any_key({"a"}),
                       llmjson::options{.policy = llmjson::policy::first,
                                        .start = llmjson::output_start::answer,
                                        .max_candidates = 16});
         s.feed("Plan: {\"a\": 1} then ");
         s.sync();
         for (int k = 0; k < 20; ++k) s.feed("{} ");  // 60 bytes: not read yet
         return s;
       }},
      // A value open after the settled answer.
      {"an open value after the settled answer",
       [answer] {
         test_stream s(llmjson::any_key({"b"}), answer);
         s.feed("{\"b\": 1} and {\"c\": [1, 2");
         s.sync();
         s.feed(", 3");
         return s;
       }},
  };
}

}  // namespace

TEST_CASE("stream views: every pair of calls in every order leaves the views of both valid",
          "[stream][views][lifetime]") {
  // Issue 29: settled() then seen() or completed() freed the settled candidate (the vector
  // grew); sync() freed the views of completed() and seen() (a read that makes candidates or
  // drops them). The docs promise every view until the next feed. Three calls too, so that a
  // view handed out between two others is checked after both.
  const std::vector<call> all = calls();
  for (const scenario& sc : scenarios()) {
    for (const call& first : all) {
      for (const call& second : all) {
        for (const call& third : all) {
          INFO(sc.name << ": " << first.name << ", " << second.name << ", " << third.name);
          test_stream s = sc.make();
          std::vector<kept_view> kept;
          first.run(s, kept);
          second.run(s, kept);
          third.run(s, kept);
          for (const kept_view& v : kept) {
            INFO("the view of " << v.accessor);
            CHECK(v.still_valid());
          }
        }
      }
    }
  }
}

TEST_CASE("stream views: the issue's case, settled() read after completed() and seen()",
          "[stream][views][lifetime]") {
  test_stream s(llmjson::any_key({"b"}), llmjson::options{.policy = llmjson::policy::first,
                                                          .start = llmjson::output_start::answer});
  std::string text = "{\"b\": 1} then ";
  for (int k = 0; k < 40; ++k) text += "{\"c\": " + std::to_string(k) + "} ";
  s.feed(text);
  s.sync();
  const llmjson::candidate* c = s.settled();
  REQUIRE(c != nullptr);
  const auto completed = s.completed();
  const auto seen = s.seen();
  CHECK(c->text == "{\"b\": 1}");
  CHECK(completed.size() == 41);
  CHECK(seen.size() == 41);
  CHECK(completed[0].text == "{\"b\": 1}");
  // After the next feed the stream gives new views, into the new buffer.
  s.feed(" {\"d\": 1}");
  s.sync();
  REQUIRE(s.settled() != nullptr);
  CHECK(s.settled()->text == "{\"b\": 1}");
  CHECK(s.seen().size() == 42);
}

TEST_CASE("stream views: a candidate that sync() drops stays readable with its old verdict",
          "[stream][views][lifetime]") {
  test_stream s(llmjson::any_key({"a", "c"}));
  s.feed("draft {\"a\": 1} ");
  s.sync();
  const auto before = s.seen();
  REQUIRE(before.size() == 1);
  CHECK(before[0].qualifies);
  CHECK_FALSE(before[0].in_reasoning);
  s.feed("</think> {\"c\": 3}");
  s.sync();
  // Read again from the start: the draft is reasoning now, in the new list.
  const auto after = s.seen();
  REQUIRE_FALSE(after.empty());
  CHECK(after[0].in_reasoning);
  CHECK_FALSE(after[0].qualifies);
  auto r = s.finish();
  REQUIRE(r);
  CHECK(r->chosen().text == "{\"c\": 3}");
}

TEST_CASE("a moved-from stream is empty, and feed, finish and stop say it was moved from",
          "[stream][moved]") {
  test_stream a(llmjson::any_key({"a"}));
  a.feed("x {\"a\": 1}");
  test_stream b(std::move(a));
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is what is tested
  CHECK(a.text().empty());
  CHECK(a.size() == 0);
  CHECK(a.settled() == nullptr);
  CHECK(a.completed().empty());
  CHECK(a.seen().empty());
  a.sync();
  CHECK(logic_error_of([&] { a.feed("more"); }) ==
        "llmjson::stream::feed: the stream was moved from (it has no selector left)");
  CHECK(logic_error_of([&] { (void)a.finish(); }) ==
        "llmjson::stream::finish: the stream was moved from (it has no selector left)");
  CHECK(logic_error_of([&] { (void)a.stop(); }) ==
        "llmjson::stream::stop: the stream was moved from (it has no selector left)");
  // NOLINTEND(bugprone-use-after-move)
  auto r = b.finish();
  REQUIRE(r);
  CHECK(r->chosen().text == "{\"a\": 1}");
  // Assigned again, it works as a new stream.
  a = test_stream(llmjson::any_key({"b"}));
  a.feed("{\"b\": 2}");
  auto r2 = a.finish();
  REQUIRE(r2);
  CHECK(r2->chosen().offset == 0);
}

TEST_CASE("a selector that throws in the stream: the candidate is judged again, as extract does",
          "[stream][throws]") {
  // Issue 29: an exception from the selector left every later candidate of that read unjudged
  // for good, and finish() then answered differently from extract().
  const std::string text = "{\"n\": 1} {\"n\": 2} {\"n\": 3} {\"n\": 4} then the end";
  int throws_left = 0;
  auto pick = [&throws_left](const nlohmann::json& j) {
    if (j.at("n") == 2 && throws_left > 0) {
      --throws_left;
      throw std::runtime_error("selector failed");
    }
    return j.at("n") == 3;
  };
  const llmjson::options opts{.policy = llmjson::policy::first,
                              .start = llmjson::output_start::answer};
  const auto expected = llmjson::extract(text, pick, opts);
  REQUIRE(expected);
  CHECK(expected->chosen().text == "{\"n\": 3}");
  for (const char* then : {"finish", "sync", "seen", "feed"}) {
    INFO("after the exception: " << then);
    llmjson::stream s(pick, opts);
    throws_left = 1;
    CHECK_THROWS_WITH(
        [&] {
          s.feed(text.substr(0, 40));
          s.sync();
        }(),
        "selector failed");
    CHECK(throws_left == 0);
    CHECK(s.settled() == nullptr);
    if (std::string_view(then) == "sync") {
      s.sync();  // nothing new to read: judged at the next call that makes candidates
      CHECK(s.seen().size() == 4);
    } else if (std::string_view(then) == "seen") {
      const auto seen = s.seen();
      REQUIRE(seen.size() == 4);
      CHECK_FALSE(seen[1].qualifies);
      CHECK(seen[2].qualifies);
      CHECK_FALSE(seen[3].qualifies);
    }
    s.feed(text.substr(40));
    auto r = s.finish();
    CHECK(llmjson_test::differs(r, expected).empty());
  }
}

TEST_CASE("a selector that throws in finish(): finish() again gives what extract() gives",
          "[stream][throws]") {
  const std::string text = "{\"n\": 1} {\"n\": 2} {\"n\": 3} and the end";
  int throws_left = 0;
  auto pick = [&throws_left](const nlohmann::json& j) {
    if (j.at("n") == 3 && throws_left > 0) {
      --throws_left;
      throw std::runtime_error("selector failed");
    }
    return j.at("n") == 3;
  };
  for (llmjson::policy pol : {llmjson::policy::first, llmjson::policy::unique}) {
    const llmjson::options opts{.policy = pol, .start = llmjson::output_start::answer};
    const auto expected = llmjson::extract(text, pick, opts);
    REQUIRE(expected);
    for (bool read_first : {false, true}) {
      INFO("policy " << to_string(pol) << ", sync() before finish() " << read_first);
      llmjson::stream s(pick, opts);
      s.feed(text.substr(0, 5));  // the candidates are made in finish()
      if (read_first) s.sync();
      s.feed(text.substr(5));
      throws_left = 2;
      CHECK_THROWS_WITH(s.finish(), "selector failed");
      CHECK_THROWS_WITH(s.stop(), "selector failed");
      auto r = s.finish();
      CHECK(throws_left == 0);
      CHECK(llmjson_test::differs(r, expected).empty());
      // Ended now: a second finish() says so.
      CHECK(logic_error_of([&] { (void)s.finish(); }) ==
            "llmjson::stream::finish: the stream has ended already (finish() or stop() is "
            "called once)");
    }
  }
}

TEST_CASE("stop() names no later candidates: how many came depends on where the text stopped",
          "[stream][stop]") {
  const llmjson::options opts{.policy = llmjson::policy::first,
                              .start = llmjson::output_start::answer};
  const std::string text = "{\"b\": 1} {\"b\": 2} {\"b\": 3} and more";
  test_stream s(llmjson::any_key({"b"}), opts);
  s.feed(text);
  s.sync();
  REQUIRE(s.settled() != nullptr);
  auto r = s.stop();
  REQUIRE(r);
  CHECK(r->chosen().text == "{\"b\": 1}");
  CHECK(r->later_qualifying.empty());
  // finish() on the same text lists them, as extract() does.
  test_stream f(llmjson::any_key({"b"}), opts);
  f.feed(text);
  auto whole = f.finish();
  REQUIRE(whole);
  CHECK(whole->later_qualifying.size() == 2);
}

TEST_CASE("stop(): an answer taken where the caller stopped the model has no cut after it",
          "[stream][stop]") {
  // Issue 29: a stream stopped at the settled answer while a later value was open reported
  // "cut after the answer" (truncation), which the output never had.
  const llmjson::options opts{.policy = llmjson::policy::first,
                              .start = llmjson::output_start::answer};
  const std::string text = "{\"b\": 1} and then {\"c\": [1, 2";
  {
    test_stream s(llmjson::any_key({"b"}), opts);
    s.feed(text);
    s.sync();
    REQUIRE(s.settled() != nullptr);
    auto r = s.stop();
    REQUIRE(r);
    CHECK(r->chosen().text == "{\"b\": 1}");
    CHECK_FALSE(r->truncation);
  }
  {
    // finish() is extract(): the text as given ends inside a value after the answer.
    test_stream s(llmjson::any_key({"b"}), opts);
    s.feed(text);
    auto r = s.finish();
    REQUIRE(r);
    CHECK(r->truncation);
    CHECK(llmjson_test::differs(r, llmjson::extract(text, llmjson::any_key({"b"}), opts)).empty());
  }
  {
    // Stopped before any answer: the error stays (no answer is in the text so far).
    test_stream s(llmjson::any_key({"b"}), opts);
    s.feed("{\"b\": [1, 2");
    auto r = s.stop();
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == llmjson::error_kind::truncated);
  }
}

}  // namespace llmjson_tests::stream_lifetime_test
