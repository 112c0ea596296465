// llmjson: the escapes of schema patterns (what follows a backslash), as the u flag reads them
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_REGEX_ESCAPES_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_REGEX_ESCAPES_HPP_INCLUDED

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <llmjson/detail/schema/regex_cursor.hpp>
#include <llmjson/detail/schema/regex_ranges.hpp>
#include <llmjson/detail/schema/unicode.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// Reads the escape after a backslash: one code point (`\n`, `\u{1F600}`, `\.`) or a class
/// escape, a set of code points (`\d`, `\p{L}`). Keeps the ranges of each `\p{..}` it computed.
class regex_escape_reader {
 public:
  using range_list = unicode::range_list;

  explicit regex_escape_reader(regex_cursor& in) : in_(in) {}

  /// Reads the escape after a backslash (already consumed). Sets either `single` (one code
  /// point) or `set` (a class escape such as \d). `in_class` turns \b into backspace and allows
  /// \-. \b and \B outside a class are the caller's.
  bool read(bool in_class, std::optional<char32_t>& single, std::optional<range_list>& set) {
    if (in_.at_end()) return in_.fail("pattern ends with a backslash");
    const char32_t c = in_.peek();
    ++in_.pos;
    switch (c) {
      case U'd':
      case U'D':
      case U'w':
      case U'W':
      case U's':
      case U'S':
      case U'p':
      case U'P': return read_set(c, set);
      case U't':
      case U'n':
      case U'v':
      case U'f':
      case U'r':
      case U'0':
      case U'x':
      case U'u':
      case U'c': return read_character(c, single);
      case U'b':
      case U'-':
        if (!in_class) return fail_escape(c, in_class);
        single = c == U'b' ? char32_t{0x08} : c;
        return true;
      default:
        if (!is_syntax(c) && c != U'/') return fail_escape(c, in_class);
        single = c;
        return true;
    }
  }

  /// The rest of a \u escape (the 'u' consumed): \uHHHH, a \uHHHH\uHHHH surrogate pair (one code
  /// point), or \u{H...} up to 10FFFF. A lone surrogate escape stands for that surrogate, which
  /// no UTF-8 text holds.
  bool read_unicode(char32_t& out) {
    if (in_.peek() == U'{') {
      ++in_.pos;
      char32_t v = 0;
      std::size_t digits = 0;
      for (; regex_cursor::hex(in_.peek()) >= 0; ++in_.pos, ++digits) {
        v = v * 16 + static_cast<char32_t>(regex_cursor::hex(in_.peek()));
        if (v > 0x10FFFF) return in_.fail("\\u{...} beyond U+10FFFF");
      }
      if (digits == 0 || in_.peek() != U'}') return in_.fail("incomplete \\u{...} escape");
      ++in_.pos;
      out = v;
      return true;
    }
    char32_t v = 0;
    if (!in_.read_hex(4, v)) {
      return in_.fail("incomplete \\u escape (\\u and four hex digits, or \\u{...})");
    }
    if (v >= 0xD800 && v <= 0xDBFF && in_.peek() == U'\\' && in_.peek(1) == U'u') {
      const std::size_t save = in_.pos;
      in_.pos += 2;
      char32_t lo = 0;
      if (in_.read_hex(4, lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
      } else {
        in_.pos = save;
      }
    }
    out = v;
    return true;
  }

  /// The class escape written at `at`, after a backslash (`d`, `W`, `p{L}`, `P{sc=Greek}`), or an
  /// empty view when none is there (its syntax is checked when it is read).
  [[nodiscard]] std::u32string_view class_escape_at(std::size_t at) const noexcept {
    const auto& cps = in_.cps;
    const char32_t c = at < cps.size() ? cps[at] : char32_t{0xFFFFFFFF};
    std::size_t end = 0;
    if (c == U'd' || c == U'D' || c == U'w' || c == U'W' || c == U's' || c == U'S') {
      end = at + 1;
    } else if ((c == U'p' || c == U'P') && at + 1 < cps.size() && cps[at + 1] == U'{') {
      for (std::size_t k = at + 2; k < cps.size() && end == 0; ++k)
        if (cps[k] == U'}') end = k + 1;
    }
    return end == 0 ? std::u32string_view() : std::u32string_view(cps.data() + at, end - at);
  }

 private:
  regex_cursor& in_;
  // \p{...} and \P{...} by their text (`p` or `P`, then the name): each is computed once.
  std::map<std::string, range_list> properties_;

  // ECMA-262's SyntaxCharacter: what an identity escape may escape with the u flag (and '/').
  static bool is_syntax(char32_t c) noexcept {
    return c < 0x80 &&
           std::string_view("^$\\.*+?()[]{}|").find(static_cast<char>(c)) != std::string_view::npos;
  }

  // A class escape: \d \D \w \W \s \S, or \p{..} \P{..} (the letter `c` consumed).
  bool read_set(char32_t c, std::optional<range_list>& set) {
    switch (c) {
      case U'd': set = digit_ranges(); return true;
      case U'D': set = complement_ranges(digit_ranges()); return true;
      case U'w': set = word_ranges(); return true;
      case U'W': set = complement_ranges(word_ranges()); return true;
      case U's': set = space_ranges(); return true;
      case U'S': set = complement_ranges(space_ranges()); return true;
      default: {
        range_list r;
        if (!read_property(c == U'P', r)) return false;
        set = std::move(r);
        return true;
      }
    }
  }

  // A character escape of a letter or \0 (`c` consumed): \t \n \v \f \r \0 \xHH \uHHHH \cX.
  bool read_character(char32_t c, std::optional<char32_t>& single) {
    char32_t v = 0;
    switch (c) {
      case U't': v = 0x09; break;
      case U'n': v = 0x0A; break;
      case U'v': v = 0x0B; break;
      case U'f': v = 0x0C; break;
      case U'r': v = 0x0D; break;
      case U'0':
        if (in_.peek() >= U'0' && in_.peek() <= U'9') {
          return in_.fail(
              "\\0 before a digit is a legacy octal escape, a syntax error with the u flag");
        }
        break;
      case U'x':
        if (!in_.read_hex(2, v)) return in_.fail("incomplete \\x escape (\\x and two hex digits)");
        break;
      case U'u':
        if (!read_unicode(v)) return false;
        break;
      default: {  // c
        const char32_t l = in_.peek();
        if ((l < U'a' || l > U'z') && (l < U'A' || l > U'Z')) {
          return in_.fail("\\c must be followed by an ASCII letter");
        }
        ++in_.pos;
        v = l % 32;
      }
    }
    single = v;
    return true;
  }

  // The rest of \p{...} or \P{...} (the letter consumed): the property's code points.
  bool read_property(bool complemented, range_list& out) {
    const std::string_view letter = complemented ? "\\P" : "\\p";
    if (in_.peek() != U'{')
      return in_.fail("incomplete " + std::string(letter) + " escape (" + std::string(letter) +
                      "{...} names a property)");
    ++in_.pos;
    std::string text;
    for (; !in_.at_end() && in_.peek() != U'}'; ++in_.pos) append_utf8(text, in_.peek());
    if (in_.peek() != U'}') {
      return in_.fail("incomplete " + std::string(letter) + "{" + text +
                      " escape (no closing '}')");
    }
    ++in_.pos;
    // A pattern may name one property thousands of times: its ranges are computed once.
    const std::string key = (complemented ? "P" : "p") + text;
    if (const auto known = properties_.find(key); known != properties_.end()) {
      out = known->second;
      return true;
    }
    if (!unicode::property_ranges(text, out)) return fail_property(letter, text);
    if (complemented) out = complement_ranges(std::move(out));
    properties_.emplace(key, out);
    return true;
  }
  bool fail_property(std::string_view letter, const std::string& text) {
    const std::string written = std::string(letter) + "{" + text + "}";
    if (unicode::find_name(unicode::script_names, text)) {
      return in_.fail("unknown Unicode property " + written +
                      ": a script needs sc= or scx=, as in " + std::string(letter) + "{sc=" + text +
                      "}");
    }
    return in_.fail("unknown Unicode property " + written +
                    " (names are the Unicode Character Database's, spelled exactly: \\p{L}, "
                    "\\p{Letter}, \\p{sc=Greek}, \\p{Alphabetic})");
  }

  // Why the escape of `c` (consumed) is no escape of a u-mode pattern.
  bool fail_escape(char32_t c, bool in_class) {
    if (c == U'-') {
      return in_.fail("\\- outside a class is an invalid escape with the u flag (write -)");
    }
    if (c == U'k') {
      if (in_class || in_.peek() != U'<') {
        return in_.fail("\\k is an invalid escape with the u flag (\\k<name> is a backreference)");
      }
      std::string name;
      for (std::size_t p = in_.pos + 1; p < in_.cps.size() && in_.cps[p] != U'>'; ++p) {
        append_utf8(name, in_.cps[p]);
      }
      return in_.fail(backreference_help("\\k<" + name + ">"));
    }
    if (c >= U'1' && c <= U'9') {
      if (in_class) {
        return in_.fail("\\" + regex_cursor::show(c) +
                        " in a class is a legacy octal escape, a syntax error with the u flag");
      }
      std::string digits = regex_cursor::show(c);
      for (std::size_t p = in_.pos; p < in_.cps.size() && in_.cps[p] >= U'0' && in_.cps[p] <= U'9';
           ++p) {
        digits += regex_cursor::show(in_.cps[p]);
      }
      return in_.fail(backreference_help("\\" + digits));
    }
    return in_.fail("invalid escape \\" + regex_cursor::show(c) +
                    " (with the u flag only ^ $ \\ . * + ? ( ) [ ] { } | / may be escaped, and - "
                    "in a class)");
  }
  static std::string backreference_help(const std::string& what) {
    return "backreference " + what +
           " is not supported (a rule such as \"no character three times in a row\", "
           "(?!.*(.)\\1\\1), is written without one: (?!.*(?:a{3}|b{3}|...)) over the "
           "characters allowed)";
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_REGEX_ESCAPES_HPP_INCLUDED
