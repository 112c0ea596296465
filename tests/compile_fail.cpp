// llmjson: calls that would leave views dangling, a key where a selector belongs, misused retry
// wrappers and sinks, decoders of types nlohmann cannot decode or encode, llmjson::schema without
// its header, and LLMJSON_DEFINE_TYPE of members it cannot handle must not compile; extract<T>
// of a temporary, whose result owns its value, must
// SPDX-License-Identifier: MIT
// Built once per LLMJSON_CASE_* by tests that expect the build to fail; LLMJSON_CASE_ok is the
// control that must build, so a failure for another reason (a missing include) cannot pass. The
// retry_* cases are also checked for their first error (tests/compile_fail.cmake), and
// retry_strict is built at -O2 with -Werror and must build.
#include <llmjson/llmjson.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace {

struct plan {
  int steps = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(plan, steps)

// A type without nlohmann's from_json and to_json, and one with from_json alone.
struct bare {
  int steps = 0;
};
struct decode_only {
  int steps = 0;
};
[[maybe_unused]] void from_json(const nlohmann::json& j, decode_only& d) {
  j.at("steps").get_to(d.steps);
}

std::string model_reply() { return R"({"steps": 3})"; }
// A const temporary binds to `const std::string&&` as readily as to `std::string_view`.
[[maybe_unused]] const std::string const_reply() { return R"({"steps": 3})"; }

}  // namespace

// LLMJSON_DEFINE_TYPE and LLMJSON_DEFINE_ENUM (<llmjson/schema_of.hpp>, which the umbrella leaves
// out): a member type they cannot decode or describe fails at the declaration, the first error
// naming the problem.
#if defined(LLMJSON_CASE_schema_of_ok) || defined(LLMJSON_CASE_schema_of_pointer) ||               \
    defined(LLMJSON_CASE_schema_of_int_keys) || defined(LLMJSON_CASE_schema_of_char) ||            \
    defined(LLMJSON_CASE_schema_of_undeclared_enum) || defined(LLMJSON_CASE_schema_of_too_many) || \
    defined(LLMJSON_CASE_schema_of_duplicate)
#define LLMJSON_SCHEMA_OF_CASE 1
#include <llmjson/schema_of.hpp>

#include <array>
#include <vector>

namespace with_schema {
enum class level { low, high };
#if !defined(LLMJSON_CASE_schema_of_undeclared_enum)
LLMJSON_DEFINE_ENUM(level, low, high)
#endif
struct item {
#if defined(LLMJSON_CASE_schema_of_pointer)
  std::vector<const int*> counts;  // a pointer, inside a vector
#elif defined(LLMJSON_CASE_schema_of_int_keys)
  std::map<int, std::string> names;  // JSON object keys are strings
#elif defined(LLMJSON_CASE_schema_of_char)
  char grade = 'a';
#elif defined(LLMJSON_CASE_schema_of_too_many)
  int m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, m9 = 0;
  int m10 = 0, m11 = 0, m12 = 0, m13 = 0, m14 = 0, m15 = 0, m16 = 0, m17 = 0, m18 = 0, m19 = 0;
  int m20 = 0, m21 = 0, m22 = 0, m23 = 0, m24 = 0, m25 = 0, m26 = 0, m27 = 0, m28 = 0, m29 = 0;
  int m30 = 0, m31 = 0, m32 = 0, m33 = 0, m34 = 0, m35 = 0, m36 = 0, m37 = 0, m38 = 0, m39 = 0;
  int m40 = 0, m41 = 0, m42 = 0, m43 = 0, m44 = 0, m45 = 0, m46 = 0, m47 = 0, m48 = 0, m49 = 0;
  int m50 = 0, m51 = 0, m52 = 0, m53 = 0, m54 = 0, m55 = 0, m56 = 0, m57 = 0, m58 = 0, m59 = 0;
  int m60 = 0, m61 = 0, m62 = 0, m63 = 0, m64 = 0;
#else
  std::vector<std::optional<int> > counts;
  std::map<std::string, std::array<double, 2> > points;
#endif
  level lv = level::low;
};
#if defined(LLMJSON_CASE_schema_of_pointer)
LLMJSON_DEFINE_TYPE(item, (counts, "the counts"), lv)
#elif defined(LLMJSON_CASE_schema_of_int_keys)
LLMJSON_DEFINE_TYPE(item, names, lv)
#elif defined(LLMJSON_CASE_schema_of_char)
LLMJSON_DEFINE_TYPE(item, grade, lv)
#elif defined(LLMJSON_CASE_schema_of_duplicate)
LLMJSON_DEFINE_TYPE(item, lv, (lv, "listed twice"))
#elif defined(LLMJSON_CASE_schema_of_too_many)
LLMJSON_DEFINE_TYPE(item, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16,
                    m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31, m32,
                    m33, m34, m35, m36, m37, m38, m39, m40, m41, m42, m43, m44, m45, m46, m47, m48,
                    m49, m50, m51, m52, m53, m54, m55, m56, m57, m58, m59, m60, m61, m62, m63, m64)
#else
LLMJSON_DEFINE_TYPE(item, (counts, "the counts"), points, lv)
#endif
}  // namespace with_schema
#endif

int main() {
  const std::string kept = model_reply();
#if defined(LLMJSON_CASE_ok)
  auto a = llmjson::extract(kept, llmjson::any_key({"steps"}));
  auto b = llmjson::extract<plan>(kept);
  auto c = llmjson::candidates(kept);
  auto d = llmjson::fences(kept);
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  auto hook = [](std::string_view p, const llmjson::attempt&) { return p; };
  auto e = llmjson::retrying(adapter, {}, hook).complete(std::string_view(kept));
#if LLMJSON_HAS_STOP_TOKEN
  // A streaming adapter, and a sink of a named callable that does not throw.
  auto streaming = [](const std::string& prompt, const llmjson::sink& out,
                      const std::stop_token&) -> llmjson::completion {
    out(prompt);
    return llmjson::message{};
  };
  std::string got;
  auto append = [&](std::string_view chunk) noexcept { got += chunk; };
  const llmjson::sink out(append);
  out("x");
  auto f = llmjson::retrying(streaming).extract(kept);
  return a && b && !c.candidates.empty() && d.empty() && !e && f && got == "x" ? 0 : 1;
#else
  return a && b && !c.candidates.empty() && d.empty() && !e ? 0 : 1;
#endif
#elif defined(LLMJSON_CASE_extract_selector)
  return llmjson::extract(model_reply(), llmjson::any_key({"steps"})) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_any)
  return llmjson::extract(model_reply()) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_typed)
  return llmjson::extract<plan>(model_reply()) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_typed_check)
  return llmjson::extract<plan>(model_reply(), [](const plan& p) { return p.steps > 0; }) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_selector_const)
  return llmjson::extract(const_reply(), llmjson::any_key({"steps"})) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_any_const)
  return llmjson::extract(const_reply()) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_typed_const)
  return llmjson::extract<plan>(const_reply()) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_typed_check_const)
  return llmjson::extract<plan>(const_reply(), [](const plan& p) { return p.steps > 0; }) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_key)
  // A key where a selector belongs: the message names any_key.
  return llmjson::extract(kept, "steps") ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_key_string)
  const std::string key = "steps";
  return llmjson::extract(kept, key) ? 0 : 1;
#elif defined(LLMJSON_CASE_extract_key_list)
  return llmjson::extract(kept, {"steps", "plan"}) ? 0 : 1;
#elif defined(LLMJSON_CASE_stream_finish_temporary)
  // The result of a temporary stream would point into the stream's text.
  return llmjson::stream<>().finish() ? 0 : 1;
#elif defined(LLMJSON_CASE_stream_stop_temporary)
  // stop() likewise.
  return llmjson::stream<>().stop() ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_extract_key)
  auto adapter = [](const std::string& p) -> llmjson::completion { return llmjson::message{p}; };
  return llmjson::retrying(adapter).extract(kept, "steps") ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_extract_key_list)
  auto adapter = [](const std::string& p) -> llmjson::completion { return llmjson::message{p}; };
  return llmjson::retrying(adapter).extract(kept, {"steps", "plan"}) ? 0 : 1;
#elif defined(LLMJSON_CASE_candidates_const)
  return llmjson::candidates(const_reply()).candidates.empty() ? 1 : 0;
#elif defined(LLMJSON_CASE_fences_const)
  return llmjson::fences(const_reply()).empty() ? 0 : 1;
#elif defined(LLMJSON_CASE_candidates)
  return llmjson::candidates(model_reply()).candidates.empty() ? 1 : 0;
#elif defined(LLMJSON_CASE_fences)
  return llmjson::fences(model_reply()).empty() ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_hook_converts)
  // A hook that makes a std::string for a std::string_view request: the view would dangle.
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  auto hook = [](std::string_view p, const llmjson::attempt&) { return std::string(p) + "!"; };
  return llmjson::retrying(adapter, {}, hook).complete(std::string_view(kept)) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_hook_literal)
  // With a hook, the request must be an object: a literal is an array, never returned by value.
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  auto hook = [](const std::string& p, const llmjson::attempt&) { return p; };
  return llmjson::retrying(adapter, {}, hook).complete("literal") ? 0 : 1;
#elif defined(LLMJSON_CASE_reask_needs_append)
  // reask{} adds llmjson::message to a std::vector of them: another request type needs an append.
  auto adapter = [](const std::string&) -> llmjson::completion { return llmjson::message{}; };
  return llmjson::retrying(adapter, {}, llmjson::reask{}).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_hook_wrong_parameter)
  // The hook's first parameter must take the request.
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  auto hook = [](int previous, const llmjson::attempt&) { return previous; };
  return llmjson::retrying(adapter, {}, hook).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_adapter_token_by_ref)
  // The wrapper passes its stop token as a const lvalue: `std::stop_token&` cannot take it.
  auto adapter = [](const std::string&, std::stop_token&) -> llmjson::completion {
    return llmjson::message{};
  };
  return llmjson::retrying(adapter).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_adapter_sink_by_ref)
  // The wrapper passes its sink as a const lvalue: `llmjson::sink&` cannot take it.
  auto adapter = [](const std::string&, llmjson::sink&,
                    const std::stop_token&) -> llmjson::completion { return llmjson::message{}; };
  return llmjson::retrying(adapter).extract(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_adapter_sink_wrong_type)
  // A sink is called with a std::string_view: a callable of ints cannot be made of it.
  auto adapter = [](const std::string&, std::function<void(int)>,
                    std::stop_token) -> llmjson::completion { return llmjson::message{}; };
  return llmjson::retrying(adapter).extract(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_sink_temporary)
  // A sink of a temporary would call it after it is gone.
  const llmjson::sink out([](std::string_view) noexcept {});
  out(kept);
  return 0;
#elif defined(LLMJSON_CASE_sink_may_throw)
  // A sink's callable must not throw: a sink may be called from a C library's callback.
  std::string got;
  auto append = [&](std::string_view chunk) { got += chunk; };
  const llmjson::sink out(append);
  out(kept);
  return got.empty() ? 1 : 0;
#elif defined(LLMJSON_CASE_retry_request_refused)
  // A request the adapter cannot take is refused at the call, naming RequestFor.
  auto adapter = [](std::string_view) -> llmjson::completion { return llmjson::message{}; };
  return llmjson::retrying(adapter).complete(42) ? 0 : 1;
#elif defined(LLMJSON_CASE_adapter_forms_ok)
  // Parsed, not run. Every adapter form the static_asserts below must let through: the request by
  // value, by const reference or generic, returning a completion or one of its alternatives, and
  // streaming.
  auto by_value = [](std::string prompt) -> llmjson::message { return {prompt, "stop"}; };
  auto by_const_ref = [](const std::string&) -> llmjson::completion { return llmjson::message{}; };
  auto generic = [](const auto&) { return llmjson::api_error{429, "slow down"}; };
  auto bad = [](std::string_view) noexcept { return llmjson::bad_response{"not JSON", "<html>"}; };
  struct functor {
    llmjson::completion operator()(const std::string&) { return llmjson::message{}; }
  };
  llmjson::completion (*pointer)(const std::string&) =
      [](const std::string&) -> llmjson::completion { return llmjson::message{}; };
  int failures = 0;
  failures += llmjson::retrying(by_value).complete(kept) ? 0 : 1;
  failures += llmjson::retrying(by_const_ref).extract(kept) ? 0 : 1;
  failures += llmjson::retrying(generic).extract<plan>(kept) ? 0 : 1;
  failures += llmjson::retrying(bad).complete(kept) ? 0 : 1;
  failures += llmjson::retrying(functor{}).complete("literal") ? 0 : 1;
  failures += llmjson::retrying(pointer).complete(kept) ? 0 : 1;
  failures +=
      llmjson::retrying(std::function<llmjson::completion(const std::string&)>(by_const_ref))
              .complete(kept)
          ? 0
          : 1;
#if LLMJSON_HAS_STOP_TOKEN
  auto with_token = [](const std::string&, std::stop_token) -> llmjson::completion { return {}; };
  auto streaming = [](std::string_view prompt, const llmjson::sink& out,
                      const std::stop_token&) -> llmjson::message {
    out(prompt);
    return {};
  };
  failures += llmjson::retrying(with_token).complete(kept) ? 0 : 1;
  failures += llmjson::retrying(streaming).extract<plan>(kept) ? 0 : 1;
#endif
  // A type with from_json alone decodes once unknown keys are allowed.
  failures += llmjson::extract(kept, llmjson::decode<decode_only>{}.allow_unknown_keys()) ? 0 : 1;
  failures += llmjson::extract(kept,
                               llmjson::decode<decode_only, llmjson::unknown_keys::allow>{
                                   [](const decode_only& d) { return d.steps > 0; }})
                  ? 0
                  : 1;
  failures +=
      llmjson::retrying(by_value).extract(kept, llmjson::decode<decode_only>{}.allow_unknown_keys())
          ? 0
          : 1;
  return failures;
#elif defined(LLMJSON_CASE_retry_adapter_request_by_ref)
  // The wrapper passes the request as `const Req&`: an adapter that may modify it cannot take it.
  auto adapter = [](std::string& prompt) -> llmjson::completion {
    return llmjson::message{prompt};
  };
  return llmjson::retrying(adapter).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_adapter_returns_string)
  // An adapter returns a completion (or a message, api_error, bad_response), not the text.
  auto adapter = [](const std::string& prompt) -> std::string { return prompt; };
  return llmjson::retrying(adapter).extract<plan>(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_adapter_generic_returns_string)
  // The same, for an adapter whose declaration says nothing until the request type is known.
  auto adapter = [](const auto& prompt) { return std::string(prompt); };
  return llmjson::retrying(adapter).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_streaming_request_by_ref)
  // The streaming form, with the request by non-const reference.
  auto adapter = [](std::string& prompt, const llmjson::sink& out,
                    const std::stop_token&) -> llmjson::completion {
    out(prompt);
    return llmjson::message{};
  };
  return llmjson::retrying(adapter).extract(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_streaming_returns_string)
  // The streaming form, returning the text.
  auto adapter = [](const std::string& prompt, const llmjson::sink&, const std::stop_token&) {
    return prompt;
  };
  return llmjson::retrying(adapter).complete(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_decode_no_from_json)
  // extract<T> of a T that nlohmann cannot decode: NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE is missing.
  return llmjson::extract<bare>(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_decode_no_from_json_in_map)
  // nlohmann declares get<T>() of a map of any values; the values lack from_json all the same.
  return llmjson::extract<std::map<std::string, bare> >(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_decode_no_to_json)
  // The strict decoder encodes the T again to find unknown keys: from_json alone is not enough.
  return llmjson::extract<decode_only>(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_decode_selector_no_to_json)
  // The same, through the selector.
  return llmjson::extract(kept, llmjson::decode<decode_only>{}) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_decode_no_from_json)
  // The wrapper's extract<T>, before any call is made (and billed).
  auto adapter = [](const std::string& prompt) -> llmjson::completion {
    return llmjson::message{prompt};
  };
  return llmjson::retrying(adapter).extract<bare>(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_retry_decode_no_to_json)
  auto adapter = [](const std::string& prompt) -> llmjson::completion {
    return llmjson::message{prompt};
  };
  return llmjson::retrying(adapter).extract<decode_only>(kept) ? 0 : 1;
#elif defined(LLMJSON_CASE_schema_variable)
  // llmjson::schema without <llmjson/schema.hpp>, which the umbrella header leaves out.
  const llmjson::schema s(nlohmann::json::object());
  return llmjson::extract(kept, s) ? 0 : 1;
#elif defined(LLMJSON_CASE_schema_temporary)
  return llmjson::extract(kept, llmjson::schema(nlohmann::json::object())) ? 0 : 1;
#elif defined(LLMJSON_CASE_schema_compile)
  return llmjson::schema::compile(nlohmann::json::object()) ? 0 : 1;
#elif defined(LLMJSON_CASE_schema_passed_in)
  // A schema made in another file, passed by reference: only the call can say what is missing.
  auto use = [&](const llmjson::schema& s) { return llmjson::extract(kept, s) ? 0 : 1; };
  return sizeof(use) ? 0 : 1;
#elif defined(LLMJSON_SCHEMA_OF_CASE)
  const auto schema = llmjson::schema_of<with_schema::item>();
  auto r = llmjson::extract<with_schema::item>(kept);
  return schema.empty() || !r ? 1 : 0;
#elif defined(LLMJSON_CASE_retry_strict)
  // Every call of the wrapper, instantiated at -O2 under -Werror with -Wnull-dereference.
  auto adapter = [](const std::string& prompt) -> llmjson::completion {
    return llmjson::message{prompt, "stop"};
  };
  auto hook = [](const std::string& p, const llmjson::attempt&) -> std::optional<std::string> {
    return p + "!";
  };
  const llmjson::retrying model(adapter, {.max_attempts = 2}, hook);
  auto check = [](const plan& p) { return p.steps > 0; };
  int failures = 0;
  failures += model.complete(kept) ? 0 : 1;
  failures += model.extract(kept, llmjson::any_key({"steps"})) ? 0 : 1;
  failures += model.extract(kept, llmjson::any_key({"steps"}), llmjson::policy::unique) ? 0 : 1;
  failures += model.extract(kept) ? 0 : 1;
  failures += model.extract<plan>(kept) ? 0 : 1;
  failures += model.extract<plan>(kept, check) ? 0 : 1;
#if LLMJSON_HAS_STOP_TOKEN
  std::stop_source stop;
  failures += model.complete(kept, stop.get_token()) ? 0 : 1;
  failures += model.extract(kept, llmjson::any_object{}, stop.get_token()) ? 0 : 1;
  failures +=
      model.extract(kept, llmjson::any_object{}, llmjson::policy::last, stop.get_token()) ? 0 : 1;
  failures += model.extract(kept, stop.get_token()) ? 0 : 1;
  failures += model.extract<plan>(kept, stop.get_token()) ? 0 : 1;
  failures += model.extract<plan>(kept, check, stop.get_token()) ? 0 : 1;
  // The same calls through a streaming adapter.
  auto streaming = [](const std::string& prompt, const llmjson::sink& out,
                      const std::stop_token& token) -> llmjson::completion {
    for (char c : prompt)
      if (!token.stop_requested()) out(std::string_view(&c, 1));
    return llmjson::message{"", token.stop_requested() ? "" : "stop"};
  };
  const llmjson::retrying streamed(streaming, {.max_attempts = 2}, hook);
  failures += streamed.complete(kept) ? 0 : 1;
  failures += streamed.extract(kept, llmjson::any_key({"steps"})) ? 0 : 1;
  failures += streamed.extract(kept, llmjson::any_key({"steps"}), llmjson::policy::unique) ? 0 : 1;
  failures += streamed.extract(kept) ? 0 : 1;
  failures += streamed.extract<plan>(kept) ? 0 : 1;
  failures += streamed.extract<plan>(kept, check) ? 0 : 1;
  failures += streamed.complete(kept, stop.get_token()) ? 0 : 1;
  failures += streamed.extract(kept, llmjson::any_object{}, stop.get_token()) ? 0 : 1;
  failures += streamed.extract(kept, llmjson::any_object{}, llmjson::policy::last, stop.get_token())
                  ? 0
                  : 1;
  failures += streamed.extract(kept, stop.get_token()) ? 0 : 1;
  failures += streamed.extract<plan>(kept, stop.get_token()) ? 0 : 1;
  failures += streamed.extract<plan>(kept, check, stop.get_token()) ? 0 : 1;
#endif
  return failures;
#else
#error "define one LLMJSON_CASE_*"
#endif
}
