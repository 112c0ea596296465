// llmjson: the command-line tool, the one JSON answer of a model output on stdout
// SPDX-License-Identifier: MIT
//
// The tool's rooms, a header a job: flags.hpp (the table of flags, the parser and its checks) and
// usage.hpp (--help, from the table); input.hpp (a file or stdin, whole or as it arrives);
// reply.hpp (--response: a /chat/completions reply); report.hpp (the answer, the notes,
// --explain, --report); output.hpp (stdout, exit status, signals); jsonl.hpp (--jsonl), with
// json_line.hpp, json_string.hpp and json_pointer.hpp (its line reader) and ordered_lines.hpp
// (its threads). This file runs one output, whole or as it arrives (--early, --partials), and
// chooses the mode.

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <llmjson/extract.hpp>
#include <llmjson/partial_answer.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>
#include <llmjson/version.hpp>

#include "flags.hpp"
#include "input.hpp"
#include "jsonl.hpp"
#include "output.hpp"
#include "reply.hpp"
#include "report.hpp"
#include "text.hpp"
#include "usage.hpp"

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif

namespace llmjson_cli {
namespace {

/// Prints `r`, or, when the input was over the limit, `too_large`; returns the exit code.
template <class S>
int print_result(const settings& s, const llmjson::result<llmjson::extraction>* r, outcome o = {}) {
  // The selector's own default, as extract() takes it (strict selectors declare `unique`).
  o.policy = s.policy.value_or(llmjson::default_policy_of<S>());
  o.qualifies_as = qualifies_as(s);
  if (!r) {
    // Reading stopped at the limit, so the full size is unknown: say what is known, naming the
    // flag where the library names its option.
    llmjson::error e;
    e.kind = llmjson::error_kind::too_large;
    e.offset = s.max_bytes;
    e.message =
        "the output is over the limit of " + std::to_string(s.max_bytes) + " bytes (--max-bytes)";
    o.failure = &e;
    return print_outcome(s, o);
  }
  if (*r) {
    o.answer = &**r;
  } else {
    o.failure = &r->error();
  }
  return print_outcome(s, o);
}

/// Extracts with `sel` and prints the outcome; returns the exit code. With --response, `text` is
/// the response's content and `response` the rest of what it said.
template <class S>
int run(const settings& s, std::string_view text, const S& sel, bool over_limit,
        const chat_response* response = nullptr) {
  outcome o;
  o.response = response;
  if (over_limit) return print_result<S>(s, nullptr, o);
  const auto r = llmjson::extract(text, sel, options_of(s));
  if (!r && response) {
    llmjson::error e = r.error();
    say_why_cut(e, response->reasoning, response);
    const llmjson::result<llmjson::extraction> said = std::move(e);
    return print_result<S>(s, &said, o);
  }
  return print_result<S>(s, &r, o);
}

/// --partials: after a read, the line of the partial answer if it changed since the last line
/// (`{"partial": VALUE, "provisional": BOOL}`); returns why stdout could not take it, or "".
template <class S>
std::string print_partial(llmjson::stream<S>& st, std::uint64_t& version, std::string& last_line) {
  if (st.partial_version() == version) return {};
  version = st.partial_version();
  const std::optional<llmjson::partial_answer> p = st.partial();
  if (!p) return {};
  nlohmann::ordered_json line;
  line["partial"] = p->value;
  line["provisional"] = p->provisional;
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (text == last_line) return {};  // read again, the same: one line a change
  last_line = std::move(text);
  if (std::string why = write_out(last_line); !why.empty()) return "cannot write to stdout: " + why;
  return {};
}

/// --early and --partials: reads the input as it arrives, with --partials prints each change of
/// the partial answer, and prints the outcome as soon as the answer is settled (--early) or at
/// the end of the input; returns the exit code.
template <class S>
int run_as_it_comes(const settings& s, const S& sel) {
  llmjson::stream<S> st(sel, options_of(s));
  std::uint64_t version = 0;
  std::string last_line;
  const early_read in = read_as_it_comes(s.input, st, s.max_bytes, s.early, [&]() -> std::string {
    return s.partials ? print_partial(st, version, last_line) : std::string();
  });
  if (!in.problem.empty()) {
    write(stderr, "llmjson: " + one_line(in.problem) + "\n");
    return exit_usage;
  }
  outcome o;
  if (s.early) o.early = &in;
  o.bytes_read = st.size();
  if (in.over_limit) return print_result<S>(s, nullptr, o);
  // Settled: the reading stopped there, so what is still open after the answer was not cut.
  const auto r = in.settled ? st.stop() : st.finish();
  return print_result<S>(s, &r, o);
}

/// Calls `f` with the selector the flags ask for: the schema, the keys, or any object.
template <class F>
int with_selector(const settings& s, const std::optional<llmjson::schema>& schema, F&& f) {
  if (schema) return f(*schema);
  if (!s.keys.empty()) return f(llmjson::any_key(s.keys));
  return f(llmjson::any_object{});
}

/// One output, read whole (with --response, a reply's content): returns the exit code.
int run_whole(const settings& s, const std::optional<llmjson::schema>& schema) {
  input in = read_input(s.input, s.max_bytes);
  if (!in.problem.empty()) {
    write(stderr, "llmjson: " + one_line(in.problem) + "\n");
    return exit_usage;
  }
  std::optional<chat_response> response;  // over the limit, unread: finish_reason, usage null
  if (s.response) response = in.over_limit ? chat_response{} : read_response(in.bytes);
  if (response && !response->problem.empty()) {
    write(stderr, "llmjson: --response: " + one_line(response->problem) + "\n");
    return exit_usage;
  }
  const std::string_view text = response ? std::string_view(response->content) : in.bytes;
  const chat_response* said = response ? &*response : nullptr;
  return with_selector(s, schema,
                       [&](const auto& sel) { return run(s, text, sel, in.over_limit, said); });
}

int usage_error(std::string_view message) {
  write(stderr, "llmjson: " + one_line(message) + "\n(try 'llmjson --help')\n");
  return exit_usage;
}

int main_impl(int argc, char** argv) {
  handle_signals();
  settings s;
  if (std::string problem = parse_command_line(argc, argv, s); !problem.empty())
    return usage_error(problem);
  if (s.help) return write_out(usage_text()).empty() ? exit_answer : exit_usage;
  if (s.version)
    return write_out("llmjson " + std::string(llmjson::version_string) + "\n").empty() ? exit_answer
                                                                                       : exit_usage;

  // The schema first: an invalid one is reported without waiting for stdin.
  std::optional<llmjson::schema> schema;
  if (s.schema_path) {
    // The schema is the caller's own file, not model output: --max-bytes does not apply to it.
    std::string problem = load_schema(*s.schema_path, llmjson::options{}.max_input_bytes, schema);
    if (!problem.empty()) {
      write(stderr,
            "llmjson: --schema " + one_line(*s.schema_path) + ": " + one_line(problem) + "\n");
      return exit_usage;
    }
  }

  if (s.jsonl) {
#ifdef _WIN32
    if (s.input == "-") _setmode(_fileno(stdout), _O_BINARY);
#endif
    return with_selector(s, schema, [&](const auto& sel) { return run_jsonl(s, sel); });
  }
  if (s.early || s.partials)
    return with_selector(s, schema, [&](const auto& sel) { return run_as_it_comes(s, sel); });
  return run_whole(s, schema);
}

}  // namespace
}  // namespace llmjson_cli

int main(int argc, char** argv) {
  try {
    return llmjson_cli::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llmjson: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "llmjson: internal error: unknown exception\n");
  }
  return llmjson_cli::exit_usage;
}
