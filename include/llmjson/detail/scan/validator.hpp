// llmjson: an incremental JSON validator (§1 Valid JSON), one byte at a time, no recursion
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/text.hpp>
#include <llmjson/detail/scan/utf8.hpp>

namespace llmjson::detail {

/// Validates JSON text incrementally: `feed(i)` takes the byte `text[i]`. It accepts exactly
/// RFC 8259 JSON whose objects have unique keys (compared after unescaping), whose strings are
/// valid UTF-8 without unpaired surrogates, nested at most `max_depth` levels. It tells at every
/// byte whether what it has seen is a valid prefix, and stops at the first error with its
/// offset and a reason a person can act on ("trailing comma", `duplicate key "a"`).
///
/// The brace scanner feeds it the bytes of nested `{...}` spans and reads `depth()` to settle
/// every span in one pass. Memory: the open containers and the keys of open objects.
class validator {
 public:
  validator() = default;

  /// Starts over on a new value; offsets and reasons refer to `text`.
  /// A quiet validator tells only where the text stops being valid, not why: the brace scan
  /// runs quiet (a reason is rebuilt for the few spans reported), so no string is built per span.
  void reset(std::string_view text, std::size_t max_depth = std::numeric_limits<std::size_t>::max(),
             bool quiet = false) {
    quiet_ = quiet;
    text_ = text;
    max_depth_ = max_depth;
    relaxed_ = false;
    raw_whitespace_ = false;
    last_raw_ = no_raw;
    last_bad_raw_ = no_raw;
    last_big_number_ = no_raw;
    stack_.clear();
    stack_first_ = 0;
    keys_.clear();
    key_bytes_.clear();
    keys_first_ = 0;
    dropped_levels_ = 0;
    dropped_keys_ = 0;
    state_ = state::value;
    failed_ = false;
    error_offset_ = 0;
    fault_offset_ = 0;
    comma_ = 0;
    reason_.clear();
    started_ = false;
  }

  /// Points at the same text, moved or grown (a stream's buffer): offsets keep their meaning.
  void rebind(std::string_view text) noexcept { text_ = text; }

  /// Reads strings as the frame scan does (§3 The scan, the valid-prefix tests of a
  /// frame): in every string but an object's first key, a raw control character is an ordinary
  /// string byte, alone or right after a backslash (the pair stands for that character). Such
  /// a text is never valid JSON: `last_raw()` says where the last such byte was, so a closed
  /// value that holds one is known to be invalid. Set after `reset`, before the first byte.
  void relax_strings() noexcept { relaxed_ = true; }
  /// Reads strings as a closed frame is judged (§3 Raw controls): in every string but an
  /// object's first key, a raw LF, CR or tab on its own is a string byte, so the validator
  /// stops at the defect that keeps such a frame malformed. Set after `reset`.
  void allow_raw_whitespace() noexcept { raw_whitespace_ = true; }
  static constexpr std::size_t no_raw = static_cast<std::size_t>(-1);
  /// With `relax_strings`: the offset of the last raw control character taken in a string,
  /// or `no_raw`.
  [[nodiscard]] std::size_t last_raw() const noexcept { return last_raw_; }
  /// With `relax_strings`: the offset of the last raw control character taken in a string that
  /// no frame may hold even with raw controls (§3 Raw controls): one other than LF, CR and tab,
  /// or one right after a backslash; or `no_raw`.
  [[nodiscard]] std::size_t last_bad_raw() const noexcept { return last_bad_raw_; }
  /// The offset of the last number taken that nlohmann may not hold (one with an exponent, or
  /// of 300 bytes or more: below that a double holds any number), or `no_raw`: where there is
  /// none, a span's value needs no check of its numbers (`numbers_fit`).
  [[nodiscard]] std::size_t last_big_number() const noexcept { return last_big_number_; }

  /// Takes `text[i]`. Returns false once the text seen is no valid JSON prefix.
  /// Inline: the bytes most text holds (a string's plain bytes, white space between tokens)
  /// are taken here, in a few instructions; the rest in `feed_slow`.
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::always_inline]]
#endif
  bool
  feed(std::size_t i) {
    const auto c = static_cast<unsigned char>(text_[i]);
    if (state_ == state::string) {
      if (escape_ == 0 && utf8_need_ == 0 && c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
        return !failed_;
    } else if (state_ <= state::done && is_json_ws(static_cast<char>(c))) {
      return !failed_;
    } else if (state_ == state::number && c >= '0' && c <= '9' &&
               (number_ == number_state::integer || number_ == number_state::fraction ||
                number_ == number_state::exponent)) {
      return !failed_;
    }
    return feed_slow(i, c);
  }

  /// Ends the input at `end`. Returns true when a whole value was seen and nothing after it
  /// but white space; otherwise records why ("unexpected end").
  bool finish(std::size_t end) {
    if (failed_) return false;
    if (state_ == state::number && number_complete() && depth() == 0) {
      number_done(end);
      value_done();
    }
    if (state_ == state::done) return true;
    return fail(end, started_ ? "the text ends before the value does" : "no value");
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  /// A whole top-level value has been seen (white space may follow).
  [[nodiscard]] bool complete() const noexcept { return !failed_ && state_ == state::done; }
  /// A value has begun (a byte other than white space was taken).
  [[nodiscard]] bool started() const noexcept { return started_; }
  /// The number of open containers (objects and arrays).
  [[nodiscard]] std::size_t depth() const noexcept { return dropped_levels_ + live_levels(); }

  /// Forgets the outermost open containers, leaving `keep` (or all there are): nobody will ask
  /// whether the text is valid outside them (the frames there are dead), so their state is
  /// dropped, keeping the memory bounded however deep the text nests. Closing one of them
  /// later fails the validator. `depth()` still counts them.
  void forget_outer(std::size_t keep) {
    while (live_levels() > keep) {
      const std::size_t next_keys =
          live_levels() > 1 ? stack_[stack_first_ + 1].keys_begin : dropped_keys_ + live_keys();
      keys_first_ += next_keys - dropped_keys_;
      dropped_keys_ = next_keys;
      stack_[stack_first_].index.reset();
      ++stack_first_;
      ++dropped_levels_;
    }
    compact();
  }

  /// In a string, with nothing pending (no escape, UTF-8 sequence or surrogate): bytes that are
  /// printable ASCII other than `"` and `\\` can be taken as a run (`take_plain`).
  [[nodiscard]] bool in_plain_string() const noexcept {
    return !failed_ && state_ == state::string && escape_ == 0 && utf8_need_ == 0;
  }
  /// Takes `text[from, to)`, all printable ASCII other than `"` and `\\`, in a plain string:
  /// nothing to do (a key's bytes are read from the text when it ends).
  void take_plain(std::size_t, std::size_t) noexcept {}
  /// The byte at which the text stopped being a valid prefix.
  [[nodiscard]] std::size_t error_offset() const noexcept { return error_offset_; }
  /// The byte the reason is about, for messages: `error_offset()`, but for a trailing comma the
  /// comma itself (the text fails only at the bracket after it, maybe lines later).
  [[nodiscard]] std::size_t fault_offset() const noexcept { return fault_offset_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

  /// Marks the validator failed at `i` for `why`. Returns false.
  bool fail(std::size_t i, std::string_view why) {
    failed_ = true;
    error_offset_ = fault_offset_ = i;
    if (!quiet_) reason_.assign(why);
    return false;
  }

 private:
  /// `feed` for the bytes its inline part does not take.
  bool feed_slow(std::size_t i, unsigned char c) {
    if (failed_) return false;
    for (;;) {
      switch (state_) {
        case state::string: return string_byte(i, c);
        case state::number:
          if (number_byte(c)) return true;
          if (number_ == number_state::zero && c >= '0' && c <= '9')
            return fail(i, "leading zero in number");
          if (!number_complete()) return fail(i, "incomplete number");
          number_done(i);
          value_done();
          continue;  // the byte that ended the number is read in the new state
        case state::literal: return literal_byte(i, c);
        default: return structural_byte(i, c);
      }
    }
  }

  [[nodiscard]] std::size_t live_levels() const noexcept { return stack_.size() - stack_first_; }
  [[nodiscard]] std::size_t live_keys() const noexcept { return keys_.size() - keys_first_; }
  [[nodiscard]] std::string_view key_at(std::size_t k) const noexcept {
    return std::string_view(key_bytes_).substr(keys_[k].offset, keys_[k].size);
  }

  /// Drops the forgotten levels and keys from the front of their vectors once they are half of
  /// them: the memory stays in proportion to what is live, at O(1) amortized a level.
  void compact() {
    if (stack_first_ > 0 && stack_first_ * 2 >= stack_.size()) {
      stack_.erase(stack_.begin(), stack_.begin() + static_cast<std::ptrdiff_t>(stack_first_));
      stack_first_ = 0;
    }
    if (keys_first_ > 0 && keys_first_ * 2 >= keys_.size()) {
      const std::size_t shift =
          keys_first_ < keys_.size() ? keys_[keys_first_].offset : key_bytes_.size();
      keys_.erase(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(keys_first_));
      keys_first_ = 0;
      key_bytes_.erase(0, shift);
      for (key_entry& k : keys_) k.offset -= shift;
    }
  }

  /// As `fail`, with a reason that `make()` builds only when someone will read it.
  template <class Make>
  bool fail_with(std::size_t i, Make make) {
    failed_ = true;
    error_offset_ = fault_offset_ = i;
    if (!quiet_) reason_ = make();
    return false;
  }

  enum class state : std::uint8_t {
    value,              // a value: top level or after ':'
    value_or_close,     // after '['
    value_after_comma,  // after ',' in an array
    key_or_close,       // after '{'
    key_after_comma,    // after ',' in an object
    colon,              // after a key
    comma_or_close,     // after a value in a container
    done,               // after the top-level value
    string,
    number,
    literal,
  };
  enum class number_state : std::uint8_t {
    minus,
    zero,
    integer,
    dot,
    fraction,
    exp,
    exp_sign,
    exponent
  };

  struct level {
    bool is_object = false;
    std::size_t keys_begin = 0;  // this object's first key, counted from the first key ever
    std::unique_ptr<std::unordered_set<std::string>> index;  // once an object has many keys
  };
  /// A key of an open object, unescaped, in `key_bytes_`; `head` packs its first 8 bytes, so
  /// that most keys are told apart without reading them.
  struct key_entry {
    std::size_t offset = 0;
    std::size_t size = 0;
    std::uint64_t head = 0;
  };
  static std::uint64_t head_of(std::string_view key) noexcept {
    std::uint64_t h = 0;
    const std::size_t n = key.size() < 8 ? key.size() : 8;
    for (std::size_t k = 0; k < n; ++k)
      h |= static_cast<std::uint64_t>(static_cast<unsigned char>(key[k])) << (8 * k);
    return h;
  }

  static std::string show(unsigned char c) {
    if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    return std::string("byte 0x") + hex_digit(c >> 4) + hex_digit(c);
  }

  /// The word that starts at `i` (letters, digits, '_'), at most 24 bytes: for "True", "NaN".
  [[nodiscard]] std::string word_at(std::size_t i) const {
    std::size_t j = i;
    while (j < text_.size() && j - i < 24) {
      if (!is_word_byte(text_[j])) break;
      ++j;
    }
    return std::string(text_.substr(i, j - i));
  }

  /// Where a key should start: `{name: 1}` has an unquoted key.
  bool unexpected_key(std::size_t i, unsigned char c, std::string_view wanted) {
    if (is_word_start(static_cast<char>(c)) || c == '$')
      return fail_with(i, [&] {
        std::string w = word_at(i);
        return "unquoted key " + (w.empty() ? std::string(1, static_cast<char>(c)) : w) +
               " (keys take double quotes)";
      });
    return unexpected(i, c, wanted);
  }

  bool unexpected(std::size_t i, unsigned char c, std::string_view wanted) {
    return fail_with(i, [&] { return describe_unexpected(i, c, wanted); });
  }

  [[nodiscard]] std::string describe_unexpected(std::size_t i, unsigned char c,
                                                std::string_view wanted) const {
    std::string why;
    if (c == '\'') {
      why = "single quotes are not JSON strings";
    } else if (c == '/') {
      why = "comments are not JSON";
    } else if (is_word_start(static_cast<char>(c))) {
      std::string w = word_at(i);
      why = "invalid literal " + w;
      if (w == "True" || w == "False" || w == "None")
        why += " (Python; JSON has true, false, null)";
      else if (w == "NaN" || w == "Infinity" || w == "undefined")
        why += " (not JSON)";
      else
        why += ", expected " + std::string(wanted);
    } else {
      why = "unexpected " + show(c) + ", expected " + std::string(wanted);
    }
    return why;
  }

  bool open(std::size_t i, bool is_object) {
    if (depth() >= max_depth_)
      return fail_with(
          i, [&] { return "nesting deeper than " + std::to_string(max_depth_) + " levels"; });
    level& l = stack_.emplace_back();
    l.is_object = is_object;
    l.keys_begin = dropped_keys_ + live_keys();
    state_ = is_object ? state::key_or_close : state::value_or_close;
    return true;
  }

  bool close(std::size_t i) {
    if (live_levels() == 0) return fail(i, "internal: a container the validator forgot closes");
    const std::size_t first = keys_first_ + (stack_.back().keys_begin - dropped_keys_);
    if (first < keys_.size()) key_bytes_.resize(keys_[first].offset);
    keys_.resize(first);
    stack_.pop_back();
    value_done();
    return true;
  }

  void value_done() noexcept { state_ = depth() == 0 ? state::done : state::comma_or_close; }

  bool begin_value(std::size_t i, unsigned char c) {
    started_ = true;
    switch (c) {
      case '{': return open(i, true);
      case '[': return open(i, false);
      case '"': begin_string(i, false); return true;
      case 't': begin_literal("true"); return true;
      case 'f': begin_literal("false"); return true;
      case 'n': begin_literal("null"); return true;
      case '-': begin_number(i, number_state::minus); return true;
      case '0': begin_number(i, number_state::zero); return true;
      default:
        if (c >= '1' && c <= '9') {
          begin_number(i, number_state::integer);
          return true;
        }
        return unexpected(i, c, "a value");
    }
  }

  /// The closing bracket at `i` follows a comma (and white space only): the text fails here, and
  /// the fault is the comma.
  bool trailing_comma(std::size_t i) {
    fail(i, "trailing comma");
    fault_offset_ = comma_;
    return false;
  }

  bool structural_byte(std::size_t i, unsigned char c) {
    if (is_json_ws(static_cast<char>(c))) return true;
    switch (state_) {
      case state::value: return begin_value(i, c);
      case state::value_or_close:
        if (c == ']') return close(i);
        return begin_value(i, c);
      case state::value_after_comma:
        if (c == ']') return trailing_comma(i);
        return begin_value(i, c);
      case state::key_or_close:
        if (c == '}') return close(i);
        if (c == '"') return begin_string(i, true), true;
        return unexpected_key(i, c, "a key in double quotes or '}'");
      case state::key_after_comma:
        if (c == '}') return trailing_comma(i);
        if (c == '"') return begin_string(i, true), true;
        return unexpected_key(i, c, "a key in double quotes");
      case state::colon:
        if (c == ':') return state_ = state::value, true;
        return unexpected(i, c, "':' after the key");
      case state::comma_or_close: {
        if (live_levels() == 0) return fail(i, "internal: the validator forgot this container");
        const bool obj = stack_.back().is_object;
        if (c == ',') {
          comma_ = i;
          state_ = obj ? state::key_after_comma : state::value_after_comma;
          return true;
        }
        if (c == (obj ? '}' : ']')) return close(i);
        if (c == (obj ? ']' : '}'))
          return fail_with(i, [&] {
            return std::string("mismatched ") + show(c) + " (an " + (obj ? "object" : "array") +
                   " is open)";
          });
        return unexpected(i, c, obj ? "',' or '}'" : "',' or ']'");
      }
      case state::done:
        return fail_with(i, [&] { return "unexpected " + show(c) + " after the value"; });
      default: return fail(i, "internal: bad state");
    }
  }

  // --- strings ---------------------------------------------------------------------------

  /// Why a raw control character makes a string invalid: `a raw line break in a string`.
  static std::string raw_control(unsigned char c) {
    if (c == '\n' || c == '\r') return "a raw line break in a string";
    if (c == '\t') return "a raw tab in a string";
    return std::string("a raw control character (U+00") + hex_digit(c >> 4) + hex_digit(c) +
           ") in a string";
  }

  void begin_string(std::size_t i, bool is_key) {
    // An object's first key is read strictly even when strings are relaxed (as the scan reads
    // a brace frame's first string).
    strict_string_ = is_key && state_ == state::key_or_close;
    state_ = state::string;
    is_key_ = is_key;
    escape_ = 0;
    utf8_need_ = 0;
    surrogate_ = 0;
    string_begin_ = i;
  }

  // escape_: 0 none; 1 after '\'; 2..5 reading the 4 hex digits of \u;
  // 6 after a high surrogate, wanting '\'; 7 wanting 'u'.
  bool string_byte(std::size_t i, unsigned char c) {
    if (utf8_need_) {
      if (c < utf8_lo_ || c > utf8_hi_)
        return fail_with(i, [&] { return "invalid UTF-8 in string (" + show(c) + ")"; });
      utf8_lo_ = 0x80;
      utf8_hi_ = 0xBF;
      --utf8_need_;
      return true;
    }
    if (c < 0x20) {
      if (relaxed_ && !strict_string_ && escape_ <= 1) {  // a string byte, or an escaped one
        last_raw_ = i;
        // Only a raw LF, CR or tab on its own is a frame's leniency (§3 Raw controls).
        if (escape_ == 1 || (c != '\n' && c != '\r' && c != '\t')) last_bad_raw_ = i;
        escape_ = 0;
        return true;
      }
      if (raw_whitespace_ && !strict_string_ && escape_ == 0 &&
          (c == '\n' || c == '\r' || c == '\t'))
        return true;
      // Relaxed, inside a \u escape: an ordinary byte that is no hex digit (below).
      if (!relaxed_ || strict_string_) return fail_with(i, [&] { return raw_control(c); });
    }
    if (escape_ >= 6) {
      if (escape_ == 6 && c == '\\') return escape_ = 7, true;
      if (escape_ == 7 && c == 'u') return escape_ = 2, unicode_ = 0, true;
      return fail(i, "unpaired surrogate in \\u escape");
    }
    if (escape_ == 1) {
      switch (c) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't': break;
        case 'u':
          escape_ = 2;
          unicode_ = 0;
          return true;
        default:
          return fail_with(i, [&] {
            return "invalid escape \\" + std::string(1, static_cast<char>(c)) + " in string";
          });
      }
      escape_ = 0;
      return true;
    }
    if (escape_ >= 2) {
      const int h = hex_value(static_cast<char>(c));
      if (h < 0) return fail(i, "invalid \\u escape: expected 4 hex digits");
      unicode_ = (unicode_ << 4) | static_cast<std::uint32_t>(h);
      if (escape_ < 5) {
        // Fail at the first digit after which no completion is valid (`\udc` is always an
        // unpaired low surrogate): the text stops being a valid prefix right there.
        const auto rest = static_cast<std::uint32_t>(4 * (5 - escape_));
        const std::uint32_t lo = unicode_ << rest, hi = lo + ((1U << rest) - 1);
        const bool low_only = lo >= 0xDC00 && hi <= 0xDFFF;
        const bool some_low = hi >= 0xDC00 && lo <= 0xDFFF;
        if (surrogate_ ? !some_low : low_only) return fail(i, "unpaired surrogate in \\u escape");
        return ++escape_, true;
      }
      escape_ = 0;
      if (surrogate_) {
        if (unicode_ < 0xDC00 || unicode_ > 0xDFFF)
          return fail(i, "unpaired surrogate in \\u escape");
        surrogate_ = 0;
      } else if (unicode_ >= 0xD800 && unicode_ <= 0xDBFF) {
        surrogate_ = unicode_;
        escape_ = 6;
      } else if (unicode_ >= 0xDC00 && unicode_ <= 0xDFFF) {
        return fail(i, "unpaired surrogate in \\u escape");
      }
      return true;
    }
    if (c == '\\') return escape_ = 1, true;
    if (c == '"') return end_string(i);
    if (c < 0x80) return true;
    // A UTF-8 lead byte: the first continuation byte's range excludes overlongs and surrogates.
    const utf8_lead lead = utf8_lead_of(c);
    if (lead.length < 2)
      return fail_with(i, [&] { return "invalid UTF-8 in string (" + show(c) + ")"; });
    utf8_need_ = static_cast<int>(lead.length) - 1;
    utf8_lo_ = lead.lo;
    utf8_hi_ = lead.hi;
    return true;
  }

  /// The string that started at `string_begin_` ends with the quote at `i`. A key is checked
  /// against the keys of its object (after unescaping) and kept until the object closes.
  bool end_string(std::size_t i) {
    if (!is_key_) {
      value_done();
      return true;
    }
    if (live_levels() == 0)
      return fail(string_begin_, "internal: the validator forgot this object");
    const std::size_t offset = key_bytes_.size();
    const std::string_view raw = text_.substr(string_begin_ + 1, i - string_begin_ - 1);
    if (raw.find('\\') == std::string_view::npos) {
      key_bytes_.append(raw);
    } else {
      unescape_string(raw, key_bytes_);
    }
    const std::string_view key = std::string_view(key_bytes_).substr(offset);
    level& l = stack_.back();
    const std::size_t first = keys_first_ + (l.keys_begin - dropped_keys_);  // in keys_
    const std::size_t count = keys_.size() - first;
    constexpr std::size_t linear_limit = 16;
    bool duplicate = false;
    if (l.index) {
      duplicate = l.index->count(std::string(key)) != 0;
    } else {
      const std::uint64_t head = head_of(key);
      for (std::size_t k = first; k < keys_.size() && !duplicate; ++k)
        duplicate = keys_[k].head == head && keys_[k].size == key.size() &&
                    (key.size() <= 8 || key_at(k) == key);
    }
    if (duplicate) {
      fail_with(string_begin_, [&] { return "duplicate key \"" + printable(key) + "\""; });
      key_bytes_.resize(offset);
      return false;
    }
    keys_.push_back(key_entry{offset, key.size(), head_of(key)});
    if (l.index) {
      l.index->emplace(key);
    } else if (count + 1 > linear_limit) {
      l.index = std::make_unique<std::unordered_set<std::string>>();
      for (std::size_t k = first; k < keys_.size(); ++k) l.index->emplace(key_at(k));
    }
    state_ = state::colon;
    return true;
  }

  /// A key as messages show it: at most 60 bytes, control characters escaped.
  static std::string printable(std::string_view key) {
    std::string out;
    for (char ch : key.substr(0, 60)) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == '"' || ch == '\\') {
        out += '\\';
        out += (ch == '"' || ch == '\\') ? ch : '?';
      } else {
        out += ch;
      }
    }
    if (key.size() > 60) out += "...";
    return out;
  }

  // --- numbers and literals ---------------------------------------------------------------

  void begin_number(std::size_t i, number_state s) noexcept {
    state_ = state::number;
    number_ = s;
    number_begin_ = i;
  }

  /// Takes a byte that continues the number; false when the byte is not part of it.
  bool number_byte(unsigned char c) noexcept {
    const bool digit = c >= '0' && c <= '9';
    switch (number_) {
      case number_state::minus:
        if (c == '0') return number_ = number_state::zero, true;
        if (digit) return number_ = number_state::integer, true;
        return false;
      case number_state::zero:
        if (c == '.') return number_ = number_state::dot, true;
        if (c == 'e' || c == 'E') return number_ = number_state::exp, true;
        return false;
      case number_state::integer:
        if (digit) return true;
        if (c == '.') return number_ = number_state::dot, true;
        if (c == 'e' || c == 'E') return number_ = number_state::exp, true;
        return false;
      case number_state::dot:
        if (digit) return number_ = number_state::fraction, true;
        return false;
      case number_state::fraction:
        if (digit) return true;
        if (c == 'e' || c == 'E') return number_ = number_state::exp, true;
        return false;
      case number_state::exp:
        if (c == '+' || c == '-') return number_ = number_state::exp_sign, true;
        if (digit) return number_ = number_state::exponent, true;
        return false;
      case number_state::exp_sign:
        if (digit) return number_ = number_state::exponent, true;
        return false;
      case number_state::exponent: return digit;
    }
    return false;
  }

  /// The number that began at `number_begin_` ends before `end`: it is remembered when it may
  /// be beyond a double.
  void number_done(std::size_t end) noexcept {
    if (number_ == number_state::exponent || end - number_begin_ >= 300)
      last_big_number_ = number_begin_;
  }

  [[nodiscard]] bool number_complete() const noexcept {
    return number_ == number_state::zero || number_ == number_state::integer ||
           number_ == number_state::fraction || number_ == number_state::exponent;
  }

  void begin_literal(std::string_view word) noexcept {
    state_ = state::literal;
    literal_ = word;
    literal_pos_ = 1;
  }

  bool literal_byte(std::size_t i, unsigned char c) {
    if (c != static_cast<unsigned char>(literal_[literal_pos_])) {
      std::size_t start = i - literal_pos_;
      return unexpected(start, static_cast<unsigned char>(text_[start]), "a value");
    }
    if (++literal_pos_ == literal_.size()) value_done();
    return true;
  }

  std::string_view text_;
  std::size_t max_depth_ = std::numeric_limits<std::size_t>::max();
  std::vector<level> stack_;        // the open containers: stack_[stack_first_..] are followed
  std::size_t stack_first_ = 0;     // the outer ones before it are forgotten (forget_outer)
  std::vector<key_entry> keys_;     // the keys of the open objects: keys_[keys_first_..]
  std::size_t keys_first_ = 0;      // (those before belong to forgotten objects)
  std::string key_bytes_;           // the keys' bytes, unescaped, in order
  std::size_t dropped_levels_ = 0;  // outer containers forgotten (forget_outer)
  std::size_t dropped_keys_ = 0;    // and their keys
  state state_ = state::value;
  number_state number_ = number_state::zero;
  std::string_view literal_;
  std::size_t literal_pos_ = 0;
  bool is_key_ = false;
  int escape_ = 0;
  std::uint32_t unicode_ = 0;
  std::uint32_t surrogate_ = 0;
  int utf8_need_ = 0;
  unsigned char utf8_lo_ = 0x80;
  unsigned char utf8_hi_ = 0xBF;
  std::size_t string_begin_ = 0;
  bool failed_ = false;
  bool started_ = false;
  std::size_t error_offset_ = 0;
  std::size_t fault_offset_ = 0;  // what the reason is about (a trailing comma: the comma)
  std::size_t comma_ = 0;         // the last comma after a value in a container
  std::string reason_;
  bool quiet_ = false;
  bool relaxed_ = false;         // relax_strings()
  bool raw_whitespace_ = false;  // allow_raw_whitespace()
  bool strict_string_ = false;   // this string is an object's first key
  std::size_t last_raw_ = no_raw;
  std::size_t last_bad_raw_ = no_raw;
  std::size_t number_begin_ = 0;
  std::size_t last_big_number_ = no_raw;
};

/// What `[b, e)` holds as one JSON value: a whole value, a valid prefix of one, neither, or
/// nothing but JSON white space.
enum class value_shape { complete, prefix, invalid, blank };

/// Runs the validator over `[b, e)` (JSON white space around the value allowed). `[vb, ve)` is
/// the text without the white space around it.
inline value_shape shape_of(validator& v, std::string_view text, std::size_t b, std::size_t e,
                            std::size_t max_depth, std::size_t& vb, std::size_t& ve,
                            bool quiet = true) {
  while (b < e && is_json_ws(text[b])) ++b;
  vb = b;
  ve = e;
  while (ve > vb && is_json_ws(text[ve - 1])) --ve;
  if (vb == ve) return value_shape::blank;
  v.reset(text, max_depth, quiet);
  for (std::size_t i = b; i < e; ++i) {
    if (v.in_plain_string()) {  // a string's plain text, as a run
      i = next_in_string(text, i, e, true);
      if (i == e) break;
    }
    if (!v.feed(i)) return value_shape::invalid;
  }
  return v.finish(e) ? value_shape::complete : value_shape::prefix;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED
