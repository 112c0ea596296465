// llmjson: an incremental JSON validator (§1 Valid JSON), one byte at a time, no recursion
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/validator_containers.hpp>
#include <llmjson/detail/scan/validator_failure.hpp>
#include <llmjson/detail/scan/validator_strings.hpp>
#include <llmjson/detail/scan/validator_tokens.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// Validates JSON text incrementally: `feed(i)` takes the byte `text[i]`. It accepts exactly
/// RFC 8259 JSON whose objects have unique keys (compared after unescaping), whose strings are
/// valid UTF-8 without unpaired surrogates, nested at most `max_depth` levels. It tells at every
/// byte whether what it has seen is a valid prefix, and stops at the first error with its
/// offset and a reason a person can act on ("trailing comma", `duplicate key "a"`).
///
/// The brace scanner feeds it the bytes of nested `{...}` spans and reads `depth()` to settle
/// every span in one pass. Memory: the open containers and the keys of open objects.
///
/// It holds the state machine of the structure (values, containers, commas, colons) and the
/// inline fast path; each part checks one rule and is a member: `open_containers` (nesting and
/// unique keys), `string_reader`, `number_reader` and `literal_reader` (the tokens), and
/// `failure_record` (where and why it failed, in `failure_words`).
class validator {
 public:
  validator() = default;

  /// Starts over on a new value; offsets and reasons refer to `text`.
  /// A quiet validator tells only where the text stops being valid, not why: the brace scan
  /// runs quiet (a reason is rebuilt for the few spans reported), so no string is built per span.
  void reset(std::string_view text, std::size_t max_depth = std::numeric_limits<std::size_t>::max(),
             bool quiet = false) {
    text_ = text;
    containers_.clear(max_depth);
    strings_.reset();
    number_.reset();
    failure_.reset(quiet);
    state_ = state::value;
    comma_ = 0;
    started_ = false;
  }

  /// Points at the same text, moved or grown (a stream's buffer): offsets keep their meaning.
  void rebind(std::string_view text) noexcept { text_ = text; }

  /// Reads strings as the frame scan does (§3 The scan, the valid-prefix tests of a
  /// frame): in every string but an object's first key, a raw control character is an ordinary
  /// string byte, alone or right after a backslash (the pair stands for that character). Such
  /// a text is never valid JSON: `last_raw()` says where the last such byte was, so a closed
  /// value that holds one is known to be invalid. Set after `reset`, before the first byte.
  void relax_strings() noexcept { strings_.relax(); }
  /// Reads strings as a closed frame is judged (§3 Raw controls): in every string but an
  /// object's first key, a raw LF, CR or tab on its own is a string byte, so the validator
  /// stops at the defect that keeps such a frame malformed. Set after `reset`.
  void allow_raw_whitespace() noexcept { strings_.allow_raw_whitespace(); }
  static constexpr std::size_t no_raw = static_cast<std::size_t>(-1);
  static_assert(string_reader::none == no_raw && number_reader::none == no_raw);
  /// With `relax_strings`: the offset of the last raw control character taken in a string,
  /// or `no_raw`.
  [[nodiscard]] std::size_t last_raw() const noexcept { return strings_.last_raw(); }
  /// With `relax_strings`: the offset of the last raw control character taken in a string that
  /// no frame may hold even with raw controls (§3 Raw controls): one other than LF, CR and tab,
  /// or one right after a backslash; or `no_raw`.
  [[nodiscard]] std::size_t last_bad_raw() const noexcept { return strings_.last_bad_raw(); }
  /// The offset of the last number taken that nlohmann may not hold (one with an exponent, or
  /// of 300 bytes or more, that `surely_fits` does not let through), or `no_raw`: where there is
  /// none, a span's value needs no check of its numbers (`numbers_fit`).
  [[nodiscard]] std::size_t last_big_number() const noexcept { return number_.last_big(); }

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
      if (strings_.plain() && c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
        return !failure_.failed();
    } else if (state_ <= state::done && is_json_ws(static_cast<char>(c))) {
      return !failure_.failed();
    } else if (state_ == state::number && c >= '0' && c <= '9' && number_.in_digits()) {
      return !failure_.failed();
    }
    return feed_slow(i, c);
  }

  /// Takes `text[i, e)`, as `feed` would byte by byte, a token at a time: white space, a
  /// string's plain text, a number's digits and the closing quote of a plain string are taken
  /// here without a call a byte. Returns `e`, or the offset of the byte at which the text
  /// stopped being a valid prefix (then `failed()`).
  std::size_t run(std::size_t i, std::size_t e) { return run_to<false>(i, e); }
  /// `run`, stopping right after the top-level value (then `complete()`): returns the offset
  /// after its last byte, or as `run` does.
  std::size_t run_value(std::size_t i, std::size_t e) { return run_to<true>(i, e); }

 private:
  /// `run` and `run_value`.
  template <bool StopWhenDone>
  std::size_t run_to(std::size_t i, const std::size_t e) {
    const char* const t = text_.data();
    while (i < e) {
      if (failure_.failed()) return i;
      if constexpr (StopWhenDone)
        if (state_ == state::done) return i;
      switch (state_) {
        case state::string:
          if (strings_.plain()) {
            i = next_in_string(text_, i, e, true);
            if (i == e) return e;
            if (t[i] == '"') {
              if (!end_string(i)) return i;
              ++i;
              continue;
            }
          }
          break;
        case state::number:
          if (number_.in_digits()) {
            while (i < e && t[i] >= '0' && t[i] <= '9') ++i;
            if (i == e) return e;
          }
          break;
        case state::literal: break;
        default: {  // between tokens: the commonest taken here, the rest by `structural_byte`
          const auto c = static_cast<unsigned char>(t[i]);
          if (is_json_ws(static_cast<char>(c))) {
            ++i;
            continue;
          }
          const std::size_t taken = between_tokens(i, e, c);
          if (taken == 0 && !structural_byte(i, c)) return i;
          i += taken == 0 ? 1 : taken;
          continue;
        }
      }
      if (!feed_slow(i, static_cast<unsigned char>(t[i]))) return i;
      ++i;
    }
    return e;
  }

 public:
  /// Ends the input at `end`. Returns true when a whole value was seen and nothing after it
  /// but white space; otherwise records why ("unexpected end").
  bool finish(std::size_t end) {
    if (failure_.failed()) return false;
    if (state_ == state::number && number_.complete() && depth() == 0) {
      number_.done(text_, end);
      value_done();
    }
    if (state_ == state::done) return true;
    return fail(end, started_ ? "the text ends before the value does" : "no value");
  }

  [[nodiscard]] bool failed() const noexcept { return failure_.failed(); }
  /// What `finish` would return now, without finishing: a whole value and only white space
  /// after it (a number at the root complete as it stands).
  [[nodiscard]] bool would_finish() const noexcept {
    if (failure_.failed()) return false;
    return state_ == state::done || (state_ == state::number && number_.complete() && depth() == 0);
  }
  /// A whole top-level value has been seen (white space may follow).
  [[nodiscard]] bool complete() const noexcept {
    return !failure_.failed() && state_ == state::done;
  }
  /// A value has begun (a byte other than white space was taken).
  [[nodiscard]] bool started() const noexcept { return started_; }
  /// The number of open containers (objects and arrays).
  [[nodiscard]] std::size_t depth() const noexcept { return containers_.depth(); }

  /// Forgets the outermost open containers, leaving `keep` (or all there are): nobody will ask
  /// whether the text is valid outside them (the frames there are dead), so their state is
  /// dropped, keeping the memory bounded however deep the text nests. Closing one of them
  /// later fails the validator. `depth()` still counts them.
  void forget_outer(std::size_t keep) { containers_.forget_outer(keep); }

  /// In a string, with nothing pending (no escape, UTF-8 sequence or surrogate): bytes that are
  /// printable ASCII other than `"` and `\\` can be taken as a run (`take_plain`).
  [[nodiscard]] bool in_plain_string() const noexcept {
    return !failure_.failed() && state_ == state::string && strings_.plain();
  }
  /// Takes `text[from, to)`, all printable ASCII other than `"` and `\\`, in a plain string:
  /// nothing to do (a key's bytes are read from the text when it ends).
  void take_plain(std::size_t, std::size_t) noexcept {}
  /// The byte at which the text stopped being a valid prefix.
  [[nodiscard]] std::size_t error_offset() const noexcept { return failure_.error_offset(); }
  /// The byte the reason is about, for messages: `error_offset()`, but for a trailing comma the
  /// comma itself (the text fails only at the bracket after it, maybe lines later).
  [[nodiscard]] std::size_t fault_offset() const noexcept { return failure_.fault_offset(); }
  [[nodiscard]] const std::string& reason() const noexcept { return failure_.reason(); }

  /// Marks the validator failed at `i` for `why`. Returns false.
  bool fail(std::size_t i, std::string_view why) { return failure_.fail(i, why); }

 private:
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

  /// `run`'s quick path between tokens: takes the byte `c` at `i` (and a whole literal), when
  /// it is a string's opening quote, a colon or comma where one belongs, a number's first digit
  /// or a literal in full before `e`; returns the bytes taken, 0 for the others.
  std::size_t between_tokens(std::size_t i, std::size_t e, unsigned char c) {
    const bool value = state_ <= state::value_after_comma;
    switch (c) {
      case '"':
        if (value) {
          started_ = true;
          begin_string(i, false);
          return 1;
        }
        if (state_ == state::key_or_close || state_ == state::key_after_comma) {
          begin_string(i, true);
          return 1;
        }
        return 0;
      case ':':
        if (state_ != state::colon) return 0;
        state_ = state::value;
        return 1;
      case ',':
        if (state_ != state::comma_or_close || containers_.live() == 0) return 0;
        comma_ = i;
        state_ =
            containers_.innermost_is_object() ? state::key_after_comma : state::value_after_comma;
        return 1;
      case 't':
      case 'f':
      case 'n': {
        if (!value) return 0;
        const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (e - i < word.size() || text_.compare(i, word.size(), word) != 0) return 0;
        started_ = true;
        value_done();
        return word.size();
      }
      default:
        if (!value || c < '1' || c > '9') return 0;
        started_ = true;
        begin_number(i, number_reader::part::integer);
        return 1;
    }
  }

  /// `feed` for the bytes its inline part does not take.
  bool feed_slow(std::size_t i, unsigned char c) {
    if (failure_.failed()) return false;
    for (;;) {
      switch (state_) {
        case state::string: return string_byte(i, c);
        case state::number:
          if (number_.take(c)) return true;
          if (number_.leading_zero(c)) return fail(i, "leading zero in number");
          if (!number_.complete()) return fail(i, "incomplete number");
          number_.done(text_, i);
          value_done();
          continue;  // the byte that ended the number is read in the new state
        case state::literal: return literal_byte(i, c);
        default: return structural_byte(i, c);
      }
    }
  }

  void value_done() noexcept { state_ = depth() == 0 ? state::done : state::comma_or_close; }

  bool open(std::size_t i, bool is_object) {
    if (!containers_.open(is_object))
      return failure_.fail_with(i, [&] {
        return "nesting deeper than " + std::to_string(containers_.max_depth()) + " levels";
      });
    state_ = is_object ? state::key_or_close : state::value_or_close;
    return true;
  }

  bool close(std::size_t i) {
    if (containers_.live() == 0)
      return fail(i, "internal: a container the validator forgot closes");
    containers_.close();
    value_done();
    return true;
  }

  bool begin_value(std::size_t i, unsigned char c) {
    started_ = true;
    switch (c) {
      case '{': return open(i, true);
      case '[': return open(i, false);
      case '"': begin_string(i, false); return true;
      case 't': begin_literal("true"); return true;
      case 'f': begin_literal("false"); return true;
      case 'n': begin_literal("null"); return true;
      case '-': begin_number(i, number_reader::part::minus); return true;
      case '0': begin_number(i, number_reader::part::zero); return true;
      default:
        if (c >= '1' && c <= '9') {
          begin_number(i, number_reader::part::integer);
          return true;
        }
        return unexpected(i, c, "a value");
    }
  }

  /// The closing bracket at `i` follows a comma (and white space only): the text fails here, and
  /// the fault is the comma.
  bool trailing_comma(std::size_t i) {
    fail(i, "trailing comma");
    failure_.blame(comma_);
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
      case state::comma_or_close: return after_value(i, c);
      case state::done:
        return failure_.fail_with(
            i, [&] { return "unexpected " + failure_words::show(c) + " after the value"; });
      default: return fail(i, "internal: bad state");
    }
  }

  /// `c` follows a value in a container: a comma or the container's closing bracket.
  bool after_value(std::size_t i, unsigned char c) {
    if (containers_.live() == 0) return fail(i, "internal: the validator forgot this container");
    const bool obj = containers_.innermost_is_object();
    if (c == ',') {
      comma_ = i;
      state_ = obj ? state::key_after_comma : state::value_after_comma;
      return true;
    }
    if (c == (obj ? '}' : ']')) return close(i);
    if (c == (obj ? ']' : '}'))
      return failure_.fail_with(i, [&] {
        return "mismatched " + failure_words::show(c) + " (an " + (obj ? "object" : "array") +
               " is open)";
      });
    return unexpected(i, c, obj ? "',' or '}'" : "',' or ']'");
  }

  bool unexpected(std::size_t i, unsigned char c, std::string_view wanted) {
    return failure_.fail_with(i, [&] { return failure_words::unexpected(text_, i, c, wanted); });
  }

  /// Where a key should start: `{name: 1}` has an unquoted key.
  bool unexpected_key(std::size_t i, unsigned char c, std::string_view wanted) {
    if (is_word_start(static_cast<char>(c)) || c == '$')
      return failure_.fail_with(i, [&] { return failure_words::unquoted_key(text_, i, c); });
    return unexpected(i, c, wanted);
  }

  void begin_string(std::size_t i, bool is_key) {
    // An object's first key is read strictly even when strings are relaxed (as the scan reads
    // a brace frame's first string).
    strings_.begin(i, is_key, is_key && state_ == state::key_or_close);
    state_ = state::string;
  }

  /// Out of line, as `feed_slow`'s other arms: inlined there, the key check would make every
  /// call of `feed_slow` save registers and set up a frame.
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::noinline]]
#endif
  bool
  string_byte(std::size_t i, unsigned char c) {
    switch (strings_.take(i, c, failure_)) {
      case string_reader::step::taken: return true;
      case string_reader::step::closed: return end_string(i);
      default: return false;
    }
  }

  /// The string ends with the quote at `i`. A key is checked against the keys of its object
  /// (after unescaping) and kept until the object closes. Out of line too: inlined, the key
  /// check would make `string_byte` save registers and set up a frame for every byte it takes.
#if defined(__GNUC__) || defined(__clang__)
  [[gnu::noinline]]
#endif
  bool
  end_string(std::size_t i) {
    if (!strings_.is_key()) {
      value_done();
      return true;
    }
    const std::size_t begin = strings_.begin_offset();
    if (containers_.live() == 0) return fail(begin, "internal: the validator forgot this object");
    if (!containers_.add_key(text_, begin + 1, i, strings_.had_backslash()))
      return failure_.fail_with(begin, [&] {
        std::string key;
        unescape_string(text_.substr(begin + 1, i - begin - 1), key);
        return "duplicate key \"" + failure_words::printable(key) + "\"";
      });
    state_ = state::colon;
    return true;
  }

  void begin_number(std::size_t i, number_reader::part p) noexcept {
    state_ = state::number;
    number_.begin(i, p);
  }

  void begin_literal(std::string_view word) noexcept {
    state_ = state::literal;
    literal_.begin(word);
  }

  bool literal_byte(std::size_t i, unsigned char c) {
    if (!literal_.next_is(c)) {
      const std::size_t start = i - literal_.taken();
      return unexpected(start, static_cast<unsigned char>(text_[start]), "a value");
    }
    if (literal_.take()) value_done();
    return true;
  }

  std::string_view text_;
  open_containers containers_;
  state state_ = state::value;
  number_reader number_;
  literal_reader literal_;
  string_reader strings_;
  failure_record failure_;
  bool started_ = false;
  std::size_t comma_ = 0;  // the last comma after a value in a container
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
  if (v.run(b, e) != e || v.failed()) return value_shape::invalid;
  return v.finish(e) ? value_shape::complete : value_shape::prefix;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_HPP_INCLUDED
