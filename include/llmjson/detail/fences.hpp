// llmjson: the fence scanner behind fences(), line by line in one pass
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_FENCES_HPP_INCLUDED
#define LLMJSON_DETAIL_FENCES_HPP_INCLUDED

#include <cstddef>
#include <string_view>
#include <vector>

#include <llmjson/fence.hpp>

namespace llmjson::detail {

/// One line of the text: [begin, end) without its line ending; the next line starts at `next`.
struct line_span {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t next = 0;
};

/// Returns the line that starts at `pos`; lines end at LF, CR or CRLF. Does not allocate.
constexpr line_span line_at(std::string_view text, std::size_t pos) noexcept {
  std::size_t i = pos;
  while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
  std::size_t next = i;
  if (i < text.size())
    next = (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? i + 2 : i + 1;
  return {pos, i, next};
}

constexpr std::string_view trim_spaces_tabs(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// A fence line's marker run: which character, how many, and where the rest of the line starts.
struct marker_run {
  char marker = 0;  ///< 0: the line is no fence line
  std::size_t length = 0;
  std::size_t rest = 0;  ///< index in the line just past the run
};

/// Returns the run of 3+ backticks or tildes that follows at most 3 spaces of indent, if any.
constexpr marker_run fence_marker(std::string_view line) noexcept {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ' && i < 4) ++i;
  if (i > 3 || i == line.size() || (line[i] != '`' && line[i] != '~')) return {};
  const char m = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == m) ++j;
  if (j - i < 3) return {};
  return {m, j - i, j};
}

/// Returns whether `line` opens a fence; `info` receives the trimmed info string.
constexpr bool opens_fence(std::string_view line, marker_run& run,
                           std::string_view& info) noexcept {
  run = fence_marker(line);
  if (!run.marker) return false;
  info = trim_spaces_tabs(line.substr(run.rest));
  // A backtick fence's info string holds no backtick: ```{"a":1}``` is inline code.
  return !(run.marker == '`' && info.find('`') != std::string_view::npos);
}

/// Returns whether `line` closes a fence opened by `open`.
constexpr bool closes_fence(std::string_view line, const marker_run& open) noexcept {
  marker_run run = fence_marker(line);
  return run.marker == open.marker && run.length >= open.length &&
         trim_spaces_tabs(line.substr(run.rest)).empty();
}

}  // namespace llmjson::detail

namespace llmjson::detail {

/// The fences of `text[b, e)`, read as a text of its own: `b` starts a line, and a fence that
/// never closes runs to `e`. `line` counts from 1 at `b`.
inline std::vector<fence> fences_in(std::string_view text, std::size_t b, std::size_t e) {
  std::vector<fence> out;
  bool open = false;
  marker_run run{};
  fence f{};
  std::size_t line_no = 1;
  const std::string_view t = text.substr(0, e);
  for (std::size_t pos = b; pos < e; ++line_no) {
    const line_span ln = line_at(t, pos);
    const std::string_view line = t.substr(ln.begin, ln.end - ln.begin);
    if (!open) {
      std::string_view info;
      if (opens_fence(line, run, info)) {
        open = true;
        f = fence{};
        f.offset = ln.begin;
        f.body_offset = ln.next;
        f.info = info;
        f.marker = run.marker;
        f.marker_length = run.length;
        f.line = line_no;
      }
    } else if (closes_fence(line, run)) {
      f.body = t.substr(f.body_offset, ln.begin - f.body_offset);
      f.text = t.substr(f.offset, ln.end - f.offset);
      f.closed = true;
      out.push_back(f);
      open = false;
    }
    pos = ln.next;
  }
  if (open) {
    f.body = t.substr(f.body_offset);
    f.text = t.substr(f.offset);
    f.closed = false;
    out.push_back(f);
  }
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_FENCES_HPP_INCLUDED
