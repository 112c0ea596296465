// llmjson batch benchmark (issue 20): the baseline, nlohmann parsing the answers alone, and the
// stages of a batch run one at a time, to see where a batch's time goes.
// SPDX-License-Identifier: MIT
//
// Usage: llmjson_jsonl_baseline STAGE FILE
//
// Reads FILE line by line (1 MiB freads, lines split with memchr, as a batch tool reads), and
// does on each line:
//   answers   nlohmann::json::parse of the line (FILE: llmjson_write_jsonl's ANSWERS; empty
//             lines, where an output has no answer, are skipped): the baseline
//   read      nothing: the reading alone
//   decode    nlohmann::json::parse of the line and its string taken (FILE: OUTPUTS)
//   unescape  the line's string decoded by a small hand-written JSON string reader instead
//             (escapes, surrogate pairs, UTF-8 checked): what decoding could cost
//   extract   decode, then llmjson::extract(output, any_key({"result"})) with the defaults
//   format    extract, then the output line `{"id":N,"line":N,"ok":true,"value":MINIFIED}` (or
//             the error's) built and written to stdout, as `llmjson --jsonl --keys result`
//             would print it
//   drafts    decode, then llmjson::candidates(output), and nlohmann::json::parse again of the
//             text of each valid candidate, timed apart: the candidates in reasoning regions,
//             whose values extract builds and never uses (issue 20, part 3), and the others
// One thread. Prints one JSON object on stderr: lines, bytes, the lines parsed or answered
// (done) and the others (failed), the seconds the loop took (the process's own clock), and for
// drafts the counts and parse seconds of the valid candidates in reasoning and outside.
//
//        llmjson_jsonl_baseline run OUT COMMAND [ARG...]
//
// runs COMMAND with its stdout to the file OUT (created or emptied), waits for it and prints
// `{"exit": N, "seconds": S, "cpu_seconds": C, "peak_rss_kb": K}` on stdout: its wall time, its
// CPU time (user and system) and its peak resident memory (wait4's ru_maxrss). The driver measures
// every run through it: a child forked from Python starts with Python's own peak as its ru_maxrss
// (Linux keeps the highest RSS across exec), a child forked from this small program with this
// program's (about 3 MB).
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {

enum class stage { answers, read, decode, unescape, extract, format, drafts };

/// Appends the UTF-8 of code point `cp` (at most 0x10FFFF, not a surrogate).
void utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Reads 4 hex digits at `p`; false if they are not.
bool hex4(const char* p, std::uint32_t& v) {
  v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    const std::uint32_t d = c >= '0' && c <= '9'   ? static_cast<std::uint32_t>(c - '0')
                            : c >= 'a' && c <= 'f' ? static_cast<std::uint32_t>(c - 'a' + 10)
                            : c >= 'A' && c <= 'F' ? static_cast<std::uint32_t>(c - 'A' + 10)
                                                   : 16;
    if (d == 16) return false;
    v = v * 16 + d;
  }
  return true;
}

/// Length of the well-formed UTF-8 sequence at `p` (at most `n` bytes), 0 if ill-formed.
std::size_t utf8_length(const unsigned char* p, std::size_t n) {
  const unsigned char c = p[0];
  std::size_t len = 0;
  std::uint32_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len || p[1] < lo || p[1] > hi) return 0;
  for (std::size_t i = 2; i < len; ++i)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return len;
}

/// Decodes `text`, a JSON string with optional white space around it, into `out` (RFC 8259:
/// escapes, surrogate pairs, no raw control characters, well-formed UTF-8). False if it is not
/// one JSON string.
bool unescape(std::string_view text, std::string& out) {
  out.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (p < end && ws(*p)) ++p;
  if (p == end || *p++ != '"') return false;
  for (;;) {
    const char* run = p;  // bytes copied as they are: printable ASCII but " and backslash
    while (p < end && static_cast<unsigned char>(*p) >= 0x20 && *p != '"' && *p != '\\' &&
           static_cast<unsigned char>(*p) < 0x80)
      ++p;
    out.append(run, static_cast<std::size_t>(p - run));
    if (p == end) return false;
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') {
      ++p;
      break;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const std::size_t len =
          utf8_length(reinterpret_cast<const unsigned char*>(p), static_cast<std::size_t>(end - p));
      if (len == 0) return false;
      out.append(p, len);
      p += len;
      continue;
    }
    if (end - p < 2) return false;  // a backslash
    const char e = p[1];
    p += 2;
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t cp = 0, lo = 0;
        if (end - p < 4 || !hex4(p, cp)) return false;
        p += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, lo) || lo < 0xDC00 ||
              lo > 0xDFFF)
            return false;
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        utf8(out, cp);
        break;
      }
      default: return false;
    }
  }
  while (p < end && ws(*p)) ++p;
  return p == end;
}

struct counts {
  std::size_t lines = 0, bytes = 0, done = 0, failed = 0;
  std::size_t valid_in_reasoning = 0, valid_outside = 0;  // drafts
  double parse_in_reasoning = 0, parse_outside = 0;       // drafts: seconds
};

/// Seconds nlohmann::json::parse takes on `text`.
double parse_time(std::string_view text) {
  const auto start = std::chrono::steady_clock::now();
  const auto v = nlohmann::json::parse(text, nullptr, false);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return v.is_discarded() ? -1 : s;
}

/// Appends `s` as a JSON string (quotes included).
void quote(std::string& out, std::string_view s) {
  out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class worker {
 public:
  explicit worker(stage st) : st_(st), sel_({"result"}) {}

  void line(std::string_view text, counts& c) {
    ++c.lines;
    c.bytes += text.size() + 1;
    switch (st_) {
      case stage::read: return;
      case stage::answers: {
        if (text.empty()) return;
        const auto v = nlohmann::json::parse(text, nullptr, false);
        if (v.is_discarded())
          ++c.failed;
        else
          ++c.done;
        return;
      }
      default: break;
    }
    if (st_ == stage::unescape) {
      unescape(text, decoded_) ? ++c.done : ++c.failed;
      return;
    }
    auto v = nlohmann::json::parse(text, nullptr, false);
    if (!v.is_string()) {
      ++c.failed;
      if (st_ == stage::format) {
        out_ += R"({"id":)" + std::to_string(c.lines) + R"(,"line":)" + std::to_string(c.lines) +
                R"(,"ok":false,"error":{"kind":"input","message":"not a JSON string"}})"
                "\n";
        flush(false);
      }
      return;
    }
    const std::string& output = v.get_ref<const std::string&>();
    if (st_ == stage::decode) {
      ++c.done;
      return;
    }
    if (st_ == stage::drafts) {
      ++c.done;
      const auto scan = llmjson::candidates(output);
      for (const auto& k : scan.candidates) {
        if (!k.valid) continue;
        const double t = parse_time(k.text);
        (k.in_reasoning ? c.parse_in_reasoning : c.parse_outside) += t;
        ++(k.in_reasoning ? c.valid_in_reasoning : c.valid_outside);
      }
      return;
    }
    const auto r = llmjson::extract(output, sel_);
    r ? ++c.done : ++c.failed;
    if (st_ != stage::format) return;
    const std::string n = std::to_string(c.lines);
    out_ += R"({"id":)" + n + R"(,"line":)" + n;
    if (r) {
      out_ += R"(,"ok":true,"value":)";
      out_ += llmjson::minify(r->text());
    } else {
      out_ += R"(,"ok":false,"error":{"kind":")";
      out_ += llmjson::to_string(r.error().kind);
      out_ += R"(","message":)";
      quote(out_, r.error().message);
      out_ += '}';
    }
    out_ += "}\n";
    flush(false);
  }

  bool flush(bool all) {
    if (out_.empty() || (!all && out_.size() < (1u << 20))) return true;
    const bool ok = std::fwrite(out_.data(), 1, out_.size(), stdout) == out_.size();
    out_.clear();
    return ok;
  }

 private:
  stage st_;
  llmjson::any_key sel_;
  std::string out_;
  std::string decoded_;
};

/// `run OUT COMMAND [ARG...]`: see the top of the file.
int run(char** argv) {
  const int out = ::open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: cannot write %s: %s\n", argv[0],
                 std::strerror(errno));
    return 2;
  }
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: fork: %s\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    if (::dup2(out, 1) < 0) _exit(127);
    ::execvp(argv[1], argv + 1);
    std::fprintf(stderr, "llmjson_jsonl_baseline: cannot run %s: %s\n", argv[1],
                 std::strerror(errno));
    _exit(127);
  }
  ::close(out);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "llmjson_jsonl_baseline: wait4: %s\n", std::strerror(errno));
      return 2;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  std::printf("{\"exit\": %d, \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"peak_rss_kb\": %ld}\n",
              code, s, secs(usage.ru_utime) + secs(usage.ru_stime), usage.ru_maxrss);
  return std::fflush(stdout) == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string_view(argv[1]) == "run") return run(argv + 2);
  const std::string_view names[] = {"answers", "read",   "decode", "unescape",
                                    "extract", "format", "drafts"};
  if (argc != 3) {
    std::fprintf(
        stderr,
        "usage: llmjson_jsonl_baseline answers|read|decode|unescape|extract|format|drafts FILE\n"
        "       llmjson_jsonl_baseline run OUT COMMAND [ARG...]\n");
    return 2;
  }
  stage st{};
  bool known = false;
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (argv[1] == names[i]) {
      st = static_cast<stage>(i);
      known = true;
    }
  if (!known) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: unknown stage %s\n", argv[1]);
    return 2;
  }
  std::FILE* in = std::fopen(argv[2], "rb");
  if (!in) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: cannot read %s: %s\n", argv[2],
                 std::strerror(errno));
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  worker w(st);
  counts c;
  std::string buf(std::size_t{1} << 20, '\0');
  std::string carry;  // the start of a line that runs past the buffer
  for (;;) {
    const std::size_t got = std::fread(buf.data(), 1, buf.size(), in);
    std::string_view rest(buf.data(), got);
    while (!rest.empty()) {
      const void* lf = std::memchr(rest.data(), '\n', rest.size());
      if (!lf) {
        carry.append(rest);
        break;
      }
      const auto len = static_cast<std::size_t>(static_cast<const char*>(lf) - rest.data());
      std::string_view text = rest.substr(0, len);
      if (!carry.empty()) {
        carry.append(text);
        text = carry;
      }
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      w.line(text, c);
      carry.clear();
      rest.remove_prefix(len + 1);
    }
    if (got < buf.size()) break;
  }
  const bool read_ok = !std::ferror(in);
  std::fclose(in);
  if (!carry.empty()) w.line(carry, c);  // the last line needs no LF
  if (!read_ok) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: cannot read %s\n", argv[2]);
    return 2;
  }
  if (!w.flush(true) || std::fflush(stdout) != 0) {
    std::fprintf(stderr, "llmjson_jsonl_baseline: cannot write: %s\n", std::strerror(errno));
    return 2;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr,
               "{\"stage\": \"%s\", \"lines\": %zu, \"bytes\": %zu, \"done\": %zu, "
               "\"failed\": %zu, \"seconds\": %.6f, \"valid_in_reasoning\": %zu, "
               "\"parse_in_reasoning_s\": %.6f, \"valid_outside\": %zu, "
               "\"parse_outside_s\": %.6f}\n",
               argv[1], c.lines, c.bytes, c.done, c.failed, s, c.valid_in_reasoning,
               c.parse_in_reasoning, c.valid_outside, c.parse_outside);
  return 0;
}
