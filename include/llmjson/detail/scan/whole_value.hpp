// llmjson: a whole object or array read in one pass, when it is plainly valid JSON (§1 Valid
// JSON), before the incremental validator is asked
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_WHOLE_VALUE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_WHOLE_VALUE_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/validator_tokens.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// Reads an object or array whose bytes are all there, in one pass with no state kept between
/// calls, and says where it ends when it is valid JSON by the validator's own rules (§1 Valid
/// JSON: RFC 8259, strict strings, valid UTF-8, paired surrogates, unique keys, nested at most
/// `max_depth` levels). It settles only what is plainly so: a text that is invalid, or that it
/// would need the validator's machinery for (a key with an escape, more than `max_keys` keys in
/// an object, more than `max_nesting` levels, more than `max_open_keys` keys in the open objects
/// together), is left to the validator, which then reads it from the start: so the answer is
/// the validator's whenever one is given, and a text costs at most one more pass. What the
/// incremental validator spends keeping its state between bytes (resumable, with reasons) is
/// not spent here: the frame scan's quick values, whole outputs, long fence bodies and, once
/// the text has ended, fence bodies and answer parts (`prefix_watch`) are read so first.
/// Does not allocate or throw; about 5 KB of room: one per thread (`of_thread`), as `read`
/// calls nothing that could read another value meanwhile.
class whole_value_reader {
 public:
  /// The thread's reader (zeroed once, without a guard: constant-initialized).
  static whole_value_reader& of_thread() noexcept {
    thread_local whole_value_reader reader;
    return reader;
  }

  static constexpr std::size_t max_nesting = 64;     ///< deeper: left to the validator
  static constexpr std::size_t max_keys = 32;        ///< in one object: left to the validator
  static constexpr std::size_t max_open_keys = 256;  ///< in the open objects together

  /// What `read` found.
  struct value {
    std::size_t end = 0;  ///< the offset after the value's last byte; 0: not settled
    bool big = false;     ///< a number nlohmann may not hold (`number_reader::last_big`)
  };

  /// Reads the value at `text[b]` (`{` or `[`; anything else is not settled), all of whose bytes
  /// lie before `e`. The validator reads the text `[b, end)` as one complete value exactly when
  /// this returns that `end`; `big` is then whether it would flag a number.
  value read(std::string_view text, std::size_t b, std::size_t e, std::size_t max_depth) noexcept {
    if (e > text.size()) e = text.size();
    text_ = text;
    e_ = e;
    big_ = false;
    depth_ = 0;
    keys_ = 0;
    const std::size_t limit = max_depth < max_nesting ? max_depth : max_nesting;
    std::size_t p = b;
    if (p >= e || (text[p] != '{' && text[p] != '[')) return {};
    // A goto state machine: each label is where the reading stands; `p` is the next byte.
  value:
    switch (text[p]) {
      case '{':
      case '[': {
        const bool object = text[p] == '{';
        if (depth_ >= limit) return {};
        object_[depth_] = object;
        seen_[depth_] = 0;
        keys_begin_[depth_++] = keys_;  // an array's is never read
        if (!skip_ws(++p)) return {};
        if (text[p] == (object ? '}' : ']')) {
          ++p;
          goto closed;
        }
        if (object) goto key;
        goto value;
      }
      case '"':
        if (!string(p, false)) return {};
        goto after_value;
      case 't':
        if (!word(p, "true")) return {};
        goto after_value;
      case 'f':
        if (!word(p, "false")) return {};
        goto after_value;
      case 'n':
        if (!word(p, "null")) return {};
        goto after_value;
      default:
        if (!number(p)) return {};
        goto after_value;
    }
  key:
    if (text[p] != '"' || !string(p, true) || !skip_ws(p) || text[p] != ':' || !skip_ws(++p))
      return {};
    goto value;
  after_value:
    if (!skip_ws(p)) return {};
    if (text[p] == ',') {
      if (!skip_ws(++p)) return {};
      if (object_[depth_ - 1]) goto key;
      goto value;
    }
    if (text[p] != (object_[depth_ - 1] ? '}' : ']')) return {};
    ++p;
  closed:
    if (object_[--depth_]) keys_ = keys_begin_[depth_];
    if (depth_ == 0) return {p, big_};
    goto after_value;
  }

 private:
  /// Moves `p` past JSON white space; false when the text ends first.
  bool skip_ws(std::size_t& p) const noexcept {
    while (p < e_ && is_json_ws(text_[p])) ++p;
    return p < e_;
  }

  /// The literal `w` at `p`, moving past it.
  bool word(std::size_t& p, std::string_view w) const noexcept {
    if (e_ - p < w.size() || std::memcmp(text_.data() + p, w.data(), w.size()) != 0) return false;
    p += w.size();
    return true;
  }

  /// A number at `p` (RFC 8259's grammar), moving past it; flags one nlohmann may not hold.
  bool number(std::size_t& p) noexcept {
    const char* t = text_.data();
    const std::size_t b = p;
    if (t[p] == '-' && ++p == e_) return false;
    if (t[p] == '0') {
      ++p;
    } else if (t[p] >= '1' && t[p] <= '9') {
      while (++p < e_ && t[p] >= '0' && t[p] <= '9') {
      }
    } else {
      return false;
    }
    if (p < e_ && t[p] == '.') {
      if (++p == e_ || t[p] < '0' || t[p] > '9') return false;
      while (++p < e_ && t[p] >= '0' && t[p] <= '9') {
      }
    }
    bool exponent = false;
    if (p < e_ && (t[p] == 'e' || t[p] == 'E')) {
      exponent = true;
      if (++p < e_ && (t[p] == '+' || t[p] == '-')) ++p;
      if (p == e_ || t[p] < '0' || t[p] > '9') return false;
      while (++p < e_ && t[p] >= '0' && t[p] <= '9') {
      }
    }
    // A number inside a container ends before a byte that is no part of it (the caller reads
    // it: `01` or `1x` are then not settled).
    if ((exponent || p - b >= 300) && !surely_fits(text_.substr(b, p - b))) big_ = true;
    return true;
  }

  /// The four hex digits after the `\u` at `p` (its backslash), or -1.
  [[nodiscard]] long hex4(std::size_t p) const noexcept {
    if (e_ - p < 6 || text_[p + 1] != 'u') return -1;
    long v = 0;
    for (std::size_t k = p + 2; k < p + 6; ++k) {
      const int h = hex_value(text_[k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  /// A string at `p` (its opening quote), moving past its closing quote. `key`: it is a key,
  /// checked against its object's keys as written (and left to the validator when it has an
  /// escape: then its text is not its value).
  bool string(std::size_t& p, bool key) noexcept {
    const std::size_t open = p;
    std::size_t i = p + 1;
    for (;;) {
      i = next_in_string_inlined(text_, i, e_, true);
      if (i >= e_) return false;
      const auto c = static_cast<unsigned char>(text_[i]);
      if (c == '"') break;
      if (c < 0x20) return false;  // a raw control
      if (c >= 0x80) {
        const std::size_t n = utf8_sequence_at(text_, i);
        if (n == 0 || e_ - i < n) return false;
        i += n;
        continue;
      }
      // A backslash: a two-byte escape, or `\u` and four hex digits, a surrogate paired.
      if (key || e_ - i < 2) return false;
      if (is_short_escape(text_[i + 1])) {
        i += 2;
        continue;
      }
      const long v = hex4(i);
      if (v < 0 || (v >= 0xDC00 && v <= 0xDFFF)) return false;
      i += 6;
      if (v >= 0xD800 && v <= 0xDBFF) {
        if (e_ - i < 6 || text_[i] != '\\') return false;
        const long low = hex4(i);
        if (low < 0xDC00 || low > 0xDFFF) return false;
        i += 6;
      }
    }
    p = i + 1;
    if (key) return new_key(std::string_view(text_.data() + open + 1, i - open - 1));
    return true;
  }

  /// A key of the innermost object, without escapes: false when it repeats one of the object's
  /// (or the object has too many to compare so). It is compared with the object's keys only
  /// when one of the same length and last byte was seen in it (`seen_`): most keys are new, and
  /// a loop over all the keys before them ends at a different count each time, which the
  /// branch predictor misses.
  bool new_key(std::string_view k) noexcept {
    const std::size_t first = keys_begin_[depth_ - 1];
    if (keys_ - first >= max_keys || keys_ >= max_open_keys) return false;
    const unsigned char last = k.empty() ? 0 : static_cast<unsigned char>(k.back());
    const std::uint64_t bit = std::uint64_t{1} << ((k.size() * 7 + last) & 63);
    std::uint64_t& seen = seen_[depth_ - 1];
    if (seen & bit) {
      for (std::size_t j = first; j < keys_; ++j)
        if (keys_at_[j].size == k.size() && std::memcmp(keys_at_[j].data, k.data(), k.size()) == 0)
          return false;
    }
    seen |= bit;
    keys_at_[keys_++] = {k.data(), k.size()};
    return true;
  }

  std::string_view text_;
  std::size_t e_ = 0;
  bool big_ = false;
  std::size_t depth_ = 0;
  std::size_t keys_ = 0;  // the keys of the open objects, in `keys`
  struct key_text {
    const char* data;
    std::size_t size;
  };
  bool object_[max_nesting] = {};
  std::size_t keys_begin_[max_nesting] = {};
  std::uint64_t seen_[max_nesting] = {};  // per open object: a bit per key's length and last byte
  key_text keys_at_[max_open_keys] = {};
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_WHOLE_VALUE_HPP_INCLUDED
