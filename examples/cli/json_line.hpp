// llmjson: the tool's reader of one JSON Lines line: checks that it is JSON and finds the values
// at a few JSON Pointers, in one pass, without building a document
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text.hpp"

// SSE2 is in every x86-64 CPU (and what the library's own byte searches fall back to); elsewhere,
// and with LLMJSON_CLI_PORTABLE defined (the tests build the tool so once), eight bytes at a time
// in a 64-bit word.
#if defined(__SSE2__) && !defined(LLMJSON_CLI_PORTABLE)
#include <emmintrin.h>
#define LLMJSON_CLI_SSE2 1
#endif

namespace llmjson_cli {

/// A JSON Pointer (RFC 6901), read once: its text (`/response/body`) and its reference tokens,
/// unescaped (`~1` is `/`, `~0` is `~`).
struct json_pointer {
  std::string text;
  std::vector<std::string> tokens;

  /// Reads `text`; std::nullopt, with `problem` set, when it is not a pointer (`""` is the whole
  /// value; any other pointer starts with `/`, and `~` is followed by `0` or `1`).
  static std::optional<json_pointer> parse(std::string_view text, std::string& problem) {
    json_pointer p;
    p.text = std::string(text);
    if (text.empty()) return p;
    if (text.front() != '/') {
      problem = "'" + p.text + "' is not a JSON Pointer: it must be empty or start with '/'";
      return std::nullopt;
    }
    std::string token;
    for (std::size_t i = 1; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '/') {
        p.tokens.push_back(std::move(token));
        token.clear();
      } else if (text[i] == '~') {
        if (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1')) {
          problem = "'" + p.text + "' is not a JSON Pointer: '~' must be followed by 0 or 1";
          return std::nullopt;
        }
        token += text[++i] == '0' ? '~' : '/';
      } else {
        token += text[i];
      }
    }
    return p;
  }
};

/// Eight bytes at `s`, the first in the lowest byte (a little-endian load; the search below is
/// only used where the machine is little-endian).
inline std::uint64_t load8(const char* s) noexcept {
  std::uint64_t x;
  std::memcpy(&x, s, 8);
  return x;
}

/// A mask with the high bit of each byte of `x` that is zero set, exact up to the lowest such byte
/// (a borrow can only mark bytes above a true one).
constexpr std::uint64_t zero_bytes(std::uint64_t x) noexcept {
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

/// The high bit of each byte of `x` that a JSON string cannot pass over as it is: `"`, `\`, a
/// control character, or a byte of a multi-byte UTF-8 sequence; exact up to the lowest such byte.
constexpr std::uint64_t special_bytes8(std::uint64_t x) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ull;
  return (zero_bytes(x ^ (ones * '"')) | zero_bytes(x ^ (ones * '\\')) | ((x - ones * 0x20) & ~x) |
          x) &
         0x8080808080808080ull;
}

/// Whether a JSON string cannot pass over `c` as it is (`special_bytes8`, one byte).
constexpr bool is_special(char c) noexcept {
  const auto b = static_cast<unsigned char>(c);
  return b < 0x20 || b == '"' || b == '\\' || b >= 0x80;
}

#if defined(LLMJSON_CLI_SSE2)
/// The bytes of `x` that a JSON string cannot pass over as they are, one bit each, the first in
/// the lowest. Compared as signed bytes, those from 0x80 are below the space, as the controls are.
inline unsigned special_bytes16(__m128i x) noexcept {
  const __m128i hit = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
      _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(hit));
}
#endif

/// The index of the first byte at or after `at`, before `n`, that a JSON string cannot pass over
/// as it is (`special_bytes8`). Sixteen bytes at a time with SSE2, else eight.
inline std::size_t next_special(const char* s, std::size_t at, std::size_t n) noexcept {
#if defined(LLMJSON_CLI_SSE2)
  for (; n - at >= 16; at += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    if (const unsigned m = special_bytes16(x))
      return at + static_cast<std::size_t>(std::countr_zero(m));
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; n - at >= 8; at += 8)
      if (const std::uint64_t hit = special_bytes8(load8(s + at)))
        return at + static_cast<std::size_t>(std::countr_zero(hit) >> 3);
  }
  while (at < n && !is_special(s[at])) ++at;
  return at;
}

/// Copies the bytes of `s[at, n)` before the first one a JSON string cannot pass over as it is
/// to `w`, and moves both past them. Whole blocks are stored before they are looked at, so `w`
/// must have room for `n - at` bytes, whatever the copy's length.
inline void copy_plain(const char* s, std::size_t& at, std::size_t n, char*& w) noexcept {
#if defined(LLMJSON_CLI_SSE2)
  for (; n - at >= 16; at += 16, w += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(w), x);
    if (const unsigned m = special_bytes16(x)) {
      const auto k = static_cast<std::size_t>(std::countr_zero(m));
      at += k;
      w += k;
      return;
    }
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    for (; n - at >= 8; at += 8, w += 8) {
      const std::uint64_t x = load8(s + at);
      std::memcpy(w, &x, 8);
      if (const std::uint64_t hit = special_bytes8(x)) {
        const auto k = static_cast<std::size_t>(std::countr_zero(hit) >> 3);
        at += k;
        w += k;
        return;
      }
    }
  }
  while (at < n && !is_special(s[at])) *w++ = s[at++];
}

/// Reads one line of JSON Lines: checks that it is exactly one JSON value (RFC 8259: strings of
/// valid UTF-8 without raw control characters or unpaired `\u` surrogates, numbers and literals
/// as the grammar writes them, nested at most `max_depth` levels, white space around) and finds
/// the value at each pointer, in one pass and without building a document. Each value found is
/// the span of its bytes in the line, as written. A pointer that reaches two values (a key
/// repeated on its path) makes the line an error, as which one is meant cannot be told. Keys
/// repeated elsewhere are accepted, as most JSON readers do. Linear time; its memory is the
/// nesting of the line. Not thread-safe: one reader per thread, reused from line to line.
class line_reader {
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

  /// The value of the four hex digits of a `\u` escape at `s[at]` (its backslash), or -1.
  static long hex4(std::string_view s, std::size_t at) noexcept {
    if (s.size() - at < 6) return -1;
    long v = 0;
    for (std::size_t k = at + 2; k < at + 6; ++k) {
      const int h = hex_value(s[k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  /// Checks the escape at `at` (its backslash) and moves past it; a `\u` surrogate needs its pair.
  bool escape(std::size_t& at) {
    if (at + 1 == line_.size()) return fail(at, "a string that does not end on its line");
    const char e = line_[at + 1];
    switch (e) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't': at += 2; return true;
      default: break;
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

 public:
  /// Reads `line` when it is one JSON string, white space around it allowed, and appends its
  /// characters to `out` (escapes decoded, as UTF-8), checking it as `read` does in the same pass:
  /// `--jsonl`'s usual line read once, not checked and then decoded. Returns false, `out` as it
  /// was, when the line is anything else or not JSON (`read` then says what it is).
  static bool read_string(std::string_view line, std::string& out) {
    const std::size_t n = line.size();
    const char* const s = line.data();
    std::size_t at = 0;
    while (at < n && is_json_ws(s[at])) ++at;
    if (at == n || s[at] != '"') return false;
    ++at;
    // The characters take at most the bytes of their escapes: write in place, cut at the end.
    // `w` stays behind `s + at` (less the quote), so copy_plain's block stores stay in `out`.
    const std::size_t had = out.size();
    out.resize(had + (n - at));
    char* const begin = out.data() + had;
    char* w = begin;
    for (;;) {
      copy_plain(s, at, n, w);
      if (at == n) break;
      const auto c = static_cast<unsigned char>(s[at]);
      if (c == '"') {
        ++at;
        while (at < n && is_json_ws(s[at])) ++at;
        if (at != n) break;
        out.resize(had + static_cast<std::size_t>(w - begin));
        return true;
      }
      if (c >= 0x80) {
        const std::size_t len = utf8_sequence_at(line, at);
        if (len == 0) break;
        std::memcpy(w, s + at, len);
        w += len;
        at += len;
        continue;
      }
      if (c < 0x20) break;
      // One byte in twenty is a backslash in a model's output written as a JSON string (its
      // own JSON's quotes, its line breaks): the two-byte escapes are decoded here, inline.
      if (at + 1 < n) {
        if (const char d = short_escape(s[at + 1])) {
          *w++ = d;
          at += 2;
          continue;
        }
      }
      if (!escape_checked(line, at, w)) break;
    }
    out.resize(had);
    return false;
  }

  /// Appends to `out` the characters of `token`, a JSON string (its quotes included) that
  /// `read` accepted: escapes decoded, as UTF-8.
  static void decode_string(std::string_view token, std::string& out) {
    const std::string_view body = token.substr(1, token.size() - 2);
    // The characters take at most the bytes of their escapes: write in place, cut at the end.
    const std::size_t had = out.size();
    out.resize(had + body.size());
    char* const begin = out.data() + had;
    char* w = begin;
    const char* s = body.data();
    const std::size_t n = body.size();
    for (std::size_t at = 0; at < n;) {
      copy_plain(s, at, n, w);  // `w` never passes `s + at`: its block stores stay in `out`
      if (at == n) break;
      if (s[at] != '\\') {  // a byte of a UTF-8 sequence, checked by read()
        *w++ = s[at++];
        continue;
      }
      escape_checked(body, at, w);  // read() checked it: never false
    }
    out.resize(had + static_cast<std::size_t>(w - begin));
  }

 private:
  /// What the two-byte escape `\e` stands for, or 0 when `e` makes none (`u` included).
  static constexpr char short_escape(char e) noexcept {
    switch (e) {
      case '"': return '"';
      case '\\': return '\\';
      case '/': return '/';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      default: return 0;
    }
  }

  /// Checks the escape at `s[at]` (its backslash) as `escape` does, and decodes it at `w`
  /// (at most as many bytes as the escape's), moving both past it; false when it is invalid.
  static bool escape_checked(std::string_view s, std::size_t& at, char*& w) noexcept {
    if (s.size() - at < 2) return false;
    if (const char d = short_escape(s[at + 1])) {
      *w++ = d;
      at += 2;
      return true;
    }
    if (s[at + 1] != 'u') return false;
    const long v = hex4(s, at);
    if (v < 0 || (v >= 0xDC00 && v <= 0xDFFF)) return false;
    auto cp = static_cast<char32_t>(v);
    if (v >= 0xD800 && v <= 0xDBFF) {
      const long low = s.substr(at + 6, 2) == "\\u" ? hex4(s, at + 6) : -1;
      if (low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + static_cast<char32_t>(low - 0xDC00);
      at += 6;
    }
    at += 6;
    w = put_utf8(w, cp);
    return true;
  }
};

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_JSON_LINE_HPP_INCLUDED
