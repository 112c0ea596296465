// llmjson: tests of retry_options::on_partial: a streaming attempt's partial answer as it
// changes, cleared, retracted when the attempt fails, typed, and what a throwing callback does
// SPDX-License-Identifier: MIT
#include <llmjson/partial.hpp>
#include <llmjson/retry.hpp>
#include <llmjson/schema_of.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"
#include "promise.hpp"
#include "retry_fixtures.hpp"

#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmjson_tests::retry_partial_test {

using llmjson::partial_change;
using nlohmann::json;
using retry_fixtures::attempt_exception_of;
using retry_fixtures::attempt_outcome;
using retry_fixtures::network_down;

TEST_CASE("partial_change names round-trip", "[retry][partial]") {
  STATIC_REQUIRE(enum_names_check::round_trips<partial_change>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<partial_change>());
}

#if LLMJSON_HAS_STOP_TOKEN

namespace {

struct tea_plan {
  std::string title;
  std::vector<std::string> steps;
  friend bool operator==(const tea_plan&, const tea_plan&) = default;
};
LLMJSON_DEFINE_TYPE(tea_plan, title, steps)

// One call of the fake streaming adapter: its text in pieces of `piece` bytes, then how it ends.
struct reply {
  std::string text;
  std::string finish = "stop";
  std::size_t piece = 3;
  bool throws = false;  // throw network_down after the pieces instead of returning
};

struct script {
  std::deque<reply> replies;
  std::vector<std::size_t> pushed;  // per call: the pieces pushed before it ended
  std::size_t calls = 0;
};

// Pushes the pieces one by one, checking its token before each; stopped, it returns the message
// so far with no finish_reason, as an HTTP adapter closing the connection would.
auto streaming(script& s) {
  return [&s](const std::string&, const llmjson::sink& out,
              const std::stop_token& stop) -> llmjson::completion {
    ++s.calls;
    if (s.replies.empty())
      throw std::logic_error("the script has no reply left: one call too many");
    const reply r = std::move(s.replies.front());
    s.replies.pop_front();
    std::size_t n = 0;
    for (std::size_t at = 0; at < r.text.size(); at += r.piece) {
      if (stop.stop_requested()) break;
      out(std::string_view(r.text).substr(at, r.piece));
      ++n;
    }
    s.pushed.push_back(n);
    if (r.throws) throw network_down("connection reset by peer");
    return llmjson::message{"", stop.stop_requested() ? "" : r.finish, "assistant"};
  };
}

// What on_partial and on_attempt were told, in order: an event (with a copy of its partial), or
// an attempt reported (`reported`, its number in `attempt`).
struct told {
  std::size_t attempt = 0;
  std::optional<partial_change> change;  // nullopt: on_attempt reported the attempt
  std::optional<llmjson::partial_answer> partial;
};

struct recorder {
  std::vector<told> all;

  llmjson::retry_options options(llmjson::retry_options o = {}) {
    o.on_partial = [this](const llmjson::partial_event& e) {
      // A shown event has its partial, the others none.
      CHECK((e.partial != nullptr) == (e.change == partial_change::shown));
      all.push_back({e.attempt, e.change, e.partial ? std::optional(*e.partial) : std::nullopt});
    };
    o.on_attempt = [this](const llmjson::attempt& a) { all.push_back({a.number, {}, {}}); };
    return o;
  }
  // The events of attempt `n`, on_attempt's report left out.
  [[nodiscard]] std::vector<told> of(std::size_t n) const {
    std::vector<told> out;
    for (const told& t : all)
      if (t.attempt == n && t.change) out.push_back(t);
    return out;
  }
  [[nodiscard]] std::size_t count(partial_change c) const {
    std::size_t k = 0;
    for (const told& t : all)
      if (t.change == c) ++k;
    return k;
  }
};

/// Checks what a UI relies on in the events of the attempt that gave the answer `answer` at
/// `position`: no two `shown` in a row show the same, the last event is the answer (`final`),
/// and every partial of the answer's candidate keeps the promise.
void check_answer_events(const std::vector<told>& events, const json& answer,
                         std::ptrdiff_t position) {
  REQUIRE_FALSE(events.empty());
  const told& last = events.back();
  REQUIRE(last.change == partial_change::shown);
  CHECK(last.partial->final);
  CHECK(last.partial->value == answer);
  CHECK(last.partial->position() == position);
  CHECK(last.partial->complete());
  const llmjson::partial_answer* before = nullptr;
  for (const told& t : events) {
    CHECK(t.change != partial_change::retracted);
    if (t.change != partial_change::shown) {
      before = nullptr;
      continue;
    }
    const llmjson::partial_answer& p = *t.partial;
    INFO("shown: " << p.value.dump() << " open " << p.open.value_or("(none)"));
    if (before) {  // changed since the last one shown
      const bool same = before->value == p.value && before->open == p.open &&
                        before->provisional == p.provisional &&
                        before->position() == p.position() && before->final == p.final &&
                        before->qualifying == p.qualifying;
      CHECK_FALSE(same);
    }
    before = &p;
    if (&t != &last) CHECK_FALSE(p.final);
    if (p.position() == position) CHECK(kept(p.value, answer, p.open, ""));
  }
}

const std::string think_then_plan =
    "<think>Maybe {\"title\": \"guess\", \"steps\": [\"guess\"]}? No.</think>\n"
    "{\"title\": \"Tea\", \"steps\": [\"boil water\", \"warm the pot\", \"steep\"]}\n"
    "Enjoy your tea, and do not let it steep too long.";
const std::string think_then_cut =
    "<think>A plan for tea.</think>\n{\"title\": \"Tea\", \"steps\": [\"boil water\", \"war";

}  // namespace

TEST_CASE("a failed attempt's partials are retracted before the retry shows its own",
          "[retry][partial]") {
  for (const std::size_t piece :
       {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{16}}) {
    INFO("pieces of " << piece);
    script s;
    s.replies = {{think_then_cut, "length", piece}, {think_then_plan, "stop", piece}};
    recorder l;
    auto r = llmjson::retrying(streaming(s), l.options())
                 .extract(std::string("plan"), llmjson::any_key({"steps"}));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 2);
    CHECK(r.attempts[0].outcome == attempt_outcome::truncated);
    CHECK(r.attempts[1].stopped_early);  // settled at its `}`: the answer ends what is shown
    // Attempt 1 showed its plan as written, then took it all back, before on_attempt saw it
    // fail and before attempt 2 showed anything.
    const std::vector<told> first = l.of(1);
    REQUIRE(first.size() >= 2);
    CHECK(first.front().change == partial_change::shown);
    CHECK(first.back().change == partial_change::retracted);
    CHECK(l.count(partial_change::retracted) == 1);
    std::size_t retracted_at = 0, reported_1 = 0, first_of_2 = 0;
    for (std::size_t i = 0; i < l.all.size(); ++i) {
      const told& t = l.all[i];
      if (t.attempt == 1 && t.change == partial_change::retracted) retracted_at = i;
      if (t.attempt == 1 && !t.change) reported_1 = i;
      if (t.attempt == 2 && t.change && first_of_2 == 0) first_of_2 = i;
    }
    CHECK(retracted_at < reported_1);
    CHECK(reported_1 < first_of_2);
    for (std::size_t i = first_of_2; i < l.all.size(); ++i) CHECK(l.all[i].attempt == 2);
    // Never the draft in <think>: its start was decided by the marker, nothing provisional.
    for (const told& t : l.all) {
      if (!t.partial) continue;
      CHECK(t.partial->value.dump().find("guess") == std::string::npos);
      CHECK_FALSE(t.partial->provisional);
    }
    check_answer_events(l.of(2), r->json, static_cast<std::ptrdiff_t>(r->offset));
    // Some partial showed a step being written: the open string, healed.
    bool open_string = false;
    for (const told& t : l.of(2))
      open_string = open_string || (t.partial && t.partial->open_string);
    CHECK(open_string);
  }
}

TEST_CASE("a provisional partial that turns out to be reasoning is cleared", "[retry][partial]") {
  // No `<think>`: with the start unknown, the draft shows (provisional) until `</think>` says it
  // was reasoning; the answer after it is not provisional.
  const std::string text =
      "{\"steps\": [\"guess\"]} hmm, no.</think>\n{\"steps\": [\"boil\", \"pour\"]}";
  script s;
  s.replies = {{text, "stop", 4}};
  recorder l;
  auto r = llmjson::retrying(streaming(s), l.options())
               .extract(std::string("plan"), llmjson::any_key({"steps"}));
  REQUIRE(r);
  CHECK(r->json == json::parse(R"({"steps": ["boil", "pour"]})"));
  const std::vector<told> events = l.of(1);
  REQUIRE(events.size() >= 3);
  CHECK(events.front().change == partial_change::shown);
  CHECK(events.front().partial->provisional);
  std::size_t cleared = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].change != partial_change::cleared) continue;
    ++cleared;
    REQUIRE(i > 0);  // cleared only after something was shown
    CHECK(events[i - 1].partial->provisional);
    CHECK(events[i - 1].partial->position() == 0);
    for (std::size_t j = i + 1; j < events.size(); ++j) {
      CHECK(events[j].change == partial_change::shown);
      CHECK_FALSE(events[j].partial->provisional);
    }
  }
  CHECK(cleared == 1);
  CHECK(l.count(partial_change::retracted) == 0);
  check_answer_events(events, r->json, static_cast<std::ptrdiff_t>(r->offset));
}

TEST_CASE("extract<T>: the caller types each partial with partial<T>", "[retry][partial]") {
  script s;
  s.replies = {{think_then_cut, "length", 5}, {think_then_plan, "stop", 5}};
  std::vector<std::pair<std::size_t, tea_plan>> typed;  // attempt, the plan shown
  std::vector<std::size_t> final_steps;                 // complete_count, per shown
  std::size_t in_progress = 0, retracted = 0;
  llmjson::retry_options opts;
  opts.on_partial = [&](const llmjson::partial_event& e) {
    if (e.change == partial_change::retracted) ++retracted;
    if (!e.partial) return;
    const llmjson::partial<tea_plan> p(*e.partial);
    typed.emplace_back(e.attempt, *p);
    final_steps.push_back(p.complete_count(&tea_plan::steps));
    if (p.state(&tea_plan::steps) == llmjson::member_state::in_progress && !p->steps.empty() &&
        p.state(&tea_plan::steps, p->steps.size() - 1) == llmjson::member_state::in_progress)
      ++in_progress;  // a step shown while it is written
  };
  auto r = llmjson::retrying(streaming(s), opts).extract<tea_plan>(std::string("plan"));
  REQUIRE(r);
  REQUIRE(r.attempts.size() == 2);
  CHECK(retracted == 1);
  // Healed partials of decode<T>: steps appear while written, not only once the plan is whole.
  CHECK(in_progress >= 3);
  REQUIRE_FALSE(typed.empty());
  CHECK(typed.back().first == 2);
  CHECK(typed.back().second == *r);  // the last one shown is the answer, typed
  CHECK(final_steps.back() == 3);
  // What partial<T> called complete stays: the count of final steps never goes down within the
  // attempt that gave the answer, and each final step is the answer's.
  std::size_t most = 0;
  for (std::size_t i = 0; i < typed.size(); ++i) {
    if (typed[i].first != 2) continue;
    CHECK(final_steps[i] >= most);
    most = final_steps[i];
    for (std::size_t k = 0; k < final_steps[i]; ++k) CHECK(typed[i].second.steps[k] == r->steps[k]);
  }
}

TEST_CASE("an attempt that showed nothing says nothing, an answer that came whole is shown once",
          "[retry][partial]") {
  SECTION("a failed attempt with no partial is not retracted") {
    script s;
    s.replies = {{"Sorry, I cannot plan tea today.", "stop", 4}, {think_then_plan, "stop", 4}};
    recorder l;
    auto r = llmjson::retrying(streaming(s), l.options())
                 .extract(std::string("plan"), llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r.attempts[0].outcome == attempt_outcome::no_json);
    CHECK(l.of(1).empty());
    CHECK(l.count(partial_change::retracted) == 0);
    check_answer_events(l.of(2), r->json, static_cast<std::ptrdiff_t>(r->offset));
  }
  SECTION("a streaming adapter that returned its content whole: the answer, once") {
    const std::string content = "{\"steps\": [\"boil\"]}";
    recorder l;
    auto whole = [&](const std::string&, const llmjson::sink&,
                     const std::stop_token&) -> llmjson::completion {
      return llmjson::message{content, "stop", "assistant"};
    };
    auto r = llmjson::retrying(whole, l.options()).extract(std::string("plan"));
    REQUIRE(r);
    REQUIRE(l.of(1).size() == 1);
    check_answer_events(l.of(1), r->json, 0);
  }
}

TEST_CASE("retracted ends every failed attempt that showed something, whatever ended it",
          "[retry][partial]") {
  SECTION("the last attempt fails") {
    script s;
    s.replies = {{think_then_cut, "length", 6}, {think_then_cut, "length", 6}};
    recorder l;
    auto r = llmjson::retrying(streaming(s), l.options())
                 .extract(std::string("plan"), llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}}) {
      REQUIRE_FALSE(l.of(n).empty());
      CHECK(l.of(n).back().change == partial_change::retracted);
    }
    CHECK(l.count(partial_change::retracted) == 2);
  }
  SECTION("an attempt that showed a draft, then cleared it, is retracted all the same") {
    script s;
    s.replies = {{"{\"steps\": [\"guess\"]}</think> Sorry, no plan.", "stop", 4}};
    recorder l;
    auto r = llmjson::retrying(streaming(s), l.options({.max_attempts = 1}))
                 .extract(std::string("plan"), llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    CHECK(r.attempts.at(0).outcome == attempt_outcome::no_json);
    std::vector<partial_change> changes;
    for (const told& t : l.of(1)) changes.push_back(*t.change);
    REQUIRE(changes.size() >= 3);
    CHECK(changes[changes.size() - 2] == partial_change::cleared);
    CHECK(changes.back() == partial_change::retracted);
  }
  SECTION("the adapter throws: its exception reaches the caller, after the retraction") {
    script s;
    s.replies = {{think_then_cut, "length", 6, true}};
    recorder l;
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(streaming(s), l.options())
          .extract(std::string("plan"), llmjson::any_key({"steps"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), network_down);
    REQUIRE_FALSE(l.of(1).empty());
    CHECK(l.of(1).back().change == partial_change::retracted);
    CHECK(l.count(partial_change::retracted) == 1);
  }
  SECTION("the caller's stop ends the call: what it showed is retracted") {
    std::stop_source caller;
    script s;
    s.replies = {{think_then_plan, "stop", 4}};
    llmjson::retry_options opts;
    std::vector<partial_change> changes;
    opts.on_partial = [&](const llmjson::partial_event& e) {
      changes.push_back(e.change);
      if (e.change == partial_change::shown && e.partial->value.contains("steps"))
        caller.request_stop();  // the user closed the window mid-answer
    };
    auto r = llmjson::retrying(streaming(s), opts)
                 .extract(std::string("plan"), llmjson::any_key({"steps"}), caller.get_token());
    REQUIRE_FALSE(r);
    REQUIRE_FALSE(changes.empty());
    CHECK(changes.back() == partial_change::retracted);
  }
}

TEST_CASE("an exception from on_partial ends the call as the selector's does", "[retry][partial]") {
  struct ui_gone : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  SECTION("thrown on a shown partial: the adapter is stopped, the attempt retracted") {
    script s;
    s.replies = {{think_then_plan, "stop", 2}, {think_then_plan, "stop", 2}};
    std::vector<partial_change> changes;
    llmjson::retry_options opts;
    opts.on_partial = [&](const llmjson::partial_event& e) {
      changes.push_back(e.change);
      if (changes.size() == 3) throw ui_gone("the window was closed");
      if (e.change == partial_change::retracted) throw ui_gone("again");  // dropped
    };
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(streaming(s), opts)
          .extract(std::string("plan"), llmjson::any_key({"steps"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), ui_gone);
    REQUIRE(e->attempts().size() == 1);  // never retried
    CHECK(e->attempts()[0].outcome == attempt_outcome::exception);
    CHECK(e->attempts()[0].raw == "the window was closed");
    CHECK(s.calls == 1);
    CHECK(s.pushed.at(0) < (think_then_plan.size() + 1) / 2);  // stopped at the throw
    REQUIRE(changes.size() == 4);
    CHECK(changes[2] == partial_change::shown);
    CHECK(changes[3] == partial_change::retracted);
  }
  SECTION("thrown on the retraction of a failed attempt: that attempt's exception") {
    script s;
    s.replies = {{think_then_cut, "length", 4}, {think_then_plan, "stop", 4}};
    llmjson::retry_options opts;
    opts.on_partial = [&](const llmjson::partial_event& e) {
      if (e.change == partial_change::retracted) throw ui_gone("cannot clear");
    };
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(streaming(s), opts)
          .extract(std::string("plan"), llmjson::any_key({"steps"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), ui_gone);
    REQUIRE(e->attempts().size() == 1);
    CHECK(e->attempts()[0].outcome == attempt_outcome::exception);
    CHECK(e->attempts()[0].content == think_then_cut);  // the record keeps what came
    CHECK(s.calls == 1);
  }
  SECTION("thrown on the retraction while the adapter's exception is on its way: the adapter's") {
    script s;
    s.replies = {{think_then_cut, "length", 4, true}};
    std::size_t retractions = 0;
    llmjson::retry_options opts;
    opts.on_partial = [&](const llmjson::partial_event& e) {
      if (e.change != partial_change::retracted) return;
      ++retractions;
      throw ui_gone("cannot clear");
    };
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(streaming(s), opts)
          .extract(std::string("plan"), llmjson::any_key({"steps"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), network_down);
    CHECK(retractions == 1);
  }
  SECTION("thrown on the final answer: no answer, and the attempt is retracted") {
    script s;
    s.replies = {{think_then_plan, "stop", 8}};
    std::vector<partial_change> changes;
    llmjson::retry_options opts;
    opts.on_partial = [&](const llmjson::partial_event& e) {
      changes.push_back(e.change);
      if (e.partial && e.partial->final) throw ui_gone("no room for the answer");
    };
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(streaming(s), opts)
          .extract(std::string("plan"), llmjson::any_key({"steps"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), ui_gone);
    REQUIRE(changes.size() >= 2);
    CHECK(changes.back() == partial_change::retracted);
  }
}

namespace {

// A selector that counts its calls and judges healed values (rules §8 Qualifying).
struct counting {
  static constexpr bool judges_partial = true;
  std::size_t* calls;
  bool operator()(const json& v) const {
    ++*calls;
    return v.is_object() && v.contains("steps");
  }
};

}  // namespace

TEST_CASE("no on_partial: no partial answer is computed", "[retry][partial]") {
  const std::string text = "Plan: {\"title\": \"Tea\", \"steps\": [\"boil\", \"pour\"]} Done.";
  const llmjson::options answer_start{.start = llmjson::output_start::answer};
  // What a stream fed as the wrapper feeds it (a sync after each piece) costs the selector,
  // its partial never read.
  std::size_t by_stream = 0;
  {
    llmjson::stream s(counting{&by_stream}, answer_start);
    for (std::size_t at = 0; at < text.size(); at += 3) {
      s.feed(std::string_view(text).substr(at, 3));
      s.sync();
    }
    REQUIRE(s.finish());
  }
  auto run = [&](llmjson::retry_options opts) {
    std::size_t calls = 0;
    script s;
    s.replies = {{text, "stop", 3}};
    opts.extraction = answer_start;
    opts.stop_early = false;
    REQUIRE(llmjson::retrying(streaming(s), opts).extract(std::string("plan"), counting{&calls}));
    return calls;
  };
  CHECK(run({}) == by_stream);
  // With a callback, the partial is read after each piece that changed it: more calls, and a
  // caller's selector that judges healed values shows the answer while it is written.
  std::size_t healed = 0;
  llmjson::retry_options with;
  with.on_partial = [&](const llmjson::partial_event& e) {
    if (e.partial && !e.partial->complete()) ++healed;
  };
  CHECK(run(with) > by_stream);
  CHECK(healed >= 3);
}

TEST_CASE("on_partial is never called by a non-streaming adapter, nor by complete",
          "[retry][partial]") {
  std::size_t events = 0;
  llmjson::retry_options opts;
  opts.on_partial = [&](const llmjson::partial_event&) { ++events; };
  SECTION("a non-streaming adapter") {
    retry_fixtures::script s;
    s.replies = {retry_fixtures::msg(think_then_cut, "length"),
                 retry_fixtures::msg(think_then_plan)};
    auto r = llmjson::retrying(retry_fixtures::replay(s), opts)
                 .extract(std::string("plan"), llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r.attempts.size() == 2);
  }
  SECTION("complete with a streaming adapter") {
    script s;
    s.replies = {{think_then_plan, "stop", 4}};
    auto r = llmjson::retrying(streaming(s), opts).complete(std::string("plan"));
    REQUIRE(r);
    CHECK(r->content == think_then_plan);
  }
  CHECK(events == 0);
}

#endif  // LLMJSON_HAS_STOP_TOKEN

}  // namespace llmjson_tests::retry_partial_test
