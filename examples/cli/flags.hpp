// llmjson: the tool's command line, one table of flags: the parser, the checks and the usage text
// all read it, so a flag is named in one place
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_FLAGS_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_FLAGS_HPP_INCLUDED

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <llmjson/enum_names.hpp>
#include <llmjson/options.hpp>
#include <llmjson/scan.hpp>

#include "json_pointer.hpp"

namespace llmjson_cli {

/// What the command line asks for.
struct settings {
  std::vector<std::string> keys;
  std::optional<std::string> schema_path;
  std::optional<llmjson::policy> policy;
  bool no_fallback = false;
  bool explain = false;
  bool report = false;
  bool pretty = false;
  bool normalize = false;
  bool no_reasoning_regions = false;
  std::vector<llmjson::marker_pair> reasoning_tags;
  std::vector<llmjson::reasoning_format> reasoning_off;
  llmjson::output_start starts_in = llmjson::output_start::unknown;
  std::optional<std::string> prefill;  // --prefill
  bool early = false;
  bool partials = false;
  bool response = false;
  bool jsonl = false;
  std::optional<std::string> at;          // --at: where each line holds its output
  std::optional<std::string> id_at;       // --id-at: where each line holds its id
  std::vector<std::string> reasoning_at;  // --reasoning-at, in order
  std::optional<std::uint64_t> first_line;
  std::optional<unsigned> jobs;
  bool help = false;
  bool version = false;
  std::size_t max_bytes = llmjson::options{}.max_input_bytes;
  std::string input = "-";
  bool input_given = false;  // FILE or - was on the command line
};

/// The decimal number `v` (digits only), or std::nullopt.
inline std::optional<unsigned long long> parse_count(const std::string& v) {
  unsigned long long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size()) return std::nullopt;
  return n;
}

/// The byte count `v`: digits, then maybe k, M or G (binary: `10k` is 10240), or std::nullopt.
inline std::optional<std::size_t> parse_byte_count(std::string v) {
  unsigned shift = 0;
  if (!v.empty()) {
    switch (v.back()) {
      case 'k':
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: break;
    }
  }
  if (shift) v.pop_back();
  const auto n = parse_count(v);
  constexpr auto most = static_cast<unsigned long long>(static_cast<std::size_t>(-1));
  if (!n || *n > (most >> shift)) return std::nullopt;
  return static_cast<std::size_t>(*n << shift);
}

/// The names of E's enumerators, in order, joined by `separator`: `first|unique|last`.
template <class E>
std::string enumerator_names(std::string_view separator) {
  std::string names;
  for (E e : llmjson::enumerators<E>) {
    if (!names.empty()) names += separator;
    names += to_string(e);
  }
  return names;
}

/// Reads the value of an enum-valued flag: one of the enumerators' names (`--policy unique`).
/// Returns a usage error's message, or empty when `value` is a name.
template <class E>
std::string parse_enum(std::string_view flag, const std::string& value, E& out) {
  if (auto e = llmjson::from_string<E>(value)) {
    out = *e;
    return {};
  }
  return std::string(flag) + ": '" + value + "' is not one of " + enumerator_names<E>(", ");
}

/// Calls `take(item)` on each comma-separated item of `v` (`a,b`: `a` then `b`); returns the
/// first message `take` returns, or empty.
template <class Take>
std::string for_each_item(const std::string& v, Take&& take) {
  for (std::size_t start = 0;;) {
    const std::size_t comma = v.find(',', start);
    std::string problem =
        take(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!problem.empty() || comma == std::string::npos) return problem;
    start = comma + 1;
  }
}

/// The part of the usage text a flag is described in.
enum class flag_section {
  hidden,     // parsed, never shown (a flag's old name, which says the new one)
  input,      // what the input is
  jsonl,      // many outputs, one a line
  qualifies,  // which candidate qualifies
  chosen,     // how one is chosen
  reasoning,  // reasoning markers
  early,      // while the model writes
  output,     // output
};

/// A flag's value, read into the settings: a usage error's message, or empty. `name` is the
/// flag's, for the message.
using flag_reader = std::string (*)(settings& s, std::string_view name, const std::string& value);

/// One flag: its names, how the usage text shows it, and what it sets: a switch sets a member
/// (`sets`), a flag with a value reads it (`reads`), an old name is refused (`refused`). The table
/// below lists them in the order of the usage text's synopsis; each section of the option lines
/// takes its flags in that order.
struct flag {
  std::string_view name = {};        // `--keys`
  std::string_view short_name = {};  // `-h`, or empty
  flag_section section = flag_section::hidden;
  bool settings::*sets = nullptr;  // a switch's member
  flag_reader reads = nullptr;     // a flag with a value: reads it
  std::string_view refused = {};   // a flag's old name: why it is a usage error (the new name)
  std::string_view value = {};     // the value's name in the option lines (`K1,K2,...`)
  std::string_view synopsis = {};  // the value's name in the synopsis, when not `value`
  std::string (*synopsis_values)() = nullptr;  // an enum's names (`first|unique|last`), instead
  bool in_synopsis = true;     // listed in the synopsis (--help and --version are not)
  bool once = false;           // a second one is a usage error (`--schema given twice`)
  bool jsonl_only = false;     // needs --jsonl (and sits in the synopsis's `[--jsonl ...]`)
  std::string_view help = {};  // the option line's text, its lines joined by '\n'; may be empty
};

/// Reads an enum-valued flag into the member `M` of the settings (`--starts-in answer`).
template <auto M>
std::string read_enum(settings& s, std::string_view name, const std::string& v) {
  return parse_enum(name, v, s.*M);
}

/// Reads a JSON Pointer into the member `M` (an optional, or a vector for a repeatable flag).
template <auto M>
std::string read_pointer(settings& s, std::string_view name, const std::string& v) {
  std::string problem;
  if (!json_pointer::parse(v, problem)) return std::string(name) + ": " + problem;
  if constexpr (requires { (s.*M).push_back(v); })
    (s.*M).push_back(v);
  else
    s.*M = v;
  return {};
}

/// Reads a text flag into the member `M`.
template <auto M>
std::string read_text(settings& s, std::string_view, const std::string& v) {
  s.*M = v;
  return {};
}

inline std::string read_keys(settings& s, std::string_view name, const std::string& v) {
  return for_each_item(v, [&](std::string key) -> std::string {
    if (key.empty()) return std::string(name) + ": empty key in '" + v + "'";
    s.keys.push_back(std::move(key));
    return {};
  });
}

inline std::string read_policy(settings& s, std::string_view name, const std::string& v) {
  llmjson::policy p{};
  std::string problem = parse_enum(name, v, p);
  if (problem.empty()) s.policy = p;
  return problem;
}

inline std::string read_tags(settings& s, std::string_view name, const std::string& v) {
  const std::size_t comma = v.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == v.size() ||
      v.find(',', comma + 1) != std::string::npos)
    return std::string(name) + ": '" + v + "' is not OPEN,CLOSE (two non-empty tags, one comma)";
  s.reasoning_tags.push_back({v.substr(0, comma), v.substr(comma + 1)});
  return {};
}

inline std::string read_formats(settings& s, std::string_view name, const std::string& v) {
  return for_each_item(v, [&](const std::string& format) {
    llmjson::reasoning_format f{};
    std::string problem = parse_enum(name, format, f);
    if (problem.empty()) s.reasoning_off.push_back(f);
    return problem;
  });
}

inline std::string read_max_bytes(settings& s, std::string_view name, const std::string& v) {
  const auto n = parse_byte_count(v);
  if (!n)
    return std::string(name) + ": '" + v + "' is not a byte count (digits, maybe then k, M or G)";
  s.max_bytes = *n;
  return {};
}

inline std::string read_first_line(settings& s, std::string_view name, const std::string& v) {
  const auto n = parse_count(v);
  if (!n || *n == 0) return std::string(name) + ": '" + v + "' is not a line number (1 or more)";
  s.first_line = *n;
  return {};
}

inline std::string read_jobs(settings& s, std::string_view name, const std::string& v) {
  const auto n = parse_count(v);
  if (!n || *n == 0 || *n > 1024)
    return std::string(name) + ": '" + v + "' is not a number of jobs (1 to 1024)";
  s.jobs = static_cast<unsigned>(*n);
  return {};
}

/// Every flag.
inline constexpr std::array<flag, 26> flags{{
    {.name = "--keys",
     .section = flag_section::qualifies,
     .reads = read_keys,
     .value = "K1,K2,...",
     .help = "an object with at least one of these top-level keys (repeatable)"},
    {.name = "--schema",
     .section = flag_section::qualifies,
     .reads = read_text<&settings::schema_path>,
     .value = "FILE",
     .once = true,
     .help = "a value valid under the JSON Schema (draft 7) in FILE"},
    {.name = "--policy",
     .section = flag_section::chosen,
     .reads = read_policy,
     .value = "P",
     .synopsis_values = [] { return enumerator_names<llmjson::policy>("|"); },
     .help = "first: the first that qualifies (the default, unique with --schema);\n"
             "unique: exactly one qualifies, else an error; last: the last that qualifies"},
    {.name = "--no-fallback",
     .section = flag_section::chosen,
     .sets = &settings::no_fallback,
     .help = "with first: when none qualifies, fail instead of taking the first valid\n"
             "one that no frame encloses (the fallback, which stderr notes)"},
    {.name = "--no-reasoning-regions",
     .section = flag_section::reasoning,
     .sets = &settings::no_reasoning_regions,
     .help = "treat reasoning markers as text: the whole output is answer text"},
    {.name = "--include-reasoning",
     .refused = "is now --no-reasoning-regions (options::reasoning_regions = false), the name of "
                "what it does",
     .in_synopsis = false},
    {.name = "--reasoning-tags",
     .section = flag_section::reasoning,
     .reads = read_tags,
     .value = "OPEN,CLOSE",
     .help = "a marker pair of your own, besides the built-in ones (repeatable)"},
    {.name = "--reasoning-off",
     .section = flag_section::reasoning,
     .reads = read_formats,
     .value = "NAME[,NAME...]",
     .synopsis = "NAME,...",
     .help = "built-in formats whose markers are text (repeatable): think, thinking,\n"
             "reasoning, think_brackets ([THINK]), command_r (<|START_THINKING|>),\n"
             "begin_of_thought, seed_think, kimi, scratchpad, thought, longcat_think,\n"
             "gemma4_channel (<|channel>thought), details, harmony, stripped_harmony,\n"
             "granite, apriel, ollama"},
    {.name = "--starts-in",
     .section = flag_section::reasoning,
     .reads = read_enum<&settings::starts_in>,
     .value = "WHERE",
     .synopsis_values = [] { return enumerator_names<llmjson::output_start>("|"); },
     .help = "what your prompt leaves at the output's start: reasoning (the template\n"
             "prefilled <think>), answer (no already-open rule), or unknown (the default:\n"
             "a closing marker before any opening one means the prompt opened it)"},
    {.name = "--prefill",
     .section = flag_section::reasoning,
     .reads = read_text<&settings::prefill>,
     .value = "TEXT",
     .once = true,
     .help = "the text you prefilled the model's turn with ({, ```json, <think>): read\n"
             "before the output as one text, so an answer may start in it; positions\n"
             "stay in the output (negative in the prefill)"},
    {.name = "--early",
     .section = flag_section::early,
     .sets = &settings::early,
     .help = "read the input as it arrives, and print the answer and exit as soon as it\n"
             "is settled (no more text could change it), without reading the rest. The\n"
             "answer is the one the whole input would give. Needs policy first (under\n"
             "unique and last nothing settles before the end): with --policy unique or\n"
             "last it is a usage error, and with --schema (whose default is unique) it\n"
             "needs --policy first. Without reasoning markers, an output settles only at\n"
             "its end unless --starts-in answer; one that begins with \"analysis\" (maybe\n"
             "gpt-oss's stripped analysis...assistantfinal) only at its end or at a\n"
             "harmony token. --report and --explain then show the text read, and\n"
             "--report says how much (\"early\")"},
    {.name = "--partials",
     .section = flag_section::early,
     .sets = &settings::partials,
     .help = "read the input as it arrives and print, each time the partial answer\n"
             "changes, one compact line {\"partial\": VALUE, \"provisional\": BOOL}: the\n"
             "answer as far as it is written (its open string closed, a number or key\n"
             "still in progress left out), never a reasoning draft; provisional while a\n"
             "later </think> could still make it one (not with --starts-in answer). Then\n"
             "the answer (or the error) as without it. With --early, it stops once\n"
             "settled. For a UI reading a pipe"},
    {.name = "--response",
     .section = flag_section::input,
     .sets = &settings::response,
     .help = "an OpenAI-compatible /chat/completions response: the JSON body, or the\n"
             "streamed form (data: {...} events, concatenated delta.content, [DONE]). The\n"
             "answer is read from the content of the choice of index 0, and --report adds\n"
             "its finish_reason and the usage (prompt, completion, reasoning tokens). An\n"
             "input that is not such a response, an {\"error\": ...} body or no choice is\n"
             "an input error (exit 2); a refusal is empty (exit 1). Not with --early"},
    {.name = "--explain",
     .section = flag_section::output,
     .sets = &settings::explain,
     .help = "after the result, a table of every candidate and its verdict on stderr"},
    {.name = "--report",
     .section = flag_section::output,
     .sets = &settings::report,
     .help = "print one JSON object with the answer or the error and every candidate\n"
             "(with --response, then finish_reason and usage, null when absent)"},
    {.name = "--pretty",
     .section = flag_section::output,
     .sets = &settings::pretty,
     .help = "indent the answer, one member or element a line (its tokens unchanged)"},
    {.name = "--normalize",
     .section = flag_section::output,
     .sets = &settings::normalize,
     .help = "print the answer as nlohmann::json re-serializes it instead: keys sorted,\n"
             "numbers reprinted (1.10 as 1.1, integers beyond 64 bits as doubles),\n"
             "escapes decoded (\\u00e9 as the character)"},
    {.name = "--max-bytes",
     .section = flag_section::output,
     .reads = read_max_bytes,
     .value = "N",
     .help = "refuse inputs longer than N bytes (default: 64 MiB, 67108864); N may end\n"
             "in k, M or G (binary: 10k is 10240)"},
    {.name = "--jsonl",
     .section = flag_section::jsonl,
     .sets = &settings::jsonl,
     .help = "the input is JSON Lines, read as a stream: each line one output, a JSON\n"
             "string (or the value at --at). Each gives one line, in input order:\n"
             "{\"id\":ID,\"line\":N,\"ok\":true,\"value\":ANSWER} or\n"
             "{\"id\":ID,\"line\":N,\"ok\":false,\"error\":{\"kind\":KIND,\"message\":M}}, KIND\n"
             "input for a line that is not JSON or lacks its value; with --report, the\n"
             "line's report after id and line. --max-bytes is per line (a longer one is\n"
             "a too_large line). Exit 1 when a line failed. Not with --early, --explain,\n"
             "--pretty"},
    {.name = "--at",
     .section = flag_section::jsonl,
     .reads = read_pointer<&settings::at>,
     .value = "POINTER",
     .synopsis = "P",
     .once = true,
     .jsonl_only = true,
     .help = "the output is the string at this JSON Pointer of each line; with\n"
             "--response, the chat completion there (/response/body of a Batch API line)"},
    {.name = "--id-at",
     .section = flag_section::jsonl,
     .reads = read_pointer<&settings::id_at>,
     .value = "POINTER",
     .synopsis = "P",
     .once = true,
     .jsonl_only = true,
     .help = "the id is the value at this pointer (/custom_id), else the line number"},
    {.name = "--reasoning-at",
     .section = flag_section::jsonl,
     .reads = read_pointer<&settings::reasoning_at>,
     .value = "POINTER",
     .synopsis = "P",
     .jsonl_only = true,
     .help = "the reasoning sent beside the output (repeatable: the first non-empty one\n"
             "is taken); never searched for the answer: --report gives its length, and an\n"
             "empty output's error says it"},
    {.name = "--first-line",
     .section = flag_section::jsonl,
     .reads = read_first_line,
     .value = "N",
     .once = true,
     .jsonl_only = true,
     .help = "the number of the input's first line (default 1), for a piece of a file"},
    {.name = "--jobs",
     .section = flag_section::jsonl,
     .reads = read_jobs,
     .value = "N",
     .once = true,
     .jsonl_only = true,
     .help = "threads (default: every core); the output is the same for any N"},
    {.name = "--help",
     .short_name = "-h",
     .section = flag_section::output,
     .sets = &settings::help,
     .in_synopsis = false},
    {.name = "--version",
     .short_name = "-V",
     .section = flag_section::output,
     .sets = &settings::version,
     .in_synopsis = false},
}};

static_assert(llmjson::default_max_input_bytes == 67108864, "update --max-bytes in the table");

/// The flag named `name` (`--keys`, or a short name: `-h`), or null.
inline const flag* find_flag(std::string_view name) {
  for (const flag& f : flags)
    if (name == f.name || (!f.short_name.empty() && name == f.short_name)) return &f;
  return nullptr;
}

/// The index of `f` in `flags`.
inline std::size_t index_of(const flag& f) { return static_cast<std::size_t>(&f - flags.data()); }

/// The extraction options the flags ask for.
inline llmjson::options options_of(const settings& s) {
  llmjson::options opts;
  opts.policy = s.policy;
  opts.fallback = !s.no_fallback;
  opts.max_input_bytes = s.max_bytes;
  opts.reasoning_regions = !s.no_reasoning_regions;
  opts.reasoning_markers = s.reasoning_tags;
  opts.reasoning_off = s.reasoning_off;
  opts.start = s.starts_in;
  opts.prefill = s.prefill.value_or(std::string());
  // --normalize --pretty prints nlohmann's dump of the value; every other form is written from
  // the answer's text alone.
  opts.answer_value = s.normalize && s.pretty;
  return opts;
}

/// How often each flag of `flags` was given.
using flag_counts = std::array<unsigned, flags.size()>;

/// Checks what the flags ask for together (each flag's own value is checked as it is read):
/// a usage error's message, or empty.
inline std::string check_combination(const settings& s, const flag_counts& given) {
  if (!s.keys.empty() && s.schema_path) return "--keys and --schema exclude each other: pick one";
  if (!s.input_given) {  // `llmjson --keys answers.txt`: the file would be a key, stdin the input
    for (const auto& key : s.keys) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(key, ec))
        return "--keys: '" + key +
               "' is taken as a key, and names a file: to read the file, put it after the keys "
               "(--keys K1,K2 FILE); to read stdin with that key, add - as the input";
    }
  }
  if (s.no_reasoning_regions && (!s.reasoning_tags.empty() || !s.reasoning_off.empty() ||
                                 s.starts_in != llmjson::output_start::unknown))
    return "--no-reasoning-regions turns markers off: --reasoning-tags, --reasoning-off and "
           "--starts-in would do nothing";
  if (s.schema_path == "-" && s.input == "-")
    return "--schema - reads stdin, so the input must be a FILE";
  if (s.early && s.policy && *s.policy != llmjson::policy::first)
    return "--early needs policy first: under --policy " + std::string(to_string(*s.policy)) +
           " nothing settles before the end";
  if (s.early && s.response)
    return "--early reads the model's text as it arrives, --response a whole response (whose "
           "usage comes last): drop one";
  if (s.partials && s.response)
    return "--partials reads the model's text as it arrives, --response a whole response: drop "
           "one";
  if (s.early && !s.policy && s.schema_path)
    return "--early needs policy first, and --schema's default is unique: add --policy first";
  if (!s.jsonl) {
    for (const flag& f : flags)
      if (f.jsonl_only && given[index_of(f)])
        return std::string(f.name) + " is for JSON Lines input: add --jsonl";
    return {};
  }
  if (s.early) return "--early reads one output as it arrives, --jsonl many: drop one";
  if (s.partials) return "--partials reads one output as it arrives, --jsonl many: drop one";
  if (s.explain) return "--explain draws a table per output: with --jsonl, --report says the same";
  if (s.pretty) return "--jsonl writes one line per output: --pretty would break them";
  if (s.response && !s.reasoning_at.empty())
    return "--response reads the reasoning of the message itself (reasoning_content): drop "
           "--reasoning-at";
  return {};
}

/// Reads the command line into `s`: a usage error's message, or empty when it is fine.
inline std::string parse_command_line(int argc, char** argv, settings& s) {
  bool only_operands = false;
  flag_counts given{};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (only_operands || arg == "-" || arg.substr(0, 1) != "-") {
      if (s.input_given)
        return "more than one input file ('" + s.input + "' and '" + std::string(arg) + "')";
      s.input = std::string(arg);
      s.input_given = true;
      continue;
    }
    if (arg == "--") {
      only_operands = true;
      continue;
    }
    // --name=value or --name value, for the flags that take a value.
    std::string_view name = arg;
    std::optional<std::string> value;
    if (auto eq = arg.find('='); arg.substr(0, 2) == "--" && eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = std::string(arg.substr(eq + 1));
    }
    const flag* f = find_flag(name);
    if (!f) return "unknown option '" + std::string(arg) + "'";
    if (!f->reads && value) return std::string(name) + " takes no value";
    if (f->reads && !value) {
      if (i + 1 == argc) return std::string(name) + " needs a value";
      value = argv[++i];
    }
    if (++given[index_of(*f)] > 1 && f->once) return std::string(name) + " given twice";
    if (!f->refused.empty()) return std::string(name) + " " + std::string(f->refused);
    if (f->sets) {
      s.*(f->sets) = true;
    } else if (std::string problem = f->reads(s, f->name, *value); !problem.empty()) {
      return problem;
    }
  }
  return check_combination(s, given);
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_FLAGS_HPP_INCLUDED
