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

#ifndef _WIN32
#include <unistd.h>
#endif

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
  // The bytes as read: the lines, then maybe the start of a line the next chunk ends. Never
  // shrinks, so a buffer that grew for a long line is not allocated again.
  std::unique_ptr<char[]> bytes;
  std::size_t capacity = 0;
  std::vector<line> lines;
  std::string out;
  std::uint64_t failed = 0;
  bool done = false;

  /// Makes room for at least `n` bytes, keeping the first `kept`.
  void reserve(std::size_t n, std::size_t kept) {
    if (n <= capacity) return;
    std::unique_ptr<char[]> bigger(new char[n]);  // not zeroed: only read where written
    if (kept) std::memcpy(bigger.get(), bytes.get(), kept);
    bytes = std::move(bigger);
    capacity = n;
  }
};

/// Writes all of `s` to `out`, in pieces of 64 KiB, each counted in `output_written` once
/// written (a signal waits as long as it grows). One `write(2)` a piece on POSIX: a chunk's lines
/// are already one buffer, and stdio would only copy them again. Returns false on a write error
/// (errno says why).
inline bool write_all(std::FILE* out, std::string_view s) {
  constexpr std::size_t piece = 64u << 10;
#ifndef _WIN32
  const int fd = fileno(out);
  for (std::size_t at = 0; at < s.size();) {
    const ssize_t n = ::write(fd, s.data() + at, std::min(piece, s.size() - at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;  // a write that takes nothing and says no error: not retried
      return false;
    }
    at += static_cast<std::size_t>(n);
    output_written.fetch_add(static_cast<std::size_t>(n), std::memory_order_relaxed);
  }
  return true;
#else
  for (std::size_t at = 0; at < s.size(); at += piece) {
    const std::size_t n = std::min(piece, s.size() - at);
    if (std::fwrite(s.data() + at, 1, n, out) != n || std::fflush(out) != 0) return false;
    output_written.fetch_add(n, std::memory_order_relaxed);
  }
  return true;
#endif
}

}  // namespace detail_lines

/// Calls `work(worker, line, out)` on every line of `in`, where `worker` (below `opt.jobs`) names
/// the thread (for state of its own) and `out` is where the line's output is appended; `work`
/// returns false when the line failed. Writes every line's output to `out` in input order.
///
/// The input is read as a stream, never whole: at most `2 × jobs + 1` chunks of about
/// `chunk_bytes` (each as long as its longest line) are held at once, so memory is bounded by the
/// jobs and the longest line (at most `max_line`), whatever the input's length. Lines end at a
/// line feed (a carriage return before it is dropped); the input's last line needs none. `work`
/// must not throw. On POSIX the output goes to `out`'s descriptor, past its stdio buffer, which
/// must hold nothing unwritten. Returns how the run went: a read or write error stops it, after
/// the lines read before it are written.
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
        const input_line line{std::string_view(c->bytes.get() + l.offset, l.size), l.number,
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
        // Written under the lock: whoever takes it next finds only whole lines written.
        if (!detail_lines::write_all(out, c->out)) {
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

  // The reader: this thread. Each chunk's bytes are read straight into its own buffer, up to
  // `chunk_bytes`, and split there: the lines stay where they were read, and only the start of
  // a line that the buffer's end cuts is copied, to the front of the next chunk's buffer. A line
  // longer than the buffer grows it, up to `max_line` + 1 bytes; past `max_line` its bytes are
  // dropped as they come, and only its length is counted.
  auto take_free = [&]() -> chunk* {
    std::unique_lock lock(m);
    chunk_free.wait(lock, [&] { return !free.empty() || stop; });
    if (stop) return nullptr;
    chunk* c = free.back();
    free.pop_back();
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

  const std::size_t chunk_bytes = std::max<std::size_t>(opt.chunk_bytes, 1);
  constexpr std::size_t max_lines = 8192;  // a chunk's lines, so that tiny lines share the work
  chunk* c = take_free();
  if (c) c->reserve(chunk_bytes, 0);
  std::uint64_t number = opt.first_line;
  std::size_t used = 0;        // bytes in c->bytes
  std::size_t line_start = 0;  // where the line being read starts in c->bytes
  std::uint64_t dropped = 0;   // bytes of a line over max_line, dropped before line_start
  bool too_long = false;       // the line being read is over max_line
  auto end_line = [&](std::size_t end) {
    const std::uint64_t length = dropped + (end - line_start);
    if (!too_long && length > opt.max_line) too_long = true;
    std::size_t size = too_long ? 0 : end - line_start;
    if (size > 0 && c->bytes[line_start + size - 1] == '\r') --size;
    c->lines.push_back({line_start, size, number++, length, too_long});
    dropped = 0;
    too_long = false;
  };
  bool at_end = false;
  while (c && !at_end) {
    if (used >= chunk_bytes || c->lines.size() >= max_lines) {
      if (!c->lines.empty()) {
        // The cut line's start moves to the next chunk (the same one, maybe, once written: hence
        // memmove). The bytes of the lines sent stay put: a worker may be reading them.
        submit(c);
        chunk* const next = take_free();
        if (!next) {
          c = nullptr;
          break;
        }
        const std::size_t carry = used - line_start;
        next->reserve(std::max(chunk_bytes, carry), 0);  // `c` itself has room already
        if (carry) std::memmove(next->bytes.get(), c->bytes.get() + line_start, carry);
        c = next;
        used = carry;
        line_start = 0;
        continue;
      }
      // One line fills the buffer (line_start is 0, and the line at most max_line bytes): room
      // for twice as much, or for max_line + 1 bytes, which tells a line over the limit.
      const std::size_t most = opt.max_line / 2 < c->capacity ? opt.max_line + 1 : 2 * c->capacity;
      c->reserve(std::max(most, used + 1), used);
    }
    const std::size_t room = (used < chunk_bytes ? chunk_bytes : c->capacity) - used;
    const std::size_t got = std::fread(c->bytes.get() + used, 1, room, in);
    if (got < room) {
      at_end = true;
      if (std::ferror(in)) run.read_problem = std::strerror(errno);
    }
    const char* const base = c->bytes.get();
    for (std::size_t pos = used, end = used + got; pos < end;) {
      const void* nl = std::memchr(base + pos, '\n', end - pos);
      if (!nl) break;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      end_line(at);
      line_start = pos = at + 1;
    }
    used += got;
    // The line still open: over max_line, its bytes are dropped (and the ones that come next).
    if (too_long || dropped + (used - line_start) > opt.max_line) {
      too_long = true;
      dropped += used - line_start;
      used = line_start;
    }
  }
  if (c) {
    // The last line, without a line feed; none after a read error (it may be cut).
    if (run.read_problem.empty() && (used > line_start || too_long)) end_line(used);
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
