// llmjson: tests of adapter.hpp: message, completion, sink and the Adapter concepts
// SPDX-License-Identifier: MIT
#include <llmjson/adapter.hpp>

#include "catch_compat.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace llmjson_tests::adapter_test {

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

#if LLMJSON_HAS_STOP_TOKEN
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

// The token taken in each way a parameter can take it. The wrapper passes a
// `const std::stop_token&` lvalue: the first three can be called so, the last two cannot.
struct token_by_value {
  llmjson::completion operator()(const std::string&, std::stop_token) const {
    return llmjson::message{"by value", "stop"};
  }
};
struct token_by_const_ref {
  llmjson::completion operator()(const std::string&, const std::stop_token&) const {
    return llmjson::message{"by const ref", "stop"};
  }
};
struct token_generic {
  llmjson::completion operator()(const std::string&, auto&& stop) const {
    return llmjson::message{stop.stop_possible() ? "possible" : "not possible", "stop"};
  }
};
struct token_by_ref {
  llmjson::completion operator()(const std::string&, std::stop_token&) const {
    return llmjson::message{};
  }
};
struct token_by_rvalue_ref {
  llmjson::completion operator()(const std::string&, std::stop_token&&) const {
    return llmjson::message{};
  }
};

// The streaming form: pushes "a", "b", "c" into the sink, and names its form in the message.
struct streams {
  llmjson::completion operator()(const std::string&, const llmjson::sink& out,
                                 const std::stop_token&) const {
    for (std::string_view piece : {"a", "b", "c"}) out(piece);
    return llmjson::message{"", "stop"};
  }
};

// All three forms: the streaming one is used.
struct all_forms : both_forms {
  using both_forms::operator();
  llmjson::completion operator()(const std::string&, llmjson::sink out, std::stop_token) const {
    out("streamed");
    return llmjson::message{"", "stop"};
  }
};

// The sink taken in each way a parameter can take it. The wrapper passes a `const sink&`
// lvalue: by value, by const reference, a template and a std::function can take it.
struct sink_by_value {
  llmjson::completion operator()(const std::string&, llmjson::sink out, std::stop_token) const {
    out("by value");
    return llmjson::message{};
  }
};
struct sink_generic {
  llmjson::completion operator()(const std::string&, const auto& out, const auto& stop) const {
    out(stop.stop_requested() ? "generic, stopped" : "generic");
    return llmjson::message{};
  }
};
struct sink_as_function {
  llmjson::completion operator()(const std::string&, std::function<void(std::string_view)> out,
                                 std::stop_token) const {
    out("std::function");
    return llmjson::message{};
  }
};
// ... and these cannot: a non-const or rvalue reference, a callable of another argument, a
// buffer where a sink is passed, the token before the sink.
struct sink_by_ref {
  llmjson::completion operator()(const std::string&, llmjson::sink&, std::stop_token) const {
    return llmjson::message{};
  }
};
struct sink_by_rvalue_ref {
  llmjson::completion operator()(const std::string&, llmjson::sink&&, std::stop_token) const {
    return llmjson::message{};
  }
};
struct sink_of_ints {
  llmjson::completion operator()(const std::string&, std::function<void(int)>,
                                 std::stop_token) const {
    return llmjson::message{};
  }
};
struct sink_as_buffer {
  llmjson::completion operator()(const std::string&, std::string&, std::stop_token) const {
    return llmjson::message{};
  }
};
struct token_then_sink {
  llmjson::completion operator()(const std::string&, std::stop_token, llmjson::sink) const {
    return llmjson::message{};
  }
};

// Calls a streaming adapter as the wrapper does, with a sink that collects the pieces.
template <class A>
std::vector<std::string> pieces_of(A& adapter, const std::stop_token& stop = {}) {
  std::vector<std::string> got;
  auto collect = [&](std::string_view piece) noexcept {
    try {
      got.emplace_back(piece);
    } catch (...) {
    }
  };
  const llmjson::sink out(collect);
  const std::string prompt = "p";
  (void)llmjson::detail::call_adapter(adapter, prompt, out, stop);
  return got;
}
#endif

// Calls the adapter as the retry wrapper does, with no stop requested.
template <class A, class Req>
llmjson::completion call(A& adapter, const Req& request) {
#if LLMJSON_HAS_STOP_TOKEN
  return llmjson::detail::call_adapter(adapter, request, std::stop_token{});
#else
  return llmjson::detail::call_adapter(adapter, request);
#endif
}

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
  CHECK(std::get<llmjson::message>(call(mutable_lambda, prompt)).content == "1");
  CHECK(std::get<llmjson::message>(call(mutable_lambda, prompt)).content == "2");
}

#if LLMJSON_HAS_STOP_TOKEN
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

TEST_CASE("the concept accepts exactly the stop-token parameters the wrapper can pass",
          "[adapter]") {
  STATIC_REQUIRE(llmjson::Adapter<token_by_value, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<token_by_const_ref, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<token_generic, std::string>);
  // A non-const lvalue reference or an rvalue reference cannot bind the wrapper's token.
  STATIC_REQUIRE_FALSE(llmjson::Adapter<token_by_ref, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<token_by_rvalue_ref, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::RequestFor<std::string, token_by_ref>);
  // And each one accepted is called with the token, through the wrapper's own path.
  const std::string prompt = "p";
  std::stop_source source;
  token_by_value v;
  token_by_const_ref r;
  token_generic g;
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(v, prompt, source.get_token()))
            .content == "by value");
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(r, prompt, source.get_token()))
            .content == "by const ref");
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(g, prompt, source.get_token()))
            .content == "possible");
  CHECK(std::get<llmjson::message>(llmjson::detail::call_adapter(g, prompt, {})).content ==
        "not possible");
}
#endif

TEST_CASE("LLMJSON_HAS_STOP_TOKEN says whether the standard library has std::stop_token",
          "[adapter]") {
#if defined(__cpp_lib_jthread)
  STATIC_REQUIRE(LLMJSON_HAS_STOP_TOKEN == 1);
#else
  STATIC_REQUIRE(LLMJSON_HAS_STOP_TOKEN == 0);
#endif
}

TEST_CASE("RequestFor is Adapter with the request first, for constraining a request type",
          "[adapter]") {
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  STATIC_REQUIRE(llmjson::RequestFor<std::string, decltype(adapter)>);
  STATIC_REQUIRE(llmjson::RequestFor<const char*, decltype(adapter)>);
  STATIC_REQUIRE_FALSE(llmjson::RequestFor<int, decltype(adapter)>);
  STATIC_REQUIRE(llmjson::RequestFor<chat, counting_adapter>);
  STATIC_REQUIRE_FALSE(llmjson::RequestFor<std::string, counting_adapter>);
}

TEST_CASE("an adapter may return a message or an api_error directly", "[adapter]") {
  STATIC_REQUIRE(llmjson::Adapter<returns_message, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<returns_api_error, std::string>);
  returns_api_error a;
  std::string prompt;
  auto c = call(a, prompt);
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

TEST_CASE(
    "the wrapper's calls take an adapter that breaks the request or result rule, to explain it",
    "[adapter]") {
  using llmjson::detail::misdeclared_adapter;
  using llmjson::detail::RequestOrMisdeclared;
  // Read from the one call operator, whatever the request: tests/compile_fail.cpp has the
  // static_asserts these lead to.
  STATIC_REQUIRE(misdeclared_adapter<returns_string>());
  STATIC_REQUIRE(misdeclared_adapter<modifies_request>());
  STATIC_REQUIRE(RequestOrMisdeclared<int, modifies_request>);
  auto generic_text = [](const auto& p) { return std::string(p); };
  STATIC_REQUIRE_FALSE(misdeclared_adapter<decltype(generic_text)>());
  STATIC_REQUIRE(RequestOrMisdeclared<std::string, decltype(generic_text)>);
  // Adapters are not misdeclared, and a request no form takes is still refused.
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  STATIC_REQUIRE_FALSE(misdeclared_adapter<decltype(adapter)>());
  STATIC_REQUIRE_FALSE(misdeclared_adapter<counting_adapter>());
  STATIC_REQUIRE_FALSE(misdeclared_adapter<returns_message>());
  STATIC_REQUIRE(RequestOrMisdeclared<std::string, decltype(adapter)>);
  STATIC_REQUIRE_FALSE(RequestOrMisdeclared<int, decltype(adapter)>);
  STATIC_REQUIRE_FALSE(RequestOrMisdeclared<std::string, counting_adapter>);
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
  CHECK(std::get<llmjson::bad_response>(c).raw.empty());
  c = llmjson::bad_response{"body is not JSON", "<html>\n502\n</html>"};
  CHECK(std::get<llmjson::bad_response>(c).raw == "<html>\n502\n</html>");
  CHECK(llmjson::message{"a", "stop", "assistant"} == llmjson::message{"a", "stop", "assistant"});
  CHECK_FALSE(llmjson::message{"a", "stop", "assistant"} ==
              llmjson::message{"a", "length", "assistant"});
}

TEST_CASE("a message may carry the reasoning a provider sends apart", "[adapter]") {
  const llmjson::message plain{"{}", "stop", "assistant"};
  CHECK(plain.reasoning.empty());
  const llmjson::message reasoned{"{}", "stop", "assistant", "first, the user wants"};
  CHECK(reasoned.reasoning == "first, the user wants");
  CHECK_FALSE(plain == reasoned);  // the reasoning is part of what the provider sent
  const llmjson::message designated{.content = "{}", .reasoning = "hmm"};
  CHECK(designated.role == "assistant");
  CHECK(designated.reasoning == "hmm");
}

TEST_CASE("an adapter with state counts its own calls", "[adapter]") {
  counting_adapter a;
  chat turns{{"user", "hello"}};
  auto c = call(a, turns);
  CHECK(std::get<llmjson::message>(c).content == "echo: hello");
  CHECK(a.calls == 1);
  (void)call(a, turns);
  CHECK(a.calls == 2);
}

#if LLMJSON_HAS_STOP_TOKEN
TEST_CASE("a sink calls its target in place: any noexcept callable lvalue, never a temporary",
          "[adapter][stream]") {
  std::string got;
  auto append = [&](std::string_view chunk) noexcept { got += chunk; };
  const llmjson::sink out(append);
  out("{\"a\"");
  const llmjson::sink copy = out;  // a copy calls the same target
  copy(": 1}");
  CHECK(got == "{\"a\": 1}");
  STATIC_REQUIRE(std::is_nothrow_invocable_v<const llmjson::sink&, std::string_view>);
  STATIC_REQUIRE(std::is_trivially_copyable_v<llmjson::sink>);
  // A sink of a temporary would dangle; a callable that may throw cannot be called from C.
  using appender = decltype(append);
  STATIC_REQUIRE(std::is_constructible_v<llmjson::sink, appender&>);
  STATIC_REQUIRE(std::is_constructible_v<llmjson::sink, const appender&>);
  STATIC_REQUIRE_FALSE(std::is_constructible_v<llmjson::sink, appender&&>);
  STATIC_REQUIRE_FALSE(std::is_constructible_v<llmjson::sink, appender>);
  auto may_throw = [&](std::string_view chunk) { got += chunk; };
  STATIC_REQUIRE_FALSE(std::is_constructible_v<llmjson::sink, decltype(may_throw)&>);
  STATIC_REQUIRE_FALSE(std::is_convertible_v<appender&, llmjson::sink>);  // explicit
  // A const callable is called const.
  struct counter {
    mutable int calls = 0;
    void operator()(std::string_view) const noexcept { ++calls; }
  };
  const counter c;
  const llmjson::sink counted(c);
  counted("x");
  counted("y");
  CHECK(c.calls == 2);
}

TEST_CASE("a streaming adapter is an adapter, and the concept names the streaming form",
          "[adapter][stream]") {
  STATIC_REQUIRE(llmjson::StreamingAdapter<streams, std::string>);
  STATIC_REQUIRE(llmjson::Adapter<streams, std::string>);
  STATIC_REQUIRE(llmjson::RequestFor<std::string, streams>);
  STATIC_REQUIRE_FALSE(llmjson::RequestFor<int, streams>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<cancellable_adapter, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<counting_adapter, chat>);
  STATIC_REQUIRE(llmjson::StreamingAdapter<all_forms, std::string>);
  streams a;
  CHECK(pieces_of(a) == std::vector<std::string>{"a", "b", "c"});
  // All three forms: the wrapper's path takes the streaming one.
  all_forms b;
  CHECK(pieces_of(b) == std::vector<std::string>{"streamed"});
}

TEST_CASE("the concept accepts exactly the sink parameters the wrapper can pass",
          "[adapter][stream]") {
  STATIC_REQUIRE(llmjson::StreamingAdapter<sink_by_value, std::string>);
  STATIC_REQUIRE(llmjson::StreamingAdapter<sink_generic, std::string>);
  STATIC_REQUIRE(llmjson::StreamingAdapter<sink_as_function, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<sink_by_ref, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<sink_by_rvalue_ref, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<sink_of_ints, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<sink_as_buffer, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::StreamingAdapter<token_then_sink, std::string>);
  // None of the refused ones is an adapter in another form either.
  STATIC_REQUIRE_FALSE(llmjson::Adapter<sink_by_ref, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<sink_of_ints, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::Adapter<sink_as_buffer, std::string>);
  STATIC_REQUIRE_FALSE(llmjson::RequestFor<std::string, token_then_sink>);
  // And each one accepted is called with the sink and the token, through the wrapper's path.
  sink_by_value v;
  sink_generic g;
  sink_as_function f;
  CHECK(pieces_of(v) == std::vector<std::string>{"by value"});
  CHECK(pieces_of(f) == std::vector<std::string>{"std::function"});
  CHECK(pieces_of(g) == std::vector<std::string>{"generic"});
  std::stop_source source;
  source.request_stop();
  CHECK(pieces_of(g, source.get_token()) == std::vector<std::string>{"generic, stopped"});
}
#endif

}  // namespace llmjson_tests::adapter_test
