// llmjson batch benchmark input (issue 20): N model outputs as `llmjson --jsonl` lines, and the
// answer of each line alone, for the baseline (nlohmann parsing the answers alone).
// SPDX-License-Identifier: MIT
//
// Usage: llmjson_write_jsonl [--openai] [--verify] N OUTPUTS ANSWERS
//
// OUTPUTS gets N lines, each a JSON string: a model output of about 2 KB, one of seven shapes
// (a <think> block with drafts then the answer, a fenced analysis object then the fenced answer,
// prose with a preamble object then the answer, a bare answer, harmony channels, gpt-oss's
// stripped harmony, and about 2% that fail: a refusal with no JSON, an answer cut by max_tokens,
// and one line in a thousand that is not a JSON string at all). With --openai each line is an
// OpenAI Batch API output line instead, the output at /response/body/choices/0/message/content
// and the id at /custom_id; its failing input lines are requests that failed ("response": null).
// Every answer is an object with the key `result`, and nothing else outside reasoning has it:
// the selector is `--keys result`.
//
// ANSWERS gets one line per line of OUTPUTS: the answer's JSON text as the model wrote it (line
// breaks made spaces), or an empty line where the line has no answer.
//
// Line i is the same whatever N (each line has its own seed): a 10k file is the first 10k lines
// of the 1M one. --verify extracts every output with the library (any_key({"result"}), the
// defaults) and checks that the answer is the one written to ANSWERS, or that the line fails
// with the kind intended; it is slower (the whole extraction, one thread).
//
// Prints one JSON object on stdout: lines, bytes of each file, the count of each shape.
#include <llmjson/extract.hpp>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inputs.hpp"

namespace {

/// One generated line: the model output, its answer (empty when it has none), how it was made.
struct sample {
  std::string output;
  std::string answer;           ///< as the model wrote it; empty: no answer
  std::string_view shape;       ///< the shape's name, for the summary
  std::string_view fails_with;  ///< "" (answered), "no_json", "truncated" or "input"
};

/// A 64-bit mix of the line number: each line its own independent stream.
std::uint64_t seed_of(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Writes JSON values as models do: `{"a": 1, "b": [2, 3]}` on one line, or indented by two.
class writer {
 public:
  explicit writer(bool pretty) : pretty_(pretty) {}
  void open(char c) {
    sep();
    out_ += c;
    ++depth_;
    first_ = true;
  }
  void close(char c) {
    --depth_;
    if (pretty_ && !first_) newline();
    out_ += c;
    first_ = false;
  }
  void key(std::string_view k) {
    sep();
    str_raw(k);
    out_ += ": ";
    after_key_ = true;
  }
  void str(std::string_view s) {
    sep();
    str_raw(s);
  }
  void raw(std::string_view token) {
    sep();
    out_ += token;
  }
  std::string take() { return std::move(out_); }

 private:
  void newline() {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
  }
  void sep() {
    if (after_key_) {
      after_key_ = false;
      first_ = false;
      return;
    }
    if (depth_ > 0) {
      if (!first_) out_ += pretty_ ? "," : ", ";
      if (pretty_) newline();
    }
    first_ = false;
  }
  /// The text is JSON already (escapes written by the caller).
  void str_raw(std::string_view s) {
    out_ += '"';
    out_ += s;
    out_ += '"';
  }
  std::string out_;
  int depth_ = 0;
  bool first_ = true;
  bool after_key_ = false;
  bool pretty_;
};

constexpr std::array<std::string_view, 16> reasons{
    "the second paragraph states the deadline explicitly",
    "the customer mentions a refund twice, which points to billing",
    "the table in section 3 contradicts the summary, so the table wins",
    "no source supports the claim about 2019",
    "the user asked for \\\"brief\\\" answers, so the summary stays short",
    "both drafts agree on the category; only the priority changed",
    "r\\u00e9sum\\u00e9 and caf\\u00e9 are spelled with accents in the source",
    "the log shows 502 errors from 09:10 UTC onwards",
    "Japanese source: \xe6\x9d\xb1\xe4\xba\xac\xe3\x81\xae\xe5\xa4\xa9\xe6\xb0\x97 (Tokyo weather)",
    "the answer depends on C:\\\\data\\\\input.csv, which was read in full",
    "the question is multiple choice with exactly one correct option",
    "an emoji \xf0\x9f\x98\x80 in the review does not change the sentiment",
    "units are metres throughout; the 3.5 km figure is converted",
    "the contract's clause 7.2 overrides the general terms",
    "two of three annotators chose the same label",
    "the timestamp 2026-12-02T14:55:00Z is after the cutoff",
};
constexpr std::array<std::string_view, 8> labels{"A",        "B",        "C",     "D",
                                                 "positive", "negative", "mixed", "needs_review"};

/// An answer object with the key `result`: 60 bytes to about 1.5 KB, one line or indented.
std::string answer(llmjson_bench::lcg& rng, std::uint64_t line) {
  writer w(rng.below(10) < 3);
  w.open('{');
  w.key("result");
  w.str(labels[rng.below(labels.size())]);
  w.key("confidence");
  w.raw("0." + std::to_string(10 + rng.below(90)));
  w.key("id");
  w.str("q-" + std::to_string(line));
  const std::size_t size_class = rng.below(10);  // 4 in 10 short, 4 medium, 2 long
  if (size_class >= 4) {
    w.key("reasons");
    w.open('[');
    for (std::size_t n = size_class >= 8 ? 6 + rng.below(8) : 2 + rng.below(4); n > 0; --n)
      w.str(reasons[rng.below(reasons.size())]);
    w.close(']');
  }
  if (size_class >= 6) {
    w.key("evidence");
    w.open('[');
    for (std::size_t n = 1 + rng.below(size_class >= 8 ? 6 : 3); n > 0; --n) {
      w.open('{');
      w.key("doc");
      w.raw(std::to_string(rng.below(5000)));
      w.key("span");
      w.open('[');
      const std::size_t a = rng.below(10000);
      w.raw(std::to_string(a));
      w.raw(std::to_string(a + 1 + rng.below(400)));
      w.close(']');
      w.key("score");
      w.raw(rng.below(4) == 0 ? "1e-3" : "-0." + std::to_string(rng.below(1000)));
      w.close('}');
    }
    w.close(']');
  }
  w.key("flags");
  w.open('{');
  w.key("needs_review");
  w.raw(rng.below(5) == 0 ? "true" : "false");
  w.key("note");
  if (rng.below(2) == 0)
    w.raw("null");
  else
    w.str(reasons[rng.below(reasons.size())]);
  w.close('}');
  w.close('}');
  return w.take();
}

/// Prose without braces, brackets or markers.
std::string plain_prose(llmjson_bench::lcg& rng, std::size_t bytes) {
  static constexpr std::array<std::string_view, 10> sentences{
      "I read the whole document before answering. ",
      "The question asks for a label and a short justification. ",
      "Most of the evidence is in the second half of the text. ",
      "Some details are ambiguous, so I note my confidence. ",
      "The summary below follows the format you asked for. ",
      "I checked the figures against the table at the end. ",
      "Where the sources disagree, I prefer the more recent one. ",
      "Nothing in the request needs information I do not have. ",
      "\n\n",
      "Here is what I found, step by step.\n",
  };
  std::string out;
  while (out.size() < bytes) out += sentences[rng.below(sentences.size())];
  return out;
}

/// The output's reasoning: inputs.hpp's prose (drafts, fences, stray braces), its own seed.
std::string reasoning(llmjson_bench::lcg& rng, std::size_t bytes) {
  return llmjson_bench::reasoning_prose(bytes, rng.below(1u << 30) + 1);
}

sample make(std::uint64_t line) {
  llmjson_bench::lcg rng(seed_of(line));
  sample s;
  const std::size_t pick = rng.below(1000);
  std::string a = answer(rng, line);
  // Sizes: about 2 KB on average over all shapes (the answers add 0.06 to 1.5 KB).
  const std::size_t think = 700 + rng.below(2700);
  if (pick < 8) {  // a refusal: no JSON at all
    s.shape = "refusal (no_json)";
    s.fails_with = "no_json";
    s.output =
        "I'm sorry, but I can't help with that request. " + plain_prose(rng, 300 + rng.below(900));
    return s;
  }
  if (pick < 17) {  // cut by max_tokens inside the answer, after reasoning with drafts
    s.shape = "cut inside the answer (truncated)";
    s.fails_with = "truncated";
    s.output = "<think>\n" + reasoning(rng, think) + "\n</think>\n\n";
    // max_tokens cuts between tokens, never inside a character: not before a continuation byte.
    std::size_t cut = 1 + rng.below(a.size() - 1);
    while ((static_cast<unsigned char>(a[cut]) & 0xC0) == 0x80) --cut;
    s.output += a.substr(0, cut);
    return s;
  }
  if (pick < 18) {  // the line itself is broken: no closing quote (written below)
    s.shape = "not a JSON line (input)";
    s.fails_with = "input";
    s.output = "<think>\n" + reasoning(rng, think / 2);
    return s;
  }
  s.answer = a;
  if (pick < 280) {
    s.shape = "<think> with drafts, then the answer";
    s.output = "<think>\n" + reasoning(rng, think) + "\n</think>\n\n";
    if (rng.below(2) == 0)
      s.output += a;
    else
      s.output += "```json\n" + a + "\n```";
  } else if (pick < 480) {
    s.shape = "fenced analysis, then the fenced answer";
    s.output = plain_prose(rng, 300 + rng.below(1000));
    s.output +=
        "\n\nAnalysis:\n\n```json\n{\"steps\": [\"read\", \"compare\", \"decide\"], "
        "\"sources\": " +
        std::to_string(1 + rng.below(9)) + ", \"draft_label\": \"" +
        std::string(labels[rng.below(labels.size())]) + "\"}\n```\n\n";
    s.output += plain_prose(rng, 200 + rng.below(700));
    s.output += "\n\nFinal answer:\n\n```json\n" + a + "\n```\n";
  } else if (pick < 680) {
    s.shape = "prose with a preamble object, then the answer";
    s.output = "You sent {\"task\": \"classify\", \"doc\": " + std::to_string(rng.below(100000)) +
               "} and asked for one label. ";
    s.output += plain_prose(rng, 500 + rng.below(2000));
    s.output += "\n\nThe answer:\n" + a + "\n\n" + plain_prose(rng, rng.below(300));
  } else if (pick < 810) {
    s.shape = "bare answer";
    s.output = a;
    if (rng.below(2) == 0) s.output += "\n";
  } else if (pick < 930) {
    s.shape = "harmony channels";
    s.output = "<|channel|>analysis<|message|>" + reasoning(rng, think) +
               "<|end|><|start|>assistant<|channel|>final<|message|>" + a + "<|return|>";
  } else {
    s.shape = "stripped harmony (analysis...assistantfinal)";
    s.output = "analysis" + reasoning(rng, think) + "assistantfinal" + a;
  }
  return s;
}

/// Appends `s` as a JSON string's contents (no quotes): `"`, `\` and control characters escaped.
void escape(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
}

/// The line of OUTPUTS for `s` (without its LF).
void input_line(std::string& out, const sample& s, std::uint64_t line, bool openai) {
  const bool broken = s.fails_with == "input";
  if (!openai) {
    out += '"';
    escape(out, s.output);
    if (!broken) out += '"';
    return;
  }
  const std::string n = std::to_string(line);
  out += R"({"id":"batch_req_)" + n + R"(","custom_id":"req-)" + n + R"(","response":)";
  if (broken) {  // a request that failed: no response, an error
    out +=
        R"(null,"error":{"code":"server_error","message":"The server had an error while processing your request."}})";
    return;
  }
  out +=
      R"({"status_code":200,"request_id":"req_)" + n + R"(","body":{"id":"chatcmpl-)" + n +
      R"(","object":"chat.completion","created":1764686100,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":")";
  escape(out, s.output);
  out += R"(","refusal":null},"logprobs":null,"finish_reason":")";
  out += s.fails_with == "truncated" ? "length" : "stop";
  out += R"("}],"usage":{"prompt_tokens":412,"completion_tokens":)" +
         std::to_string(s.output.size() / 4) + R"(,"total_tokens":)" +
         std::to_string(412 + s.output.size() / 4) + R"(}}},"error":null})";
}

/// Checks `s` against the library: its answer is `s.answer`, or it fails as intended; and its
/// input line (without its LF) against nlohmann: JSON whose output is `s.output` (valid UTF-8
/// included), except the lines meant to be broken.
std::string verify(const sample& s, std::string_view line, bool openai) {
  const auto doc = nlohmann::json::parse(line, nullptr, false);
  const nlohmann::json* output = &doc;
  if (openai && doc.is_object()) {
    const auto at = nlohmann::json::json_pointer("/response/body/choices/0/message/content");
    output = doc.contains(at) ? &doc.at(at) : nullptr;
  }
  const bool readable = output && output->is_string();
  if (s.fails_with == "input")  // not an output: the tool's own check
    return readable ? "the line meant to be broken has an output" : "";
  if (!readable) return "the line is not JSON, or has no output where it should";
  if (output->get_ref<const std::string&>() != s.output)
    return "the line's output is not the output";
  const auto r = llmjson::extract(s.output, llmjson::any_key({"result"}));
  if (s.fails_with.empty()) {
    if (!r)
      return "no answer: " + std::string(llmjson::to_string(r.error().kind)) + ": " +
             r.error().message;
    if (r->fallback) return "the answer is the fallback";
    if (r->text() != s.answer) return "another answer: " + std::string(r->text().substr(0, 80));
    return "";
  }
  if (r) return "an answer where none was intended: " + std::string(r->text().substr(0, 80));
  if (llmjson::to_string(r.error().kind) != s.fails_with)
    return "fails with " + std::string(llmjson::to_string(r.error().kind)) + ", not " +
           std::string(s.fails_with);
  return "";
}

bool parse_count(std::string_view s, std::uint64_t& n) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc{} && end == s.data() + s.size() && n > 0;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "llmjson_write_jsonl: %s\nusage: llmjson_write_jsonl [--openai] [--verify] N "
               "OUTPUTS ANSWERS\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool openai = false, check = false;
  std::vector<std::string_view> args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--openai")
      openai = true;
    else if (a == "--verify")
      check = true;
    else if (a.size() > 1 && a[0] == '-')
      return usage(("unknown flag " + std::string(a)).c_str());
    else
      args.push_back(a);
  }
  std::uint64_t n = 0;
  if (args.size() != 3) return usage("expected N, OUTPUTS and ANSWERS");
  if (!parse_count(args[0], n)) return usage("N must be a whole number of lines, at least 1");
  const std::string out_path(args[1]), ans_path(args[2]);
  std::FILE* out = std::fopen(out_path.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "llmjson_write_jsonl: cannot write %s: %s\n", out_path.c_str(),
                 std::strerror(errno));
    return 2;
  }
  std::FILE* ans = std::fopen(ans_path.c_str(), "wb");
  if (!ans) {
    std::fprintf(stderr, "llmjson_write_jsonl: cannot write %s: %s\n", ans_path.c_str(),
                 std::strerror(errno));
    std::fclose(out);
    return 2;
  }
  std::map<std::string_view, std::uint64_t> shapes;
  std::uint64_t out_bytes = 0, ans_bytes = 0, output_bytes = 0, failures = 0, wrong = 0;
  std::string buf, abuf;
  for (std::uint64_t i = 1; i <= n; ++i) {
    const sample s = make(i);
    ++shapes[s.shape];
    output_bytes += s.output.size();
    if (!s.fails_with.empty()) ++failures;
    const std::size_t from = buf.size();
    input_line(buf, s, i, openai);
    if (check) {
      if (const std::string why = verify(s, std::string_view(buf).substr(from), openai);
          !why.empty()) {
        if (++wrong <= 10)
          std::fprintf(stderr, "llmjson_write_jsonl: line %llu (%.*s): %s\n",
                       static_cast<unsigned long long>(i), static_cast<int>(s.shape.size()),
                       s.shape.data(), why.c_str());
      }
    }
    buf += '\n';
    for (const char c : s.answer) abuf += c == '\n' ? ' ' : c;
    abuf += '\n';
    if (buf.size() >= (1u << 20) || i == n) {
      out_bytes += buf.size();
      ans_bytes += abuf.size();
      if (std::fwrite(buf.data(), 1, buf.size(), out) != buf.size() ||
          std::fwrite(abuf.data(), 1, abuf.size(), ans) != abuf.size()) {
        std::fprintf(stderr, "llmjson_write_jsonl: cannot write: %s\n", std::strerror(errno));
        return 2;
      }
      buf.clear();
      abuf.clear();
    }
  }
  const bool closed = std::fclose(out) == 0;
  if (std::fclose(ans) != 0 || !closed) {
    std::fprintf(stderr, "llmjson_write_jsonl: cannot write: %s\n", std::strerror(errno));
    return 2;
  }
  if (wrong > 0) {
    std::fprintf(stderr, "llmjson_write_jsonl: --verify: %llu lines are not what was intended\n",
                 static_cast<unsigned long long>(wrong));
    return 1;
  }
  std::printf(R"({"lines": %llu, "outputs_file_bytes": %llu, "answers_file_bytes": %llu, )"
              R"("output_bytes": %llu, "failing_lines": %llu, "verified": %s, "shapes": {)",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(out_bytes),
              static_cast<unsigned long long>(ans_bytes),
              static_cast<unsigned long long>(output_bytes),
              static_cast<unsigned long long>(failures), check ? "true" : "false");
  bool first = true;
  for (const auto& [name, count] : shapes) {
    std::printf(R"(%s"%.*s": %llu)", first ? "" : ", ", static_cast<int>(name.size()), name.data(),
                static_cast<unsigned long long>(count));
    first = false;
  }
  std::printf("}}\n");
  return 0;
}
