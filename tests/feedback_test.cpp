// llmjson: tests of feedback.hpp: the instruction for each failure, and the reask hook with a
// scripted fake model that fixes exactly what the instruction names
// SPDX-License-Identifier: MIT
#include <llmjson/feedback.hpp>

#include "catch_compat.hpp"

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/extract.hpp>
#include <llmjson/retry.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/select.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson_tests::feedback_test {

namespace {

using llmjson::attempt_outcome;
using llmjson::message;
using chat = std::vector<llmjson::message>;

struct plan {
  std::vector<std::string> steps;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, steps)

llmjson::message msg(std::string content, std::string finish = "stop") {
  return llmjson::message{std::move(content), std::move(finish), "assistant"};
}

// The extraction error of `text` (which must have one).
template <class... Args>
llmjson::error error_of(std::string_view text, Args&&... args) {
  auto r = llmjson::extract(text, std::forward<Args>(args)...);
  REQUIRE_FALSE(r);
  return r.error();
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Whether `s` is valid UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// What every instruction is: bounded, valid UTF-8, one line.
void check_bounded(const llmjson::instruction& i) {
  CHECK(i.text.size() <= llmjson::max_feedback_bytes);
  CHECK(valid_utf8(i.text));
  CHECK_FALSE(contains(i.text, "\n"));
  CHECK_FALSE(contains(i.text, "\r"));
}

}  // namespace

TEST_CASE("feedback: no_json names each fault, where it is and how to fix it", "[feedback]") {
  SECTION("a near miss in single quotes") {
    auto i = llmjson::feedback(error_of("The city:\n{'city': 'Paris'}\n"));
    CHECK(i.text ==
          "Your reply is not valid JSON: line 2 col 1: single quotes are not JSON strings (use "
          "double quotes). Reply with the corrected JSON only.");
    CHECK_FALSE(i.raise_budget);
    CHECK(i);
  }
  SECTION("a malformed owner: the validator's own place of the fault") {
    auto i = llmjson::feedback(error_of("```json\n{\"orders\": [\"come about\"], }\n```\n"));
    CHECK(i.text ==
          "Your reply is not valid JSON: line 2 col 26: trailing comma (remove it). Reply with "
          "the corrected JSON only.");
  }
  SECTION("a raw line break, a comment, an unquoted key") {
    // A raw line break alone is read as escaped (rules v4); after a backslash it is a fault.
    CHECK(contains(llmjson::feedback(error_of("{\"a\": \"one\\\ntwo\"}")).text,
                   "line 1 col 12: a raw line break in a string (write \\n instead)"));
    CHECK(contains(llmjson::feedback(error_of("{\"a\": 1 // one\n}")).text,
                   "line 1 col 9: comments are not JSON (remove the comment)"));
    CHECK(contains(llmjson::feedback(error_of("- {ok: True}\n")).text,
                   "line 1 col 3: unquoted key ok (keys take double quotes)"));
  }
  SECTION("faults in document order, near misses and malformed owners together") {
    auto i = llmjson::feedback(error_of("{'a': 1}\n{\"b\": 2,}\n{'c': 3}\n"));
    const auto first = i.text.find("line 1 col 1"), second = i.text.find("line 2 col 8"),
               third = i.text.find("line 3 col 1");
    REQUIRE(first != std::string::npos);
    REQUIRE(second != std::string::npos);
    REQUIRE(third != std::string::npos);
    CHECK(first < second);
    CHECK(second < third);
  }
  SECTION("the first three faults of all, the others counted") {
    std::string text = "{\"a\": 1,}\n{'b': 2}\n";
    for (int k = 0; k < 4; ++k) text += "{\"c\": 3,}\n";
    text += "{'d': 4}\n";
    auto i = llmjson::feedback(error_of(text));
    CHECK(i.text ==
          "Your reply is not valid JSON: line 1 col 8: trailing comma (remove it); line 2 col 1: "
          "single quotes are not JSON strings (use double quotes); line 3 col 8: trailing comma "
          "(remove it); and 4 more. Reply with the corrected JSON only.");
  }
  SECTION("JSON only inside the reasoning") {
    auto i = llmjson::feedback(error_of("<think>\n{\"a\": 1}\n</think>\nI could not decide.\n"));
    CHECK(i.text ==
          "Your reply has JSON only inside the reasoning (<think>), which is not read as the "
          "answer: write the JSON answer after the reasoning.");
  }
  SECTION("no JSON at all") {
    CHECK(llmjson::feedback(error_of("I cannot help with that.")).text ==
          "Your reply has no JSON. Reply with the JSON answer only.");
  }
}

TEST_CASE("feedback: no_match gives the selector's reasons for the closest candidates",
          "[feedback]") {
  SECTION("a missing key (any_key)") {
    llmjson::options o;
    o.fallback = false;
    auto i =
        llmjson::feedback(error_of("Steering: {\"helm\": 270}\n", llmjson::any_key({"orders"}), o));
    CHECK(i.text ==
          "Your JSON is not the expected answer: the value at line 1 col 11: has none of the keys "
          "\"orders\". Reply with one corrected JSON value.");
    CHECK_FALSE(i.raise_budget);
  }
  SECTION("a schema error with its JSON pointer") {
    auto s = llmjson::schema::compile(nlohmann::json::parse(
        R"({"type": "object", "required": ["steps"],
            "properties": {"steps": {"type": "array", "items": {"type": "integer"}}}})"));
    REQUIRE(s);
    auto i = llmjson::feedback(error_of("{\"steps\": [\"one\", 2]}", *s));
    CHECK(contains(i.text, "the value at line 1 col 1: /steps/0: "));
    CHECK(contains(i.text, "integer"));
    CHECK(i.text.ends_with(". Reply with one corrected JSON value."));
  }
  SECTION("an unknown key of the typed decoder") {
    auto i = llmjson::feedback(
        error_of("{\"steps\": [\"boil\"], \"draft\": true}", llmjson::decode<plan>{}));
    CHECK(contains(i.text, "line 1 col 1: unknown key \"draft\""));
  }
  SECTION("valid values outside any frame come first, then malformed, then enclosed ones") {
    // 1:1 is a malformed owner; 2:1 a valid object that does not fit; 3:14 an object in a frame.
    llmjson::options o;
    o.fallback = false;
    auto i = llmjson::feedback(error_of("{\"x\": 1,}\n{\"y\": 2}\n> quoted: {\"z\": 3}\n",
                                        llmjson::any_key({"answer"}), o));
    const auto valid = i.text.find("line 2 col 1"), malformed = i.text.find("trailing comma");
    REQUIRE(valid != std::string::npos);
    REQUIRE(malformed != std::string::npos);
    CHECK(valid < malformed);
  }
  SECTION("the near miss the model meant is named, with its fix") {
    llmjson::options o;
    o.fallback = false;
    auto e = error_of("{\"b\": 2} and {'a': 1}", llmjson::any_key({"a"}), o);
    REQUIRE(e.kind == llmjson::error_kind::no_match);
    auto i = llmjson::feedback(e);
    CHECK(i.text ==
          "Your JSON is not the expected answer: the value at line 1 col 1: has none of the keys "
          "\"a\"; line 1 col 14: single quotes are not JSON strings (use double quotes). Reply "
          "with one corrected JSON value.");
    // Named right after the first valid value, before the values that do not fit after it.
    auto many = llmjson::feedback(
        error_of("{\"b\": 1} {\"c\": 2} {\"d\": 3} {'a': 1}", llmjson::any_key({"a"}), o));
    CHECK(contains(many.text, "line 1 col 28: single quotes are not JSON strings"));
    check_bounded(many);
  }
  SECTION("at most three candidates, the others counted") {
    std::string text;
    for (int k = 0; k < 5; ++k) text += "{\"v\": " + std::to_string(k) + "}\n";
    llmjson::options o;
    o.fallback = false;
    auto i = llmjson::feedback(error_of(text, llmjson::any_key({"answer"}), o));
    CHECK(contains(i.text, "line 3 col 1"));
    CHECK_FALSE(contains(i.text, "line 4 col 1"));
    CHECK(contains(i.text, "; and 2 more. Reply with one corrected JSON value."));
  }
}

TEST_CASE("feedback: ambiguous, truncated, empty, too_large", "[feedback]") {
  SECTION("ambiguous: where the qualifying candidates are") {
    llmjson::options o;
    o.policy = llmjson::policy::unique;
    auto i = llmjson::feedback(error_of("draft: {\"a\": 1}\nfinal: {\"a\": 2}\n", o));
    CHECK(i.text ==
          "Your reply has 2 JSON values that fit, at line 1 col 8, line 2 col 8: give exactly one "
          "JSON answer, with no drafts or examples.");
  }
  SECTION("truncated: where it was cut; an error alone may be the token limit") {
    auto i = llmjson::feedback(error_of("Plan:\n{\"orders\": [\"come about\""));
    CHECK(i.text ==
          "Your reply was cut: the object opened at 2:1 never closes. Reply more briefly, with the "
          "JSON answer only.");
    CHECK(i.raise_budget);
  }
  SECTION("truncated inside the reasoning") {
    auto i = llmjson::feedback(error_of("<think>\nLet me weigh {\"a\""));
    CHECK(i.text ==
          "Your reply ended inside the reasoning, before any answer: reason more briefly and write "
          "the answer.");
    CHECK(i.raise_budget);
  }
  SECTION("empty and too_large") {
    auto empty = llmjson::feedback(error_of("  \n"));
    CHECK(empty.text == "Your reply was empty. Reply with the JSON answer.");
    CHECK_FALSE(empty.raise_budget);
    llmjson::options o;
    o.max_input_bytes = 8;
    auto large = llmjson::feedback(error_of("{\"a\": 12345}", o));
    CHECK(large.text ==
          "Your reply was too long to read. Reply with the JSON answer only, briefly.");
  }
}

namespace {

// What a scripted model replies, and every request it was sent.
struct chat_script {
  std::deque<llmjson::message> replies;
  std::vector<chat> seen;
};

auto replay(chat_script& s) {
  return [&s](const chat& request) -> llmjson::completion {
    s.seen.push_back(request);
    if (s.replies.empty()) return msg("no reply left");
    llmjson::message m = std::move(s.replies.front());
    s.replies.pop_front();
    return m;
  };
}

}  // namespace

TEST_CASE("feedback(attempt) is feedback(error) on the same reply, with the finish_reason",
          "[feedback]") {
  struct one {
    std::string content, finish;
  };
  const one replies[] = {
      {"{'city': 'Paris'}", "stop"},
      {"Steering: {\"helm\": 270}", "stop"},
      {"draft: {\"a\": 1}\nfinal: {\"a\": 2}", "stop"},
      {"Plan:\n{\"steps\": [\"boil\"", ""},
      {"<think>\nLet me see", ""},
      {"I cannot help with that.", "length"},
  };
  llmjson::options o;
  o.policy = llmjson::policy::unique;
  o.fallback = false;
  for (const one& reply : replies) {
    chat_script s;
    s.replies = {msg(reply.content, reply.finish)};
    auto model = llmjson::retrying(replay(s), {.max_attempts = 1, .extraction = o});
    auto r = model.extract(chat{{.content = "Plan", .role = "user"}}, llmjson::any_key({"steps"}));
    REQUIRE_FALSE(r);
    REQUIRE(r.error().extraction);
    const llmjson::instruction from_error = llmjson::feedback(*r.error().extraction);
    const llmjson::instruction from_attempt = llmjson::feedback(r.attempts.back());
    INFO(reply.content);
    CHECK_FALSE(from_error.text.empty());
    CHECK(from_attempt.text == from_error.text);
    CHECK(from_attempt.raise_budget == from_error.raise_budget);
    CHECK(r.attempts.back().feedback == from_error.text);
  }
}

TEST_CASE("feedback(attempt): the finish_reason says whether the token limit cut the reply",
          "[feedback]") {
  auto last_attempt = [](llmjson::message reply) {
    chat_script s;
    s.replies = {std::move(reply)};
    auto model = llmjson::retrying(replay(s), {.max_attempts = 1});
    auto r = model.extract(chat{{.content = "Plan", .role = "user"}});
    REQUIRE_FALSE(r);
    return r.attempts.back();
  };
  SECTION("cut at length") {
    auto i = llmjson::feedback(last_attempt(msg("Plan:\n{\"steps\": [\"boil\"", "length")));
    CHECK(i.text ==
          "Your reply was cut at the token limit: the object opened at 2:1 never closes. Reply "
          "more briefly, with the JSON answer only.");
    CHECK(i.raise_budget);
  }
  SECTION("cut with another finish_reason: no token limit, no brevity") {
    auto i = llmjson::feedback(last_attempt(msg("Plan:\n{\"steps\": [\"boil\"", "stop")));
    CHECK(i.text ==
          "Your reply ended before the JSON did: the object opened at 2:1 never closes. Reply "
          "with the complete JSON answer.");
    CHECK_FALSE(i.raise_budget);
  }
  SECTION("cut inside the reasoning at length") {
    auto i = llmjson::feedback(last_attempt(msg("<think>\nLet me weigh", "length")));
    CHECK(i.text ==
          "You ran out of tokens while reasoning, before writing the answer: reason more briefly "
          "and write the answer.");
    CHECK(i.raise_budget);
  }
  SECTION("empty: nothing to tell, unless the token limit cut it") {
    CHECK_FALSE(llmjson::feedback(last_attempt(msg("", "stop"))));
    CHECK_FALSE(llmjson::feedback(last_attempt(msg(" \n", ""))));
    auto i = llmjson::feedback(last_attempt(msg("", "length")));
    CHECK(i.text ==
          "You ran out of tokens while reasoning and wrote no answer: reason more briefly and "
          "write the answer.");
    CHECK(i.raise_budget);
  }
  SECTION("complete(): an empty reply at length too") {
    chat_script s;
    s.replies = {msg("", "length")};
    auto r = llmjson::retrying(replay(s), {.max_attempts = 1})
                 .complete(chat{{.content = "Hi", .role = "user"}});
    REQUIRE_FALSE(r);
    CHECK(llmjson::feedback(r.attempts.back()).raise_budget);
  }
  SECTION("the outcomes that are never told anything") {
    for (auto o : {attempt_outcome::ok, attempt_outcome::bad_response, attempt_outcome::api_error,
                   attempt_outcome::exception, attempt_outcome::cancelled}) {
      llmjson::attempt a;
      a.outcome = o;
      a.feedback = "set by hand";
      CHECK_FALSE(llmjson::feedback(a));
    }
  }
}

TEST_CASE("reask is never called after an api_error, and resends a bad_response unchanged",
          "[feedback]") {
  std::size_t hook_calls = 0;
  auto counted = [&](const chat& previous, const llmjson::attempt& failed) {
    ++hook_calls;
    return llmjson::reask{}(previous, failed);
  };
  std::vector<chat> seen;
  std::deque<llmjson::completion> replies;
  auto adapter = [&](const chat& request) -> llmjson::completion {
    seen.push_back(request);
    llmjson::completion c = std::move(replies.front());
    replies.pop_front();
    return c;
  };
  const chat first{{.content = "Plan", .role = "user"}};
  SECTION("api_error") {
    replies = {llmjson::api_error{429, "rate limit reached"}, msg("{\"steps\": []}")};
    auto r = llmjson::retrying(adapter, {.max_attempts = 3}, counted).extract(first);
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == llmjson::retry_error_kind::api_error);
    CHECK(hook_calls == 0);
    CHECK(seen.size() == 1);
  }
  SECTION("bad_response") {
    replies = {llmjson::bad_response{"not the provider's JSON", "<html>"}, msg("{\"steps\": []}")};
    auto r = llmjson::retrying(adapter, {.max_attempts = 3}, counted).extract(first);
    REQUIRE(r);
    CHECK(hook_calls == 1);
    REQUIRE(seen.size() == 2);
    CHECK(seen[1] == seen[0]);
  }
}

namespace {

// The position `line L col C` names in `text` (ASCII: columns are bytes), or npos.
std::size_t offset_of(std::string_view text, std::size_t line, std::size_t column) {
  std::size_t at = 0;
  for (std::size_t l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return at;
    ++at;
  }
  return at + column - 1 < text.size() ? at + column - 1 : std::string_view::npos;
}

// Every `line L col C` the instruction names, in order.
std::vector<std::pair<std::size_t, std::size_t>> places(std::string_view said) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t at = said.find("line "); at != std::string_view::npos;
       at = said.find("line ", at + 1)) {
    std::size_t line = 0, column = 0, i = at + 5;
    while (i < said.size() && said[i] >= '0' && said[i] <= '9')
      line = line * 10 + static_cast<std::size_t>(said[i++] - '0');
    if (said.substr(i, 5) != " col ") continue;
    i += 5;
    while (i < said.size() && said[i] >= '0' && said[i] <= '9')
      column = column * 10 + static_cast<std::size_t>(said[i++] - '0');
    out.emplace_back(line, column);
  }
  return out;
}

// The text between the first pair of double quotes after `after` in `said`.
std::optional<std::string> quoted_after(std::string_view said, std::string_view after) {
  auto at = said.find(after);
  if (at == std::string_view::npos) return std::nullopt;
  auto open = said.find('"', at + after.size());
  auto close = open == std::string_view::npos ? open : said.find('"', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(said.substr(open + 1, close - open - 1));
}

// A model that fixes exactly what the instruction names in its previous reply, and nothing
// else: it understands each fix the library may ask for, and only when the instruction names
// it with the right place or key. Anything else gets the same wrong reply again.
std::string fixed(const std::string& reply, const std::string& said) {
  auto spots = places(said);
  if (contains(said, "single quotes are not JSON strings (use double quotes)")) {
    std::string out = reply;
    for (char& c : out)
      if (c == '\'') c = '"';
    return out;
  }
  if (contains(said, "trailing comma (remove it)") && spots.size() == 1) {
    // Only a comma at the place named is removed.
    auto at = offset_of(reply, spots[0].first, spots[0].second);
    if (at == std::string::npos || reply[at] != ',') return reply;
    return reply.substr(0, at) + reply.substr(at + 1);
  }
  if (auto key = quoted_after(said, "has none of the keys ")) {
    auto j = nlohmann::json::parse(reply.substr(reply.find('{')));
    j[*key] = "added";
    return j.dump();
  }
  if (auto key = quoted_after(said, "unknown key ")) {
    auto j = nlohmann::json::parse(reply);
    j.erase(*key);
    return j.dump();
  }
  if (auto at = said.find(": type: expected integer"); at != std::string::npos) {
    auto start = said.rfind(": ", at - 1);
    if (start == std::string::npos) return reply;
    nlohmann::json::json_pointer where(std::string(said.substr(start + 2, at - start - 2)));
    auto j = nlohmann::json::parse(reply);
    j[where] = std::stoi(j[where].get<std::string>());
    return j.dump();
  }
  if (contains(said, "give exactly one JSON answer") && !spots.empty()) {
    // The last value named: the model keeps its final answer.
    auto at = offset_of(reply, spots.back().first, spots.back().second);
    if (at == std::string::npos) return reply;
    return reply.substr(at, reply.find('\n', at) - at);
  }
  if (contains(said, "Reply more briefly")) return "{\"steps\": [\"boil\"]}";
  return reply;
}

// A chat model: its first reply is scripted; after that it reads the last user message (the
// instruction) and fixes its own last reply (the last assistant message) as `fixed` does.
struct fixing_model {
  std::string first;
  std::string first_finish = "stop";
  std::vector<chat>* seen;

  llmjson::completion reply(const chat& request) const {
    seen->push_back(request);
    if (seen->size() == 1) return msg(first, first_finish);
    const llmjson::message* said = nullptr;
    const llmjson::message* mine = nullptr;
    for (const auto& m : request) {
      if (m.role == "user") said = &m;
      if (m.role == "assistant") mine = &m;
    }
    if (!said || !mine) return msg(first, first_finish);  // resent unchanged: the same reply
    return msg(fixed(mine->content, said->content));
  }
  llmjson::completion operator()(const chat& request) const { return reply(request); }
};

const chat prompt{{.content = "Reply with the plan as JSON.", .role = "user"}};

// Checks the conversation the second request carries: the prompt, the model's first reply, the
// instruction of the first attempt.
template <class R>
void check_reasked(const R& r, const std::vector<chat>& seen, const std::string& first) {
  REQUIRE(r.attempts.size() == 2);
  REQUIRE(seen.size() == 2);
  REQUIRE(seen[1].size() == 3);
  CHECK(seen[1][0] == prompt[0]);
  CHECK(seen[1][1].role == "assistant");
  CHECK(seen[1][1].content == first);
  CHECK(seen[1][1].reasoning.empty());
  CHECK(seen[1][2].role == "user");
  CHECK(seen[1][2].content == r.attempts[0].feedback);
}

}  // namespace

TEST_CASE("reask: a model that fixes what the instruction names succeeds on attempt 2",
          "[feedback]") {
  std::vector<chat> seen;
  SECTION("no_json: single quotes") {
    const std::string first = "The city:\n{'city': 'Paris'}";
    auto r =
        llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{}).extract(prompt);
    REQUIRE(r);
    CHECK(r->json == nlohmann::json{{"city", "Paris"}});
    check_reasked(r, seen, first);
    CHECK(r.attempts[0].outcome == attempt_outcome::no_json);
  }
  SECTION("no_json: a trailing comma at the place named") {
    const std::string first = "Plan:\n{\"steps\": [\"boil\",\n  \"pour\",]}";
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{})
                 .extract<plan>(prompt);
    REQUIRE(r);
    CHECK(r->steps == std::vector<std::string>{"boil", "pour"});
    check_reasked(r, seen, first);
  }
  SECTION("no_match: a missing key (any_key)") {
    const std::string first = "Steering: {\"helm\": 270}";
    llmjson::retry_options o;
    o.extraction.fallback = false;
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, o, llmjson::reask{})
                 .extract(prompt, llmjson::any_key({"orders"}));
    REQUIRE(r);
    CHECK(r->json.contains("orders"));
    check_reasked(r, seen, first);
    CHECK(r.attempts[0].outcome == attempt_outcome::no_match);
  }
  SECTION("no_match: the near miss the model meant") {
    const std::string first = "{\"b\": 2} and {'a': 1}";
    llmjson::retry_options o;
    o.extraction.fallback = false;
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, o, llmjson::reask{})
                 .extract(prompt, llmjson::any_key({"a"}));
    REQUIRE(r);
    CHECK(r->json == nlohmann::json{{"a", 1}});
    check_reasked(r, seen, first);
    CHECK(r.attempts[0].outcome == attempt_outcome::no_match);
  }
  SECTION("no_match: a schema error at its JSON pointer") {
    auto s = llmjson::schema::compile(nlohmann::json::parse(
        R"({"type": "object", "required": ["steps"],
            "properties": {"steps": {"type": "array", "items": {"type": "integer"}}}})"));
    REQUIRE(s);
    const std::string first = "{\"steps\": [1, \"2\", 3]}";
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{})
                 .extract(prompt, *s);
    REQUIRE(r);
    CHECK(r->json == nlohmann::json::parse("{\"steps\": [1, 2, 3]}"));
    check_reasked(r, seen, first);
  }
  SECTION("no_match: an unknown key of extract<T>") {
    const std::string first = "{\"steps\": [\"boil\"], \"draft\": true}";
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{})
                 .extract<plan>(prompt);
    REQUIRE(r);
    CHECK(r->steps == std::vector<std::string>{"boil"});
    check_reasked(r, seen, first);
  }
  SECTION("ambiguous: the model keeps one") {
    const std::string first = "draft: {\"steps\": [\"boil\"]}\nfinal: {\"steps\": [\"pour\"]}";
    auto r = llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{})
                 .extract<plan>(prompt);
    REQUIRE(r);
    CHECK(r->steps == std::vector<std::string>{"pour"});
    check_reasked(r, seen, first);
    CHECK(r.attempts[0].outcome == attempt_outcome::ambiguous);
  }
  SECTION("truncated at length: a briefer reply") {
    const std::string first = "{\"steps\": [\"boil the water\", \"wait";
    auto r = llmjson::retrying(fixing_model{first, "length", &seen}, {}, llmjson::reask{})
                 .extract<plan>(prompt);
    REQUIRE(r);
    check_reasked(r, seen, first);
    CHECK(llmjson::feedback(r.attempts[0]).raise_budget);
    CHECK(contains(r.attempts[0].feedback, "cut at the token limit"));
  }
  SECTION("empty: the same request again") {
    chat_script s;
    s.replies = {msg(""), msg("{\"steps\": []}")};
    auto r = llmjson::retrying(replay(s), {}, llmjson::reask{}).extract(prompt);
    REQUIRE(r);
    REQUIRE(s.seen.size() == 2);
    CHECK(s.seen[1] == s.seen[0]);
  }
  SECTION("empty at length: resent unchanged, though the attempt has its instruction") {
    chat_script s;
    s.replies = {msg("", "length"), msg("{\"steps\": []}")};
    auto r = llmjson::retrying(replay(s), {}, llmjson::reask{}).extract(prompt);
    REQUIRE(r);
    REQUIRE(s.seen.size() == 2);
    CHECK(s.seen[1] == s.seen[0]);
    const llmjson::instruction i = llmjson::feedback(r.attempts[0]);
    CHECK(i.raise_budget);
    CHECK(contains(i.text, "ran out of tokens while reasoning"));
  }
  SECTION("a model that does not fix anything still fails: the fix is what succeeds") {
    auto stubborn = [&](const chat& request) -> llmjson::completion {
      seen.push_back(request);
      return msg("{'city': 'Paris'}");
    };
    auto r = llmjson::retrying(stubborn, {.max_attempts = 3}, llmjson::reask{}).extract(prompt);
    REQUIRE_FALSE(r);
    REQUIRE(seen.size() == 3);
    // Each retry carries the whole conversation so far.
    CHECK(seen[1].size() == 3);
    CHECK(seen[2].size() == 5);
  }
}

namespace {

// A request type of the caller's own, and how to add a message to it.
struct my_request {
  std::string model = "m1";
  std::vector<std::pair<std::string, std::string>> turns;  // role, text
};

struct my_append {
  void operator()(my_request& r, const llmjson::message& m) const {
    r.turns.emplace_back(m.role, m.content);
  }
};

}  // namespace

TEST_CASE("reask(append): any request type, through the caller's append", "[feedback]") {
  std::vector<my_request> seen;
  auto adapter = [&](const my_request& r) -> llmjson::completion {
    seen.push_back(r);
    if (seen.size() == 1) return msg("{'steps': ['boil']}");
    if (r.turns.size() == 3 && contains(r.turns[2].second, "use double quotes"))
      return msg("{\"steps\": [\"boil\"]}");
    return msg("no");
  };
  my_request first;
  first.turns = {{"user", "Plan"}};
  SECTION("a function object") {
    auto r = llmjson::retrying(adapter, {}, llmjson::reask(my_append{})).extract<plan>(first);
    REQUIRE(r);
  }
  SECTION("a lambda, through the deduction guide") {
    llmjson::reask hook([](my_request& req, const llmjson::message& m) {
      req.turns.emplace_back(m.role, m.content);
    });
    auto r = llmjson::retrying(adapter, {}, hook).extract<plan>(first);
    REQUIRE(r);
  }
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].model == "m1");
  CHECK(seen[1].turns[1] ==
        std::pair<std::string, std::string>{"assistant", "{'steps': ['boil']}"});
  CHECK(seen[1].turns[2].first == "user");
}

#if LLMJSON_HAS_STOP_TOKEN
TEST_CASE("reask with a streaming adapter", "[feedback]") {
  std::vector<chat> seen;
  auto adapter = [&](const chat& request, const llmjson::sink& out,
                     const std::stop_token&) -> llmjson::completion {
    seen.push_back(request);
    const std::string text = seen.size() == 1 ? "Plan:\n{\"steps\": [\"boil\",]}"
                             : contains(request.back().content, "trailing comma (remove it)")
                                 ? "{\"steps\": [\"boil\"]}"
                                 : "no";
    for (std::size_t at = 0; at < text.size(); at += 5) out(std::string_view(text).substr(at, 5));
    return msg("");
  };
  auto r = llmjson::retrying(adapter, {}, llmjson::reask{}).extract<plan>(prompt);
  REQUIRE(r);
  REQUIRE(seen.size() == 2);
  CHECK(seen[1][1].content == "Plan:\n{\"steps\": [\"boil\",]}");
  CHECK(seen[1][2].content == r.attempts[0].feedback);
}
#endif

TEST_CASE("feedback stays short on hostile replies", "[feedback]") {
  SECTION("a 1 MB reply of malformed objects") {
    std::string text;
    while (text.size() < (1u << 20)) text += "{\"a\": 1,} ";
    llmjson::options o;
    o.max_candidates = 1u << 20;
    auto e = error_of(text, o);
    REQUIRE(e.kind == llmjson::error_kind::no_json);
    auto i = llmjson::feedback(e);
    check_bounded(i);
    CHECK(contains(i.text, " more. Reply with the corrected JSON only."));
  }
  SECTION("thousands of candidates that do not fit, and thousands that all fit") {
    std::string text;
    for (int k = 0; k < 5000; ++k) text += "{\"v\": " + std::to_string(k) + "}\n";
    llmjson::options o;
    o.fallback = false;
    auto none = llmjson::feedback(error_of(text, llmjson::any_key({"answer"}), o));
    check_bounded(none);
    CHECK(contains(none.text, "and 4997 more"));
    o.policy = llmjson::policy::unique;
    auto all = llmjson::feedback(error_of(text, o));
    check_bounded(all);
    CHECK(contains(all.text, "5000 JSON values that fit"));
    CHECK(contains(all.text, "and 4997 more"));
  }
  SECTION("a 100 KB key, in the reply and in the selector's reason") {
    const std::string key(100'000, 'k');
    auto unknown =
        llmjson::feedback(error_of("{\"steps\": [], \"" + key + "\": 1}", llmjson::decode<plan>{}));
    check_bounded(unknown);
    CHECK(contains(unknown.text, "unknown key \"kkkk"));
    CHECK(contains(unknown.text, "..."));
    llmjson::options o;
    o.fallback = false;
    auto missing = llmjson::feedback(error_of("{\"a\": 1}", llmjson::any_key({key, key}), o));
    check_bounded(missing);
    CHECK(missing.text.ends_with("Reply with one corrected JSON value."));
  }
  SECTION("control characters and invalid UTF-8 in keys and reasons") {
    auto unknown = llmjson::feedback(
        error_of("{\"steps\": [], \"\\u0001\\n\\u001f\xc3\xa9\": 1}", llmjson::decode<plan>{}));
    check_bounded(unknown);
    CHECK(contains(unknown.text, "\\x01\\n\\x1f\xc3\xa9"));
    // A selector whose reason is long invalid UTF-8, cut in the middle of sequences.
    auto odd = [](const nlohmann::json&) {
      std::string why;
      for (int k = 0; k < 50'000; ++k) why += k % 3 ? "\xe2\x82" : "\xff";
      return llmjson::verdict::fail(why);
    };
    llmjson::options o;
    o.fallback = false;
    auto bad = llmjson::feedback(error_of("{\"a\": 1} {\"b\": 2} {\"c\": 3} {\"d\": 4}", odd, o));
    check_bounded(bad);
    auto long_near = llmjson::feedback(error_of("{'" + std::string(200'000, '\xff') + "': 1}"));
    check_bounded(long_near);
  }
  SECTION("every kind of the small examples") {
    for (const char* text : {"", "x", "{", "{'a': 1}", "<think>", "{\"a\": 1} {\"a\": 2}"}) {
      llmjson::options o;
      o.policy = llmjson::policy::unique;
      auto r = llmjson::extract(text, o);
      if (!r) check_bounded(llmjson::feedback(r.error()));
    }
  }
}

namespace {

// The bytes a chat request carries: its messages' contents.
std::size_t request_bytes(const chat& request) {
  std::size_t n = 0;
  for (const auto& m : request) n += m.content.size() + m.reasoning.size();
  return n;
}

// Line `line` of `text` (1-based, LF line ends), without its LF.
std::string_view line_of(std::string_view text, std::size_t line) {
  std::size_t at = 0;
  for (std::size_t l = 1; l < line && at != std::string_view::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string_view::npos) ++at;
  }
  if (at == std::string_view::npos) return {};
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE("reask: a 70 KB reply is resent cut, without its reasoning, and requests stay small",
          "[feedback]") {
  // 20 KB of reasoning, then a 50 KB plan with a trailing comma after its last step.
  std::string reply = "<think>\n";
  for (int k = 0; reply.size() < 20'000; ++k)
    reply += "Let me weigh step " + std::to_string(k) + " against the others once more.\n";
  reply += "</think>\n{\"steps\": [\n";
  for (int k = 0; reply.size() < 70'000; ++k)
    reply += "  \"step " + std::to_string(100000 + k) + ": boil the water, then wait\",\n";
  reply += "]}\n";
  REQUIRE(reply.size() > 70'000);

  std::vector<chat> seen;
  auto stubborn = [&](const chat& request) -> llmjson::completion {
    seen.push_back(request);
    return msg(reply);
  };
  auto r = llmjson::retrying(stubborn, {.max_attempts = 4}, llmjson::reask{}).extract<plan>(prompt);
  REQUIRE_FALSE(r);
  REQUIRE(r.attempts.size() == 4);
  REQUIRE(seen.size() == 4);  // seen[3]: the request after three failed attempts
  for (const llmjson::attempt& a : r.attempts) {
    CHECK(a.content == reply);  // the caller keeps every reply whole
    CHECK(contains(a.feedback, "trailing comma (remove it)"));
  }

  const std::size_t before =
      request_bytes(seen[0]) + 3 * (reply.size() + r.attempts[0].feedback.size());
  const std::size_t after = request_bytes(seen[3]);
  CAPTURE(reply.size(), before, after, r.attempts[0].excerpt.size());
  // Each failed attempt adds its excerpt and its instruction, bounded whatever the reply.
  const std::size_t per_attempt = llmjson::max_excerpt_bytes + 1024 + llmjson::max_feedback_bytes;
  for (std::size_t k = 1; k < seen.size(); ++k) {
    CHECK(request_bytes(seen[k]) - request_bytes(seen[k - 1]) <= per_attempt);
    REQUIRE(seen[k].size() == 1 + 2 * k);
  }
  CHECK(after < reply.size() / 4);  // not one reply in full, let alone three
  // The figure the README and the adapters' manual quote: 2.6 KB after three 70 KB replies,
  // where resending them whole made 210 KB.
  CHECK(reply.size() == 70030);
  CHECK(after == 2626);
  CHECK(before == 210451);

  const std::string& excerpt = r.attempts[0].excerpt;
  // Never the reasoning, in any request.
  for (const chat& request : seen)
    for (const auto& m : request) {
      CHECK_FALSE(contains(m.content, "<think>"));
      CHECK_FALSE(contains(m.content, "Let me weigh"));
    }
  CHECK(seen[3][1].content == excerpt);
  CHECK(seen[3][5].content == r.attempts[2].excerpt);
  // The place the instruction names is in it, with the line around it: the last step.
  const auto spots = places(r.attempts[0].feedback);
  REQUIRE(spots.size() == 1);
  const std::string comma_line(line_of(reply, spots[0].first));
  CHECK(comma_line.ends_with("\","));
  CHECK(contains(excerpt, comma_line + "\n]}"));
  // Each cut is said, with where the text after it is in the reply.
  CHECK(contains(excerpt, "bytes of reasoning cut"));
  for (std::size_t at = excerpt.find("; resuming at "); at != std::string::npos;
       at = excerpt.find("; resuming at ", at + 1)) {
    const auto where = places(std::string_view(excerpt).substr(at, 40));
    REQUIRE(where.size() == 1);
    std::size_t text_at = excerpt.find(" ...]", at) + 5;
    if (where[0].second == 1 && excerpt[text_at] == '\n') ++text_at;  // a note's own line
    const std::size_t piece = std::min(excerpt.find("[... ", text_at), excerpt.size()) - text_at;
    const std::size_t in_reply = offset_of(reply, where[0].first, where[0].second);
    REQUIRE(in_reply != std::string::npos);
    CHECK(std::string_view(excerpt).substr(text_at, piece) == reply.substr(in_reply, piece));
  }
  CHECK(excerpt.size() <= llmjson::max_excerpt_bytes + 1024);
}

TEST_CASE(
    "reask: a short reply is resent whole, less its reasoning, whichever markers extraction reads",
    "[feedback]") {
  std::vector<chat> seen;
  SECTION("<think>") {
    const std::string first = "<think>\n{\"a\": 1} maybe?\n</think>\n{'a': 1}";
    auto r =
        llmjson::retrying(fixing_model{first, "stop", &seen}, {}, llmjson::reask{}).extract(prompt);
    REQUIRE(r);
    REQUIRE(seen.size() == 2);
    CHECK(seen[1][1].content ==
          "[... 32 bytes of reasoning cut; resuming at line 3 col 9 ...]\n{'a': 1}");
    CHECK(r.attempts[0].content == first);
    CHECK(contains(r.attempts[0].feedback, "line 4 col 1: single quotes"));
  }
  SECTION("the caller's own markers (retry_options::extraction)") {
    const std::string first = "<plan>draft: {\"a\": 0}</plan> {'a': 1}";
    llmjson::retry_options o;
    o.extraction.reasoning_markers = {{"<plan>", "</plan>"}};
    auto r =
        llmjson::retrying(fixing_model{first, "stop", &seen}, o, llmjson::reask{}).extract(prompt);
    REQUIRE(r);
    REQUIRE(seen.size() == 2);
    CHECK(seen[1][1].content ==
          "[... 28 bytes of reasoning cut; resuming at line 1 col 29 ...] {'a': 1}");
  }
  SECTION("an attempt made by hand, without its excerpt: cut as the default options read it") {
    llmjson::attempt a;
    a.outcome = attempt_outcome::no_json;
    a.content = "<think>hmm</think>{'a': 1}";
    a.feedback = "Your reply is not valid JSON: use double quotes.";
    const chat next = llmjson::reask{}(prompt, a);
    REQUIRE(next.size() == 3);
    CHECK(next[1].content ==
          "[... 18 bytes of reasoning cut; resuming at line 1 col 19 ...]{'a': 1}");
  }
}

TEST_CASE("reask: the excerpt stays short on hostile replies", "[feedback]") {
  auto excerpt_of = [](const std::string& reply) {
    auto model = [&](const chat&) -> llmjson::completion { return msg(reply); };
    auto r = llmjson::retrying(model, {.max_attempts = 1}).extract<plan>(prompt);
    REQUIRE_FALSE(r);
    return r.attempts[0].excerpt;
  };
  const std::size_t most = llmjson::max_excerpt_bytes + 2048;
  SECTION("thousands of small reasoning regions between bits of answer text") {
    std::string reply;
    for (int k = 0; k < 20'000; ++k) reply += "<think>hm</think>{'a'} ";
    const std::string e = excerpt_of(reply);
    CHECK(e.size() <= most);
    CHECK_FALSE(contains(e, "<think>"));
    CHECK(contains(e, " bytes cut"));
  }
  SECTION("one line of 300 KB, with multi-byte characters") {
    std::string reply = "{\"steps\": [\"";
    while (reply.size() < 300'000) reply += "\xc3\xa9\xe2\x82\xac";
    reply += "\",]}";
    const std::string e = excerpt_of(reply);
    CHECK(e.size() <= most);
    CHECK(valid_utf8(e));
    CHECK(contains(e, "\",]}"));
    CHECK(contains(e, "; resuming at line 1 col "));
  }
  SECTION("a reply cut inside the reasoning: nothing of it is resent") {
    const std::string e = excerpt_of("<think>\n" + std::string(100'000, 'x'));
    CHECK(e == "[... 100,008 bytes of reasoning cut ...]");
  }
}

}  // namespace llmjson_tests::feedback_test
