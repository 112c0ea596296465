// llmjson: the command-line tool, the one JSON answer of a model output on stdout
// SPDX-License-Identifier: MIT

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/adapter.hpp>
#include <llmjson/enum_names.hpp>
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>
#include <llmjson/options.hpp>
#include <llmjson/scan.hpp>
#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>
#include <llmjson/version.hpp>
#include "text.hpp"

#include "json_line.hpp"
#include "ordered_lines.hpp"

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#else
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#endif

namespace {

// Exit codes: the contract with shell pipelines and other languages.
constexpr int exit_answer = 0;     // the answer is on stdout
constexpr int exit_no_answer = 1;  // llmjson: KIND: message (or the report says why)
constexpr int exit_usage = 2;      // bad flags, unreadable input, invalid schema, internal error

constexpr std::string_view usage_text =
    R"(usage: llmjson [--keys K1,K2,...] [--schema FILE] [--policy first|unique|last] [--no-fallback]
               [--no-reasoning-regions] [--reasoning-tags OPEN,CLOSE]
               [--reasoning-off NAME,...] [--starts-in unknown|reasoning|answer]
               [--prefill TEXT] [--early] [--response] [--explain] [--report] [--pretty]
               [--normalize] [--max-bytes N]
               [--jsonl [--at P] [--id-at P] [--reasoning-at P] [--first-line N] [--jobs N]]
               [FILE|-]

Prints the one JSON answer found in a language model's output, read from FILE (or stdin when
FILE is - or absent), as the model wrote it: key order, number literals and string escapes
unchanged, on one line.

What the input is (default: the model's text, as it wrote it):
  --response         an OpenAI-compatible /chat/completions response: the JSON body, or the
                     streamed form (data: {...} events, concatenated delta.content, [DONE]). The
                     answer is read from the first choice's content, and --report adds its
                     finish_reason and the usage (prompt, completion, reasoning tokens). A body
                     that is not such a response, an {"error": ...} body or no choice is an
                     input error (exit 2). Not with --early

Many outputs, one a line (llmjson --jsonl outputs.jsonl > answers.jsonl):
  --jsonl            the input is JSON Lines, read as a stream: each line one output, a JSON
                     string (or the value at --at). Each gives one line, in input order:
                     {"id":ID,"line":N,"ok":true,"value":ANSWER} or
                     {"id":ID,"line":N,"ok":false,"error":{"kind":KIND,"message":M}}, KIND
                     input for a line that is not JSON or lacks its value; with --report, the
                     line's report after id and line. --max-bytes is per line (a longer one is
                     a too_large line). Exit 1 when a line failed. Not with --early, --explain,
                     --pretty
  --at POINTER       the output is the string at this JSON Pointer of each line; with
                     --response, the chat completion there (/response/body of a Batch API line)
  --id-at POINTER    the id is the value at this pointer (/custom_id), else the line number
  --reasoning-at POINTER
                     the reasoning sent beside the output (repeatable: the first non-empty one
                     is taken); never searched for the answer: --report gives its length, and an
                     empty output's error says it
  --first-line N     the number of the input's first line (default 1), for a piece of a file
  --jobs N           threads (default: every core); the output is the same for any N

Which candidate qualifies (default: any JSON object):
  --keys K1,K2,...   an object with at least one of these top-level keys (repeatable)
  --schema FILE      a value valid under the JSON Schema (draft 7) in FILE
How one is chosen:
  --policy P         first: the first that qualifies (the default, unique with --schema);
                     unique: exactly one qualifies, else an error; last: the last that qualifies
  --no-fallback      with first: when none qualifies, fail instead of taking the first valid
                     one that no frame encloses (the fallback, which stderr notes)
Reasoning (<think>...</think>, [THINK], <thought>, <details type="reasoning">, harmony analysis,
gpt-oss's stripped analysis...assistantfinal, "Thinking..." at the start, ...: never the answer):
  --no-reasoning-regions
                     treat reasoning markers as text: the whole output is answer text
  --reasoning-tags OPEN,CLOSE
                     a marker pair of your own, besides the built-in ones (repeatable)
  --reasoning-off NAME[,NAME...]
                     built-in formats whose markers are text (repeatable): think, thinking,
                     reasoning, think_brackets ([THINK]), command_r (<|START_THINKING|>),
                     begin_of_thought, seed_think, kimi, scratchpad, thought, longcat_think,
                     gemma4_channel (<|channel>thought), details, harmony, stripped_harmony,
                     granite, apriel, ollama
  --starts-in WHERE  what your prompt leaves at the output's start: reasoning (the template
                     prefilled <think>), answer (no already-open rule), or unknown (the default:
                     a closing marker before any opening one means the prompt opened it)
  --prefill TEXT     the text you prefilled the model's turn with ({, ```json, <think>): read
                     before the output as one text, so an answer may start in it; positions
                     stay in the output (negative in the prefill)
While the model writes (model-cli | llmjson --early --keys orders):
  --early            read the input as it arrives, and print the answer and exit as soon as it
                     is settled (no more text could change it), without reading the rest. The
                     answer is the one the whole input would give. Needs policy first (under
                     unique and last nothing settles before the end): with --policy unique or
                     last it is a usage error, and with --schema (whose default is unique) it
                     needs --policy first. Without reasoning markers, an output settles only at
                     its end unless --starts-in answer; one that begins with "analysis" (maybe
                     gpt-oss's stripped analysis...assistantfinal) only at its end or at a
                     harmony token. --report and --explain then show the text read, and
                     --report says how much ("early")
Output:
  --pretty           indent the answer, one member or element a line (its tokens unchanged)
  --normalize        print the answer as nlohmann::json re-serializes it instead: keys sorted,
                     numbers reprinted (1.10 as 1.1, integers beyond 64 bits as doubles),
                     escapes decoded (\u00e9 as the character)
  --explain          after the result, a table of every candidate and its verdict on stderr
  --report           print one JSON object with the answer or the error and every candidate
                     (with --response, then finish_reason and usage, null when absent)
  --max-bytes N      refuse inputs longer than N bytes (default: 64 MiB, 67108864); N may end
                     in k, M or G (binary: 10k is 10240)
  --help, --version

Notes on stderr ("llmjson: note: ...", exit 0): the answer is the fallback, later candidates
qualify too (policy first took the first), or the output was cut after the answer (--policy
unique refuses these three), or its strings hold raw line breaks or tabs, which JSON forbids
(printed escaped: the value is the same).
Exit status: 0 the answer is on stdout; 1 no answer (stderr: "llmjson: KIND: message", KIND one
of empty, no_json, truncated, no_match, ambiguous, too_large); 2 usage, input or schema error, or
a stdout that cannot be written, a closed pipe included (with --response: "llmjson: --response:
..." for an input that is not a chat completion). SIGINT and SIGTERM end the run after the lines
being written, as the signal does (128 + its number in a shell).
)";

static_assert(llmjson::default_max_input_bytes == 67108864, "update --max-bytes in usage_text");

/// Returns true when usage_text's synopsis gives `flag` the names of E's enumerators, in order:
/// `[--policy first|unique|last]`. The flag takes exactly these (parse_enum).
template <class E>
constexpr bool synopsis_lists(std::string_view flag) {
  const std::string_view synopsis = usage_text.substr(0, usage_text.find("\n\n"));
  for (auto at = synopsis.find(flag); at != std::string_view::npos;
       at = synopsis.find(flag, at + 1)) {
    if (at == 0 || synopsis[at - 1] != '[') continue;
    std::string_view rest = synopsis.substr(at + flag.size());
    char separator = ' ';
    bool all = true;
    for (E e : llmjson::enumerators<E>) {
      const std::string_view name = to_string(e);
      all = all && rest.size() > name.size() && rest[0] == separator &&
            rest.substr(1, name.size()) == name;
      if (!all) break;
      rest.remove_prefix(1 + name.size());
      separator = '|';
    }
    if (all && rest.substr(0, 1) == "]") return true;
  }
  return false;
}
static_assert(synopsis_lists<llmjson::policy>("--policy"), "update --policy in usage_text");
static_assert(synopsis_lists<llmjson::output_start>("--starts-in"),
              "update --starts-in in usage_text");

/// Reads the value of an enum-valued flag: one of the enumerators' names (`--policy unique`).
/// Returns a usage error's message, or empty when `value` is a name.
template <class E>
std::string parse_enum(std::string_view flag, const std::string& value, E& out) {
  if (auto e = llmjson::from_string<E>(value)) {
    out = *e;
    return {};
  }
  std::string names;
  for (E e : llmjson::enumerators<E>) {
    if (!names.empty()) names += ", ";
    names += to_string(e);
  }
  return std::string(flag) + ": '" + value + "' is not one of " + names;
}

// ---------------------------------------------------------------------------------------------
// The command line

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

/// The decimal count `v` (digits only), or std::nullopt.
std::optional<unsigned long long> count_of(const std::string& v) {
  unsigned long long n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size()) return std::nullopt;
  return n;
}

/// The byte count `v`: digits, then maybe k, M or G (binary: `10k` is 10240), or std::nullopt.
std::optional<std::size_t> byte_count_of(std::string v) {
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
  const auto n = count_of(v);
  constexpr auto most = static_cast<unsigned long long>(static_cast<std::size_t>(-1));
  if (!n || *n > (most >> shift)) return std::nullopt;
  return static_cast<std::size_t>(*n << shift);
}

/// A usage error's message, or empty when the command line is fine.
std::string parse_command_line(int argc, char** argv, settings& s) {
  bool have_input = false, only_operands = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (only_operands || arg == "-" || arg.substr(0, 1) != "-") {
      if (have_input)
        return "more than one input file ('" + s.input + "' and '" + std::string(arg) + "')";
      s.input = std::string(arg);
      have_input = s.input_given = true;
      continue;
    }
    if (arg == "--") {
      only_operands = true;
      continue;
    }
    // --name=value or --name value, for the flags that take a value.
    std::string_view name = arg, inline_value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.substr(0, 2) == "--" && eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
      has_inline = true;
    }
    const bool takes_value = name == "--keys" || name == "--schema" || name == "--policy" ||
                             name == "--max-bytes" || name == "--reasoning-tags" ||
                             name == "--reasoning-off" || name == "--starts-in" ||
                             name == "--prefill" || name == "--at" || name == "--id-at" ||
                             name == "--reasoning-at" || name == "--first-line" || name == "--jobs";
    std::string v;
    if (takes_value && has_inline) {
      v = std::string(inline_value);
    } else if (takes_value && i + 1 < argc) {
      v = argv[++i];
    } else if (takes_value) {
      return std::string(name) + " needs a value";
    } else if (has_inline) {
      return std::string(name) + " takes no value";
    }
    if (name == "--keys") {
      for (std::size_t start = 0;;) {
        std::size_t comma = v.find(',', start);
        std::string key =
            v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (key.empty()) return "--keys: empty key in '" + v + "'";
        s.keys.push_back(std::move(key));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (name == "--schema") {
      if (s.schema_path) return "--schema given twice";
      s.schema_path = v;
    } else if (name == "--policy") {
      llmjson::policy p{};
      if (auto problem = parse_enum(name, v, p); !problem.empty()) return problem;
      s.policy = p;
    } else if (name == "--max-bytes") {
      const auto n = byte_count_of(v);
      if (!n) return "--max-bytes: '" + v + "' is not a byte count (digits, maybe then k, M or G)";
      s.max_bytes = *n;
    } else if (name == "--at" || name == "--id-at") {
      auto& where = name == "--at" ? s.at : s.id_at;
      if (where) return std::string(name) + " given twice";
      std::string problem;
      if (!llmjson_cli::json_pointer::parse(v, problem)) return std::string(name) + ": " + problem;
      where = v;
    } else if (name == "--reasoning-at") {
      std::string problem;
      if (!llmjson_cli::json_pointer::parse(v, problem)) return "--reasoning-at: " + problem;
      s.reasoning_at.push_back(v);
    } else if (name == "--first-line") {
      const auto n = count_of(v);
      if (!n || *n == 0) return "--first-line: '" + v + "' is not a line number (1 or more)";
      if (s.first_line) return "--first-line given twice";
      s.first_line = *n;
    } else if (name == "--jobs") {
      const auto n = count_of(v);
      if (!n || *n == 0 || *n > 1024)
        return "--jobs: '" + v + "' is not a number of jobs (1 to 1024)";
      if (s.jobs) return "--jobs given twice";
      s.jobs = static_cast<unsigned>(*n);
    } else if (name == "--reasoning-tags") {
      const std::size_t comma = v.find(',');
      if (comma == std::string::npos || comma == 0 || comma + 1 == v.size() ||
          v.find(',', comma + 1) != std::string::npos)
        return "--reasoning-tags: '" + v + "' is not OPEN,CLOSE (two non-empty tags, one comma)";
      s.reasoning_tags.push_back({v.substr(0, comma), v.substr(comma + 1)});
    } else if (name == "--reasoning-off") {
      for (std::size_t start = 0;;) {
        const std::size_t comma = v.find(',', start);
        const std::string format =
            v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        llmjson::reasoning_format f{};
        if (auto problem = parse_enum(name, format, f); !problem.empty()) return problem;
        s.reasoning_off.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (name == "--prefill") {
      if (s.prefill) return "--prefill given twice";
      s.prefill = v;
    } else if (name == "--starts-in") {
      if (auto problem = parse_enum(name, v, s.starts_in); !problem.empty()) return problem;
    } else if (arg == "--no-reasoning-regions") {
      s.no_reasoning_regions = true;
    } else if (arg == "--include-reasoning") {
      return "--include-reasoning is now --no-reasoning-regions (options::reasoning_regions = "
             "false), the name of what it does";
    } else if (arg == "--early") {
      s.early = true;
    } else if (arg == "--response") {
      s.response = true;
    } else if (arg == "--jsonl") {
      s.jsonl = true;
    } else if (arg == "--no-fallback") {
      s.no_fallback = true;
    } else if (arg == "--explain") {
      s.explain = true;
    } else if (arg == "--report") {
      s.report = true;
    } else if (arg == "--pretty") {
      s.pretty = true;
    } else if (arg == "--normalize") {
      s.normalize = true;
    } else if (arg == "--help" || arg == "-h") {
      s.help = true;
    } else if (arg == "--version" || arg == "-V") {
      s.version = true;
    } else {
      return "unknown option '" + std::string(arg) + "'";
    }
  }
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
  if (s.early && !s.policy && s.schema_path)
    return "--early needs policy first, and --schema's default is unique: add --policy first";
  if (!s.jsonl) {
    for (const char* flag : {"--at", "--id-at", "--reasoning-at", "--first-line", "--jobs"}) {
      const bool given = (flag == std::string_view("--at") && s.at) ||
                         (flag == std::string_view("--id-at") && s.id_at) ||
                         (flag == std::string_view("--reasoning-at") && !s.reasoning_at.empty()) ||
                         (flag == std::string_view("--first-line") && s.first_line) ||
                         (flag == std::string_view("--jobs") && s.jobs);
      if (given) return std::string(flag) + " is for JSON Lines input: add --jsonl";
    }
    return {};
  }
  if (s.early) return "--early reads one output as it arrives, --jsonl many: drop one";
  if (s.explain) return "--explain draws a table per output: with --jsonl, --report says the same";
  if (s.pretty) return "--jsonl writes one line per output: --pretty would break them";
  if (s.response && !s.reasoning_at.empty())
    return "--response reads the reasoning of the message itself (reasoning_content): drop "
           "--reasoning-at";
  return {};
}

// ---------------------------------------------------------------------------------------------
// Input

struct input {
  std::string bytes;
  bool over_limit = false;  // stopped reading past `limit` bytes
  std::string problem;      // why it could not be read; empty when it was
};

/// Opens `path` for reading in binary mode, or stdin for "-"; null, with `problem` set, when it
/// cannot be opened.
std::FILE* open_input(const std::string& path, std::string& problem) {
  if (path == "-") {
#ifdef _WIN32
    _setmode(_fileno(stdin), _O_BINARY);
#endif
    return stdin;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) problem = "cannot open '" + path + "': " + std::strerror(errno);
  return f;
}

/// Reads all of `path` (stdin for "-") in binary mode, but never much more than `limit` bytes.
input read_input(const std::string& path, std::size_t limit) {
  input in;
  std::FILE* f = open_input(path, in.problem);
  if (!f) return in;
  constexpr std::size_t chunk = std::size_t{1} << 16;
  for (;;) {
    std::size_t had = in.bytes.size();
    in.bytes.resize(had + chunk);
    std::size_t got = std::fread(in.bytes.data() + had, 1, chunk, f);
    in.bytes.resize(had + got);
    if (in.bytes.size() > limit) {
      in.over_limit = true;
      break;
    }
    if (got < chunk) {
      if (std::ferror(f))
        in.problem = "cannot read '" + (path == "-" ? std::string("stdin") : path) +
                     "': " + std::strerror(errno);
      break;
    }
  }
  if (f != stdin) std::fclose(f);
  return in;
}

/// With --early: what was read, and why the reading stopped.
struct early_read {
  bool settled = false;     // the answer was settled: the rest was not read
  bool over_limit = false;  // stopped reading past `limit` bytes
  std::string problem;      // why it could not be read; empty when it was
};

/// Reads `path` (stdin for "-") as it arrives, with read(2) on its descriptor (no buffering
/// that waits for a full block), into `st`, until the answer is settled, the input ends, or it
/// is over `limit` bytes.
template <class S>
early_read read_until_settled(const std::string& path, llmjson::stream<S>& st, std::size_t limit) {
  early_read in;
  std::FILE* f = open_input(path, in.problem);
  if (!f) return in;
#ifdef _WIN32
  const int fd = _fileno(f);
#else
  const int fd = fileno(f);
#endif
  std::vector<char> buf(std::size_t{1} << 16);
  for (;;) {
#ifdef _WIN32
    const auto got = _read(fd, buf.data(), static_cast<unsigned>(buf.size()));
#else
    const auto got = ::read(fd, buf.data(), buf.size());
#endif
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      in.problem = "cannot read '" + (path == "-" ? std::string("stdin") : path) +
                   "': " + std::strerror(errno);
      break;
    }
    if (got == 0) break;
    st.feed(std::string_view(buf.data(), static_cast<std::size_t>(got)));
    if (st.size() > limit) {
      in.over_limit = true;
      break;
    }
    st.sync();  // a read is a large piece: see it all at once
    if (st.settled()) {
      in.settled = true;
      break;
    }
  }
  if (f != stdin) std::fclose(f);
  return in;
}

// ---------------------------------------------------------------------------------------------
// --response: the input is a /chat/completions response, not the model's text

/// What --response reads from an OpenAI-compatible /chat/completions response.
struct chat_response {
  std::string content;                       // the first choice's content: the text extracted
  std::optional<std::string> finish_reason;  // the first choice's, if it has one
  std::optional<llmjson::usage> usage;       // the response's, if well-formed
  std::string reasoning;  // the first choice's reasoning_content (or reasoning), "" when none
  std::string problem;    // why the input is not such a response; empty when it is
};

/// The count `name` of `obj`: std::nullopt when absent or null; sets `bad` when it is not a
/// non-negative integer.
std::optional<std::uint64_t> token_count(const nlohmann::json& obj, const char* name, bool& bad) {
  const auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_unsigned()) {
    bad = true;
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

/// The `usage` of a body or a chunk: `prompt_tokens`, `completion_tokens` and
/// `completion_tokens_details.reasoning_tokens` (0 when absent). std::nullopt when absent, and
/// when malformed (a count missing or not a non-negative integer): never read as zeros.
std::optional<llmjson::usage> usage_of(const nlohmann::json& j) {
  const auto u = j.find("usage");
  if (u == j.end() || !u->is_object()) return std::nullopt;
  bool bad = false;
  const auto prompt = token_count(*u, "prompt_tokens", bad);
  const auto completion = token_count(*u, "completion_tokens", bad);
  std::optional<std::uint64_t> reasoning;
  if (const auto d = u->find("completion_tokens_details"); d != u->end() && !d->is_null()) {
    if (d->is_object())
      reasoning = token_count(*d, "reasoning_tokens", bad);
    else
      bad = true;
  }
  if (bad || !prompt || !completion) return std::nullopt;
  return llmjson::usage{*prompt, *completion, reasoning.value_or(0)};
}

/// Appends the text of a `content` to `out`: a string, null (nothing), or an array of parts
/// (`[{"type": "text", "text": "..."}]`, the text of each). Returns false for anything else.
bool append_text(const nlohmann::json& content, std::string& out) {
  if (content.is_null()) return true;
  if (content.is_string()) {
    out += content.get_ref<const std::string&>();
    return true;
  }
  if (!content.is_array()) return false;
  for (const auto& part : content)
    if (part.is_object())
      if (const auto t = part.find("text"); t != part.end() && t->is_string())
        out += t->get_ref<const std::string&>();
  return true;
}

/// The problem of a response that is an `error` object: `the response is an API error: ...`.
std::string api_error_problem(const nlohmann::json& e) {
  std::string what = e.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (e.is_object())
    if (const auto m = e.find("message"); m != e.end() && m->is_string())
      what = m->get<std::string>();
  if (e.is_string()) what = e.get<std::string>();
  return "the response is an API error, not a completion: " + what;
}

/// Reads the first choice (`index` 0, or the first without an index) of `choices` into `r`,
/// from `field` (`message` in a body, `delta` in a chunk). Returns false when `choices` holds none.
bool read_choices(const nlohmann::json& choices, const char* field, chat_response& r) {
  if (!choices.is_array()) {
    r.problem = "\"choices\" is not an array";
    return false;
  }
  for (const auto& choice : choices) {
    if (!choice.is_object()) {
      r.problem = "\"choices\" is not an array of objects";
      return false;
    }
    const auto index = choice.find("index");
    if (index != choice.end() && !(index->is_number_integer() && *index == 0)) continue;
    if (const auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
      r.finish_reason = f->get<std::string>();
    const auto m = choice.find(field);
    if (m == choice.end() || m->is_null()) return true;
    if (!m->is_object()) {
      r.problem = "\"" + std::string(field) + "\" is not an object";
      return false;
    }
    for (const char* name : {"reasoning_content", "reasoning"}) {  // as the OpenAI adapter
      const auto t = m->find(name);
      if (t == m->end() || !t->is_string() || t->get_ref<const std::string&>().empty()) continue;
      r.reasoning += t->get_ref<const std::string&>();
      break;
    }
    if (const auto c = m->find("content"); c != m->end() && !append_text(*c, r.content)) {
      r.problem = "\"content\" is not a string, null or an array of parts";
      return false;
    }
    return true;
  }
  return false;
}

/// Reads a JSON response body (`{"choices": [{"message": {"content": ...}}], ...}`).
chat_response read_body(std::string_view bytes) {
  chat_response r;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    std::string_view what = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (auto end = what.find("] "); what.substr(0, 1) == "[" && end != std::string_view::npos)
      what.remove_prefix(end + 2);
    r.problem = "the body is not valid JSON: " + std::string(what);
    return r;
  }
  if (!j.is_object()) {
    r.problem = "the body is not a JSON object";
    return r;
  }
  if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
    r.problem = api_error_problem(*e);
    return r;
  }
  r.usage = usage_of(j);
  const auto choices = j.find("choices");
  if (choices == j.end() || choices->is_null()) {
    r.problem = "the body has no \"choices\": not a chat completion";
  } else if (!read_choices(*choices, "message", r) && r.problem.empty()) {
    r.problem = "\"choices\" is empty: the response holds no message";
  }
  return r;
}

/// Reads the streamed form: Server-Sent Events (LF, CRLF or CR line ends), each `data:` a
/// `chat.completion.chunk`, their `delta.content` concatenated, up to `data: [DONE]`.
chat_response read_stream(std::string_view bytes) {
  chat_response r;
  std::size_t events = 0;
  bool choice = false, done = false;
  std::string data;
  bool has_data = false;
  auto dispatch = [&] {
    if (!has_data) return;
    has_data = false;
    ++events;
    if (data == "[DONE]") {
      done = true;
      return;
    }
    const auto j = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
    const std::string which = "event " + std::to_string(events);
    if (j.is_discarded() || !j.is_object()) {
      r.problem =
          which + " is not a JSON object: " + data.substr(0, 80) + (data.size() > 80 ? "..." : "");
      return;
    }
    if (const auto e = j.find("error"); e != j.end() && !e->is_null()) {
      r.problem = api_error_problem(*e);
      return;
    }
    if (auto u = usage_of(j)) r.usage = u;  // the usage chunk, last; or a running total
    const auto choices = j.find("choices");
    if (choices == j.end() || choices->is_null()) return;
    if (read_choices(*choices, "delta", r)) choice = true;
    if (!r.problem.empty()) r.problem = which + ": " + r.problem;
  };
  for (std::size_t at = 0; at < bytes.size() && !done && r.problem.empty();) {
    std::size_t end = bytes.find_first_of("\r\n", at);
    if (end == std::string_view::npos) end = bytes.size();
    const std::string_view line = bytes.substr(at, end - at);
    at = end + (bytes.substr(end, 2) == "\r\n" ? 2 : 1);
    if (line.empty()) {
      dispatch();
      data.clear();
      continue;
    }
    if (line.front() == ':') continue;  // a comment
    const std::size_t colon = line.find(':');
    if (line.substr(0, colon) != "data") continue;  // event, id, retry
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (has_data) data += '\n';
    data.append(value);
    has_data = true;
  }
  if (!done && r.problem.empty()) dispatch();  // an event the input ends in
  if (!r.problem.empty()) return r;
  if (events == 0)
    r.problem =
        "the input is neither a JSON body (it does not start with '{') nor a stream of "
        "\"data:\" events";
  else if (!choice)
    r.problem = "no event of the stream has a choice: it holds no message";
  return r;
}

/// Reads a /chat/completions response, a JSON body or its streamed form (told apart by the first
/// byte that is not white space: `{` or `[` for a body).
chat_response read_response(std::string_view bytes) {
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (bytes[first] == '{' || bytes[first] == '['))
    return read_body(bytes);
  return read_stream(bytes);
}

/// Compiles the JSON Schema in `path` into `out`; returns why it could not, or "".
std::string load_schema(const std::string& path, std::size_t limit,
                        std::optional<llmjson::schema>& out) {
  input file = read_input(path, limit);
  if (!file.problem.empty()) return file.problem;
  if (file.over_limit) return "longer than " + std::to_string(limit) + " bytes";
  nlohmann::json source;
  try {
    source = nlohmann::json::parse(file.bytes);
  } catch (const nlohmann::json::parse_error& e) {
    // The exception carries the position, which the no-throw path drops; one parse of a
    // user's file, so no exceptions as control flow on the hot path.
    std::string_view what = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (auto end = what.find("] "); what.substr(0, 1) == "[" && end != std::string_view::npos)
      what.remove_prefix(end + 2);
    return "not valid JSON: " + std::string(what);
  }
  llmjson::schema_result compiled = llmjson::schema::compile(source);
  if (!compiled) return "not a schema llmjson can use: " + compiled.error();
  out = std::move(*compiled);
  return {};
}

// ---------------------------------------------------------------------------------------------
// What came out, and how it is shown

/// The extraction's outcome, seen the same way whether it succeeded or failed.
struct outcome {
  const llmjson::extraction* answer = nullptr;  // set on success
  const llmjson::error* failure = nullptr;      // set on failure
  llmjson::policy policy = llmjson::policy::first;
  const early_read* early = nullptr;           // with --early: how the reading ended
  std::size_t bytes_read = 0;                  // with --early: the bytes read
  const chat_response* response = nullptr;     // with --response: what the response said
  std::string qualifies_as;                    // what qualifying means: `is a JSON object`
  std::optional<std::size_t> reasoning_bytes;  // with --jsonl: the reasoning beside the output

  [[nodiscard]] const std::vector<llmjson::candidate>& candidates() const {
    return answer ? answer->candidates : failure->candidates;
  }
  [[nodiscard]] const std::optional<llmjson::cut>& truncation() const {
    return answer ? answer->truncation : failure->truncation;
  }
};

/// The candidate's verdict: chosen, fallback, qualifies, rejected, malformed or reasoning.
std::string_view verdict_of(const outcome& o, std::size_t i) {
  const llmjson::candidate& c = o.candidates()[i];
  if (o.answer && o.answer->index == i) return o.answer->fallback ? "fallback" : "chosen";
  if (c.in_reasoning) return "reasoning";
  if (!c.valid) return "malformed";
  return c.qualifies ? "qualifies" : "rejected";
}

/// Why the candidate does not qualify (for a malformed one, what is wrong with it), or "": its
/// `message`, without the `malformed: ` that the verdict column already says.
std::string_view message_of(const llmjson::candidate& c) {
  constexpr std::string_view malformed = "malformed: ";
  std::string_view m = c.message;
  if (!c.valid && !c.in_reasoning && m.substr(0, malformed.size()) == malformed)
    m.remove_prefix(malformed.size());
  return m;
}

const std::vector<llmjson::near_miss> no_near_misses;

/// The near misses of a `no_json` failure: closed spans that look like objects, not JSON.
const std::vector<llmjson::near_miss>& near_misses_of(const outcome& o) {
  return o.failure ? o.failure->near_misses : no_near_misses;
}

/// Where the candidate was found, in the library's words (`prose`, `in fence "json"`, `fence
/// "json"`, `whole part`, `whole output`), with ` (enclosed)` when a frame encloses it (a piece of
/// something bigger, never the fallback).
std::string source_column(const llmjson::candidate& c);

using llmjson_cli::one_line;

std::string source_column(const llmjson::candidate& c) {
  std::string label = llmjson::source_label(c);
  if (c.enclosed) label += " (enclosed)";
  return label;
}

/// How many columns `s` (valid UTF-8) takes: one per code point.
std::size_t width(std::string_view s) {
  std::size_t w = 0;
  for (char ch : s) w += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return w;
}

/// The --explain table: every candidate, one aligned row each, then the cut if there is one.
std::string explain_table(const outcome& o) {
  const auto& cs = o.candidates();
  std::vector<std::vector<std::string>> rows{
      {"#", "line:col", "source", "bytes", "verdict", "reason"}};
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const llmjson::candidate& c = cs[i];
    std::string reason(message_of(c));
    if (c.raw_controls)  // valid once they are escaped (rules §3): said, whatever the verdict
      reason = "raw line breaks or tabs in strings" + (reason.empty() ? "" : "; " + reason);
    rows.push_back({std::to_string(i + 1), std::to_string(c.line) + ":" + std::to_string(c.column),
                    source_column(c), std::to_string(c.text.size()), std::string(verdict_of(o, i)),
                    reason.empty() ? "-" : one_line(reason)});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], width(row[k]));
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      out += row[k];
      if (k + 1 < row.size()) out.append(widths[k] - width(row[k]) + 2, ' ');
    }
    out += '\n';
  }
  if (cs.empty()) out += "(no candidates)\n";
  if (const auto& cut = o.truncation()) out += "cut: " + one_line(cut->message) + "\n";
  for (const llmjson::near_miss& m : near_misses_of(o)) {
    out += "near miss: " + std::to_string(m.line) + ":" + std::to_string(m.column) + " ";
    out += one_line(m.text.substr(0, 60));
    if (m.text.size() > 60) out += "...";
    out += ": " + one_line(m.message) + "\n";
  }
  return out;
}

/// Where report() leaves the answer's tokens to be spliced in (splice_value): a string no input
/// can put at that place, as nlohmann dumps escape control characters and quotes in strings.
constexpr std::string_view value_slot = "\x01llmjson: the answer as written\x01";

/// The --report object: ok, error, value, text, truncated, candidates (and policy, fallback), in
/// that order (ordered_json keeps the order in which members are added). Unless `normalized`,
/// `value` is `value_slot`, for splice_value to replace with the answer's own tokens.
nlohmann::ordered_json report(const outcome& o, bool normalized) {
  using json = nlohmann::ordered_json;
  json r = json::object();
  r["ok"] = o.answer != nullptr;
  r["error"] = o.failure ? json{{"kind", llmjson::to_string(o.failure->kind)},
                                {"message", o.failure->message},
                                {"offset", o.failure->offset}}
                         : json(nullptr);
  r["value"] = !o.answer    ? json(nullptr)
               : normalized ? json(o.answer->json())
                            : json(std::string(value_slot));
  r["text"] = o.answer ? json(std::string(o.answer->text())) : json(nullptr);
  const auto& cut = o.truncation();
  r["truncated"] = cut ? json{{"offset", cut->position()},
                              {"line", cut->line},
                              {"column", cut->column},
                              {"message", cut->message},
                              {"reasoning", cut->reasoning},
                              {"marker", cut->reasoning && !cut->marker.empty() ? json(cut->marker)
                                                                                : json(nullptr)}}
                       : json(nullptr);
  r["policy"] = llmjson::to_string(o.answer ? o.answer->policy : o.policy);
  r["fallback"] = o.answer && o.answer->fallback;
  // The answer's text holds raw line breaks or tabs in strings: `value` has them escaped.
  r["raw_controls"] = o.answer && o.answer->chosen().raw_controls;
  // Under policy first, the qualifying candidates after the answer: indices into `candidates`.
  r["later_qualifying"] = o.answer ? json(o.answer->later_qualifying) : json::array();
  json list = json::array();
  const auto& cs = o.candidates();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const llmjson::candidate& c = cs[i];
    const bool fenced = c.source == llmjson::source::fence || c.in_fence;
    list.push_back({{"line", c.line},
                    {"column", c.column},
                    {"offset", c.position()},
                    {"length", c.text.size()},
                    {"source", llmjson::to_string(c.source)},
                    {"in_fence", c.in_fence},
                    {"info", fenced ? json(std::string(c.info)) : json(nullptr)},
                    {"enclosed", c.enclosed},
                    {"raw_controls", c.raw_controls},
                    {"verdict", verdict_of(o, i)},
                    {"qualifies", c.qualifies},
                    {"message", std::string(message_of(c))},
                    {"in_reasoning", c.in_reasoning},
                    {"marker", c.in_reasoning ? json(std::string(c.marker)) : json(nullptr)}});
  }
  r["candidates"] = std::move(list);
  json near = json::array();
  for (const llmjson::near_miss& m : near_misses_of(o))
    near.push_back({{"line", m.line},
                    {"column", m.column},
                    {"offset", m.position()},
                    {"length", m.text.size()},
                    {"text", std::string(m.text)},
                    {"message", m.message}});
  r["near_misses"] = std::move(near);
  if (o.early) r["early"] = json{{"settled", o.early->settled}, {"bytes_read", o.bytes_read}};
  if (o.reasoning_bytes) r["reasoning_bytes"] = *o.reasoning_bytes;
  if (o.response) {
    const auto& u = o.response->usage;
    r["finish_reason"] =
        o.response->finish_reason ? json(*o.response->finish_reason) : json(nullptr);
    r["usage"] = u ? json{{"prompt_tokens", u->prompt_tokens},
                          {"completion_tokens", u->completion_tokens},
                          {"reasoning_tokens", u->reasoning_tokens},
                          {"total_tokens", u->total_tokens()}}
                   : json(nullptr);
  }
  return r;
}

/// Dumps `v` so that raw input bytes (in reasons, info strings) can never make it throw.
template <class Json>
std::string dump(const Json& v, bool pretty) {
  return v.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The compact dump of a report with the answer's tokens, as written, at the slot of its value.
std::string splice_value(std::string dumped, std::string_view answer_text) {
  // The member as dump() wrote it (`"value":"\u0001llmjson: ..."`), found where no string's
  // content can hold it: a quote inside a string is always escaped.
  const std::string slot = "\"value\":" + dump(nlohmann::json(std::string(value_slot)), false);
  if (const auto at = dumped.find(slot); at != std::string::npos)
    dumped.replace(at, slot.size(), "\"value\":" + llmjson::minify(answer_text));
  return dumped;
}

/// The answer, as the flags ask: its tokens as written (one line, or --pretty), or nlohmann's
/// re-serialization (--normalize).
std::string answer_text(const settings& s, const llmjson::extraction& answer) {
  if (s.normalize) return dump(answer.json(), s.pretty);
  return s.pretty ? llmjson::pretty(answer.text()) : llmjson::minify(answer.text());
}

/// `2 later candidates also qualify: 5:1, 9:1; policy first printed the one at 1:9`: the
/// qualifying candidates policy `first` passed over, at most eight named (as the library's
/// messages name candidates).
std::string later_qualifying_note(const llmjson::extraction& x) {
  const auto& later = x.later_qualifying;
  std::string out =
      std::to_string(later.size()) + (later.size() == 1 ? " later candidate also qualifies: "
                                                        : " later candidates also qualify: ");
  const std::size_t shown = std::min<std::size_t>(later.size(), 8);
  for (std::size_t k = 0; k < shown; ++k) {
    const llmjson::candidate& c = x.candidates[later[k]];
    out += (k ? ", " : "") + std::to_string(c.line) + ":" + std::to_string(c.column);
  }
  if (later.size() > shown) out += ", and " + std::to_string(later.size() - shown) + " more";
  const llmjson::candidate& c = x.chosen();
  return out + "; policy first printed the one at " + std::to_string(c.line) + ":" +
         std::to_string(c.column);
}

/// The notes on stderr for an answer that hides a doubt: it is the fallback (nothing qualified),
/// later candidates qualify too (policy first took the first), or the output was cut after it.
/// Empty when there is none.
std::string notes(const outcome& o) {
  std::string out;
  if (!o.answer) return out;
  if (o.answer->fallback) {
    const llmjson::candidate& c = o.answer->chosen();
    out += "llmjson: note: no candidate " + std::string(o.qualifies_as) +
           "; printed the first valid value (fallback at " + std::to_string(c.line) + ":" +
           std::to_string(c.column) + "); --no-fallback makes this an error\n";
  }
  if (!o.answer->later_qualifying.empty())
    out += "llmjson: note: " + later_qualifying_note(*o.answer) +
           "; --policy unique makes this an error\n";
  if (const auto& cut = o.answer->truncation)
    out += "llmjson: note: the output was cut after the answer: " + one_line(cut->message) +
           "; --policy unique makes this an error\n";
  if (const llmjson::candidate& c = o.answer->chosen(); c.raw_controls)
    out += "llmjson: note: the answer at " + std::to_string(c.line) + ":" +
           std::to_string(c.column) +
           " holds raw line breaks or tabs in its strings, which JSON forbids; printed with them "
           "escaped\n";
  return out;
}

bool write(std::FILE* f, std::string_view s) {
  return std::fwrite(s.data(), 1, s.size(), f) == s.size() && std::fflush(f) == 0;
}

/// Held while stdout takes whole lines: SIGINT and SIGTERM end the run between two lines.
std::timed_mutex output_lock;

/// Writes `s` (whole lines) to stdout under `output_lock`; returns why it failed (`Broken
/// pipe`: the reader is gone), or "".
std::string write_out(std::string_view s) {
  const std::lock_guard lock(output_lock);
  errno = 0;
  if (llmjson_cli::write_counted(stdout, s)) return {};
  return errno ? std::strerror(errno) : "write error";
}

/// A signal waits for the lines being written while stdout takes them, and ends the run anyway
/// once stdout took nothing for this long: a reader that stopped reading would otherwise keep the
/// tool alive. Progress, not a time, decides: a slow but moving reader gets every line.
constexpr std::chrono::seconds signal_grace{5};

/// A closed stdout (`llmjson --jsonl big.jsonl | head -1`) is a write error like any other (exit 2,
/// `llmjson: cannot write to stdout: Broken pipe`), not a death by SIGPIPE. SIGINT and SIGTERM end
/// the run after the lines being written (within `signal_grace`), so that the output ends with a
/// whole line, then as the signal's default action does (status 128 + N in a shell). Call before
/// any thread starts: they inherit the blocked signals, which one thread waits for.
void handle_signals() {
#ifndef _WIN32
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  bool any = false;
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction was {};
    if (sigaction(sig, nullptr, &was) != 0 || was.sa_handler == SIG_IGN) continue;  // left alone:
    sigaddset(&set, sig);  // a background job's SIGINT stays ignored
    any = true;
  }
  if (!any || pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // the defaults stay
  std::thread([set] {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    // Whoever holds the lock has whole lines to write, and flushes them before letting go: once
    // it is ours, stdout holds only whole lines, and nothing is left to flush (a flush here
    // could wait forever on a reader that stopped).
    for (std::uint64_t seen = llmjson_cli::output_written.load();;) {
      if (output_lock.try_lock_for(signal_grace)) break;
      const std::uint64_t now = llmjson_cli::output_written.load();
      if (now == seen) break;  // nothing taken for signal_grace: the reader stopped
      seen = now;
    }
    std::signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    std::raise(sig);
    std::_Exit(128 + sig);  // not reached: the default action ends the process
  }).detach();
#endif
}

/// Prints the outcome as the flags ask and returns the exit code.
int finish(const settings& s, const outcome& o) {
  std::string unwritten;  // why stdout did not take the output
  if (s.report) {
    std::string text = dump(report(o, s.normalize), false);
    if (o.answer && !s.normalize) text = splice_value(std::move(text), o.answer->text());
    unwritten = write_out((s.pretty ? llmjson::pretty(text) : text) + "\n");
  } else if (o.answer) {
    unwritten = write_out(answer_text(s, *o.answer) + "\n");
  } else {
    write(stderr, "llmjson: " + std::string(llmjson::to_string(o.failure->kind)) + ": " +
                      one_line(o.failure->message) + "\n");
  }
  if (!unwritten.empty()) {
    write(stderr, "llmjson: cannot write to stdout: " + unwritten + "\n");
    return exit_usage;
  }
  write(stderr, notes(o));
  if (s.explain) write(stderr, explain_table(o));
  return o.answer ? exit_answer : exit_no_answer;
}

/// The extraction options the flags ask for.
llmjson::options options_of(const settings& s) {
  llmjson::options opts;
  opts.policy = s.policy;
  opts.fallback = !s.no_fallback;
  opts.max_input_bytes = s.max_bytes;
  opts.reasoning_regions = !s.no_reasoning_regions;
  opts.reasoning_markers = s.reasoning_tags;
  opts.reasoning_off = s.reasoning_off;
  opts.start = s.starts_in;
  opts.prefill = s.prefill.value_or(std::string());
  return opts;
}

/// What a qualifying candidate is, in the words of the fallback note: `has key "zzz"`.
std::string qualifies_as(const settings& s) {
  if (s.schema_path) return "is valid under the schema";
  if (s.keys.empty()) return "is a JSON object";
  std::string words = s.keys.size() == 1 ? "has key " : "has any of the keys ";
  for (std::size_t i = 0; i < s.keys.size(); ++i)
    words += (i ? ", " : "") + dump(nlohmann::json(s.keys[i]), false);
  return words;
}

/// Prints `r`, or, when the input was over the limit, `too_large`; returns the exit code.
template <class S>
int show(const settings& s, const llmjson::result<llmjson::extraction>* r, outcome o = {}) {
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
    return finish(s, o);
  }
  if (*r) {
    o.answer = &**r;
  } else {
    o.failure = &r->error();
  }
  return finish(s, o);
}

/// Adds to an `empty` or `truncated` error what the provider said beside the output: how much
/// reasoning came instead of an empty answer, and the response's `finish_reason` (`length`: the
/// token limit cut it). The same words in single mode and with --jsonl.
void say_why_cut(llmjson::error& e, const std::string& reasoning, const chat_response* response) {
  if (e.kind == llmjson::error_kind::empty && !reasoning.empty())
    e.message += "; the reasoning beside it holds " + std::to_string(reasoning.size()) +
                 " bytes: the answer was never written";
  if (response && response->finish_reason &&
      (e.kind == llmjson::error_kind::empty || e.kind == llmjson::error_kind::truncated))
    e.message += " (finish_reason \"" + *response->finish_reason + "\")";
}

/// Extracts with `sel` and prints the outcome; returns the exit code. With --response, `text` is
/// the response's content and `response` the rest of what it said.
template <class S>
int run(const settings& s, std::string_view text, const S& sel, bool over_limit,
        const chat_response* response = nullptr) {
  outcome o;
  o.response = response;
  if (over_limit) return show<S>(s, nullptr, o);
  const auto r = llmjson::extract(text, sel, options_of(s));
  if (!r && response) {
    llmjson::error e = r.error();
    say_why_cut(e, response->reasoning, response);
    const llmjson::result<llmjson::extraction> said = std::move(e);
    return show<S>(s, &said, o);
  }
  return show<S>(s, &r, o);
}

/// --early: reads the input as it arrives and prints the outcome as soon as the answer is
/// settled, or at the end of the input; returns the exit code.
template <class S>
int run_early(const settings& s, const S& sel) {
  llmjson::stream<S> st(sel, options_of(s));
  const early_read in = read_until_settled(s.input, st, s.max_bytes);
  if (!in.problem.empty()) {
    write(stderr, "llmjson: " + one_line(in.problem) + "\n");
    return exit_usage;
  }
  outcome o;
  o.early = &in;
  o.bytes_read = st.size();
  if (in.over_limit) return show<S>(s, nullptr, o);
  // Settled: the reading stopped there, so what is still open after the answer was not cut.
  const auto r = in.settled ? st.stop() : st.finish();
  return show<S>(s, &r, o);
}

// ---------------------------------------------------------------------------------------------
// --jsonl: many outputs, one a line

/// What each line holds, where: the pointers of --at (or the whole line), --id-at and
/// --reasoning-at, read once.
struct line_layout {
  llmjson_cli::json_pointer output;
  std::optional<llmjson_cli::json_pointer> id;
  std::vector<llmjson_cli::json_pointer> reasoning;
  llmjson_cli::json_pointer error{"/error", {"error"}};  // a Batch API line's, when --at misses
  std::vector<const llmjson_cli::json_pointer*> asked;   // output, id?, reasoning...
  std::vector<const llmjson_cli::json_pointer*> all;     // asked, then error when --at is given
  bool whole_line_string = false;                        // only the output, the whole line

  explicit line_layout(const settings& s) {
    std::string problem;  // parse_command_line checked them
    output = *llmjson_cli::json_pointer::parse(s.at.value_or(""), problem);
    if (s.id_at) id = llmjson_cli::json_pointer::parse(*s.id_at, problem);
    for (const auto& p : s.reasoning_at)
      reasoning.push_back(*llmjson_cli::json_pointer::parse(p, problem));
    asked.push_back(&output);
    if (id) asked.push_back(&*id);
    for (const auto& p : reasoning) asked.push_back(&p);
    all = asked;
    if (!output.tokens.empty()) all.push_back(&error);
    whole_line_string = all.size() == 1 && output.tokens.empty();
  }
};

/// What one worker thread keeps from line to line.
struct line_worker {
  llmjson_cli::line_reader reader;
  std::vector<std::optional<std::string_view>> found;
  std::string text;
  std::string reasoning;
};

/// The JSON type of the value whose bytes start with `c`, for a person: `an object`.
std::string_view type_of(char c) {
  switch (c) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
  }
}

/// Where a pointer is, in a message: `at /custom_id`, or `the line` for the empty pointer.
std::string where(const llmjson_cli::json_pointer& p) {
  return p.text.empty() ? std::string("the line") : "the value at " + p.text;
}

/// Appends the --jsonl line of an output that was read, `text`, with the `reasoning` beside it
/// (and its length in --report when `say_reasoning`), and returns whether it has an answer.
template <class S>
bool jsonl_answer(const settings& s, const S& sel, const llmjson::options& opts,
                  std::string_view text, const std::string& reasoning,
                  const chat_response* response, bool say_reasoning, const std::string& id,
                  const std::string& number, std::string& out) {
  auto head = [&] {
    out += "{\"id\":";
    out += id;
    out += ",\"line\":";
    out += number;
    out += ",\"ok\":";
  };
  const auto r = llmjson::extract(text, sel, opts);
  outcome o;
  o.response = response;
  o.policy = s.policy.value_or(llmjson::default_policy_of<S>());
  if (say_reasoning) o.reasoning_bytes = reasoning.size();
  llmjson::error failure;
  if (r) {
    o.answer = &*r;
  } else {
    failure = r.error();
    say_why_cut(failure, reasoning, response);
    o.failure = &failure;
  }
  if (s.report) {
    o.qualifies_as = qualifies_as(s);
    std::string text_out = dump(report(o, s.normalize), false);
    if (o.answer && !s.normalize) text_out = splice_value(std::move(text_out), o.answer->text());
    out += "{\"id\":";
    out += id;
    out += ",\"line\":";
    out += number;
    out += ',';
    out.append(text_out, 1);
    out += '\n';
    return o.answer != nullptr;
  }
  if (!o.answer) {
    head();
    out += "false,\"error\":{\"kind\":\"";
    out += llmjson::to_string(failure.kind);
    out += "\",\"message\":";
    out += dump(nlohmann::json(one_line(failure.message)), false);
    out += "}}\n";
    return false;
  }
  head();
  out += "true,\"value\":";
  out += answer_text(s, *o.answer);
  if (o.answer->fallback || !o.answer->later_qualifying.empty() || o.answer->truncation ||
      o.answer->chosen().raw_controls) {
    o.qualifies_as = qualifies_as(s);
    std::string note = notes(o);  // "llmjson: note: ...\n" lines
    std::string joined;
    for (std::size_t at = 0; at < note.size();) {
      const std::size_t end = note.find('\n', at);
      std::string_view one = std::string_view(note).substr(at, end - at);
      if (one.substr(0, 15) == "llmjson: note: ") one.remove_prefix(15);
      joined += (joined.empty() ? "" : "; ") + std::string(one);
      at = end + 1;
    }
    out += ",\"note\":" + dump(nlohmann::json(joined), false);
  }
  out += "}\n";
  return true;
}

/// Appends one line of --jsonl output for `in`, and returns whether it has an answer.
template <class S>
bool jsonl_line(const settings& s, const line_layout& layout, const S& sel,
                const llmjson::options& opts, line_worker& w, const llmjson_cli::input_line& in,
                std::string& out) {
  const std::string number = std::to_string(in.number);
  std::string id = number;
  // Appended piece by piece: a line's own output allocates nothing when `out` has room.
  auto head = [&] {
    out += "{\"id\":";
    out += id;
    out += ",\"line\":";
    out += number;
    out += ",\"ok\":";
  };
  auto error_line = [&](std::string_view kind, const std::string& message) {
    head();
    out += "false,\"error\":{\"kind\":\"";
    out += kind;
    out += "\",\"message\":" + dump(nlohmann::json(one_line(message)), false) + "}}\n";
    return false;
  };
  if (in.too_long)
    return error_line("too_large", "line " + number + " is longer than --max-bytes (" +
                                       std::to_string(s.max_bytes) + " bytes): not read");
  w.text.clear();
  w.reasoning.clear();
  // The usual line, one string and nothing asked of it but the output: checked and decoded in
  // one pass. Any other line, or one that is not JSON, is read below (which says why).
  if (layout.whole_line_string && !s.response &&
      llmjson_cli::line_reader::read_string(in.bytes, w.text))
    return jsonl_answer(s, sel, opts, w.text, w.reasoning, nullptr, false, id, number, out);
  bool error_hint = layout.all.size() > layout.asked.size();
  if (!w.reader.read(in.bytes, layout.all, w.found) && error_hint && w.reader.ambiguous()) {
    error_hint = false;  // "error" repeated: the hint is not worth failing the line for
    w.reader.read(in.bytes, layout.asked, w.found);
  }
  if (!w.reader.problem().empty()) {
    if (layout.id) id = "null";
    if (w.reader.ambiguous())
      return error_line("input", "line " + number + ": " + w.reader.problem() + " (byte " +
                                     std::to_string(w.reader.offset() + 1) + ")");
    if (in.bytes.find_first_not_of(" \t\r") == std::string_view::npos)
      return error_line("input", "line " + number + " is empty: each line holds one output");
    return error_line("input", "line " + number + " is not JSON: " + w.reader.problem() +
                                   " (byte " + std::to_string(w.reader.offset() + 1) + ")");
  }
  std::size_t next = 1;
  if (layout.id) {
    const auto& found = w.found[next++];
    if (!found) {
      id = "null";
      return error_line("input", "line " + number + " has no id at " + layout.id->text);
    }
    id = llmjson::minify(*found);
  }
  const auto& output = w.found[0];
  if (!output) {
    std::string why = "line " + number + " has no value at " + layout.output.text;
    // A Batch API line whose request failed says why in its "error": {"message": ...}.
    if (const auto& e = w.found.back(); error_hint && e && e->front() == '{') {
      const auto error = nlohmann::json::parse(*e, nullptr, false);
      if (const auto m = error.find("message"); m != error.end() && m->is_string())
        why += "; its \"error\" says: " + m->get<std::string>();
    }
    return error_line("input", why);
  }
  std::optional<chat_response> response;
  if (s.response) {
    response = read_body(*output);
    if (!response->problem.empty())
      return error_line("input", "line " + number + ": " + where(layout.output) +
                                     " is not a chat completion: " + response->problem);
  } else if (output->front() != '"') {
    std::string why = "line " + number + ": " + where(layout.output) + " is " +
                      std::string(type_of(output->front())) + ", not a string";
    if (output->front() == '{')  // maybe a chat completion (a Batch API line's response body)
      why += layout.output.tokens.empty()
                 ? "; a Batch API line needs --response --at /response/body"
                 : "; if it is a chat completion, add --response";
    return error_line("input", why);
  } else {
    llmjson_cli::line_reader::decode_string(*output, w.text);
  }
  for (std::size_t k = 0; k < layout.reasoning.size(); ++k) {
    const auto& found = w.found[next + k];
    if (!found || found->front() == 'n') continue;  // absent, or null
    if (found->front() != '"')
      return error_line("input", "line " + number + ": " + where(layout.reasoning[k]) + " is " +
                                     std::string(type_of(found->front())) + ", not a string");
    llmjson_cli::line_reader::decode_string(*found, w.reasoning);
    if (!w.reasoning.empty()) break;
  }
  const std::string_view text = response ? std::string_view(response->content) : w.text;
  const std::string& reasoning = response ? response->reasoning : w.reasoning;
  return jsonl_answer(s, sel, opts, text, reasoning, response ? &*response : nullptr,
                      s.response || !layout.reasoning.empty(), id, number, out);
}

/// --jsonl: every line of the input through `sel`, on --jobs threads; returns the exit code.
template <class S>
int run_jsonl(const settings& s, const S& sel) {
  std::string problem;
  std::FILE* in = open_input(s.input, problem);
  if (!in) {
    write(stderr, "llmjson: " + one_line(problem) + "\n");
    return exit_usage;
  }
  const line_layout layout(s);
  const llmjson::options opts = options_of(s);
  llmjson_cli::lines_options lo;
  lo.jobs = s.jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
  lo.max_line = s.max_bytes;
  lo.first_line = s.first_line.value_or(1);
  lo.out_lock = &output_lock;
#ifdef _WIN32
  lo.progress = _isatty(_fileno(stderr)) != 0;
#else
  lo.progress = isatty(fileno(stderr)) != 0;
#endif
  std::vector<line_worker> workers(lo.jobs);
  const auto run = llmjson_cli::map_lines(
      in, stdout, lo, [&](unsigned worker, const llmjson_cli::input_line& line, std::string& out) {
        try {
          return jsonl_line(s, layout, sel, opts, workers[worker], line, out);
        } catch (const std::exception& e) {  // out of memory: that line fails, the run goes on
          out += "{\"id\":" + std::to_string(line.number) +
                 ",\"line\":" + std::to_string(line.number) +
                 ",\"ok\":false,\"error\":{\"kind\":\"internal\",\"message\":" +
                 dump(nlohmann::json(one_line(e.what())), false) + "}}\n";
          return false;
        }
      });
  if (in != stdin) std::fclose(in);
  if (!run.read_problem.empty()) {
    write(stderr, "llmjson: cannot read '" + (s.input == "-" ? std::string("stdin") : s.input) +
                      "': " + run.read_problem + " (after " + std::to_string(run.lines) +
                      " lines)\n");
    return exit_usage;
  }
  if (run.write_failed) {
    write(stderr, "llmjson: cannot write to stdout: " + run.write_problem + "\n");
    return exit_usage;
  }
  return run.failed ? exit_no_answer : exit_answer;
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
  if (s.help) return write_out(usage_text).empty() ? exit_answer : exit_usage;
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
    if (schema) return run_jsonl(s, *schema);
    if (!s.keys.empty()) return run_jsonl(s, llmjson::any_key(s.keys));
    return run_jsonl(s, llmjson::any_object{});
  }
  if (s.early) {
    if (schema) return run_early(s, *schema);
    if (!s.keys.empty()) return run_early(s, llmjson::any_key(s.keys));
    return run_early(s, llmjson::any_object{});
  }
  input in = read_input(s.input, s.max_bytes);
  if (!in.problem.empty()) {
    write(stderr, "llmjson: " + one_line(in.problem) + "\n");
    return exit_usage;
  }
  std::optional<chat_response> response;  // over the limit, unread: finish_reason, usage null
  if (s.response) response = in.over_limit ? chat_response{} : read_response(in.bytes);
  if (response) {
    if (!response->problem.empty()) {
      write(stderr, "llmjson: --response: " + one_line(response->problem) + "\n");
      return exit_usage;
    }
  }
  const std::string_view text = response ? std::string_view(response->content) : in.bytes;
  const chat_response* said = response ? &*response : nullptr;
  if (schema) return run(s, text, *schema, in.over_limit, said);
  if (!s.keys.empty()) return run(s, text, llmjson::any_key(s.keys), in.over_limit, said);
  return run(s, text, llmjson::any_object{}, in.over_limit, said);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llmjson: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "llmjson: internal error: unknown exception\n");
  }
  return exit_usage;
}
