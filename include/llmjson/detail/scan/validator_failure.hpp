// llmjson: the validator's failure, where a text stops being a valid JSON prefix (§1) and why
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_VALIDATOR_FAILURE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_VALIDATOR_FAILURE_HPP_INCLUDED

#include <cstddef>
#include <string>
#include <string_view>

#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// The validator's first failure: the byte at which the text stopped being a valid JSON prefix,
/// the byte its reason is about, and the reason. A quiet record keeps no reason: the brace scan
/// runs quiet (a reason is rebuilt for the few spans reported), so no string is built per span.
class failure_record {
 public:
  void reset(bool quiet) {
    quiet_ = quiet;
    failed_ = false;
    error_offset_ = 0;
    fault_offset_ = 0;
    reason_.clear();
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] std::size_t error_offset() const noexcept { return error_offset_; }
  [[nodiscard]] std::size_t fault_offset() const noexcept { return fault_offset_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

  /// Fails at `i` for `why`. Returns false.
  bool fail(std::size_t i, std::string_view why) {
    failed_ = true;
    error_offset_ = fault_offset_ = i;
    if (!quiet_) reason_.assign(why);
    return false;
  }

  /// As `fail`, with a reason that `make()` builds only when someone will read it.
  template <class Make>
  bool fail_with(std::size_t i, Make make) {
    failed_ = true;
    error_offset_ = fault_offset_ = i;
    if (!quiet_) reason_ = make();
    return false;
  }

  /// The reason is about the byte at `at`, not the one that failed (a trailing comma: the
  /// text fails only at the bracket after it, maybe lines later).
  void blame(std::size_t at) noexcept { fault_offset_ = at; }

 private:
  bool failed_ = false;
  bool quiet_ = false;
  std::size_t error_offset_ = 0;
  std::size_t fault_offset_ = 0;  // what the reason is about
  std::string reason_;
};

/// The words of the validator's reasons, for a person to act on: `trailing comma`,
/// `invalid literal True (Python; JSON has true, false, null)`. Built only when a reason is kept.
struct failure_words {
  /// A byte as messages show it: `'x'`, or `byte 0x0A` when it is not printable ASCII.
  static std::string show(unsigned char c) {
    if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
    return std::string("byte 0x") + hex_digit(c >> 4) + hex_digit(c);
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

  /// Why a raw control character makes a string invalid: `a raw line break in a string`.
  static std::string raw_control(unsigned char c) {
    if (c == '\n' || c == '\r') return "a raw line break in a string";
    if (c == '\t') return "a raw tab in a string";
    return std::string("a raw control character (U+00") + hex_digit(c >> 4) + hex_digit(c) +
           ") in a string";
  }

  /// The word that starts at `text[i]` (letters, digits, '_'), at most 24 bytes: for "True",
  /// "NaN".
  static std::string word_at(std::string_view text, std::size_t i) {
    std::size_t j = i;
    while (j < text.size() && j - i < 24) {
      if (!is_word_byte(text[j])) break;
      ++j;
    }
    return std::string(text.substr(i, j - i));
  }

  /// Where a key should start, `c = text[i]` starts a word: `{name: 1}` has an unquoted key.
  static std::string unquoted_key(std::string_view text, std::size_t i, unsigned char c) {
    std::string w = word_at(text, i);
    return "unquoted key " + (w.empty() ? std::string(1, static_cast<char>(c)) : w) +
           " (keys take double quotes)";
  }

  /// Why `c = text[i]` cannot be where `wanted` was: the common mistakes by name.
  static std::string unexpected(std::string_view text, std::size_t i, unsigned char c,
                                std::string_view wanted) {
    std::string why;
    if (c == '\'') {
      why = "single quotes are not JSON strings";
    } else if (c == '/') {
      why = "comments are not JSON";
    } else if (is_word_start(static_cast<char>(c))) {
      std::string w = word_at(text, i);
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
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_VALIDATOR_FAILURE_HPP_INCLUDED
