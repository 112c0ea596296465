// llmjson: §2 Fences: which lines of a part open and close a fence
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_FENCE_WALKER_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_FENCE_WALKER_HPP_INCLUDED

#include <cstddef>
#include <string_view>

namespace llmjson::detail {

constexpr std::string_view trim_spaces_tabs(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// A fence line's run of backticks or tildes: which character, how many, and where the rest of
/// the line starts.
struct fence_run {
  char fence_char = 0;  ///< 0: the line is no fence line
  std::size_t length = 0;
  std::size_t rest = 0;  ///< index in the line just past the run
};

/// Returns the run of 3+ backticks or tildes that follows at most 3 spaces of indent, if any.
constexpr fence_run fence_run_of(std::string_view line) noexcept {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ' && i < 4) ++i;
  if (i > 3 || i == line.size() || (line[i] != '`' && line[i] != '~')) return {};
  const char m = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == m) ++j;
  if (j - i < 3) return {};
  return {m, j - i, j};
}

/// §2 Fences, the line rules: fed a part's lines in order (each without its line ending), it
/// says which one opens a fence, which one closes it, and which are text (prose, or the open
/// fence's body). A fence never crosses a part's boundary: `reset()` at each part's start. The
/// engine's `line_reader` feeds it; `fences()` reads what the engine found. Does not allocate.
///
///   fence_walker w;  // "```json", "{}", "```": opens, text, closes
class fence_walker {
 public:
  enum class line_kind : unsigned char { text, opens, closes };

  /// What one line is; for an opening line, its info string too (trimmed, a view of `line`).
  struct line_read {
    line_kind kind = line_kind::text;
    std::string_view info;
  };

  /// Reads the part's next line.
  constexpr line_read feed(std::string_view line) noexcept {
    if (open_) {
      if (!closes(line)) return {};
      open_ = false;
      return {line_kind::closes, {}};
    }
    const fence_run run = fence_run_of(line);
    if (!run.fence_char) return {};
    const std::string_view info = trim_spaces_tabs(line.substr(run.rest));
    // A backtick fence's info string holds no backtick: ```{"a":1}``` is inline code.
    if (run.fence_char == '`' && info.find('`') != std::string_view::npos) return {};
    run_ = run;
    open_ = true;
    return {line_kind::opens, info};
  }

  /// Whether `line` would close the open fence. Changes nothing (a look ahead).
  [[nodiscard]] constexpr bool closes(std::string_view line) const noexcept {
    const fence_run run = fence_run_of(line);
    return open_ && run.fence_char == run_.fence_char && run.length >= run_.length &&
           trim_spaces_tabs(line.substr(run.rest)).empty();
  }

  /// The open fence's closing line was found by a look ahead: the fence is closed.
  constexpr void close() noexcept { open_ = false; }

  /// A part starts: no fence is open.
  constexpr void reset() noexcept { open_ = false; }

  /// Whether a fence is open: the lines fed now are its body.
  [[nodiscard]] constexpr bool in_fence() const noexcept { return open_; }
  /// The last opened fence's character (`` ` `` or `~`) and how many of it open it.
  [[nodiscard]] constexpr char fence_char() const noexcept { return run_.fence_char; }
  [[nodiscard]] constexpr std::size_t fence_length() const noexcept { return run_.length; }

 private:
  fence_run run_{};
  bool open_ = false;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_FENCE_WALKER_HPP_INCLUDED
