// llmjson: the tool's line pipeline: reads lines as a stream, works on them on several threads,
// and writes what each gives in input order, in memory bounded by the threads and the longest line
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_ORDERED_LINES_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_ORDERED_LINES_HPP_INCLUDED

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace llmjson_cli {

/// One line of the input, as the work sees it.
struct input_line {
  std::string_view bytes;  ///< without its line feed, nor a carriage return before it
  std::uint64_t number;    ///< its number: the first line's is `first_line`
  bool too_long;           ///< longer than the limit: `bytes` is empty, the line was never kept
  std::uint64_t length;    ///< its length in bytes, even when too long
};

/// How a run of `map_lines` went.
struct lines_run {
  std::uint64_t lines = 0;    ///< lines read, worked on and written
  std::uint64_t failed = 0;   ///< lines whose work returned false
  std::string read_problem;   ///< why the input could not be read to its end; "" when it was
  bool write_failed = false;  ///< the output could not be written: the run stopped there
  std::string write_problem;  ///< why (`Broken pipe`: the reader is gone)
};

/// Bytes written to stdout so far: a signal waits for the lines being written as long as this
/// grows (examples/cli/main.cpp, handle_signals).
inline std::atomic<std::uint64_t> output_written{0};

/// Writes `s` to `out` in pieces of 64 KiB, counting each in `output_written`, then flushes.
/// Returns false on a write error (errno says why).
inline bool write_counted(std::FILE* out, std::string_view s) {
  constexpr std::size_t piece = 64u << 10;
  for (std::size_t at = 0; at < s.size(); at += piece) {
    const std::size_t n = std::min(piece, s.size() - at);
    if (std::fwrite(s.data() + at, 1, n, out) != n || std::fflush(out) != 0) return false;
    output_written.fetch_add(n, std::memory_order_relaxed);
  }
  return std::fflush(out) == 0;
}

/// How `map_lines` runs.
struct lines_options {
  unsigned jobs = 1;                     ///< worker threads, at least 1
  std::size_t max_line = 64u << 20;      ///< a longer line is `too_long`, and never kept
  std::uint64_t first_line = 1;          ///< the number of the input's first line
  bool progress = false;                 ///< a progress line on stderr (for a terminal)
  std::size_t chunk_bytes = 256u << 10;  ///< the lines handed to a worker at once, about
  std::timed_mutex* out_lock = nullptr;  ///< held while a chunk's lines are written and flushed
};

namespace detail_lines {

/// A run of whole lines, handed to one worker, and what the work made of it.
struct chunk {
  struct line {
    std::size_t offset, size;
    std::uint64_t number, length;
    bool too_long;
  };
  std::uint64_t seq = 0;
  std::string bytes;
  std::vector<line> lines;
  std::string out;
  std::uint64_t failed = 0;
  bool done = false;
};

}  // namespace detail_lines

/// Calls `work(worker, line, out)` on every line of `in`, where `worker` (below `opt.jobs`) names
/// the thread (for state of its own) and `out` is where the line's output is appended; `work`
/// returns false when the line failed. Writes every line's output to `out` in input order.
///
/// The input is read as a stream, never whole: at most `2 × jobs + 1` chunks of about
/// `chunk_bytes` (each as long as its longest line) are held at once, so memory is bounded by the
/// jobs and the longest line (at most `max_line`), whatever the input's length. Lines end at a
/// line feed (a carriage return before it is dropped); the input's last line needs none. `work`
/// must not throw. Returns how the run went: a read or write error stops it, after the lines read
/// before it are written.
template <class Work>
lines_run map_lines(std::FILE* in, std::FILE* out, const lines_options& opt, Work&& work) {
  using detail_lines::chunk;
  const unsigned jobs = opt.jobs == 0 ? 1 : opt.jobs;
  const std::size_t slots = 2 * std::size_t{jobs} + 1;
  std::vector<std::unique_ptr<chunk>> pool;
  std::vector<chunk*> free, by_slot(slots, nullptr);
  for (std::size_t i = 0; i < slots; ++i) {
    pool.push_back(std::make_unique<chunk>());
    free.push_back(pool.back().get());
  }
  std::deque<chunk*> todo;
  std::mutex m;
  std::condition_variable work_ready, chunk_done, chunk_free;
  bool input_ended = false, stop = false;
  std::uint64_t submitted = 0;
  lines_run run;

  auto worker = [&](unsigned index) {
    for (;;) {
      chunk* c = nullptr;
      {
        std::unique_lock lock(m);
        work_ready.wait(lock, [&] { return !todo.empty() || input_ended; });
        if (todo.empty()) return;
        c = todo.front();
        todo.pop_front();
      }
      c->out.clear();
      c->failed = 0;
      for (const auto& l : c->lines) {
        const input_line line{std::string_view(c->bytes).substr(l.offset, l.size), l.number,
                              l.too_long, l.length};
        if (!work(index, line, c->out)) ++c->failed;
      }
      {
        std::lock_guard lock(m);
        c->done = true;
      }
      chunk_done.notify_all();
    }
  };

  auto writer = [&] {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto shown = start;
    auto show = [&](bool last) {
      const double seconds = std::chrono::duration<double>(clock::now() - start).count();
      std::fprintf(stderr, "\rllmjson: %llu lines, %.0f lines/s, %llu failed%s",
                   static_cast<unsigned long long>(run.lines),
                   seconds > 0 ? static_cast<double>(run.lines) / seconds : 0.0,
                   static_cast<unsigned long long>(run.failed), last ? "\n" : "");
      std::fflush(stderr);
    };
    for (std::uint64_t next = 0;; ++next) {
      chunk* c = nullptr;
      {
        std::unique_lock lock(m);
        chunk_done.wait(lock, [&] {
          chunk* s = by_slot[next % slots];
          return (s && s->seq == next && s->done) || (input_ended && next == submitted);
        });
        if (input_ended && next == submitted) break;
        c = by_slot[next % slots];
      }
      if (!run.write_failed) {
        std::unique_lock<std::timed_mutex> writing;
        if (opt.out_lock) writing = std::unique_lock(*opt.out_lock);
        // Flushed under the lock: whoever takes it next finds only whole lines written.
        if (!write_counted(out, c->out)) {
          run.write_failed = true;
          run.write_problem = std::strerror(errno);
        }
        run.lines += c->lines.size();
        run.failed += c->failed;
      }
      {
        std::lock_guard lock(m);
        by_slot[next % slots] = nullptr;
        c->done = false;
        free.push_back(c);
        if (run.write_failed) stop = true;
      }
      chunk_free.notify_one();
      if (opt.progress && clock::now() - shown > std::chrono::milliseconds(500)) {
        shown = clock::now();
        show(false);
      }
    }
    if (!run.write_failed && std::fflush(out) != 0) {
      run.write_failed = true;
      run.write_problem = std::strerror(errno);
    }
    if (opt.progress) show(true);
  };

  std::vector<std::thread> threads;
  for (unsigned i = 0; i < jobs; ++i) threads.emplace_back(worker, i);
  std::thread writing(writer);

  // The reader: this thread.
  auto take_free = [&]() -> chunk* {
    std::unique_lock lock(m);
    chunk_free.wait(lock, [&] { return !free.empty() || stop; });
    if (stop) return nullptr;
    chunk* c = free.back();
    free.pop_back();
    c->bytes.clear();
    c->lines.clear();
    return c;
  };
  auto submit = [&](chunk* c) {
    {
      std::lock_guard lock(m);
      c->seq = submitted++;
      by_slot[c->seq % slots] = c;
      todo.push_back(c);
    }
    work_ready.notify_one();
  };

  std::vector<char> buffer(std::size_t{1} << 20);
  chunk* c = take_free();
  std::uint64_t number = opt.first_line;
  std::size_t line_start = 0;  // in c->bytes
  std::uint64_t length = 0;    // of the line being read
  bool too_long = false;
  auto end_line = [&] {
    std::size_t size = c->bytes.size() - line_start;
    if (!too_long && size > 0 && c->bytes.back() == '\r') --size;
    c->lines.push_back({line_start, size, number++, length, too_long});
    length = 0;
    too_long = false;
    line_start = c->bytes.size();
  };
  while (c) {
    const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), in);
    for (std::size_t pos = 0; pos < got && c;) {
      const char* nl = static_cast<const char*>(std::memchr(buffer.data() + pos, '\n', got - pos));
      const std::size_t end = nl ? static_cast<std::size_t>(nl - buffer.data()) : got;
      const std::size_t piece = end - pos;
      if (!too_long && length + piece > opt.max_line) {
        too_long = true;
        c->bytes.resize(line_start);
      }
      if (!too_long) c->bytes.append(buffer.data() + pos, piece);
      length += piece;
      pos = end;
      if (!nl) break;
      ++pos;
      end_line();
      if (c->bytes.size() >= opt.chunk_bytes || c->lines.size() >= 8192) {
        submit(c);
        c = take_free();
        line_start = 0;
      }
    }
    if (got < buffer.size()) {
      if (std::ferror(in)) run.read_problem = std::strerror(errno);
      break;
    }
  }
  if (c) {
    if (run.read_problem.empty() && (length > 0 || too_long)) end_line();  // no final line feed
    if (!c->lines.empty()) {
      submit(c);
    } else {
      std::lock_guard lock(m);
      free.push_back(c);
    }
  }
  {
    std::lock_guard lock(m);
    input_ended = true;
  }
  work_ready.notify_all();
  chunk_done.notify_all();
  for (auto& t : threads) t.join();
  writing.join();
  return run;
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_ORDERED_LINES_HPP_INCLUDED
