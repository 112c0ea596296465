// llmjson: the validator's strings (§1 Valid JSON: escapes, no raw control character, valid UTF-8,
// no unpaired surrogate; §3 The scan, Raw controls: the raw controls a frame's strings may hold)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_STRINGS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_STRINGS_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <string>

#include <llmjson/detail/scan/validator_failure.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// Reads a string's bytes after its opening quote, one at a time, up to the closing quote: the
/// escapes (a `\u` surrogate paired), raw control characters and UTF-8. It fails at the first
/// byte after which no completion is valid. The validator's inline part takes the plain bytes
/// (`plain()`: printable ASCII other than `"` and `\\`) without it.
class string_reader {
 public:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  /// What a byte did: taken, failed the text, or closed the string.
  enum class step : std::uint8_t { taken, failed, closed };

  void reset() noexcept {
    relaxed_ = false;
    raw_whitespace_ = false;
    last_raw_ = none;
    last_bad_raw_ = none;
  }
  /// Reads strings as the frame scan does (see `validator::relax_strings`).
  void relax() noexcept { relaxed_ = true; }
  /// Reads strings as a closed frame is judged (see `validator::allow_raw_whitespace`).
  void allow_raw_whitespace() noexcept { raw_whitespace_ = true; }
  /// Relaxed: the offset of the last raw control character taken, or `none`.
  [[nodiscard]] std::size_t last_raw() const noexcept { return last_raw_; }
  /// Relaxed: the offset of the last raw control character that no frame may hold, or `none`.
  [[nodiscard]] std::size_t last_bad_raw() const noexcept { return last_bad_raw_; }

  /// A string starts with the quote at `i`. A `strict` one (an object's first key) is read
  /// strictly even when strings are relaxed, as the scan reads a brace frame's first string.
  void begin(std::size_t i, bool is_key, bool strict) noexcept {
    strict_ = strict;
    is_key_ = is_key;
    escape_ = 0;
    utf8_need_ = 0;
    surrogate_ = 0;
    begin_ = i;
    backslash_ = false;
  }
  [[nodiscard]] bool is_key() const noexcept { return is_key_; }
  /// The string so far holds a backslash (its text is not its value).
  [[nodiscard]] bool had_backslash() const noexcept { return backslash_; }
  /// The offset of the string's opening quote.
  [[nodiscard]] std::size_t begin_offset() const noexcept { return begin_; }
  /// Nothing is pending (no escape, UTF-8 sequence or surrogate): a plain byte is just taken.
  [[nodiscard]] bool plain() const noexcept { return escape_ == 0 && utf8_need_ == 0; }

  /// Takes `c`, the string's byte at `i`; a failure is recorded in `failure`.
  step take(std::size_t i, unsigned char c, failure_record& failure) {
    if (utf8_need_) return continuation_byte(i, c, failure);
    if (c < 0x20) {
      if (relaxed_ && !strict_ && escape_ <= 1) return relaxed_control(i, c);
      if (raw_whitespace_ && !strict_ && escape_ == 0 && (c == '\n' || c == '\r' || c == '\t'))
        return step::taken;
      // Relaxed, inside a \u escape: an ordinary byte that is no hex digit (below).
      if (!relaxed_ || strict_) {
        failure.fail_with(i, [&] { return failure_words::raw_control(c); });
        return step::failed;
      }
    }
    if (escape_ >= 6) return after_high_surrogate(i, c, failure);
    if (escape_ == 1) return escaped(i, c, failure);
    if (escape_ >= 2) return unicode_digit(i, c, failure);
    if (c == '\\') return escape_ = 1, backslash_ = true, step::taken;
    if (c == '"') return step::closed;
    if (c < 0x80) return step::taken;
    return lead_byte(i, c, failure);
  }

 private:
  static step unpaired_surrogate(std::size_t i, failure_record& failure) {
    failure.fail(i, "unpaired surrogate in \\u escape");
    return step::failed;
  }
  static step invalid_utf8(std::size_t i, unsigned char c, failure_record& failure) {
    failure.fail_with(i,
                      [&] { return "invalid UTF-8 in string (" + failure_words::show(c) + ")"; });
    return step::failed;
  }

  /// Relaxed, a raw control character `c` at `i`: a string byte, or an escaped one.
  step relaxed_control(std::size_t i, unsigned char c) noexcept {
    last_raw_ = i;
    // Only a raw LF, CR or tab on its own is a frame's leniency (§3 Raw controls).
    if (escape_ == 1 || (c != '\n' && c != '\r' && c != '\t')) last_bad_raw_ = i;
    escape_ = 0;
    return step::taken;
  }

  /// The byte after a backslash.
  step escaped(std::size_t i, unsigned char c, failure_record& failure) {
    if (is_short_escape(static_cast<char>(c))) {
      escape_ = 0;
      return step::taken;
    }
    if (c == 'u') {
      escape_ = 2;
      unicode_ = 0;
      return step::taken;
    }
    failure.fail_with(i, [&] {
      return "invalid escape \\" + std::string(1, static_cast<char>(c)) + " in string";
    });
    return step::failed;
  }

  /// A hex digit of a `\u` escape: the text fails at the first digit after which no completion
  /// pairs a surrogate (`\udc` is always an unpaired low surrogate).
  step unicode_digit(std::size_t i, unsigned char c, failure_record& failure) {
    const int h = hex_value(static_cast<char>(c));
    if (h < 0) {
      failure.fail(i, "invalid \\u escape: expected 4 hex digits");
      return step::failed;
    }
    unicode_ = (unicode_ << 4) | static_cast<std::uint32_t>(h);
    if (escape_ < 5) {
      const auto rest = static_cast<std::uint32_t>(4 * (5 - escape_));
      const std::uint32_t lo = unicode_ << rest, hi = lo + ((1U << rest) - 1);
      const bool low_only = lo >= 0xDC00 && hi <= 0xDFFF;
      const bool some_low = hi >= 0xDC00 && lo <= 0xDFFF;
      if (surrogate_ ? !some_low : low_only) return unpaired_surrogate(i, failure);
      return ++escape_, step::taken;
    }
    escape_ = 0;
    if (surrogate_) {
      if (unicode_ < 0xDC00 || unicode_ > 0xDFFF) return unpaired_surrogate(i, failure);
      surrogate_ = 0;
    } else if (unicode_ >= 0xD800 && unicode_ <= 0xDBFF) {
      surrogate_ = unicode_;
      escape_ = 6;
    } else if (unicode_ >= 0xDC00 && unicode_ <= 0xDFFF) {
      return unpaired_surrogate(i, failure);
    }
    return step::taken;
  }

  /// After a high surrogate's escape, the `\u` of the low one.
  step after_high_surrogate(std::size_t i, unsigned char c, failure_record& failure) {
    if (escape_ == 6 && c == '\\') return escape_ = 7, step::taken;
    if (escape_ == 7 && c == 'u') return escape_ = 2, unicode_ = 0, step::taken;
    return unpaired_surrogate(i, failure);
  }

  /// A UTF-8 lead byte: the first continuation byte's range excludes overlongs and surrogates.
  step lead_byte(std::size_t i, unsigned char c, failure_record& failure) {
    const utf8_lead lead = utf8_lead_of(c);
    if (lead.length < 2) return invalid_utf8(i, c, failure);
    utf8_need_ = static_cast<int>(lead.length) - 1;
    utf8_lo_ = lead.lo;
    utf8_hi_ = lead.hi;
    return step::taken;
  }

  step continuation_byte(std::size_t i, unsigned char c, failure_record& failure) {
    if (c < utf8_lo_ || c > utf8_hi_) return invalid_utf8(i, c, failure);
    utf8_lo_ = 0x80;
    utf8_hi_ = 0xBF;
    --utf8_need_;
    return step::taken;
  }

  // escape_: 0 none; 1 after '\'; 2..5 reading the 4 hex digits of \u;
  // 6 after a high surrogate, wanting '\'; 7 wanting 'u'.
  int escape_ = 0;
  std::uint32_t unicode_ = 0;    // the \u escape's digits so far
  std::uint32_t surrogate_ = 0;  // the high surrogate a low one must follow, or 0
  int utf8_need_ = 0;            // the continuation bytes the UTF-8 sequence still needs
  unsigned char utf8_lo_ = 0x80;
  unsigned char utf8_hi_ = 0xBF;
  bool is_key_ = false;
  bool strict_ = false;
  bool backslash_ = false;
  bool relaxed_ = false;         // relax()
  bool raw_whitespace_ = false;  // allow_raw_whitespace()
  std::size_t begin_ = 0;
  std::size_t last_raw_ = none;
  std::size_t last_bad_raw_ = none;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_STRINGS_HPP_INCLUDED
