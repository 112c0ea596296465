// llmjson: the tool's reader of one JSON Lines line: checks that it is JSON and finds the values
// at a few JSON Pointers, in one pass, without building a document
// SPDX-License-Identifier: MIT
//
// Why the tool keeps a JSON reader of its own (issue 32 §3 asked it to share the library's
// validator where that costs no speed; measured 2026-12-06, again 2026-12-07): the library's
// validator is llmjson::detail, not API, and it answers another question. It reads a candidate
// as the brace scan feeds it, refuses repeated keys (rules §1) and finds no value at a pointer,
// where a line here needs the values at --at, --id-at and --reasoning-at found in the pass that
// checks it, and accepts keys repeated off those paths, as JSON Lines readers do. Sharing would
// need a public `validate(text)` with a pointer lookup on top, and costs speed. On the batch
// benchmark's lines (tests/bench/write_jsonl.cpp, 2,000 lines read five times, callgrind, the
// file's reading subtracted) this reader takes 6.0 instructions a byte on the OpenAI Batch lines
// (--at and --id-at found), the library's validator alone 11.7 (16.3 before it read a token at
// a time); on the usual line, one JSON string, read_string_line checks and decodes it in 2.9 (on
// the batch's 2 KB outputs, 3.15 before its 64-byte blocks, copy_usual, and 2.59 after), the
// validator and then decode_string take 12.6. The whole tool takes 26 instructions a byte on
// those lines (--jsonl --keys result, one job): sharing would add a third. The byte helpers
// (text.hpp) are copies for the first reason.
#ifndef LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_pointer.hpp"
#include "json_string.hpp"
#include "text.hpp"

namespace llmjson_cli {

/// Reads one line of JSON Lines: checks that it is exactly one JSON value (RFC 8259: strings of
/// valid UTF-8 without raw control characters or unpaired `\u` surrogates, numbers and literals
/// as the grammar writes them, nested at most `max_depth` levels, white space around) and finds
/// the value at each pointer, in one pass and without building a document. Each value found is
/// the span of its bytes in the line, as written. A pointer that reaches two values (a key
/// repeated on its path) makes the line an error, as which one is meant cannot be told. Keys
/// repeated elsewhere are accepted, as most JSON readers do. Linear time; its memory is the
/// nesting of the line. Not thread-safe: one reader per thread, reused from line to line.
class json_line_reader {
 public:
  static constexpr std::size_t max_depth = 512;

  /// Reads `line` and fills `found[i]` with the span of the value at `*pointers[i]` (nullopt when
  /// there is none). Returns false, with `problem()` and `offset()` set, when the line is not
  /// JSON or a pointer reaches two values.
  bool read(std::string_view line, const std::vector<const json_pointer*>& pointers,
            std::vector<std::optional<std::string_view>>& found) {
    line_ = line;
    pointers_ = &pointers;
    found_ = &found;
    found.assign(pointers.size(), std::nullopt);
    problem_.clear();
    offset_ = 0;
    ambiguous_ = false;
    active_.clear();
    for (std::size_t i = 0; i < pointers.size(); ++i) active_.push_back(i);
    std::size_t at = 0;
    skip_ws(at);
    if (at == line.size()) return fail(at, "the line is empty");
    if (!value(at, 0, 0, active_.size())) return false;
    skip_ws(at);
    if (at != line.size()) return fail(at, "more than one JSON value on the line");
    return true;
  }

  /// Whether the last line read is JSON, but a pointer reaches two values in it.
  [[nodiscard]] bool ambiguous() const noexcept { return ambiguous_; }
  /// Why the last line read is not JSON, for a person: `invalid escape "\q" in a string`.
  [[nodiscard]] const std::string& problem() const noexcept { return problem_; }
  /// The byte of the line where the problem is.
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }

 private:
  std::string_view line_;
  const std::vector<const json_pointer*>* pointers_ = nullptr;
  std::vector<std::optional<std::string_view>>* found_ = nullptr;
  // The indices of the pointers still followed, as a stack: a container's pointers are the slice
  // [from, to) that its parent pushed.
  std::vector<std::size_t> active_;
  std::string key_;  // a key with escapes, decoded
  std::string problem_;
  std::size_t offset_ = 0;
  bool ambiguous_ = false;

  bool fail(std::size_t at, std::string why) {
    offset_ = at;
    problem_ = std::move(why);
    return false;
  }

  void skip_ws(std::size_t& at) const noexcept {
    while (at < line_.size() && is_json_ws(line_[at])) ++at;
  }

  /// Records the span [`start`, `end`) as the value of the pointers of `active_[from, to)` that
  /// end at this depth. Returns false when one of them already has a value.
  bool record(std::size_t from, std::size_t to, std::size_t depth, std::size_t start,
              std::size_t end) {
    for (std::size_t k = from; k < to; ++k) {
      const std::size_t i = active_[k];
      if ((*pointers_)[i]->tokens.size() != depth) continue;
      if ((*found_)[i]) {
        ambiguous_ = true;
        return fail(start, "the pointer " + (*pointers_)[i]->text +
                               " reaches two values (a key repeated on its path)");
      }
      (*found_)[i] = line_.substr(start, end - start);
    }
    return true;
  }

  /// Reads the value at `at` (white space skipped before it), `depth` levels down, followed by
  /// the pointers `active_[from, to)` (those whose first `depth` tokens led here).
  bool value(std::size_t& at, std::size_t depth, std::size_t from, std::size_t to) {
    const std::size_t start = at;
    if (at == line_.size()) return fail(at, "the line ends where a value should be");
    const char c = line_[at];
    bool ok = false;
    if (c == '{' || c == '[') {
      if (depth == max_depth)
        return fail(at, "nested deeper than " + std::to_string(max_depth) + " levels");
      ok = c == '{' ? object(at, depth, from, to) : array(at, depth, from, to);
    } else if (c == '"') {
      ok = string(at, nullptr);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      ok = number(at);
    } else {
      ok = literal(at);
    }
    return ok && record(from, to, depth, start, at);
  }

  /// Pushes the pointers of `active_[from, to)` whose token at `depth` is `key` (a member's name,
  /// or an element's index in decimal); returns where the pushed slice begins.
  std::size_t push_matching(std::size_t from, std::size_t to, std::size_t depth,
                            std::string_view key) {
    const std::size_t begin = active_.size();
    for (std::size_t k = from; k < to; ++k) {
      const std::size_t i = active_[k];
      const auto& tokens = (*pointers_)[i]->tokens;
      if (tokens.size() > depth && tokens[depth] == key) active_.push_back(i);
    }
    return begin;
  }

  enum class item { more, closed, failed };

  /// Reads what follows a member of an object or an element of an array (`where`): a comma and
  /// another one (`more`), or `close` (`closed`); else fails.
  item after_item(std::size_t& at, char close, const char* where) {
    skip_ws(at);
    if (at == line_.size())
      return fail(at, std::string("the line ends inside ") + where), item::failed;
    if (line_[at] == close) {
      ++at;
      return item::closed;
    }
    if (line_[at] != ',')
      return fail(at, std::string("expected ',' or '") + close + "' in " + where), item::failed;
    const std::size_t comma = at++;
    skip_ws(at);
    if (at < line_.size() && line_[at] == close)
      return fail(comma, "trailing comma"), item::failed;  // the comma, not the space after it
    return item::more;
  }

  bool object(std::size_t& at, std::size_t depth, std::size_t from, std::size_t to) {
    ++at;  // {
    skip_ws(at);
    if (at < line_.size() && line_[at] == '}') {
      ++at;
      return true;
    }
    for (;;) {
      if (at == line_.size() || line_[at] != '"')
        return fail(at, at == line_.size() ? "the line ends inside an object"
                                           : "expected a key (a string) in an object");
      const std::size_t key_start = at;
      bool escaped = false;
      if (!string(at, &escaped)) return false;
      std::string_view key = line_.substr(key_start + 1, at - key_start - 2);
      if (escaped && from != to) {
        key_.clear();
        decode_string(line_.substr(key_start, at - key_start), key_);
        key = key_;
      }
      skip_ws(at);
      if (at == line_.size() || line_[at] != ':') return fail(at, "expected ':' after a key");
      ++at;
      skip_ws(at);
      const std::size_t begin = from == to ? active_.size() : push_matching(from, to, depth, key);
      const std::size_t end = active_.size();
      const bool ok = value(at, depth + 1, begin, end);
      active_.resize(begin);
      if (!ok) return false;
      if (const auto next = after_item(at, '}', "an object"); next != item::more)
        return next == item::closed;
    }
  }

  bool array(std::size_t& at, std::size_t depth, std::size_t from, std::size_t to) {
    ++at;  // [
    skip_ws(at);
    if (at < line_.size() && line_[at] == ']') {
      ++at;
      return true;
    }
    char index[24];
    for (std::size_t n = 0;; ++n) {
      std::size_t begin = active_.size();
      if (from != to) {
        const auto len = static_cast<std::size_t>(std::snprintf(index, sizeof index, "%zu", n));
        begin = push_matching(from, to, depth, std::string_view(index, len));
      }
      const std::size_t end = active_.size();
      const bool ok = value(at, depth + 1, begin, end);
      active_.resize(begin);
      if (!ok) return false;
      if (const auto next = after_item(at, ']', "an array"); next != item::more)
        return next == item::closed;
    }
  }

  bool literal(std::size_t& at) {
    for (std::string_view word : {"true", "false", "null"}) {
      if (line_.substr(at, word.size()) == word) {
        at += word.size();
        return true;
      }
    }
    return fail(at, "not a JSON value (a string, number, object, array, true, false or null)");
  }

  bool number(std::size_t& at) {
    const std::size_t start = at;
    auto digits = [&] {
      const std::size_t from = at;
      while (at < line_.size() && line_[at] >= '0' && line_[at] <= '9') ++at;
      return at - from;
    };
    if (line_[at] == '-') ++at;
    if (at == line_.size() || line_[at] < '0' || line_[at] > '9')
      return fail(start, "a number without digits");
    if (line_[at] == '0') {
      ++at;
      if (at < line_.size() && line_[at] >= '0' && line_[at] <= '9')
        return fail(start, "a number with a leading zero");
    } else {
      digits();
    }
    if (at < line_.size() && line_[at] == '.') {
      ++at;
      if (digits() == 0) return fail(start, "a number with no digit after '.'");
    }
    if (at < line_.size() && (line_[at] == 'e' || line_[at] == 'E')) {
      ++at;
      if (at < line_.size() && (line_[at] == '+' || line_[at] == '-')) ++at;
      if (digits() == 0) return fail(start, "a number with no digit in its exponent");
    }
    return true;
  }

  /// Reads the string at `at` (its opening quote) and checks it; `escaped`, when given, is set
  /// when it holds a backslash.
  bool string(std::size_t& at, bool* escaped) {
    const std::size_t start = at++;
    const std::size_t n = line_.size();
    const char* s = line_.data();
    for (;;) {
      at = next_special(s, at, n);
      if (at == n) return fail(start, "a string that does not end on its line");
      const auto c = static_cast<unsigned char>(s[at]);
      if (c == '"') {
        ++at;
        return true;
      }
      if (c >= 0x80) {
        const std::size_t len = utf8_sequence_at(line_, at);
        if (len == 0) return fail(at, "a string that is not valid UTF-8");
        at += len;
        continue;
      }
      if (c < 0x20) return fail(at, "a raw control character in a string (write it as \\u00XX)");
      if (escaped) *escaped = true;
      if (!escape(at)) return false;
    }
  }

  /// Checks the escape at `at` (its backslash) and moves past it; a `\u` surrogate needs its pair.
  bool escape(std::size_t& at) {
    if (at + 1 == line_.size()) return fail(at, "a string that does not end on its line");
    const char e = line_[at + 1];
    if (short_escape(e)) {
      at += 2;
      return true;
    }
    if (e != 'u') return fail(at, std::string("invalid escape \"\\") + e + "\" in a string");
    const long v = hex4(line_, at);
    if (v < 0) return fail(at, "\\u needs four hex digits");
    if (v >= 0xDC00 && v <= 0xDFFF)
      return fail(at, "a \\u escape of a low surrogate without its high one");
    if (v >= 0xD800 && v <= 0xDBFF) {
      const long low = line_.substr(at + 6, 2) == "\\u" ? hex4(line_, at + 6) : -1;
      if (low < 0xDC00 || low > 0xDFFF)
        return fail(at, "a \\u escape of a high surrogate without its low one");
      at += 6;
    }
    at += 6;
    return true;
  }
};

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED
