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
//   extract   decode, then llmjson::extract(output, any_key({"result"})) with the defaults
//   format    extract, then the output line `{"id":N,"line":N,"ok":true,"value":MINIFIED}` (or
//             the error's) built and written to stdout, as `llmjson --jsonl --keys result`
//             would print it
// One thread. Prints on stderr: lines, bytes, the lines parsed or answered, and the seconds
// the loop took (the process's own clock).
//
//        llmjson_jsonl_baseline run OUT COMMAND [ARG...]
//
// runs COMMAND with its stdout to the file OUT (created or emptied), waits for it and prints
// `{"exit": N, "seconds": S, "peak_rss_kb": K}` on stdout: its wall time and its peak resident
// memory (wait4's ru_maxrss). The driver measures every run through it: a child forked from
// Python starts with Python's own peak as its ru_maxrss (Linux keeps the highest RSS across
// exec), a child forked from this small program with this program's (about 3 MB).
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

enum class stage { answers, read, decode, extract, format };

struct counts {
  std::size_t lines = 0, bytes = 0, done = 0, failed = 0;
};

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
  std::printf("{\"exit\": %d, \"seconds\": %.6f, \"peak_rss_kb\": %ld}\n", code, s,
              usage.ru_maxrss);
  return std::fflush(stdout) == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string_view(argv[1]) == "run") return run(argv + 2);
  const std::string_view names[] = {"answers", "read", "decode", "extract", "format"};
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: llmjson_jsonl_baseline answers|read|decode|extract|format FILE\n"
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
  std::fprintf(stderr, "%s: %zu lines, %zu bytes, %zu done, %zu failed, %.3f s\n", argv[1], c.lines,
               c.bytes, c.done, c.failed, s);
  return 0;
}
