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
#include <type_traits>
#include <vector>

#ifndef _WIN32
#include <poll.h>
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
/// grows (output.hpp, handle_signals).
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
  unsigned jobs = 1;                 ///< worker threads, at least 1
  std::size_t max_line = 64u << 20;  ///< a longer line is `too_long`, and never kept
  std::uint64_t first_line = 1;      ///< the number of the input's first line
  bool progress = false;             ///< a progress line on stderr (for a terminal)
  /// The lines handed to a worker at once, about; 0: `default_chunk_bytes(jobs)`.
  std::size_t chunk_bytes = 0;
  std::timed_mutex* out_lock = nullptr;  ///< held while a chunk's lines are written and flushed
};

/// The chunk size of `map_lines` for `jobs` workers: 1 MiB, less where the `2 × jobs + 1` chunks
/// would hold more than 16 MiB, but at least 256 KiB. Each chunk costs its reader, its worker and
/// the writer a wake-up or two: at 256 KiB they were a tenth of the CPU that a two-job run of
/// 1M outputs spent outside the workers (tests/bench/README.md, "The fifth stop").
constexpr std::size_t default_chunk_bytes(unsigned jobs) noexcept {
  constexpr std::size_t most = 1u << 20, least = 256u << 10, all = 16u << 20;
  const std::size_t share = all / (2 * std::size_t{jobs == 0 ? 1 : jobs} + 1);
  return share >= most ? most : share <= least ? least : share;
}

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

/// Reads at most `n` bytes of `in` into `p`: on POSIX what one read(2) gives, that is what is
/// there (a pipe gives what its writer wrote so far, a terminal a line), waiting only while
/// there is nothing at all (also on a descriptor set non-blocking); elsewhere `fread`, which
/// waits for all `n`. Returns the bytes read, 0 at the input's end, -1 on an error (errno says
/// which).
inline long long read_some(std::FILE* in, char* p, std::size_t n) {
#ifndef _WIN32
  const int fd = fileno(in);
  for (;;) {
    const ssize_t got = ::read(fd, p, n);
    if (got >= 0) return got;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    pollfd ready{fd, POLLIN, 0};  // a descriptor set non-blocking: wait for a byte
    if (::poll(&ready, 1, -1) < 0 && errno != EINTR) return -1;
  }
#else
  const std::size_t got = std::fread(p, 1, n, in);
  if (got == 0 && std::ferror(in)) return -1;
  return static_cast<long long>(got);
#endif
}

/// Whether a read of `in` would return within `ms` milliseconds (bytes, the end or an error)
/// rather than wait longer: poll(2) on POSIX (a regular file always would); elsewhere always
/// true, as `fread` fills.
inline bool input_ready(std::FILE* in, int ms) {
#ifndef _WIN32
  pollfd p{fileno(in), POLLIN, 0};
  return ::poll(&p, 1, ms) != 0;  // an error too: the read will say what it is
#else
  (void)in;
  (void)ms;
  return true;
#endif
}

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

/// The pipeline of `map_lines`: this thread reads chunks of lines, `jobs` workers work on them,
/// and a writer thread writes their output in input order. Each member function is one role.
template <class Work>
class line_pipeline {
 public:
  line_pipeline(std::FILE* in, std::FILE* out, const lines_options& opt, Work& work)
      : in_(in),
        out_(out),
        opt_(opt),
        work_(work),
        jobs_(opt.jobs == 0 ? 1 : opt.jobs),
        slots_(2 * std::size_t{jobs_} + 1),
        by_slot_(slots_, nullptr) {
    for (std::size_t i = 0; i < slots_; ++i) {
      pool_.push_back(std::make_unique<detail_lines::chunk>());
      free_.push_back(pool_.back().get());
    }
  }

  /// Runs the pipeline to the input's end, or to a read or write error.
  lines_run run() {
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < jobs_; ++i) threads.emplace_back([this, i] { work_on_chunks(i); });
    std::thread writing([this] { write_chunks(); });
    read_chunks();
    {
      std::lock_guard lock(m_);
      input_ended_ = true;
    }
    work_ready_.notify_all();
    chunk_done_.notify_all();
    for (auto& t : threads) t.join();
    writing.join();
    return run_;
  }

 private:
  using chunk = detail_lines::chunk;
  using clock = std::chrono::steady_clock;

  std::FILE* in_;
  std::FILE* out_;
  const lines_options& opt_;
  Work& work_;
  const unsigned jobs_;
  const std::size_t slots_;
  std::vector<std::unique_ptr<chunk>> pool_;
  // Under m_: the chunks free to fill, those to work on, and those sent, by sequence number.
  std::vector<chunk*> free_, by_slot_;
  std::deque<chunk*> todo_;
  std::mutex m_;
  std::condition_variable work_ready_, chunk_done_, chunk_free_;
  bool input_ended_ = false, stop_ = false;
  std::uint64_t submitted_ = 0;
  lines_run run_;  // the writer's, read once the threads are joined

  // The reader's: the chunk being filled and the line being read.
  chunk* c_ = nullptr;
  std::uint64_t number_ = 0;
  std::size_t used_ = 0;        // bytes in c_->bytes
  std::size_t line_start_ = 0;  // where the line being read starts in c_->bytes
  std::uint64_t dropped_ = 0;   // bytes of a line over max_line, dropped before line_start_
  bool too_long_ = false;       // the line being read is over max_line
  bool short_read_ = false;     // the last read took less than there was room for

  /// A worker: takes chunks and works on their lines until the input ends.
  void work_on_chunks(unsigned index) {
    for (;;) {
      chunk* c = nullptr;
      {
        std::unique_lock lock(m_);
        work_ready_.wait(lock, [&] { return !todo_.empty() || input_ended_; });
        if (todo_.empty()) return;
        c = todo_.front();
        todo_.pop_front();
      }
      c->out.clear();
      c->failed = 0;
      for (const auto& l : c->lines) {
        const input_line line{std::string_view(c->bytes.get() + l.offset, l.size), l.number,
                              l.too_long, l.length};
        if (!work_(index, line, c->out)) ++c->failed;
      }
      {
        std::lock_guard lock(m_);
        c->done = true;
      }
      chunk_done_.notify_all();
    }
  }

  /// The progress line on stderr: lines, lines a second, failures.
  void show_progress(clock::time_point start, bool last) const {
    const double seconds = std::chrono::duration<double>(clock::now() - start).count();
    std::fprintf(stderr, "\rllmjson: %llu lines, %.0f lines/s, %llu failed%s",
                 static_cast<unsigned long long>(run_.lines),
                 seconds > 0 ? static_cast<double>(run_.lines) / seconds : 0.0,
                 static_cast<unsigned long long>(run_.failed), last ? "\n" : "");
    std::fflush(stderr);
  }

  /// Writes chunk `c`'s output (unless a write failed before), then frees it.
  void write_chunk(chunk* c, std::uint64_t seq) {
    if (!run_.write_failed) {
      std::unique_lock<std::timed_mutex> writing;
      if (opt_.out_lock) writing = std::unique_lock(*opt_.out_lock);
      // Written under the lock: whoever takes it next finds only whole lines written.
      if (!detail_lines::write_all(out_, c->out)) {
        run_.write_failed = true;
        run_.write_problem = std::strerror(errno);
      }
      run_.lines += c->lines.size();
      run_.failed += c->failed;
    }
    {
      std::lock_guard lock(m_);
      by_slot_[seq % slots_] = nullptr;
      c->done = false;
      free_.push_back(c);
      if (run_.write_failed) stop_ = true;
    }
    chunk_free_.notify_one();
  }

  /// The writer: writes each chunk's output once its work is done, in the order read.
  void write_chunks() {
    const auto start = clock::now();
    auto shown = start;
    for (std::uint64_t next = 0;; ++next) {
      chunk* c = nullptr;
      {
        std::unique_lock lock(m_);
        chunk_done_.wait(lock, [&] {
          chunk* s = by_slot_[next % slots_];
          return (s && s->seq == next && s->done) || (input_ended_ && next == submitted_);
        });
        if (input_ended_ && next == submitted_) break;
        c = by_slot_[next % slots_];
      }
      write_chunk(c, next);
      if (opt_.progress && clock::now() - shown > std::chrono::milliseconds(500)) {
        shown = clock::now();
        show_progress(start, false);
      }
    }
    if (!run_.write_failed && std::fflush(out_) != 0) {
      run_.write_failed = true;
      run_.write_problem = std::strerror(errno);
    }
    if (opt_.progress) show_progress(start, true);
  }

  /// A free chunk, emptied; null once the writer stopped (a write failed).
  chunk* take_free() {
    std::unique_lock lock(m_);
    chunk_free_.wait(lock, [&] { return !free_.empty() || stop_; });
    if (stop_) return nullptr;
    chunk* c = free_.back();
    free_.pop_back();
    c->lines.clear();
    return c;
  }

  /// Hands `c` to the workers, and to the writer by its sequence number.
  void submit(chunk* c) {
    {
      std::lock_guard lock(m_);
      c->seq = submitted_++;
      by_slot_[c->seq % slots_] = c;
      todo_.push_back(c);
    }
    work_ready_.notify_one();
  }

  /// Ends the line being read at `end` (its line feed, or the input's end).
  void end_line(std::size_t end) {
    const std::uint64_t length = dropped_ + (end - line_start_);
    if (!too_long_ && length > opt_.max_line) too_long_ = true;
    std::size_t size = too_long_ ? 0 : end - line_start_;
    if (size > 0 && c_->bytes[line_start_ + size - 1] == '\r') --size;
    c_->lines.push_back({line_start_, size, number_++, length, too_long_});
    dropped_ = 0;
    too_long_ = false;
  }

  /// Sends c_'s whole lines to the workers and moves the start of the line its end cuts to a
  /// free chunk, which becomes c_; false when the writer stopped (a write failed).
  bool hand_over(std::size_t chunk_bytes) {
    // The cut line's start moves to the next chunk (the same one, maybe, once written: hence
    // memmove). The bytes of the lines sent stay put: a worker may be reading them.
    submit(c_);
    chunk* const next = take_free();
    if (!next) return false;
    const std::size_t carry = used_ - line_start_;
    next->reserve(std::max(chunk_bytes, carry), 0);  // `c_` itself has room already
    if (carry) std::memmove(next->bytes.get(), c_->bytes.get() + line_start_, carry);
    c_ = next;
    used_ = carry;
    line_start_ = 0;
    return true;
  }

  /// Grows c_, which one line fills (line_start_ is 0, and the line at most max_line bytes): room
  /// for twice as much, or for max_line + 1 bytes, which tells a line over the limit.
  void grow() {
    const std::size_t most =
        opt_.max_line / 2 < c_->capacity ? opt_.max_line + 1 : 2 * c_->capacity;
    c_->reserve(std::max(most, used_ + 1), used_);
  }

  /// Reads once into c_, at `used_`, and ends the lines read; returns false at the input's end
  /// (or an error). `short_read_` says whether the read took less than there was room for.
  bool read_once(std::size_t chunk_bytes) {
    const std::size_t room = (used_ < chunk_bytes ? chunk_bytes : c_->capacity) - used_;
    const long long read = detail_lines::read_some(in_, c_->bytes.get() + used_, room);
    if (read < 0) run_.read_problem = std::strerror(errno);
    if (read <= 0) return false;
    const auto got = static_cast<std::size_t>(read);
    short_read_ = got < room;
    const char* const base = c_->bytes.get();
    for (std::size_t pos = used_, end = used_ + got; pos < end;) {
      const void* nl = std::memchr(base + pos, '\n', end - pos);
      if (!nl) break;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      end_line(at);
      line_start_ = pos = at + 1;
    }
    used_ += got;
    // The line still open: over max_line, its bytes are dropped (and the ones that come next).
    if (too_long_ || dropped_ + (used_ - line_start_) > opt_.max_line) {
      too_long_ = true;
      dropped_ += used_ - line_start_;
      used_ = line_start_;
    }
    return true;
  }

  /// The reader, this thread. Each chunk's bytes are read straight into its own buffer, up to
  /// `chunk_bytes`, and split there: the lines stay where they were read, and only the start of
  /// a line that the buffer's end cuts is copied, to the front of the next chunk's buffer. A line
  /// longer than the buffer grows it, up to `max_line` + 1 bytes; past `max_line` its bytes are
  /// dropped as they come, and only its length is counted.
  void read_chunks() {
    const std::size_t chunk_bytes =
        opt_.chunk_bytes ? opt_.chunk_bytes : default_chunk_bytes(jobs_);
    constexpr std::size_t max_lines = 8192;  // a chunk's lines, so that tiny lines share the work
    c_ = take_free();
    if (!c_) return;
    c_->reserve(chunk_bytes, 0);
    number_ = opt_.first_line;
    for (bool more = true; more;) {
      // A chunk is sent when full, or when the input pauses (a pipe from a program that writes
      // a line now and then, a terminal): the lines read so far are answered without waiting
      // for a chunk's worth. A pause is 10 ms without a byte: a pipe from a program that writes
      // fast but is not running just then (`cat file |` on a busy machine) still fills chunks.
      if (used_ >= chunk_bytes || c_->lines.size() >= max_lines ||
          (short_read_ && !c_->lines.empty() && !detail_lines::input_ready(in_, 10))) {
        if (!c_->lines.empty()) {
          if (!hand_over(chunk_bytes)) return;
          continue;  // the carried line may fill the new chunk too
        }
        grow();
      }
      more = read_once(chunk_bytes);
    }
    // The last line, without a line feed; none after a read error (it may be cut).
    if (run_.read_problem.empty() && (used_ > line_start_ || too_long_)) end_line(used_);
    if (!c_->lines.empty()) {
      submit(c_);
    } else {
      std::lock_guard lock(m_);
      free_.push_back(c_);
    }
  }
};

/// Calls `work(worker, line, out)` on every line of `in`, where `worker` (below `opt.jobs`) names
/// the thread (for state of its own) and `out` is where the line's output is appended; `work`
/// returns false when the line failed. Writes every line's output to `out` in input order.
///
/// The input is read as a stream, never whole, and a chunk goes to the workers when it is full or
/// as soon as the input pauses (on POSIX; elsewhere a chunk waits to be full): a line from a
/// program that writes one now and then is answered at once. At most `2 × jobs + 1` chunks of about
/// `chunk_bytes` (each as long as its longest line) are held at once, so memory is bounded by the
/// jobs and the longest line (at most `max_line`), whatever the input's length. Lines end at a
/// line feed (a carriage return before it is dropped); the input's last line needs none. `work`
/// must not throw. On POSIX the output goes to `out`'s descriptor, past its stdio buffer, which
/// must hold nothing unwritten. Returns how the run went: a read or write error stops it, after
/// the lines read before it are written.
template <class Work>
lines_run map_lines(std::FILE* in, std::FILE* out, const lines_options& opt, Work&& work) {
  return line_pipeline<std::remove_reference_t<Work>>(in, out, opt, work).run();
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_ORDERED_LINES_HPP_INCLUDED
