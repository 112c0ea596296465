// llmjson: the tool's stdout, stderr and exit status, and how a signal ends a run between
// two lines
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_OUTPUT_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_OUTPUT_HPP_INCLUDED

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "ordered_lines.hpp"

#ifndef _WIN32
#include <pthread.h>

#include <csignal>
#endif

namespace llmjson_cli {

// Exit codes: the contract with shell pipelines and other languages.
constexpr int exit_answer = 0;     // the answer is on stdout
constexpr int exit_no_answer = 1;  // llmjson: KIND: message (or the report says why)
constexpr int exit_usage = 2;      // bad flags, unreadable input, invalid schema, internal error

/// Writes `s` to `f` (stderr, mostly) and flushes; false when it could not.
inline bool write(std::FILE* f, std::string_view s) {
  return std::fwrite(s.data(), 1, s.size(), f) == s.size() && std::fflush(f) == 0;
}

/// Held while stdout takes whole lines: SIGINT and SIGTERM end the run between two lines.
inline std::timed_mutex output_lock;

/// Writes `s` (whole lines) to stdout under `output_lock`; returns why it failed (`Broken
/// pipe`: the reader is gone), or "".
inline std::string write_out(std::string_view s) {
  const std::lock_guard lock(output_lock);
  errno = 0;
  if (write_counted(stdout, s)) return {};
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
inline void handle_signals() {
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
    for (std::uint64_t seen = output_written.load();;) {
      if (output_lock.try_lock_for(signal_grace)) break;
      const std::uint64_t now = output_written.load();
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

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_OUTPUT_HPP_INCLUDED
