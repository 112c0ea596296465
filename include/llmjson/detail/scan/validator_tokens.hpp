// llmjson: the validator's numbers and literals (§1 Valid JSON: numbers, true, false, null)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_TOKENS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_TOKENS_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace llmjson::detail {

/// Whether a double surely holds the number token `t` (which the validator accepted): its
/// magnitude is below 10^(D + E), D its digits before the point less leading zeros and E its
/// exponent, and nlohmann refuses a number only when it rounds beyond the largest double (about
/// 1.8e308; one that underflows is held, as zero or a subnormal). So D + E <= 307 holds;
/// anything else (or an exponent of 10 digits and more) is left to nlohmann itself.
constexpr bool surely_fits(std::string_view t) noexcept {
  std::size_t k = 0;
  if (k < t.size() && t[k] == '-') ++k;
  while (k < t.size() && t[k] == '0') ++k;
  long long digits = 0;
  for (; k < t.size() && t[k] >= '0' && t[k] <= '9'; ++k) ++digits;
  if (k < t.size() && t[k] == '.')
    for (++k; k < t.size() && t[k] >= '0' && t[k] <= '9'; ++k) {
    }
  if (k == t.size()) return digits < 300;  // no exponent: the validator's own bound
  ++k;                                     // `e` or `E`
  bool negative = false;
  if (k < t.size() && (t[k] == '+' || t[k] == '-')) negative = t[k++] == '-';
  long long exponent = 0;
  std::size_t exponent_digits = 0;
  for (; k < t.size() && t[k] >= '0' && t[k] <= '9'; ++k, ++exponent_digits)
    if (exponent_digits < 10) exponent = exponent * 10 + (t[k] - '0');  // then only counted
  if (exponent_digits == 0 || exponent_digits > 9) return false;
  return digits + (negative ? -exponent : exponent) <= 307;
}

/// Reads a number a byte at a time: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
/// It cannot see where a number ends (`12` may go on): the validator ends it at the first byte
/// it does not take. Remembers the last number a double may not hold (`surely_fits` says which
/// surely do: then no check of the span's numbers is needed, `numbers_fit`).
class number_reader {
 public:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  /// Where in the number the bytes taken so far end.
  enum class part : std::uint8_t { minus, zero, integer, dot, fraction, exp, exp_sign, exponent };

  void reset() noexcept { last_big_ = none; }

  /// A number starts at `i` with a byte that leaves it at `p`.
  void begin(std::size_t i, part p) noexcept {
    part_ = p;
    begin_ = i;
  }

  /// In a run of digits that more digits continue: the validator's inline part takes them.
  [[nodiscard]] bool in_digits() const noexcept {
    return part_ == part::integer || part_ == part::fraction || part_ == part::exponent;
  }

  /// Takes a byte that continues the number; false when the byte is not part of it.
  bool take(unsigned char c) noexcept {
    const bool digit = c >= '0' && c <= '9';
    switch (part_) {
      case part::minus:
        if (c == '0') return part_ = part::zero, true;
        if (digit) return part_ = part::integer, true;
        return false;
      case part::zero:
        if (c == '.') return part_ = part::dot, true;
        if (c == 'e' || c == 'E') return part_ = part::exp, true;
        return false;
      case part::integer:
        if (digit) return true;
        if (c == '.') return part_ = part::dot, true;
        if (c == 'e' || c == 'E') return part_ = part::exp, true;
        return false;
      case part::dot:
        if (digit) return part_ = part::fraction, true;
        return false;
      case part::fraction:
        if (digit) return true;
        if (c == 'e' || c == 'E') return part_ = part::exp, true;
        return false;
      case part::exp:
        if (c == '+' || c == '-') return part_ = part::exp_sign, true;
        if (digit) return part_ = part::exponent, true;
        return false;
      case part::exp_sign:
        if (digit) return part_ = part::exponent, true;
        return false;
      case part::exponent: return digit;
    }
    return false;
  }

  /// `c`, which the number did not take, is a digit after a leading zero (`01`).
  [[nodiscard]] bool leading_zero(unsigned char c) const noexcept {
    return part_ == part::zero && c >= '0' && c <= '9';
  }

  /// The bytes taken are a whole number.
  [[nodiscard]] bool complete() const noexcept {
    return part_ == part::zero || part_ == part::integer || part_ == part::fraction ||
           part_ == part::exponent;
  }

  /// The number, in `text`, ends before `end`: it is remembered when it may be beyond a double.
  void done(std::string_view text, std::size_t end) noexcept {
    if ((part_ == part::exponent || end - begin_ >= 300) &&
        !surely_fits(text.substr(begin_, end - begin_)))
      last_big_ = begin_;
  }

  /// The offset of the last number taken that nlohmann may not hold (one with an exponent, or
  /// of 300 bytes or more, that `surely_fits` does not let through), or `none`.
  [[nodiscard]] std::size_t last_big() const noexcept { return last_big_; }

 private:
  part part_ = part::zero;
  std::size_t begin_ = 0;
  std::size_t last_big_ = none;
};

/// Reads `true`, `false` or `null` a byte at a time, once its first byte began it.
class literal_reader {
 public:
  void begin(std::string_view word) noexcept {
    word_ = word;
    taken_ = 1;
  }
  /// How many bytes of the word were taken.
  [[nodiscard]] std::size_t taken() const noexcept { return taken_; }
  /// `c` is the word's next byte.
  [[nodiscard]] bool next_is(unsigned char c) const noexcept {
    return c == static_cast<unsigned char>(word_[taken_]);
  }
  /// Takes the next byte (`next_is` said it is); true when it ends the word.
  bool take() noexcept { return ++taken_ == word_.size(); }

 private:
  std::string_view word_;
  std::size_t taken_ = 0;
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_TOKENS_HPP_INCLUDED
