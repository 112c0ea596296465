// llmjson: tests of adapter.hpp: message, completion and the Adapter concept
// SPDX-License-Identifier: MIT
#include <llmjson/adapter.hpp>

#include "catch_compat.hpp"

#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

struct chat_turn {
  std::string role;
  std::string content;
};
using chat = std::vector<chat_turn>;

// An object with a call operator, holding state (a client would).
struct counting_adapter {
  int calls = 0;
  llmjson::completion operator()(const chat& turns) {
    ++calls;
    return llmjson::message{"echo: " + turns.back().content, "stop", "assistant"};
  }
};

// An adapter that can be cancelled.
struct cancellable_adapter {
  llmjson::completion operator()(const std::string&, std::stop_token stop) const {
    return llmjson::message{stop.stop_requested() ? "stopped" : "ran", "stop", "assistant"};
  }
};

// Both forms: the one with the stop token is used.
struct both_forms {
  llmjson::completion operator()(const std::string&) const {
    return llmjson::message{"plain", "stop"};
  }
  llmjson::completion operator()(const std::string&, std::stop_token) const {
    return llmjson::message{"token", "stop"};
  }
};

// Adapters returning one alternative directly, not a completion.
struct returns_message {
  llmjson::message operator()(std::string_view) const { return {"hi", "stop", "assistant"}; }
};
struct returns_api_error {
  llmjson::api_error operator()(std::string_view) const { return {429, "slow down"}; }
};

// Not adapters.
struct returns_string {
  std::string operator()(const std::string&) const { return "text"; }
};
struct modifies_request {
  llmjson::completion operator()(std::string& prompt) const {
    prompt += "!";
    return llmjson::message{};
  }
};

}  // namespace

TEST_CASE("a plain lambda over a string view is an adapter of a string prompt", "[adapter]") {
  auto adapter = [](std::string_view prompt) -> llmjson::completion {
    return llmjson::message{std::string(prompt), "stop", "assistant"};
  };
  STATIC_REQUIRE(llmjson::Adapter<decltype(adapter), std::string>);
  STATIC_REQUIRE(llmjson::Adapter<decltype(adapter), std::string_view>);
  STATIC_REQUIRE(llmjson::Adapter<decltype(adapter), const char*>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<decltype(adapter), chat>);
}

TEST_CASE("an object with a call operator, a mutable lambda and a reference are adapters",
          "[adapter]") {
  STATIC_REQUIRE(llmjson::Adapter<counting_adapter, chat>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<counting_adapter, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<std::reference_wrapper<counting_adapter>, chat>);
  auto mutable_lambda = [n = 0](const std::string&) mutable -> llmjson::completion {
    return llmjson::message{std::to_string(++n), "stop", "assistant"};
  };
  STATIC_REQUIRE(llmjson::Adapter<decltype(mutable_lambda), std::string>);
  // Called through the wrapper's own path, it keeps its state from call to call.
  const std::string prompt = "hi";
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(mutable_lambda, prompt, {}))
            .content == "1");
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(mutable_lambda, prompt, {}))
            .content == "2");
}

TEST_CASE("an adapter that takes a stop token is an adapter, and gets the token", "[adapter]") {
  STATIC_REQUIRE(llmjson::Adapter<cancellable_adapter, std::string>);
  cancellable_adapter a;
  std::stop_source source;
  std::string prompt = "p";
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(a, prompt, source.get_token()))
            .content == "ran");
  source.request_stop();
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(a, prompt, source.get_token()))
            .content == "stopped");
  both_forms b;
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(b, prompt, source.get_token()))
            .content == "token");
}

TEST_CASE("an adapter may return a message or an api_error directly", "[adapter]") {
  STATIC_REQUIRE(llmjson::Adapter<returns_message, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<returns_api_error, std::string>);
  returns_api_error a;
  std::string prompt;
  auto c = llmjson::detail::call_adapter(a, prompt, {});
  REQUIRE(std::holds_alternative<llmjson::api_error>(c));
  CHECK(std::get<llmjson::api_error>(c) == llmjson::api_error{429, "slow down"});
}

TEST_CASE(
    "callables returning text, or taking the request by non-const reference, are not adapters",
    "[adapter]") {
  STATIC_REQUIRE_FALSE(llmjson::Adapter<returns_string, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<modifies_request, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<int, std::string>);
}

TEST_CASE("a completion holds one of message, api_error and bad_response", "[adapter]") {
  llmjson::completion c = llmjson::message{};
  const auto& m = std::get<llmjson::message>(c);
  CHECK(m.content.empty());  // an absent content is the empty one
  CHECK(m.finish_reason.empty());
  CHECK(m.role == "assistant");
  c = llmjson::api_error{500, "internal"};
  CHECK(std::get<llmjson::api_error>(c).status == 500);
  c = llmjson::bad_response{"body is not JSON"};
  CHECK(std::get<llmjson::bad_response>(c).message == "body is not JSON");
  CHECK(llmjson::message{"a", "stop", "assistant"} == llmjson::message{"a", "stop", "assistant"});
  CHECK_FALSE(llmjson::message{"a", "stop", "assistant"} ==
              llmjson::message{"a", "length", "assistant"});
}

TEST_CASE("an adapter with state counts its own calls", "[adapter]") {
  counting_adapter a;
  chat turns{{"user", "hello"}};
  auto c = llmjson::detail::call_adapter(a, turns, {});
  CHECK(std::get<llmjson::message>(c).content == "echo: hello");
  CHECK(a.calls == 1);
  llmjson::detail::call_adapter(a, turns, {});
  CHECK(a.calls == 2);
}
