// llmjson example: ask an OpenAI-compatible model for JSON, retrying when the reply holds none
// SPDX-License-Identifier: MIT
//
// Usage: llmjson_openai [--attempts N] [--max-tokens N] [--keys K1,K2]... [--plan] [--stream]
//                       [--starts-in unknown|reasoning|answer] PROMPT...   (or the prompt on stdin)
// Environment: OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY,
// LLMJSON_MODEL. Prints the answer (the JSON object the reply holds, or with --keys, one with any
// of those keys), as the model wrote it, on stdout and one line per attempt on stderr. A retry
// tells the model what was wrong with its reply (llmjson::reask). With
// --stream, the reply is streamed and the call ends as soon as the answer is settled (--starts-in
// answer lets the output of a model that does not reason in its text settle before its end). With
// --plan, the request carries the JSON Schema of the `plan` type below as its response_format
// (derived by llmjson::schema_of from the type's declaration), and the answer is decoded into a
// `plan` and printed from it. The tokens each call was billed for are on its line, and their
// total on a last line. Exit
// status: 0 an answer, 1 no answer (the error on stderr), 2 usage, 3 no HTTP response (the
// transport error on stderr).
#include "openai_adapter.hpp"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmjson/llmjson.hpp>
#include <llmjson/openai.hpp>
#include <llmjson/schema_of.hpp>

namespace plan_example {

// What --plan asks for. One declaration gives the schema sent and the strict decoding.
struct step {
  std::string action;
  int minutes = 0;
};
LLMJSON_DEFINE_TYPE(step, (action, "what to do, in a few words"),
                    (minutes, "how long it takes, in minutes"))

struct plan {
  std::string goal;
  std::vector<step> steps;
  std::optional<std::string> caveat;
};
LLMJSON_DEFINE_TYPE(plan, (goal, "the goal, restated"), (steps, "in order"),
                    (caveat, "a risk worth knowing, if any"))

}  // namespace plan_example

namespace {

int usage(const char* why) {
  std::cerr
      << "llmjson_openai: " << why
      << "\nusage: llmjson_openai [--attempts N] [--max-tokens N] [--keys K1,K2]... [--plan]\n"
         "                      [--stream] [--starts-in unknown|reasoning|answer] PROMPT...\n"
         "environment: OPENAI_BASE_URL, OPENAI_API_KEY, LLMJSON_MODEL\n";
  return 2;
}

// `120 prompt + 48 completion tokens (32 reasoning)`.
std::string tokens(const llmjson::usage& u) {
  std::string s = std::to_string(u.prompt_tokens) + " prompt + " +
                  std::to_string(u.completion_tokens) + " completion tokens";
  if (u.reasoning_tokens != 0) s += " (" + std::to_string(u.reasoning_tokens) + " reasoning)";
  return s;
}

// The cost of the answer, failed attempts included: `usage: 2 calls, 341 tokens: ...`; `at
// least` when some call reported no usage; `none reported` when none did.
void print_total(const std::vector<llmjson::attempt>& attempts) {
  const llmjson::usage_total t = llmjson::total_usage(attempts);
  const std::size_t calls = t.reported + t.unreported;
  std::cerr << "usage: " << calls << (calls == 1 ? " call, " : " calls, ");
  if (t.reported == 0) {
    std::cerr << "none reported\n";
    return;
  }
  std::cerr << (t.exact() ? "" : "at least ") << t.tokens.total_tokens()
            << " tokens: " << tokens(t.tokens);
  if (!t.exact()) std::cerr << "; " << t.unreported << " reported no usage";
  std::cerr << "\n";
}

// What the command line asks for.
struct arguments {
  llmjson::retry_options opts;
  llmjson::openai::chat_request request;
  std::vector<std::string> keys;
  std::string prompt;
  bool plan = false;
  bool stream = false;
};

// Reads the flags and the prompt into `a`; returns the exit status when the program must stop
// here (--help, a usage error).
std::optional<int> parse_arguments(int argc, char** argv, arguments& a) {
  bool only_prompt = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (only_prompt) {
      a.prompt += (a.prompt.empty() ? "" : " ") + std::string(arg);
      continue;
    }
    auto number = [&](long& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      out = std::strtol(argv[++i], &end, 10);
      return end && *end == '\0' && out > 0;
    };
    long n = 0;
    if (arg == "--help") {
      usage("ask a model for JSON");
      return 0;
    } else if (arg == "--attempts") {
      if (!number(n)) return usage("--attempts takes a positive number");
      a.opts.max_attempts = static_cast<std::size_t>(n);
    } else if (arg == "--max-tokens") {
      if (!number(n)) return usage("--max-tokens takes a positive number");
      a.request.max_tokens = n;
    } else if (arg == "--keys") {  // the name and the form of the llmjson tool's flag
      if (i + 1 >= argc) return usage("--keys takes keys: K1,K2");
      for (std::string_view v = argv[++i];;) {
        const std::size_t comma = v.find(',');
        if (v.substr(0, comma).empty()) return usage("--keys: empty key");
        a.keys.emplace_back(v.substr(0, comma));
        if (comma == std::string_view::npos) break;
        v.remove_prefix(comma + 1);
      }
    } else if (arg == "--plan") {
      a.plan = true;
    } else if (arg == "--stream") {
      if (!LLMJSON_HAS_STOP_TOKEN)
        return usage("--stream needs std::stop_token, which this standard library lacks");
      a.stream = true;
    } else if (arg == "--starts-in") {
      const std::string_view v = i + 1 < argc ? argv[++i] : "";
      const auto start = llmjson::from_string<llmjson::output_start>(v);
      if (!start) return usage("--starts-in takes unknown, reasoning or answer");
      a.opts.extraction.start = *start;
    } else if (arg == "--") {
      only_prompt = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      // A mistyped flag must not be sent to the model (and paid for) as part of the prompt.
      return usage(
          ("unknown option " + std::string(arg) + " (use -- before a prompt that starts with -)")
              .c_str());
    } else {
      a.prompt += (a.prompt.empty() ? "" : " ") + std::string(arg);
    }
  }
  if (a.prompt.empty()) a.prompt.assign(std::istreambuf_iterator<char>(std::cin), {});
  if (a.prompt.empty()) return usage("no prompt");
  if (a.plan && !a.keys.empty()) return usage("--plan and --keys do not go together");
  return std::nullopt;
}

// One line on stderr per attempt: its outcome, finish_reason, size, time and tokens.
void print_attempt(const llmjson::attempt& a) {
  std::cerr << "attempt " << a.number << ": " << llmjson::to_string(a.outcome)
            << ", finish_reason \"" << a.finish_reason << "\", " << a.content.size() << " bytes, "
            << (a.reasoning.empty() ? ""
                                    : std::to_string(a.reasoning.size()) + " bytes of reasoning, ")
            << std::chrono::duration_cast<std::chrono::milliseconds>(a.duration).count() << " ms"
            << (a.stopped_early ? ", stopped early at the settled answer after " +
                                      std::to_string(a.received) + " bytes"
                                : "")
            << ", " << (a.usage ? tokens(*a.usage) : "usage not reported")
            << (a.message.empty() ? "" : ": " + a.message) << "\n";
}

// Asks the model through `adapter` and prints the answer (or why there is none); returns the
// exit status. --plan: the answer decoded into a plan_example::plan, and printed from it.
template <class Adapter>
int ask(Adapter adapter, const arguments& a) {
  // A retry carries the failed reply and what was wrong with it (`trailing comma (remove it)`),
  // so the model corrects its answer instead of rolling the dice again: llmjson::reask, told how
  // to add a message to a chat_request.
  const llmjson::reask reask(llmjson::openai::append_message);
  auto model = llmjson::retrying(std::move(adapter), a.opts, reask);
  auto report = [](const auto& r, auto print) {
    print_total(r.attempts);
    if (r) {
      print(*r);
      return 0;
    }
    std::cerr << "llmjson_openai: " << llmjson::to_string(r.error().kind) << ": "
              << r.error().message << "\n";
    return 1;
  };
  if (a.plan) {
    return report(
        model.template extract<plan_example::plan>(a.request),
        [](const plan_example::plan& p) { std::cout << nlohmann::json(p).dump(2) << "\n"; });
  }
  auto printed = [](const llmjson::answer& e) {
    std::cout << llmjson::pretty(e.text) << "\n";  // as written: keys in order, 1.10 kept
  };
  return a.keys.empty() ? report(model.extract(a.request, llmjson::any_object{}), printed)
                        : report(model.extract(a.request, llmjson::any_key(a.keys)), printed);
}

}  // namespace

int main(int argc, char** argv) {
  arguments a;
  if (const std::optional<int> stop = parse_arguments(argc, argv, a)) return *stop;
  const openai_example::config cfg = openai_example::config_from_env();
  if (cfg.model.empty()) return usage("set LLMJSON_MODEL");
  if (a.plan) a.request.response_format = llmjson::openai_response_format<plan_example::plan>();
  a.request.messages.push_back({"user", a.prompt});
  a.opts.on_attempt = print_attempt;

  curl_global_init(CURL_GLOBAL_DEFAULT);
  int status = 0;
  try {
#if LLMJSON_HAS_STOP_TOKEN
    status = a.stream ? ask(openai_example::make_streaming_adapter(cfg), a)
                      : ask(openai_example::make_adapter(cfg), a);
#else
    status = ask(openai_example::make_adapter(cfg), a);
#endif
  } catch (const openai_example::transport_error& e) {
    print_total(e.attempts());
    std::cerr << "llmjson_openai: no response: " << e.what() << "\n";
    status = 3;
  } catch (const std::exception& e) {  // e.g. a prompt that is not UTF-8 cannot be sent as JSON
    std::cerr << "llmjson_openai: " << e.what() << "\n";
    status = 2;
  }
  curl_global_cleanup();
  return status;
}
