// llmjson: tests of retry.hpp: streaming adapters: early stop, retries, errors, the README
// SPDX-License-Identifier: MIT
#include <llmjson/retry.hpp>

#include "catch_compat.hpp"
#include "retry_fixtures.hpp"

#include <cstddef>
#include <deque>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace llmjson_tests::retry_stream_test {

using namespace llmjson_tests::retry_fixtures;  // the scripted adapters every case uses

#if LLMJSON_HAS_STOP_TOKEN

// ---------------------------------------------------------------------------------------------
// Streaming adapters (llmjson::StreamingAdapter): the content comes through a sink.

namespace {

// One call of the fake streaming adapter: the pieces it streams, then how it ends.
struct streamed_reply {
  std::vector<std::string> pieces;
  llmjson::completion end = llmjson::message{"", "stop", "assistant"};
  bool throws = false;  // throw network_down after the pieces instead of returning `end`
};

// What the fake streaming adapter replays, and what it did.
struct stream_script {
  std::deque<streamed_reply> replies;
  std::vector<std::size_t> pushed;  // per call: the pieces pushed before it ended
  std::vector<bool> stopped;        // per call: whether its token was stopped when it ended
  std::size_t calls = 0;
  std::stop_source* caller = nullptr;  // stopped after `caller_after` pieces (the user's ^C)
  std::size_t caller_after = 0;
};

// Pushes the pieces one by one, checking its token before each, as an HTTP adapter reading a
// response would; stopped, it returns the message so far with no finish_reason.
auto stream_replay(stream_script& s) {
  return [&s](const std::string&, const llmjson::sink& out,
              const std::stop_token& stop) -> llmjson::completion {
    ++s.calls;
    if (s.replies.empty())
      throw std::logic_error("the script has no reply left: one call too many");
    streamed_reply r = std::move(s.replies.front());
    s.replies.pop_front();
    std::size_t n = 0;
    for (const std::string& piece : r.pieces) {
      if (stop.stop_requested()) break;
      out(piece);
      ++n;
      if (s.caller && n == s.caller_after) s.caller->request_stop();
    }
    s.pushed.push_back(n);
    s.stopped.push_back(stop.stop_requested());
    if (r.throws) throw network_down("connection reset by peer");
    if (auto* m = std::get_if<llmjson::message>(&r.end); m && stop.stop_requested())
      m->finish_reason.clear();  // the connection was closed before the provider said why
    return r.end;
  };
}

// `text` in pieces of `n` bytes.
std::vector<std::string> pieces(std::string_view text, std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < text.size(); at += n) out.emplace_back(text.substr(at, n));
  return out;
}

streamed_reply streamed(std::string_view text, std::size_t n = 8, std::string finish = "stop") {
  return {pieces(text, n), msg("", std::move(finish)), false};
}

// An answer, then a long explanation that is neither needed nor worth paying for.
const std::string answer_then_talk = "Plan: {\"steps\": [\"boil\", \"pour\"]} " + [] {
  std::string talk;
  for (int i = 0; i < 40; ++i) talk += "and here is why boiling comes first, at length. ";
  return talk;
}();

const llmjson::options answer_start{.start = llmjson::output_start::answer};

}  // namespace

TEST_CASE("a streaming adapter is stopped once the answer settles, with the whole output's answer",
          "[retry][stream]") {
  stream_script s;
  s.replies = {streamed(answer_then_talk)};
  std::vector<llmjson::attempt> seen;
  llmjson::retry_options opts{.extraction = answer_start};
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a); };
  const std::string prompt = "plan";
  auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
  REQUIRE(r);
  CHECK(r->json == nlohmann::json::parse(R"({"steps": ["boil", "pour"]})"));
  // The same answer as the whole output gives, at the same place.
  auto whole = llmjson::extract(answer_then_talk, llmjson::any_key({"steps"}), answer_start);
  REQUIRE(whole);
  CHECK(r->offset == whole->chosen().offset);
  CHECK(r->text == whole->chosen().text);
  // Settled when the piece with the closing brace came: the call stopped right there.
  const std::size_t closed = answer_then_talk.find("]}") + 2;
  REQUIRE(r.attempts.size() == 1);
  const llmjson::attempt& a = r.attempts[0];
  CHECK(a.outcome == attempt_outcome::ok);
  CHECK(a.stopped_early);
  CHECK(a.received == (closed + 7) / 8 * 8);
  CHECK(a.received < answer_then_talk.size());
  CHECK(a.content == answer_then_talk.substr(0, a.received));
  CHECK(a.finish_reason.empty());
  CHECK(s.calls == 1);
  CHECK(s.stopped == std::vector<bool>{true});
  CHECK(s.pushed[0] == a.received / 8);
  CHECK(s.pushed[0] < pieces(answer_then_talk, 8).size());
  // on_attempt sees the same record.
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].stopped_early);
  CHECK(seen[0].received == a.received);
}

TEST_CASE("early stop: a value left open where the call stopped is not a cut after the answer",
          "[retry][stream]") {
  // Issue 29: the answer settled while the next value was open in the bytes received; the
  // attempt said "cut after the answer" (truncation, message, answer::truncation), which the
  // model's output never had: the wrapper stopped it there.
  const std::string text =
      "Plan: {\"steps\": [\"boil\"]} {\"why\": \"boiling first, because the water must be hot "
      "before the tea goes in, and that takes a while\"}";
  const std::size_t closed = text.find("]}") + 2;
  for (std::size_t piece = 8; piece <= 12; ++piece) {
    const std::size_t received = (closed + piece - 1) / piece * piece;
    if (received <= closed + 1) continue;  // the piece ends before the next value opens
    INFO("pieces of " << piece);
    stream_script s;
    s.replies = {streamed(text, piece)};
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start})
                 .extract("plan", llmjson::any_key({"steps"}));
    REQUIRE(r);
    const llmjson::attempt& a = r.attempts.at(0);
    REQUIRE(a.stopped_early);
    REQUIRE(a.content.find('{', closed) != std::string::npos);  // open where it stopped
    CHECK_FALSE(a.truncation);
    CHECK(a.message.empty());
    CHECK_FALSE(r->truncation);
    // The same content whole, as extract() reads it, is cut after the answer: the difference
    // is only that the wrapper stopped it.
    auto whole = llmjson::extract(a.content, llmjson::any_key({"steps"}), answer_start);
    REQUIRE(whole);
    CHECK(whole->truncation);
  }
}

TEST_CASE("early stop: off when asked, and never under unique or last or in complete",
          "[retry][stream]") {
  const std::string prompt = "plan";
  const auto all = pieces(answer_then_talk, 8).size();
  auto expect_whole = [&](const stream_script& s, const llmjson::attempt& a) {
    CHECK_FALSE(a.stopped_early);
    CHECK(a.received == answer_then_talk.size());
    CHECK(a.content == answer_then_talk);
    CHECK(a.finish_reason == "stop");
    CHECK(s.pushed == std::vector<std::size_t>{all});
    CHECK(s.stopped == std::vector<bool>{false});
  };
  SECTION("stop_early = false") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start, .stop_early = false})
                 .extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r->offset == 6);
    expect_whole(s, r.attempts.at(0));
  }
  SECTION("policy unique") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start})
                 .extract(prompt, llmjson::any_key({"steps"}), llmjson::policy::unique);
    REQUIRE(r);
    expect_whole(s, r.attempts.at(0));
  }
  SECTION("policy last") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start})
                 .extract(prompt, llmjson::any_key({"steps"}), llmjson::policy::last);
    REQUIRE(r);
    expect_whole(s, r.attempts.at(0));
  }
  SECTION("extract<T> under its default, unique") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r =
        llmjson::retrying(stream_replay(s), {.extraction = answer_start}).extract<plan>(prompt);
    REQUIRE(r);
    CHECK(r->steps == std::vector<std::string>{"boil", "pour"});
    expect_whole(s, r.attempts.at(0));
  }
  SECTION("complete: the message has all that was streamed") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start}).complete(prompt);
    REQUIRE(r);
    CHECK(r->content == answer_then_talk);
    CHECK(r->finish_reason == "stop");
    expect_whole(s, r.attempts.at(0));
  }
}

TEST_CASE("early stop with extract<T> under policy first, and with a check", "[retry][stream]") {
  const std::string prompt = "plan";
  llmjson::options first = answer_start;
  first.policy = llmjson::policy::first;
  stream_script s;
  s.replies = {streamed(answer_then_talk), streamed(answer_then_talk)};
  const llmjson::retrying model(stream_replay(s), {.extraction = first});
  auto r = model.extract<plan>(prompt);
  REQUIRE(r);
  CHECK(r->steps.size() == 2);
  CHECK(r.attempts.at(0).stopped_early);
  auto c = model.extract<plan>(prompt, [](const plan& p) { return p.steps.size() == 2; });
  REQUIRE(c);
  CHECK(c.attempts.at(0).stopped_early);
  CHECK(s.stopped == std::vector<bool>{true, true});
}

TEST_CASE("with the default start, prose settles only after a marker", "[retry][stream]") {
  const std::string prompt = "plan";
  SECTION("no marker: a later </think> could still make it reasoning, so the whole output comes") {
    stream_script s;
    s.replies = {streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s)).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK_FALSE(r.attempts.at(0).stopped_early);
    CHECK(r.attempts.at(0).received == answer_then_talk.size());
  }
  SECTION("after <think>...</think>, the answer settles") {
    const std::string text = "<think>boil first? yes</think>" + answer_then_talk;
    stream_script s;
    s.replies = {streamed(text)};
    auto r = llmjson::retrying(stream_replay(s)).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r.attempts.at(0).stopped_early);
    CHECK(r.attempts.at(0).received < text.size());
    CHECK(r->offset == text.find('{'));
  }
}

TEST_CASE("streamed replies are retried and classified as whole ones are", "[retry][stream]") {
  const std::string prompt = "plan";
  const llmjson::retry_options opts{.max_attempts = 3, .extraction = answer_start};
  SECTION("truncated at length, then the answer: the cut reply is kept as streamed") {
    stream_script s;
    s.replies = {streamed(truncated_plan, 5, "length"), streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 2);
    CHECK(r.attempts[0].outcome == attempt_outcome::truncated);
    CHECK(r.attempts[0].content == truncated_plan);
    CHECK(r.attempts[0].received == truncated_plan.size());
    CHECK(r.attempts[0].finish_reason == "length");
    CHECK_FALSE(r.attempts[0].stopped_early);
    CHECK(r.attempts[1].stopped_early);
  }
  SECTION("an error object mid-stream: api_error, not retried, and what came before is kept") {
    stream_script s;
    s.replies = {{{"Plan: ", "{\"st"}, llmjson::api_error{200, "overloaded"}, false},
                 streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == retry_error_kind::api_error);
    CHECK(r.error().api == llmjson::api_error{200, "overloaded"});
    CHECK(s.calls == 1);
    CHECK(r.attempts.at(0).content == "Plan: {\"st");
    CHECK(r.attempts.at(0).received == 10);
  }
  SECTION("a bad response, then the answer") {
    stream_script s;
    s.replies = {{{"Plan: "}, llmjson::bad_response{"event 2 is not JSON", "data: {"}, false},
                 streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r.attempts.at(0).outcome == attempt_outcome::bad_response);
    CHECK(r.attempts.at(0).raw == "data: {");
    CHECK(r.attempts.at(0).content == "Plan: ");
  }
  SECTION("nothing streamed: empty content, retried; at length with reasoning: as such") {
    stream_script s;
    s.replies = {streamed("", 8, "stop"),
                 {{}, llmjson::message{"", "length", "assistant", "thinking..."}, false},
                 streamed(answer_then_talk)};
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    REQUIRE(r.attempts.size() == 3);
    CHECK(r.attempts[0].outcome == attempt_outcome::empty_content);
    CHECK(r.attempts[0].received == 0);
    CHECK(r.attempts[1].reasoning_at_length());
    CHECK(r.attempts[1].reasoning == "thinking...");
  }
  SECTION("white space only") {
    stream_script s;
    s.replies = {streamed(" \n \n", 1), streamed(" \t", 1)};
    auto r = llmjson::retrying(stream_replay(s)).complete(prompt);
    REQUIRE_FALSE(r);
    CHECK(r.error().cause == attempt_outcome::empty_content);
    CHECK(r.attempts.at(1).message == "the reply is only white space (2 bytes)");
  }
  SECTION("too_large is never retried, and the record keeps every byte") {
    llmjson::retry_options small = opts;
    small.extraction.max_input_bytes = 16;
    stream_script s;
    s.replies = {streamed(good_plan, 3), streamed(good_plan, 3)};
    auto r =
        llmjson::retrying(stream_replay(s), small).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    CHECK(r.error().cause == attempt_outcome::too_large);
    CHECK(s.calls == 1);
    CHECK(r.attempts.at(0).content == good_plan);
    CHECK(r.attempts.at(0).received == good_plan.size());
  }
}

TEST_CASE("a streamed failure's views point into the error's own text", "[retry][stream]") {
  stream_script s;
  s.replies = {streamed(two_plans, 4), streamed(two_plans, 4)};
  const std::string prompt = "plan";
  auto moved = [&] {
    auto r = llmjson::retrying(stream_replay(s), {.extraction = answer_start})
                 .extract(prompt, llmjson::any_key({"steps"}), llmjson::policy::unique);
    return r;
  }();
  REQUIRE_FALSE(moved);
  const llmjson::retry_error e = moved.error();  // a copy shares the text
  REQUIRE(e.extraction);
  CHECK(e.extraction->kind == llmjson::error_kind::ambiguous);
  REQUIRE(e.text);
  CHECK(*e.text == two_plans);
  REQUIRE(e.extraction->candidates.size() == 2);
  for (const llmjson::candidate& c : e.extraction->candidates) {
    CHECK(c.text.data() >= e.text->data());
    CHECK(c.text.data() + c.text.size() <= e.text->data() + e.text->size());
    CHECK(c.text == std::string_view(*e.text).substr(c.offset, c.text.size()));
  }
  CHECK(e.extraction->candidates[1].text == "{\"steps\": [\"boil\", \"pour\"]}");
}

TEST_CASE("a streaming adapter's returned content: none, the same, whole, or a different one",
          "[retry][stream]") {
  const std::string prompt = "plan";
  const llmjson::retry_options opts{.extraction = answer_start};
  SECTION("the same as streamed: fine") {
    stream_script s;
    s.replies = {{pieces(good_plan, 5), msg(good_plan), false}};
    auto r = llmjson::retrying(stream_replay(s), opts).extract<plan>(prompt);
    REQUIRE(r);
    CHECK(r.attempts.at(0).content == good_plan);
  }
  SECTION("nothing streamed, the content returned whole (a provider that did not stream)") {
    stream_script s;
    s.replies = {{{}, msg(answer_then_talk), false}};
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE(r);
    CHECK(r->offset == 6);
    const llmjson::attempt& a = r.attempts.at(0);
    CHECK(a.content == answer_then_talk);
    CHECK(a.received == 0);
    CHECK_FALSE(a.stopped_early);
    CHECK(s.stopped == std::vector<bool>{false});
  }
  SECTION("a content that is not what was streamed: a bad response, retried") {
    stream_script s;
    s.replies = {{pieces(good_plan, 5), msg("only the last piece"), false},
                 {pieces(good_plan, 5), msg(""), false}};
    auto r = llmjson::retrying(stream_replay(s), opts).extract<plan>(prompt);
    REQUIRE(r);
    const llmjson::attempt& a = r.attempts.at(0);
    CHECK(a.outcome == attempt_outcome::bad_response);
    CHECK(a.message ==
          "the streaming adapter returned a content of 19 bytes that is not the 58 bytes it "
          "streamed");
    CHECK(a.raw == "only the last piece");
    CHECK(a.content == good_plan);
  }
}

TEST_CASE("a streaming adapter's exception: recorded with what came, rethrown, never retried",
          "[retry][stream]") {
  const std::string prompt = "plan";
  std::vector<llmjson::attempt> seen;
  llmjson::retry_options opts{.max_attempts = 3, .extraction = answer_start};
  opts.on_attempt = [&](const llmjson::attempt& a) { seen.push_back(a); };
  SECTION("the adapter throws after two pieces") {
    stream_script s;
    s.replies = {{{"Plan: ", "{\"st"}, msg(""), true}, streamed(answer_then_talk)};
    auto e = attempt_exception_of([&] {
      (void)llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"a"}));
    });
    REQUIRE(e);
    CHECK_THROWS_AS(e->rethrow_nested(), network_down);
    REQUIRE(e->attempts().size() == 1);
    CHECK(e->attempts()[0].content == "Plan: {\"st");
    CHECK(s.calls == 1);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0].outcome == attempt_outcome::exception);
    CHECK(seen[0].content == "Plan: {\"st");
    CHECK(seen[0].received == 10);
    CHECK(seen[0].raw == "connection reset by peer");
  }
  SECTION("the selector throws while the content streams: the call is stopped, then it is thrown") {
    struct selector_broke : std::runtime_error {
      using std::runtime_error::runtime_error;
    };
    auto selector = [](const nlohmann::json&) -> bool { throw selector_broke("selector"); };
    for (bool adapter_throws_too : {false, true}) {
      stream_script s;
      s.replies = {{pieces(answer_then_talk, 8), msg(""), adapter_throws_too}};
      seen.clear();
      // The selector's exception is the cause, even when the stopped adapter throws its own.
      auto e = attempt_exception_of(
          [&] { (void)llmjson::retrying(stream_replay(s), opts).extract(prompt, selector); });
      REQUIRE(e);
      CHECK_THROWS_AS(e->rethrow_nested(), selector_broke);
      CHECK(s.calls == 1);
      CHECK(s.stopped == std::vector<bool>{true});
      CHECK(s.pushed.at(0) < pieces(answer_then_talk, 8).size());
      REQUIRE(seen.size() == 1);
      CHECK(seen[0].outcome == attempt_outcome::exception);
      CHECK(seen[0].raw == "selector");
      CHECK_FALSE(seen[0].stopped_early);
    }
  }
}

TEST_CASE("the caller's stop reaches a streaming adapter mid-stream, and ends the retries",
          "[retry][stream][stop]") {
  std::stop_source source;
  stream_script s;
  s.replies = {streamed(answer_then_talk), streamed(answer_then_talk)};
  s.caller = &source;
  s.caller_after = 2;
  const std::string prompt = "plan";
  const bool through_options = GENERATE(false, true);  // the call's token, or the wrapper's
  llmjson::retry_options opts{.max_attempts = 3, .extraction = answer_start};
  if (through_options) opts.stop = source.get_token();
  const llmjson::retrying model(stream_replay(s), opts);
  auto r = through_options ? model.extract(prompt, llmjson::any_key({"steps"}))
                           : model.extract(prompt, llmjson::any_key({"steps"}), source.get_token());
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == retry_error_kind::cancelled);
  CHECK(s.calls == 1);
  CHECK(s.pushed == std::vector<std::size_t>{2});
  CHECK(s.stopped == std::vector<bool>{true});
  REQUIRE(r.attempts.size() == 2);
  CHECK(r.attempts[0].outcome == attempt_outcome::truncated);  // "Plan: {\"steps\": [\""
  CHECK(r.attempts[0].content == answer_then_talk.substr(0, 16));
  CHECK_FALSE(r.attempts[0].stopped_early);  // stopped by the caller, not at an answer
  CHECK(r.attempts[1].outcome == attempt_outcome::cancelled);
}

TEST_CASE("whatever the pieces, a streaming adapter's answer is the whole output's",
          "[retry][stream]") {
  const std::vector<std::string> outputs = {
      answer_then_talk,
      "<think>draft {\"steps\": [\"x\"]}</think>\nAnswer: {\"steps\": [\"a\"]} and more text",
      "Notes [1, {\"steps\": []}] then {\"steps\": [\"b\"]} x",
      "```json\n{\"steps\": [\"c\"]}\n```\nThat is all, and it is final.",
      "{\"note\": 1} {\"steps\": [\"d\"]} and {\"steps\": [\"e\", ",
      "x {\"k\": {\"steps\": [1]} and {\"steps\": [2]} y",
      two_plans,
  };
  const std::string prompt = "plan";
  for (const std::string& text : outputs) {
    for (auto start : {llmjson::output_start::unknown, llmjson::output_start::answer}) {
      const llmjson::retry_options opts{.max_attempts = 1, .extraction = {.start = start}};
      script whole;
      whole.replies = {msg(text)};
      auto expected =
          llmjson::retrying(replay(whole), opts).extract(prompt, llmjson::any_key({"steps"}));
      for (std::size_t n : {1u, 2u, 3u, 7u, 64u, 4096u}) {
        INFO(text << " in pieces of " << n);
        stream_script s;
        s.replies = {streamed(text, n)};
        auto got =
            llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
        REQUIRE(got.has_value() == expected.has_value());
        const llmjson::attempt& a = got.attempts.at(0);
        CHECK(a.content == text.substr(0, a.received));
        if (!got) {
          CHECK(got.error().message == expected.error().message);
          CHECK_FALSE(a.stopped_early);
          continue;
        }
        CHECK(got->json == expected->json);
        CHECK(got->offset == expected->offset);
        CHECK(got->line == expected->line);
        CHECK(got->column == expected->column);
        CHECK(got->source == expected->source);
        CHECK(got->fallback == expected->fallback);
        if (!a.stopped_early) {
          CHECK(a.received == text.size());
          CHECK(got->truncation.has_value() == expected->truncation.has_value());
        }
      }
    }
  }
}
namespace readme {

// What the README's streaming examples use but do not show: a model's output in chunks, and a
// client that streams a chat reply.
const std::vector<std::string> model_output = {"Orders, as asked: {\"orders\": [\"come ab",
                                               "out\"]} and now, at length, ", "why."};

struct chat_delta {
  std::string content, reasoning, finish_reason;
};
struct chat_stream {
  std::vector<chat_delta> deltas;
  std::size_t next_one = 0;
  std::optional<chat_delta> next() {
    if (next_one == deltas.size()) return std::nullopt;
    return deltas[next_one++];
  }
};
struct chat_client {
  std::size_t delivered = 0;  // deltas handed out, over all calls
  chat_stream stream_chat(const std::string&) {
    chat_stream s;
    s.deltas = {{"", "Steps first.", ""},
                {"Plan: {\"steps\": [\"boil\"", "", ""},
                {", \"pour\"]}", "", ""},
                {" and why, at length", "", ""},
                {".", "", "stop"}};
    delivered += s.deltas.size();
    return s;
  }
};

}  // namespace readme

TEST_CASE("the README's streaming examples", "[retry][stream][readme]") {
  std::ostringstream printed;
  std::streambuf* const cout_buf = std::cout.rdbuf(printed.rdbuf());
  std::streambuf* const cerr_buf = std::cerr.rdbuf(printed.rdbuf());
  struct restore {
    std::streambuf *out, *err;
    ~restore() {
      std::cout.rdbuf(out);
      std::cerr.rdbuf(err);
    }
  } restored{cout_buf, cerr_buf};
  using readme::model_output;
  {
    // The stream, as the README shows it.
    llmjson::stream s(
        llmjson::any_key({"orders"}),
        llmjson::options{.policy = llmjson::policy::first,
                         .start = llmjson::output_start::answer});  // no reasoning in the text
    for (std::string_view chunk : model_output) {                   // as the model writes
      s.feed(chunk);
      s.sync();  // feed() reads in batches: read what came
      if (const llmjson::candidate* c = s.settled()) {
        std::cout << "settled at byte " << c->offset << ": " << c->text << "\n";
        break;  // stop the model: the rest cannot change it
      }
    }
    // Stopped at the answer: stop(), for what is still open after it is not a cut. At the end of
    // the output: finish(), which is what extract() gives on s.text().
    llmjson::result<llmjson::extraction> r = s.settled() ? s.stop() : s.finish();
    REQUIRE(r);
    CHECK(r->chosen().offset == 18);
    CHECK_FALSE(r->truncation);
    CHECK(s.text() == model_output[0] + model_output[1]);  // the last chunk was never fed
  }
  CHECK(printed.str() == "settled at byte 18: {\"orders\": [\"come about\"]}\n");
  printed.str("");
  {
    // The streaming adapter, as the README shows it.
    readme::chat_client client;
    using readme::chat_delta;
    using readme::chat_stream;
    const std::string prompt = "plan";
    auto adapter = [&](const std::string& request, const llmjson::sink& out,
                       const std::stop_token& stop) -> llmjson::completion {
      chat_stream reply = client.stream_chat(request);  // your client, sending "stream": true
      llmjson::message m;
      while (std::optional<chat_delta> d = reply.next()) {
        out(d->content);              // the content, as it arrives
        m.reasoning += d->reasoning;  // kept in the record, never scanned
        if (!d->finish_reason.empty()) m.finish_reason = d->finish_reason;
        if (stop.stop_requested()) break;  // settled (or the caller stopped): hang up
      }
      return m;  // content left empty: it went through `out`
    };
    auto model =
        llmjson::retrying(adapter, {.extraction = {.start = llmjson::output_start::answer}});
    auto r = model.extract(prompt, llmjson::any_key({"steps"}));
    if (r && r.attempts.back().stopped_early)
      std::cerr << "stopped after " << r.attempts.back().received << " bytes\n";
    REQUIRE(r);
    CHECK(r->json == nlohmann::json::parse(R"({"steps": ["boil", "pour"]})"));
    CHECK(client.delivered == 5);
    CHECK(r.attempts.back().reasoning == "Steps first.");
    CHECK(r.attempts.back().finish_reason.empty());
    CHECK(printed.str() == "stopped after 33 bytes\n");
    // To try an adapter alone, with a sink of one's own.
    std::string text;
    auto f = [&](std::string_view c) noexcept { text += c; };
    adapter(prompt, llmjson::sink(f), {});
    CHECK(text == "Plan: {\"steps\": [\"boil\", \"pour\"]} and why, at length.");
  }
}
TEST_CASE("a streaming attempt with a prefill keeps its error's views and its limit",
          "[retry][stream][rules v4]") {
  // The reply fails (nothing has the key); the error names candidates whose text or marker lie
  // in the prefill: they own copies, and stay readable after the stream is gone.
  for (const std::string& prefill : {std::string("{"), std::string("<think>")}) {
    INFO("prefill " << prefill);
    stream_script s;
    const std::string reply = "\"x\": 1} and {\"y\": 2}</think>{\"z\": 3}";
    s.replies = {streamed(reply, 5)};
    llmjson::retry_options opts;
    opts.extraction.prefill = prefill;
    opts.extraction.policy = llmjson::policy::first;
    opts.extraction.fallback = false;
    opts.max_attempts = 1;
    const std::string prompt = "plan";
    auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    REQUIRE(r.error().extraction);
    const auto& candidates = r.error().extraction->candidates;
    REQUIRE(candidates.size() >= 2);
    for (const llmjson::candidate& c : candidates) {
      CHECK(nlohmann::json::accept(c.text));  // readable, whatever the stream did since
      // Prefilled <think> opens the region; else the prompt did, and </think> closes it.
      if (c.in_reasoning) CHECK(c.marker == (prefill == "<think>" ? "<think>" : "</think>"));
    }
    CHECK(r.attempts[0].content == reply);
  }
  // Over the limit with the prefill only: too_large, with all of the content recorded.
  stream_script s;
  s.replies = {streamed("\"steps\": [1, 2, 3]}")};
  llmjson::retry_options opts;
  opts.extraction.prefill = "{";
  opts.extraction.max_input_bytes = 19;  // the content is 19 bytes, the text read 20
  opts.max_attempts = 1;
  const std::string prompt = "plan";
  auto r = llmjson::retrying(stream_replay(s), opts).extract(prompt, llmjson::any_key({"steps"}));
  REQUIRE_FALSE(r);
  REQUIRE(r.attempts.size() == 1);
  CHECK(r.attempts[0].content == "\"steps\": [1, 2, 3]}");
  CHECK(r.attempts[0].outcome == llmjson::attempt_outcome::too_large);
}

#endif  // LLMJSON_HAS_STOP_TOKEN

}  // namespace llmjson_tests::retry_stream_test
