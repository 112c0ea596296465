// llmjson: the tool's input: a file or stdin read whole, or as it arrives (--early), and the
// schema file
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_INPUT_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_INPUT_HPP_INCLUDED

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/schema.hpp>
#include <llmjson/stream.hpp>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#else
#include <unistd.h>
#endif

namespace llmjson_cli {

/// An input read whole (read_input).
struct input {
  std::string bytes;
  bool over_limit = false;  // stopped reading past `limit` bytes
  std::string problem;      // why it could not be read; empty when it was
};

/// Opens `path` for reading in binary mode, or stdin for "-"; null, with `problem` set, when it
/// cannot be opened.
inline std::FILE* open_input(const std::string& path, std::string& problem) {
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
inline input read_input(const std::string& path, std::size_t limit) {
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

/// With --early or --partials: what was read, and why the reading stopped.
struct early_read {
  bool settled = false;     // the answer was settled (--early): the rest was not read
  bool over_limit = false;  // stopped reading past `limit` bytes
  std::string problem;      // why it could not be read, or stdout could not be written; empty
};

/// Reads `path` (stdin for "-") as it arrives, with read(2) on its descriptor (no buffering
/// that waits for a full block), into `st`, until the input ends, it is over `limit` bytes, or,
/// with `stop_when_settled` (--early), the answer is settled. After each read, `after_read()`
/// (--partials prints the partial answer there): a message stops the reading as a problem.
template <class S, class F>
early_read read_as_it_comes(const std::string& path, llmjson::stream<S>& st, std::size_t limit,
                            bool stop_when_settled, F&& after_read) {
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
    if (std::string problem = after_read(); !problem.empty()) {
      in.problem = std::move(problem);
      break;
    }
    if (stop_when_settled && st.settled()) {
      in.settled = true;
      break;
    }
  }
  if (f != stdin) std::fclose(f);
  return in;
}

/// Compiles the JSON Schema in `path` into `out`; returns why it could not, or "".
inline std::string load_schema(const std::string& path, std::size_t limit,
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

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_INPUT_HPP_INCLUDED
