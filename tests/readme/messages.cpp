// llmjson: the messages the README quotes, as the library makes them (readme_test.py compares)
// SPDX-License-Identifier: MIT
//
// usage: llmjson_readme_messages error KIND   the message of the README's example of that kind
//        llmjson_readme_messages schema       the compile error of the schema on stdin
//        llmjson_readme_messages no_json      the README's no_json messages, one a line
//        llmjson_readme_messages retry_errors the README's two parse_error lines
//        llmjson_readme_messages reasoning_detail   an attempt's detail, reasoning at length
//        llmjson_readme_messages figures      `NAME VALUE` lines: the limits and sizes the
//                                             README quotes (readme_test.py finds the quotes)
// Exit 0 with the message on stdout; 1 when the library did not answer as the README says (the
// kind differs, the schema compiles); 2 on a usage error.

#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/detail/schema/regex.hpp>  // regex_max_program, which the README quotes
#include <llmjson/llmjson.hpp>
#include <llmjson/schema.hpp>

#include "../bench/inputs.hpp"

namespace {

/// The README's example of each error kind: the input, the selector's keys, the options.
int error_message(std::string_view kind) {
  llmjson::options opts;
  std::vector<std::string> keys;
  std::string text;
  if (kind == "empty") {
    text = "    ";
  } else if (kind == "no_json") {
    text = "```json\n{\"orders\": [\"come about\"], }\n```\n";
  } else if (kind == "truncated") {
    text = "Plan:\n{\"orders\": [\"come about\"";
  } else if (kind == "no_match") {
    text = "Steering: {\"helm\": 270}\n";
    keys = {"orders"};
    opts.fallback = false;
  } else if (kind == "ambiguous") {
    text = "draft: {\"a\": 1}\nfinal: {\"a\": 2}\n";
    opts.policy = llmjson::policy::unique;
  } else if (kind == "too_large") {
    text = "{\"a\": 12345}";
    opts.max_input_bytes = 8;
  } else {
    std::cerr << "no example of the kind " << kind << '\n';
    return 2;
  }
  auto r = keys.empty() ? llmjson::extract(text, opts)
                        : llmjson::extract(text, llmjson::any_key(std::move(keys)), opts);
  if (r) {
    std::cerr << "an answer, not " << kind << '\n';
    return 1;
  }
  if (to_string(r.error().kind) != kind) {
    std::cerr << "the kind is " << to_string(r.error().kind) << ", not " << kind << '\n';
    return 1;
  }
  std::cout << r.error().message << '\n';
  return 0;
}

int schema_error() {
  std::string source(std::istreambuf_iterator<char>(std::cin), {});
  llmjson::schema_result r = llmjson::schema::compile(nlohmann::json::parse(source));
  if (r) {
    std::cerr << "the schema compiles\n";
    return 1;
  }
  std::cout << r.error() << '\n';
  return 0;
}

int no_json_messages() {
  const char* texts[] = {
      "<think>\noption: {\"a\": 1}\nor rather\n\n{\"a\": 2}\n</think>\nI could not decide.\n",
      "The city:\n{'city': 'Paris'}\n",
      "- {ok: True}\n",
  };
  for (const char* text : texts) {
    auto r = llmjson::extract(text);
    if (r || r.error().kind != llmjson::error_kind::no_json) {
      std::cerr << "not no_json: " << text << '\n';
      return 1;
    }
    std::cout << r.error().message << '\n';
  }
  return 0;
}

/// An adapter that always sends the same reply.
struct same_reply {
  llmjson::message reply;
  llmjson::message operator()(const std::string&) const { return reply; }
};

int retry_errors() {
  // Empty at the token limit, twice, through complete().
  auto empty = llmjson::retrying(same_reply{{.content = "", .finish_reason = "length"}});
  auto r1 = empty.complete(std::string("Plan the jump"));
  // Cut inside the answer, twice, through extract().
  auto cut = llmjson::retrying(
      same_reply{{.content = "Plan:\n\n{\"steps\": [\"boil\",", .finish_reason = "length"}});
  auto r2 = cut.extract(std::string("Plan tea"), llmjson::any_key({"steps"}));
  if (r1 || r2) return 1;
  std::cout << to_string(r1.error().kind) << ": " << r1.error().message << '\n';
  std::cout << to_string(r2.error().kind) << ": " << r2.error().message << '\n';
  return 0;
}

int reasoning_detail() {
  auto model = llmjson::retrying(
      same_reply{{.content = "", .finish_reason = "length", .reasoning = "Let me think. Hmm."}},
      {.max_attempts = 1});
  auto r = model.extract(std::string("Plan the jump"));
  if (r || r.attempts.size() != 1 || !r.attempts[0].reasoning_at_length()) return 1;
  std::cout << r.attempts[0].message << '\n';
  return 0;
}

/// The figures the README quotes in prose and tables, from the code that has them.
int figures() {
  const llmjson::options o;
  std::cout << "max_depth " << o.max_depth << '\n'
            << "max_depth_limit " << llmjson::max_depth_limit << '\n'
            << "max_candidates " << o.max_candidates << '\n'
            << "max_open_frames " << o.max_open_frames << '\n'
            << "max_input_mib " << (o.max_input_bytes >> 20) << '\n'
            << "max_named_candidates " << llmjson::detail::max_named_candidates << '\n'
            << "max_near_misses " << llmjson::max_near_misses << '\n'
            << "regex_max_program " << llmjson::detail::regex_max_program << '\n'
            << "max_attempts " << llmjson::retry_options{}.max_attempts << '\n'
            << "typical_reply_bytes " << llmjson_bench::typical_reply().size() << '\n';
  return o.max_input_bytes % (std::size_t{1} << 20) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "error") return error_message(args[1]);
  if (args.size() == 1 && args[0] == "schema") return schema_error();
  if (args.size() == 1 && args[0] == "no_json") return no_json_messages();
  if (args.size() == 1 && args[0] == "retry_errors") return retry_errors();
  if (args.size() == 1 && args[0] == "reasoning_detail") return reasoning_detail();
  if (args.size() == 1 && args[0] == "figures") return figures();
  std::cerr << "usage: llmjson_readme_messages error KIND | schema | no_json | retry_errors | "
               "reasoning_detail | figures\n";
  return 2;
}
