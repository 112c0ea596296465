// llmjson: a second, independent implementation of the extraction rules, for tests and fuzzing
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_REFERENCE_REFERENCE_HPP_INCLUDED
#define LLMJSON_TESTS_REFERENCE_REFERENCE_HPP_INCLUDED

// Written from tests/corpus/README.md, rules v4 (the rules; cited by section and bullet name, as
// `§3 Whole parts`), sharing no code with include/: no llmjson header and no nlohmann. It is meant
// to be read against the rules text, so it is plain and slow on purpose (quadratic in places):
// every rule is one function whose comment quotes the sentence it implements. Where the text is
// silent, tests/reference/README.md says what was chosen and why.
//
// Entry points:
//   candidates(output, opts)          the candidates (spans in prefill + output, validity, raw
//                                     controls, reasoning, values) and the cut
//   select(scan, policy, qualifies)   one policy's outcome, for any selector
//   extract(output, keys, opts)       both, for a key selector, under every policy
//   check_json(text, b, e)            §1 Valid JSON on its own: complete, prefix or invalid

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmjson_ref {

// ------------------------------------------------------------------------------------------------
// The interface
// ------------------------------------------------------------------------------------------------

/// Where a candidate comes from (§3 Candidates).
enum class source {
  whole,  ///< the whole output
  part,   ///< the whole of an answer part
  fence,  ///< the whole body of a fence
  scan,   ///< a frame found by the scan (in prose or in a fence body)
};

/// What the caller knows of the prompt (§2 Parts: "say what it knows of the prompt").
enum class output_start { unknown, reasoning, answer };

/// A caller's own reasoning markers (§2 Parts: "add marker pairs of its own"). Neither is empty.
struct marker_pair {
  std::string open;
  std::string close;
};

/// The built-in reasoning formats, each of which a caller can switch off (its markers are then
/// text): the tag pairs in the order §2 lists them, Open WebUI's block, harmony (its seven tokens
/// and its regions), stripped harmony, and the three phrase pairs (`apriel` includes the cut at
/// `[END FINAL RESPONSE]`). The same names, in the same order, as llmjson's.
enum class reasoning_format : unsigned char {
  think,
  thinking,
  reasoning,
  think_brackets,
  command_r,
  begin_of_thought,
  seed_think,
  kimi,
  scratchpad,
  thought,
  longcat_think,
  gemma4_channel,
  details,
  harmony,
  stripped_harmony,
  granite,
  apriel,
  ollama,
};

inline constexpr std::size_t reasoning_format_count = 18;

struct options {
  bool reasoning_regions = true;     ///< off: "the whole output is then one part"
  std::vector<marker_pair> markers;  ///< the caller's pairs, searched after the built-in ones
  output_start start = output_start::unknown;
  std::size_t max_input_bytes = std::size_t{64} << 20;  ///< §6 Errors, too_large
  /// §2 The text: "the prefill, then the output"; "Only `empty` (section 6) and positions look at
  /// the output alone."
  std::string prefill;
  std::vector<reasoning_format> reasoning_off;  ///< built-in formats switched off
};

/// What kind of JSON value a `value` is.
enum class value_kind { null, boolean, number, string, array, object };

/// A JSON value, to compare candidates "as JSON values" (§5 unique: "key order aside, `12` equals
/// `12.0`, `true` is not `1`"). A number is an exact decimal: `(neg ? -1 : 1) * digits *
/// 10^exponent`, `digits` without leading or trailing zeros, `exponent` a decimal integer written
/// out in full (`-3`, `0`, `12`, never bounded); zero is `digits` "" with `neg` false and
/// `exponent` "0". So `1e2`, `100` and `100.0` are one number, `0.1` and `0.10000000000000001`
/// two (reference README, 22).
struct value {
  value_kind kind = value_kind::null;
  bool boolean = false;
  bool neg = false;
  std::string digits;
  std::string exponent = "0";
  std::string str;                ///< a string, unescaped
  std::vector<value> items;       ///< an array's elements; an object's member values
  std::vector<std::string> keys;  ///< an object's keys, unescaped, in order (items match them)
};

/// One candidate: a byte span [begin, end) of the text read (scan_result::text: the prefill, then
/// the output; a leading BOM counts). Its position in the output is `begin - prefill size`.
struct candidate {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool valid = false;  ///< valid JSON with a value (no number beyond a double)
  /// §3 Raw controls: a scan frame "valid with raw controls" (then `valid` too): its strings hold
  /// raw LF, CR or tab, and it is valid JSON once they are escaped.
  bool raw_controls = false;
  value val;                  ///< valid: its value (with raw controls: "as if escaped")
  bool in_reasoning = false;  ///< found in a reasoning region: listed, never selected
  source src = source::scan;
  bool is_object = false;         ///< valid and an object
  std::vector<std::string> keys;  ///< an object's top-level keys, unescaped, in order
  /// §5 Selection and policies: found inside a frame (its opening byte was read with a frame open),
  /// so "a piece of something bigger" that is never the fallback. Whole-output, whole-part and
  /// fence-body candidates are never enclosed.
  bool enclosed = false;
  /// Why an invalid candidate is not valid, given only when a raw control character in a string
  /// is the first byte that breaks it: `line 3 col 17: a raw line break in a string` (empty
  /// otherwise: the reference gives no other reason).
  std::string message;
};

/// §4 Truncation: whether the output is truncated, and where (in the text read).
struct cut {
  bool truncated = false;
  std::size_t offset = 0;
  bool reasoning = false;  ///< the cut is a reasoning region that never closes
};

struct scan_result {
  std::vector<candidate> candidates;  ///< in document order
  cut truncation;
  std::string text;         ///< the text read: the prefill, then the output
  std::size_t prefill = 0;  ///< the prefill's size: the output starts at text[prefill]
  /// A position in the output (§2 The text: "the prefill's bytes come before offset 0, its last
  /// byte at −1") of an offset in the text read.
  std::ptrdiff_t position(std::size_t offset) const {
    return static_cast<std::ptrdiff_t>(offset) - static_cast<std::ptrdiff_t>(prefill);
  }
  std::string_view span(const candidate& c) const {
    return std::string_view(text).substr(c.begin, c.end - c.begin);
  }
};

enum class error_kind { none, empty, no_json, truncated, no_match, ambiguous, too_large };

enum class policy { first, first_no_fallback, unique, last };

/// A policy's outcome: `candidates[index]` when `error == none`, else the error's kind.
struct outcome {
  error_kind error = error_kind::none;
  std::size_t index = 0;
  bool fallback = false;
  /// For no_match only: `3 candidates, none qualifies`, the head of the library's message (which
  /// goes on with `: ` and each candidate's place and reason, not covered here). The same for
  /// every no_match, whatever the policy and whether the fallback was off or impossible.
  std::string message;
};

/// Everything the reference says of one output under a key selector.
struct result {
  scan_result scan;
  outcome first;              ///< policy first, with the fallback
  outcome first_no_fallback;  ///< policy first, "the caller can turn the fallback off"
  outcome unique;
  outcome last;
};

inline constexpr std::size_t max_depth = 512;

// ------------------------------------------------------------------------------------------------
// §1 Valid JSON
// ------------------------------------------------------------------------------------------------

/// "One leading UTF-8 BOM of the text read (section 2: the prefill, then the output) is removed
/// before anything else; lengths and limits count bytes."
inline std::size_t after_bom(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

/// JSON white space (RFC 8259): space, tab, LF, CR. Used wherever the rules say "JSON white space".
inline bool is_json_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// What a stretch of text is as JSON.
enum class json_status {
  complete,  ///< one valid JSON value, JSON white space around it allowed
  prefix,    ///< "a proper prefix of some valid JSON text under these rules"
  invalid,   ///< neither
};

struct json_verdict {
  json_status status = json_status::invalid;
  bool empty = false;           ///< only JSON white space (then status is prefix: "" is a prefix)
  std::size_t stop = 0;         ///< invalid: the byte where the text stopped being a valid prefix
  bool stop_control = false;    ///< invalid: `stop` is a raw control character in a string
  bool raw_controls = false;    ///< complete, read for raw controls: it holds a raw LF, CR or tab
  std::size_t value_begin = 0;  ///< complete: the value, without the white space around it
  std::size_t value_end = 0;
  bool overflow = false;  ///< complete: "holds a number a double cannot represent"
  bool is_object = false;
  std::vector<std::string> keys;  ///< complete object: its top-level keys, unescaped
};

/// §1 Valid JSON, byte by byte: "RFC 8259, with these additions: every object's keys are unique,
/// compared after unescaping; nesting is at most 512 levels deep (an object or array is one
/// level); strings are valid UTF-8 and hold no unpaired \u surrogate; nothing is repaired".
///
/// A recursive-descent reader that reports three things: the text ran out while everything so
/// far could still become valid JSON (`more`: a prefix), a byte that no valid JSON text can have
/// there (`bad`, at `stop`), or a complete value. Every check is made at the first byte that
/// breaks it, so `stop` is "the byte where its text stopped being a valid JSON prefix" (§3 The
/// scan).
class json_reader {
 public:
  enum class step { ok, more, bad };

  /// How strings other than an object's first key are read (an object's first key is always read
  /// strictly):
  /// - `strict`: RFC 8259, a raw control character is invalid;
  /// - `scanned`: §3 The scan's reading for the segment-end tests, where "in every string but an
  ///   object's first key, a raw control character is an ordinary string byte, alone or right
  ///   after a backslash (the pair then stands for that character)";
  /// - `raw_controls`: §3 Raw controls, whether a closed frame's "text would be valid JSON (section
  ///   1) once each raw LF, CR and tab inside a string that is not an object's first key is written
  ///   as its escape": those three are string bytes (standing for themselves), and "another raw
  ///   control character ..., one right after a backslash" stays invalid.
  enum class reading { strict, scanned, raw_controls };

  json_reader(std::string_view text, std::size_t begin, std::size_t end,
              reading how = reading::strict)
      : text_(text), pos_(begin), end_(end), how_(how) {}

  json_verdict run() {
    json_verdict v;
    skip_ws();
    if (at_end()) {
      v.status = json_status::prefix;
      v.empty = true;
      return v;
    }
    v.value_begin = pos_;
    const step s = value(1);
    if (s == step::bad) {
      v.stop = stop_;
      v.stop_control = stop_control_;
      return v;
    }
    if (s == step::more) {
      v.status = json_status::prefix;
      return v;
    }
    v.value_end = pos_;
    skip_ws();
    if (!at_end()) {  // "one valid JSON value": nothing may follow it
      v.stop = pos_;
      return v;
    }
    v.status = json_status::complete;
    v.overflow = overflow_;
    v.raw_controls = saw_raw_;
    v.is_object = text_[v.value_begin] == '{';
    v.keys = std::move(top_keys_);
    return v;
  }

 private:
  std::string_view text_;
  std::size_t pos_;
  std::size_t end_;
  reading how_ = reading::strict;
  bool saw_raw_ = false;  ///< raw_controls: a raw LF, CR or tab was read as a string byte
  std::size_t stop_ = 0;
  bool stop_control_ = false;
  bool overflow_ = false;
  std::vector<std::string> top_keys_;

  bool at_end() const { return pos_ >= end_; }
  unsigned char byte() const { return static_cast<unsigned char>(text_[pos_]); }
  void skip_ws() {
    while (!at_end() && is_json_ws(text_[pos_])) ++pos_;
  }
  step bad_at(std::size_t at) {
    stop_ = at;
    return step::bad;
  }
  step bad() { return bad_at(pos_); }
  step bad_control() {
    stop_control_ = true;
    return bad();
  }

  // value = object / array / string / number / true / false / null
  step value(std::size_t depth) {
    if (at_end()) return step::more;
    switch (text_[pos_]) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return string(nullptr, how_);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: break;
    }
    if (text_[pos_] == '-' || (text_[pos_] >= '0' && text_[pos_] <= '9')) return number();
    return bad();
  }

  // "nesting is at most 512 levels deep (an object or array is one level); deeper is malformed"
  // "every object's keys are unique, compared after unescaping"
  step object(std::size_t depth) {
    if (depth > max_depth) return bad();
    ++pos_;
    std::vector<std::string> keys;
    skip_ws();
    if (at_end()) return step::more;
    if (text_[pos_] == '}') {
      ++pos_;
      return step::ok;
    }
    for (bool first_key = true;; first_key = false) {
      if (text_[pos_] != '"') return bad();
      std::string key;
      // "an object's first key is read strictly" (§3 The scan), and in §3 Raw controls only
      // strings "that [are] not an object's first key" may hold the three raw characters.
      step s = string(&key, first_key ? reading::strict : how_);
      if (s != step::ok) return s;
      for (const std::string& k : keys)
        if (k == key) return bad_at(pos_ - 1);  // the repeated key's closing quote
      keys.push_back(std::move(key));
      skip_ws();
      if (at_end()) return step::more;
      if (text_[pos_] != ':') return bad();
      ++pos_;
      skip_ws();
      s = value(depth + 1);
      if (s != step::ok) return s;
      skip_ws();
      if (at_end()) return step::more;
      if (text_[pos_] == '}') {
        ++pos_;
        if (depth == 1) top_keys_ = std::move(keys);
        return step::ok;
      }
      if (text_[pos_] != ',') return bad();
      ++pos_;
      skip_ws();
      if (at_end()) return step::more;
    }
  }

  step array(std::size_t depth) {
    if (depth > max_depth) return bad();
    ++pos_;
    skip_ws();
    if (at_end()) return step::more;
    if (text_[pos_] == ']') {
      ++pos_;
      return step::ok;
    }
    for (;;) {
      step s = value(depth + 1);
      if (s != step::ok) return s;
      skip_ws();
      if (at_end()) return step::more;
      if (text_[pos_] == ']') {
        ++pos_;
        return step::ok;
      }
      if (text_[pos_] != ',') return bad();
      ++pos_;
      skip_ws();
    }
  }

  step literal(std::string_view word) {
    for (char w : word) {
      if (at_end()) return step::more;
      if (text_[pos_] != w) return bad();
      ++pos_;
    }
    return step::ok;
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  // number = [ minus ] int [ frac ] [ exp ]; "numbers are valid at any size, but a value that
  // holds a number a double cannot represent (beyond ±1.8e308) yields no value" (strtod: inf).
  step number() {
    const std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (at_end()) return step::more;
    if (text_[pos_] == '0') {
      ++pos_;
    } else if (is_digit(text_[pos_])) {
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
    } else {
      return bad();
    }
    if (!at_end() && text_[pos_] == '.') {
      ++pos_;
      if (at_end()) return step::more;
      if (!is_digit(text_[pos_])) return bad();
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
    }
    if (!at_end() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (at_end()) return step::more;
      if (text_[pos_] == '+' || text_[pos_] == '-') ++pos_;
      if (at_end()) return step::more;
      if (!is_digit(text_[pos_])) return bad();
      while (!at_end() && is_digit(text_[pos_])) ++pos_;
    }
    const std::string digits(text_.substr(start, pos_ - start));
    if (std::isinf(std::strtod(digits.c_str(), nullptr))) overflow_ = true;
    return step::ok;
  }

  static int hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

 public:
  /// Appends code point `cp` to `out` as UTF-8 (also used by value_reader).
  static void append_utf8(std::string* out, unsigned long cp) {
    if (!out) return;
    auto put = [&](unsigned long b) { out->push_back(static_cast<char>(b)); };
    if (cp < 0x80) {
      put(cp);
    } else if (cp < 0x800) {
      put(0xC0 | (cp >> 6));
      put(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      put(0xE0 | (cp >> 12));
      put(0x80 | ((cp >> 6) & 0x3F));
      put(0x80 | (cp & 0x3F));
    } else {
      put(0xF0 | (cp >> 18));
      put(0x80 | ((cp >> 12) & 0x3F));
      put(0x80 | ((cp >> 6) & 0x3F));
      put(0x80 | (cp & 0x3F));
    }
  }

 private:
  // "strings are valid UTF-8": one multi-byte sequence (RFC 3629: no overlong forms, no
  // surrogates, nothing above U+10FFFF), checked byte by byte so a cut sequence is a prefix.
  step utf8_sequence(std::string* out) {
    const unsigned char lead = byte();
    std::size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      need = 1;
    } else if (lead == 0xE0) {
      need = 2, lo = 0xA0;
    } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
      need = 2;
    } else if (lead == 0xED) {
      need = 2, hi = 0x9F;
    } else if (lead == 0xF0) {
      need = 3, lo = 0x90;
    } else if (lead >= 0xF1 && lead <= 0xF3) {
      need = 3;
    } else if (lead == 0xF4) {
      need = 3, hi = 0x8F;
    } else {
      return bad();
    }
    if (out) out->push_back(static_cast<char>(lead));
    ++pos_;
    for (std::size_t k = 0; k < need; ++k) {
      if (at_end()) return step::more;
      const unsigned char c = byte();
      if (c < lo || c > hi) return bad();
      if (out) out->push_back(static_cast<char>(c));
      ++pos_;
      lo = 0x80, hi = 0xBF;
    }
    return step::ok;
  }

  // A string, unescaped into `out` when given (for keys). "unescaped control characters in
  // strings" are malformed; "strings ... hold no unpaired \u surrogate": after a high surrogate
  // escape the next bytes must be `\u` and a low one (DC00-DFFF), and a low one alone is refused
  // at its second hex digit, the first byte that makes it one.
  // `strict`: a raw control character (byte < 0x20) anywhere in the string (alone, after a
  // backslash, among the hex digits of \u, after a high surrogate) is the first bad byte, and
  // is named as such (`stop_control`). `scanned` (§3 The scan's segment-end reading): a raw
  // control character is an ordinary string byte, alone or right after a backslash.
  // `raw_controls`: a raw LF, CR or tab alone is an ordinary string byte; any other raw control
  // character, and one of those three anywhere else (after a backslash, in a \u escape, after a
  // high surrogate), is the first bad byte, as in `strict`.
  step string(std::string* out, reading how) {
    ++pos_;  // the opening quote
    const bool strict = how != reading::scanned;
    bool want_low = false;
    unsigned long high = 0;
    auto raw_control = [&] { return byte() < 0x20; };
    auto raw_allowed = [&] {
      return how == reading::raw_controls && !want_low &&
             (byte() == '\n' || byte() == '\r' || byte() == '\t');
    };
    for (;;) {
      if (at_end()) return step::more;
      const unsigned char c = byte();
      if (raw_allowed()) {  // §3 Raw controls: "as if escaped", so it stands for itself
        saw_raw_ = true;
        if (out) out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (strict && raw_control()) return bad_control();
      if (want_low && c != '\\') return bad();
      if (c == '"') {
        ++pos_;
        return step::ok;
      }
      if (c < 0x20) {  // not strict: "an ordinary string byte"
        if (out) out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (c >= 0x80) {
        const step s = utf8_sequence(out);
        if (s != step::ok) return s;
        continue;
      }
      if (c != '\\') {
        if (out) out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) return step::more;
      if (strict && raw_control()) return bad_control();
      const char e = text_[pos_];
      if (want_low && e != 'u') return bad();
      if (static_cast<unsigned char>(e) < 0x20) {  // not strict: "the pair then stands for that
        if (out) out->push_back(e);                // character"
        ++pos_;
        continue;
      }
      const char* simple = nullptr;
      switch (e) {
        case '"': simple = "\""; break;
        case '\\': simple = "\\"; break;
        case '/': simple = "/"; break;
        case 'b': simple = "\b"; break;
        case 'f': simple = "\f"; break;
        case 'n': simple = "\n"; break;
        case 'r': simple = "\r"; break;
        case 't': simple = "\t"; break;
        case 'u': break;
        default: return bad();
      }
      ++pos_;
      if (simple) {
        if (out) out->push_back(simple[0]);
        continue;
      }
      unsigned long unit = 0;
      for (int k = 0; k < 4; ++k) {
        if (at_end()) return step::more;
        if (strict && raw_control()) return bad_control();
        const int h = hex(byte());
        if (h < 0) return bad();
        if (k == 0 && want_low && h != 0xD) return bad();
        if (k == 1 && want_low && h < 0xC) return bad();
        if (k == 1 && !want_low && unit == 0xD && h >= 0xC) return bad();  // a lone low one
        unit = unit * 16 + static_cast<unsigned long>(h);
        ++pos_;
      }
      if (want_low) {
        append_utf8(out, 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
        want_low = false;
      } else if (unit >= 0xD800 && unit <= 0xDBFF) {
        high = unit;
        want_low = true;
      } else {
        append_utf8(out, unit);
      }
    }
  }
};

/// §1 Valid JSON on [b, e) of `text`: a complete value (white space around it allowed), a valid
/// prefix, or invalid with the byte where it stopped being a prefix.
inline json_verdict check_json(std::string_view text, std::size_t b, std::size_t e) {
  return json_reader(text, b, e).run();
}

/// §3 The scan, the segment-end tests only: "For these two tests (is the text so far a valid JSON
/// prefix; at which byte did it stop being one), and only for them, a frame's text is read as the
/// scan reads its strings: in every string but an object's first key, a raw control character is
/// an ordinary string byte, alone or right after a backslash (the pair then stands for that
/// character); an object's first key is read strictly".
inline json_verdict check_json_as_scanned(std::string_view text, std::size_t b, std::size_t e) {
  return json_reader(text, b, e, json_reader::reading::scanned).run();
}

/// §3 Raw controls: "When it closes and its text would be valid JSON (section 1) once each raw
/// LF, CR and tab inside a string that is not an object's first key is written as its escape
/// (`\n`, `\r`, `\t`), the frame is valid with raw controls". Complete with `raw_controls` set:
/// valid with raw controls; complete without it: valid JSON as written.
inline json_verdict check_json_raw_controls(std::string_view text, std::size_t b, std::size_t e) {
  return json_reader(text, b, e, json_reader::reading::raw_controls).run();
}

/// "A valid JSON prefix is a proper prefix of some valid JSON text": a complete value is one too
/// (`[1]` is a prefix of `[1] `), nothing made only of white space is (there is nothing to cut).
inline bool is_valid_prefix(const json_verdict& v) {
  return v.status != json_status::invalid && !v.empty;
}

// ------------------------------------------------------------------------------------------------
// §5 unique: values, "compared as JSON values"
// ------------------------------------------------------------------------------------------------

/// Decimal integers as text (`-12`, `0`, `340`), for exponents of any size: a sign and digits.
struct decimal_integer {
  bool neg = false;
  std::string mag = "0";  ///< no leading zeros; "0" for zero (never negative)
};

inline decimal_integer to_decimal_integer(std::string_view text) {
  decimal_integer d;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) d.neg = text[i++] == '-';
  while (i + 1 < text.size() && text[i] == '0') ++i;
  d.mag = i < text.size() ? std::string(text.substr(i)) : "0";
  if (d.mag == "0") d.neg = false;
  return d;
}

/// -1, 0, 1 as |a| is below, equal to or above |b|.
inline int compare_magnitudes(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/// |a| + |b|, schoolbook.
inline std::string add_magnitudes(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (std::size_t k = 0; k < a.size() || k < b.size() || carry; ++k) {
    int d = carry;
    if (k < a.size()) d += a[a.size() - 1 - k] - '0';
    if (k < b.size()) d += b[b.size() - 1 - k] - '0';
    out.insert(out.begin(), static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  return out;
}

/// |a| - |b| for |a| >= |b|, schoolbook, without leading zeros.
inline std::string subtract_magnitudes(const std::string& a, const std::string& b) {
  std::string out;
  int borrow = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    int d = (a[a.size() - 1 - k] - '0') - borrow;
    if (k < b.size()) d -= b[b.size() - 1 - k] - '0';
    borrow = d < 0 ? 1 : 0;
    out.insert(out.begin(), static_cast<char>('0' + (d + 10) % 10));
  }
  const std::size_t nz = out.find_first_not_of('0');
  return nz == std::string::npos ? "0" : out.substr(nz);
}

/// a + b, written out as text (`-3`, `0`, `12`).
inline std::string add_integers(const decimal_integer& a, const decimal_integer& b) {
  decimal_integer r;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.mag = add_magnitudes(a.mag, b.mag);
  } else if (compare_magnitudes(a.mag, b.mag) >= 0) {
    r.neg = a.neg;
    r.mag = subtract_magnitudes(a.mag, b.mag);
  } else {
    r.neg = b.neg;
    r.mag = subtract_magnitudes(b.mag, a.mag);
  }
  if (r.mag == "0") r.neg = false;
  return (r.neg ? "-" : "") + r.mag;
}

/// A JSON number's exact value (the literal is valid JSON): sign, significant digits and the
/// exponent of the last one. `12`, `12.0`, `1.2e1` and `120e-1` all give digits "12", exponent 0.
inline void read_number(std::string_view lit, value& v) {
  v.kind = value_kind::number;
  std::size_t i = 0;
  const bool neg = i < lit.size() && lit[i] == '-';
  if (neg) ++i;
  std::string digits;
  long long shift = 0;  // the exponent of the last digit, before the literal's own exponent
  while (i < lit.size() && lit[i] >= '0' && lit[i] <= '9') digits.push_back(lit[i++]);
  if (i < lit.size() && lit[i] == '.') {
    ++i;
    while (i < lit.size() && lit[i] >= '0' && lit[i] <= '9') {
      digits.push_back(lit[i++]);
      --shift;
    }
  }
  decimal_integer exp;
  if (i < lit.size() && (lit[i] == 'e' || lit[i] == 'E'))
    exp = to_decimal_integer(lit.substr(i + 1));
  const std::size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) {  // zero, whatever its sign or exponent
    v.neg = false;
    v.digits.clear();
    v.exponent = "0";
    return;
  }
  digits.erase(0, lead);
  while (digits.back() == '0') {
    digits.pop_back();
    ++shift;
  }
  v.neg = neg;
  v.digits = digits;
  v.exponent = add_integers(exp, to_decimal_integer(std::to_string(shift)));
}

/// Reads the value at `pos` of a text known to be one (complete under the strict or the raw
/// controls reading): plain, with no error handling, raw control characters in strings taken as
/// themselves ("as if escaped").
class value_reader {
 public:
  explicit value_reader(std::string_view text, std::size_t pos) : text_(text), pos_(pos) {}

  value read() {
    skip_ws();
    value v;
    const char c = text_[pos_];
    if (c == '{') {
      v.kind = value_kind::object;
      ++pos_;
      skip_ws();
      while (text_[pos_] != '}') {
        v.keys.push_back(string());
        skip_ws();
        ++pos_;  // ':'
        v.items.push_back(read());
        skip_ws();
        if (text_[pos_] == ',') ++pos_;
        skip_ws();
      }
      ++pos_;
    } else if (c == '[') {
      v.kind = value_kind::array;
      ++pos_;
      skip_ws();
      while (text_[pos_] != ']') {
        v.items.push_back(read());
        skip_ws();
        if (text_[pos_] == ',') ++pos_;
        skip_ws();
      }
      ++pos_;
    } else if (c == '"') {
      v.kind = value_kind::string;
      v.str = string();
    } else if (c == 't' || c == 'f') {
      v.kind = value_kind::boolean;
      v.boolean = c == 't';
      pos_ += v.boolean ? 4 : 5;
    } else if (c == 'n') {
      pos_ += 4;
    } else {
      const std::size_t b = pos_;
      while (pos_ < text_.size() &&
             std::string_view("+-.eE0123456789").find(text_[pos_]) != std::string_view::npos)
        ++pos_;
      read_number(text_.substr(b, pos_ - b), v);
    }
    return v;
  }

 private:
  std::string_view text_;
  std::size_t pos_;

  void skip_ws() {
    while (pos_ < text_.size() && is_json_ws(text_[pos_])) ++pos_;
  }

  unsigned long hex4() {
    unsigned long u = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = text_[pos_++];
      u = u * 16 + static_cast<unsigned long>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return u;
  }

  std::string string() {
    std::string out;
    ++pos_;
    for (;;) {
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      const char e = text_[pos_++];
      switch (e) {
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned long cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a pair: valid JSON holds no lone surrogate
            pos_ += 2;                         // the `\u` of the low one
            cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
          }
          json_reader::append_utf8(&out, cp);
          break;
        }
        default: out.push_back(e); break;  // `"`, `\`, `/`
      }
    }
  }
};

/// §5 unique: "compared as JSON values, as section 7 compares `expect` (key order aside, `12`
/// equals `12.0`, `true` is not `1`)"; strings after unescaping, byte for byte.
inline bool same_value(const value& a, const value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case value_kind::null: return true;
    case value_kind::boolean: return a.boolean == b.boolean;
    case value_kind::number:
      return a.neg == b.neg && a.digits == b.digits && a.exponent == b.exponent;
    case value_kind::string: return a.str == b.str;
    case value_kind::array:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t k = 0; k < a.items.size(); ++k)
        if (!same_value(a.items[k], b.items[k])) return false;
      return true;
    case value_kind::object:
      if (a.keys.size() != b.keys.size()) return false;
      for (std::size_t k = 0; k < a.keys.size(); ++k) {  // keys are unique: one match at most
        bool found = false;
        for (std::size_t m = 0; m < b.keys.size() && !found; ++m)
          found = a.keys[k] == b.keys[m] && same_value(a.items[k], b.items[m]);
        if (!found) return false;
      }
      return true;
  }
  return false;
}

// ------------------------------------------------------------------------------------------------
// §2 Reasoning regions and §2 Parts
// ------------------------------------------------------------------------------------------------

/// A built-in tag pair and the format that names it (options::reasoning_off).
struct builtin_pair {
  reasoning_format format;
  std::string_view open;
  std::string_view close;
};

/// "Tag pairs: <think>...</think>, <thinking>...</thinking>, <reasoning>...</reasoning>,
/// [THINK]...[/THINK], <|START_THINKING|>...<|END_THINKING|>,
/// <|begin_of_thought|>...<|end_of_thought|>, <seed:think>...</seed:think>, ◁think▷...◁/think▷,
/// <scratchpad>...</scratchpad>, <thought>...</thought> ..., <longcat_think>...</longcat_think>
/// ..., and Gemma 4's <|channel>thought...<channel|>." Then Open WebUI's block, `<details` (its
/// opening marker runs through a `>`, see details_opener_length) ... `</details>`, last.
/// "Gemma 4's opening tag is the bytes `<|channel>` and `thought`, together": one marker, so
/// "a `<|channel>` not followed by `thought` is text".
inline std::vector<builtin_pair> builtin_pairs() {
  using f = reasoning_format;
  return {{f::think, "<think>", "</think>"},
          {f::thinking, "<thinking>", "</thinking>"},
          {f::reasoning, "<reasoning>", "</reasoning>"},
          {f::think_brackets, "[THINK]", "[/THINK]"},
          {f::command_r, "<|START_THINKING|>", "<|END_THINKING|>"},
          {f::begin_of_thought, "<|begin_of_thought|>", "<|end_of_thought|>"},
          {f::seed_think, "<seed:think>", "</seed:think>"},
          {f::kimi, "\xE2\x97\x81think\xE2\x96\xB7", "\xE2\x97\x81/think\xE2\x96\xB7"},
          {f::scratchpad, "<scratchpad>", "</scratchpad>"},
          {f::thought, "<thought>", "</thought>"},
          {f::longcat_think, "<longcat_think>", "</longcat_think>"},
          {f::gemma4_channel, "<|channel>thought", "<channel|>"},
          {f::details, "<details", "</details>"}};
}

/// A tag pair in use: a built-in one that is on, or the caller's. `details`: Open WebUI's, whose
/// opening marker is not a fixed string and which "never starts already open".
struct known_pair {
  std::string open;
  std::string close;
  bool details = false;
};

/// The harmony tokens: "<|start|>, <|channel|>, <|message|>, <|constrain|>, <|end|>, <|call|> and
/// <|return|>".
enum class harmony { none, start, channel, message, constrain, end, call, ret };

inline constexpr harmony harmony_tokens[] = {harmony::start,     harmony::channel, harmony::message,
                                             harmony::constrain, harmony::end,     harmony::call,
                                             harmony::ret};

inline std::string_view harmony_text(harmony h) {
  switch (h) {
    case harmony::start: return "<|start|>";
    case harmony::channel: return "<|channel|>";
    case harmony::message: return "<|message|>";
    case harmony::constrain: return "<|constrain|>";
    case harmony::end: return "<|end|>";
    case harmony::call: return "<|call|>";
    case harmony::ret: return "<|return|>";
    case harmony::none: break;
  }
  return {};
}

/// "After an Apriel region, `[END FINAL RESPONSE]` ends the final response: each one, byte for
/// byte, outside regions, cuts the text as a harmony token does".
inline constexpr std::string_view apriel_end = "[END FINAL RESPONSE]";

/// The markers in use for one text: the pairs (built-in that are on, then the caller's), whether
/// harmony's tokens count, and whether `[END FINAL RESPONSE]` cuts (after an Apriel region).
struct markers {
  std::vector<known_pair> pairs;
  std::size_t builtin_count = 0;
  bool harmony = true;
  bool apriel_end_cuts = false;
};

/// options::reasoning_off: "a format switched off: its markers are text".
inline bool format_on(const options& opts, reasoning_format f) {
  for (reasoning_format off : opts.reasoning_off)
    if (off == f) return false;
  return true;
}

inline markers markers_in_use(const options& opts) {
  markers m;
  for (const builtin_pair& p : builtin_pairs())
    if (format_on(opts, p.format))
      m.pairs.push_back(
          {std::string(p.open), std::string(p.close), p.format == reasoning_format::details});
  m.builtin_count = m.pairs.size();
  for (const marker_pair& p : opts.markers)
    if (!p.open.empty() && !p.close.empty()) m.pairs.push_back({p.open, p.close, false});
  m.harmony = format_on(opts, reasoning_format::harmony);
  return m;
}

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// "Their markers are found by a plain left-to-right search of the text, ASCII letters matched
/// case-insensitively".
inline bool marker_at(std::string_view text, std::size_t i, std::string_view marker) {
  if (marker.empty() || i > text.size() || text.size() - i < marker.size()) return false;
  for (std::size_t k = 0; k < marker.size(); ++k)
    if (ascii_lower(text[i + k]) != ascii_lower(marker[k])) return false;
  return true;
}

/// "phrases are matched byte for byte, case included".
inline bool phrase_at(std::string_view text, std::size_t i, std::string_view phrase) {
  return i <= text.size() && text.substr(i, phrase.size()) == phrase;
}

/// Open WebUI's opening marker at `i`: "the bytes from a `<details` through the first `>` after
/// it, provided the bytes between the two (possibly none, never a `>`) contain
/// `type="reasoning"`". Its length, or 0 when "it is text" (no `>` follows, or the bytes up to it
/// do not contain `type="reasoning"`; the search then goes on from the byte after its `<`).
/// `type="reasoning"` is matched as markers are, ASCII letters case-insensitively.
inline std::size_t details_opener_length(std::string_view text, std::size_t i) {
  constexpr std::string_view tag = "<details", attr = "type=\"reasoning\"";
  if (!marker_at(text, i, tag)) return 0;
  const std::size_t gt = text.find('>', i + tag.size());
  if (gt == std::string_view::npos) return 0;
  for (std::size_t k = i + tag.size(); k + attr.size() <= gt; ++k)
    if (marker_at(text, k, attr)) return gt + 1 - i;
  return 0;
}

/// The first position at or after `from` where `marker` stands, or npos.
inline std::size_t find_marker(std::string_view text, std::size_t from, std::string_view marker) {
  for (std::size_t i = from; i < text.size(); ++i)
    if (marker_at(text, i, marker)) return i;
  return std::string_view::npos;
}

/// One marker found at a position.
struct marker_match {
  /// token: a harmony token (`tok`); cut: `[END FINAL RESPONSE]` after an Apriel region.
  enum kind_t { none, open, close, token, cut } kind = none;
  std::size_t pair = 0;  ///< open/close: index in the list of pairs (built-in first)
  harmony tok = harmony::none;
  std::size_t length = 0;
};

/// The marker at position `i`. Where §2 Reasoning regions is silent (reference README, 6): when
/// several markers match at one position, the longest match wins; then built-in before the
/// caller's. Within the list, a pair's open comes before its close, and the harmony tokens
/// (built-in) come right after the built-in pairs, then `[END FINAL RESPONSE]` when it cuts.
inline marker_match match_at(std::string_view text, std::size_t i, const markers& ms) {
  marker_match best;
  auto consider = [&](marker_match m, std::string_view s) {
    if (marker_at(text, i, s) && s.size() > best.length) {
      m.length = s.size();
      best = m;
    }
  };
  auto consider_pairs = [&](std::size_t from, std::size_t to) {
    for (std::size_t p = from; p < to; ++p) {
      if (ms.pairs[p].details) {  // its opening marker's length depends on the text
        const std::size_t n = details_opener_length(text, i);
        if (n > best.length) best = {marker_match::open, p, harmony::none, n};
      } else {
        consider({marker_match::open, p, harmony::none, 0}, ms.pairs[p].open);
      }
      consider({marker_match::close, p, harmony::none, 0}, ms.pairs[p].close);
    }
  };
  consider_pairs(0, ms.builtin_count);
  if (ms.harmony)
    for (harmony h : harmony_tokens) consider({marker_match::token, 0, h, 0}, harmony_text(h));
  if (ms.apriel_end_cuts && phrase_at(text, i, apriel_end) && apriel_end.size() > best.length)
    best = {marker_match::cut, 0, harmony::none, apriel_end.size()};
  consider_pairs(ms.builtin_count, ms.pairs.size());
  return best;
}

/// Where the channel name after a `<|channel|>` ends (the run of letters, digits and `_`):
/// "Its opening marker is the `<|channel|>` with the name", so a region's part starts there.
inline std::size_t after_channel_name(std::string_view text, std::size_t after_token) {
  std::size_t e = after_token;
  while (e < text.size() &&
         ((text[e] >= 'a' && text[e] <= 'z') || (text[e] >= 'A' && text[e] <= 'Z') ||
          (text[e] >= '0' && text[e] <= '9') || text[e] == '_'))
    ++e;
  return e;
}

/// "`<|channel|>` followed by a channel name (the run of letters, digits and `_` after it,
/// possibly empty) other than `final` opens a region" (§2 Reasoning regions); compared
/// case-insensitively, as markers are ("ASCII letters matched case-insensitively").
inline bool channel_is_final(std::string_view text, std::size_t after_token) {
  return after_channel_name(text, after_token) - after_token == 5 &&
         marker_at(text, after_token, "final");
}

/// One part of the output: "The regions and the stretches of text between these cuts are the
/// parts of the output."
struct part {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool region = false;
};

struct layout {
  std::vector<part> parts;
  std::optional<std::size_t> unclosed_region;  ///< §4 Truncation: a region that never closes
};

/// The whole output as one answer part: "A caller can switch regions off (the whole output is
/// then one part)".
inline layout one_part(std::size_t b, std::size_t e) { return {{{b, e, false}}, std::nullopt}; }

/// Where a region that the prompt opened ends (start == reasoning). §2 Parts: "the output starts
/// inside a region (everything up to the first closing tag of a tag pair other than
/// `</details>`, or the whole output when there is none, is reasoning)"; a harmony <|end|> or
/// <|call|> ends it too, whichever comes first (as `options::start` says in
/// include/llmjson/options.hpp). Returns {start of the closer, its length}, or nothing when no
/// closer comes.
inline std::optional<std::pair<std::size_t, std::size_t>> first_closer(std::string_view text,
                                                                       std::size_t from,
                                                                       const markers& ms) {
  for (std::size_t i = from; i < text.size(); ++i) {
    std::size_t longest = 0;
    for (const known_pair& p : ms.pairs)
      if (!p.details && marker_at(text, i, p.close) && p.close.size() > longest)
        longest = p.close.size();
    if (ms.harmony)
      for (harmony h : {harmony::end, harmony::call})
        if (marker_at(text, i, harmony_text(h)) && harmony_text(h).size() > longest)
          longest = harmony_text(h).size();
    if (longest) return std::make_pair(i, longest);
  }
  return std::nullopt;
}

/// The already-open rule's harmony condition: the <|end|> or <|call|> "is followed, somewhere
/// after it, by one of <|start|>, <|channel|>, <|message|>, <|constrain|> or <|return|>" (found
/// as markers are, anywhere after it).
inline bool harmony_only_token_follows(std::string_view text, std::size_t from) {
  for (harmony h :
       {harmony::start, harmony::channel, harmony::message, harmony::constrain, harmony::ret})
    if (find_marker(text, from, harmony_text(h)) != std::string_view::npos) return true;
  return false;
}

/// The already-open rule (options start == unknown). "Unless stripped harmony or a phrase pair
/// applies, a closing tag of a tag pair (not `</details>`) that comes before any opening marker,
/// or a harmony <|end|> or <|call|> that comes before any opening marker and before any other
/// harmony token and is followed, somewhere after it, by one of <|start|>, <|channel|>,
/// <|message|>, <|constrain|> or <|return|>, ends a region that starts at the beginning of the
/// text (the chat template opened it in the prompt; the region has no opening marker); the first
/// such marker counts." (§2 Already open) The opening markers are the opening tags (Open WebUI's
/// included) and `<|channel|>` with a name other than `final`; the other harmony tokens are not,
/// but a harmony <|end|>/<|call|> after them no longer counts, nor after an <|end|>/<|call|>
/// that did not count ("A second <|end|> or <|call|> is no such token"). "A `</details>` outside
/// a region is text" (read whole: reference README, 5).
/// Returns {start of the closer, its length}, or nothing.
inline std::optional<std::pair<std::size_t, std::size_t>> already_open_closer(std::string_view text,
                                                                              std::size_t from,
                                                                              const markers& ms) {
  bool harmony_seen = false;
  for (std::size_t i = from; i < text.size();) {
    const marker_match m = match_at(text, i, ms);
    if (m.kind == marker_match::none) {
      ++i;
      continue;
    }
    if (m.kind == marker_match::open) return std::nullopt;
    if (m.kind == marker_match::close && ms.pairs[m.pair].details) {
      i += m.length;
      continue;
    }
    if (m.kind == marker_match::close) return std::make_pair(i, m.length);
    if (m.tok == harmony::channel && !channel_is_final(text, i + m.length)) return std::nullopt;
    if ((m.tok == harmony::end || m.tok == harmony::call) && !harmony_seen &&
        harmony_only_token_follows(text, i + m.length))
      return std::make_pair(i, m.length);
    harmony_seen = true;
    i += m.length;
  }
  return std::nullopt;
}

/// A tag pair's region: "A region runs from an opening tag through the first closing tag of the
/// same pair after it. Inside a region no other marker counts (regions do not nest)." (§2
/// Reasoning regions) Its part is the text between the two markers (§2 Parts). Returns where
/// the closing tag starts, or npos.
inline std::size_t tag_region_end(std::string_view text, std::size_t after_open,
                                  const known_pair& pair) {
  return find_marker(text, after_open, pair.close);
}

/// A harmony region: it "runs through the first <|end|>, <|call|> or <|return|> after it, or up
/// to (not including) the next <|start|> or <|channel|>, whichever comes first. ... its closing
/// marker is that <|end|>, <|call|> or <|return|> (a region that stops before a <|start|> or
/// <|channel|> has none)." Returns where that token starts and how many bytes the region takes of
/// it (§2 Parts: markers "belong to no part", so an ending token is the region's and a stopping
/// one is read as a token of its own), or npos.
inline std::pair<std::size_t, std::size_t> harmony_region_end(std::string_view text,
                                                              std::size_t after_channel) {
  for (std::size_t i = after_channel; i < text.size(); ++i) {
    for (harmony h : {harmony::end, harmony::call, harmony::ret})
      if (marker_at(text, i, harmony_text(h))) return {i, harmony_text(h).size()};
    for (harmony h : {harmony::start, harmony::channel})
      if (marker_at(text, i, harmony_text(h))) return {i, 0};
  }
  return {std::string_view::npos, 0};
}

/// "Stripped harmony: when the text holds none of the seven harmony tokens listed under Parts,
/// begins — after the BOM and any JSON white space — with `analysis`, and holds `assistantfinal`
/// after that word, then the text from its start through the end of the first `assistantfinal`
/// after that word is one reasoning region (its opening marker is that `analysis`, its closing
/// marker that `assistantfinal`)". Both words and the tokens are matched as markers are (ASCII
/// letters case-insensitively). Returns {where `analysis` ends, where `assistantfinal` starts},
/// the region's part, or nothing when the rule does not apply.
inline std::optional<std::pair<std::size_t, std::size_t>> stripped_harmony(std::string_view text,
                                                                           std::size_t b) {
  for (harmony h : harmony_tokens)
    if (find_marker(text, b, harmony_text(h)) != std::string_view::npos) return std::nullopt;
  std::size_t i = b;
  while (i < text.size() && is_json_ws(text[i])) ++i;
  constexpr std::string_view open = "analysis", close = "assistantfinal";
  if (!marker_at(text, i, open)) return std::nullopt;
  const std::size_t inside = i + open.size();
  const std::size_t at = find_marker(text, inside, close);
  if (at == std::string_view::npos) return std::nullopt;  // "a leading analysis is ordinary text"
  return std::make_pair(inside, at);
}

/// A phrase pair's region at the start of the text.
struct phrase_region {
  std::size_t open = 0;                        ///< where the opening phrase starts
  std::size_t inside = 0;                      ///< the region's part starts here
  std::size_t close = std::string_view::npos;  ///< where the closing phrase starts, or npos
  std::size_t after = 0;                       ///< after the closing phrase
  bool apriel = false;                         ///< `[END FINAL RESPONSE]` cuts after it
};

/// "Phrase pairs: IBM Granite 3.2's `Here is my thought process:`…`Here is my response:` (either
/// phrase may also be written `Here's`: `Here's my thought process:`, `Here's my response:`);
/// ServiceNow Apriel's `Here are my reasoning steps:`…`[BEGIN FINAL RESPONSE]`; and the transcript
/// that `ollama run` prints, `Thinking...`…`...done thinking.`. An opening phrase counts only where
/// the text begins — after the BOM and any JSON white space — and never elsewhere; phrases are
/// matched byte for byte, case included ... When the text begins with an opening phrase, the text
/// from it through the first closing phrase of the same pair after it (found wherever it stands)
/// is one reasoning region, its markers the two phrases; when no closing phrase follows, the
/// region runs to the end of the text and the output is truncated". The closing phrase is looked
/// for from the end of the opening one ("after it": reference README, 25).
inline std::optional<phrase_region> phrase_pair(std::string_view text, std::size_t b,
                                                const options& opts) {
  struct phrases {
    reasoning_format format;
    std::vector<std::string_view> open, close;
  };
  const phrases all[] = {
      {reasoning_format::granite,
       {"Here is my thought process:", "Here's my thought process:"},
       {"Here is my response:", "Here's my response:"}},
      {reasoning_format::apriel, {"Here are my reasoning steps:"}, {"[BEGIN FINAL RESPONSE]"}},
      {reasoning_format::ollama, {"Thinking..."}, {"...done thinking."}}};
  std::size_t i = b;
  while (i < text.size() && is_json_ws(text[i])) ++i;
  for (const phrases& p : all) {
    if (!format_on(opts, p.format)) continue;
    for (std::string_view open : p.open) {
      if (!phrase_at(text, i, open)) continue;
      phrase_region r;
      r.open = i;
      r.inside = r.after = i + open.size();
      r.apriel = p.format == reasoning_format::apriel;
      for (std::string_view close : p.close) {
        const std::size_t at = text.find(close, r.inside);
        if (at != std::string_view::npos && (r.close == std::string_view::npos || at < r.close)) {
          r.close = at;
          r.after = at + close.size();
        }
      }
      return r;
    }
  }
  return std::nullopt;
}

/// §2 Reasoning regions and §2 Parts: cuts [b, e) into answer parts and regions.
/// "Outside regions, the harmony tokens ... cut the text too, and belong to no part; so does
/// `[END FINAL RESPONSE]` after an Apriel region." "Any other closing tag outside a region is
/// text." "A region that never closes runs to the end of the text, and the output is truncated".
inline layout split_parts(std::string_view text, std::size_t b, const options& opts) {
  const std::size_t e = text.size();
  if (!opts.reasoning_regions) return one_part(b, e);  // §2 Parts: "switch regions off"
  markers ms = markers_in_use(opts);

  layout out;
  std::size_t pos = b;
  // "Stripped harmony and the phrase pairs are read from the text, not the prompt: whenever
  // regions are on and one applies, it decides the start of the text, whatever the caller says
  // of the prompt." "When this rule applies, the already-open rule does not (nothing comes
  // before this region)." "A region's part is its text between its opening and its closing
  // marker".
  std::optional<std::pair<std::size_t, std::size_t>> opened;
  std::optional<std::pair<std::size_t, std::size_t>> stripped;
  if (format_on(opts, reasoning_format::stripped_harmony)) stripped = stripped_harmony(text, b);
  if (stripped) {
    out.parts.push_back({stripped->first, stripped->second, true});
    pos = stripped->second + std::string_view("assistantfinal").size();
  } else if (const auto phrase = phrase_pair(text, b, opts)) {
    if (phrase->close == std::string_view::npos) {  // "the region runs to the end of the text"
      out.parts.push_back({phrase->inside, e, true});
      out.unclosed_region = phrase->open;
      return out;
    }
    out.parts.push_back({phrase->inside, phrase->close, true});
    pos = phrase->after;
    ms.apriel_end_cuts = phrase->apriel;
  } else if (opts.start == output_start::reasoning) {
    // The region the prompt opened, if any (§2 Parts: its part runs "from the start of the text
    // when it has no opening marker", after the BOM, to the start of its closing marker).
    opened = first_closer(text, b, ms);
    if (!opened) {  // §2 Parts: "or the whole output when there is none": a region never closed
      out.parts.push_back({b, e, true});
      out.unclosed_region = b;
      return out;
    }
  } else if (opts.start == output_start::unknown) {
    opened = already_open_closer(text, b, ms);
  }
  if (opened) {
    out.parts.push_back({b, opened->first, true});
    pos = opened->first + opened->second;
  }

  std::size_t answer_from = pos;  // the answer part being read
  auto end_answer_part = [&](std::size_t at) { out.parts.push_back({answer_from, at, false}); };
  for (std::size_t i = pos; i < e;) {
    const marker_match m = match_at(text, i, ms);
    if (m.kind == marker_match::none) {
      ++i;
    } else if (m.kind == marker_match::close) {
      i += m.length;  // a closing tag outside a region is text
    } else if (m.kind == marker_match::open) {
      end_answer_part(i);
      const std::size_t inside = i + m.length;
      const std::size_t close = tag_region_end(text, inside, ms.pairs[m.pair]);
      if (close == std::string_view::npos) {
        out.parts.push_back({inside, e, true});
        out.unclosed_region = i;
        return out;
      }
      out.parts.push_back({inside, close, true});
      i = answer_from = close + ms.pairs[m.pair].close.size();
    } else if (m.tok == harmony::channel && !channel_is_final(text, i + m.length)) {
      end_answer_part(i);
      const std::size_t inside = after_channel_name(text, i + m.length);
      const auto [stop, taken] = harmony_region_end(text, inside);
      if (stop == std::string_view::npos) {
        out.parts.push_back({inside, e, true});
        out.unclosed_region = i;
        return out;
      }
      out.parts.push_back({inside, stop, true});
      i = answer_from = stop + taken;
    } else {  // any other harmony token (and <|channel|>final), or [END FINAL RESPONSE], cuts
      end_answer_part(i);
      i = answer_from = i + m.length;
    }
  }
  end_answer_part(e);
  return out;
}

// ------------------------------------------------------------------------------------------------
// §2 Fences
// ------------------------------------------------------------------------------------------------

/// One line of a part: [begin, end) without its line ending; the next line starts at `next`.
/// Lines end at LF, CR or CRLF (the project's fences() does the same); "Each part is read as a
/// text of its own: its first byte starts a line", so the part's end ends its last line.
struct line {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t next = 0;
};

inline line line_at(std::string_view text, std::size_t pos, std::size_t part_end) {
  std::size_t i = pos;
  while (i < part_end && text[i] != '\n' && text[i] != '\r') ++i;
  std::size_t next = i;
  if (i < part_end)
    next = (text[i] == '\r' && i + 1 < part_end && text[i + 1] == '\n') ? i + 2 : i + 1;
  return {pos, i, next};
}

/// A fence line's run: "at most 3 spaces of indent, then 3 or more backticks or tildes".
struct fence_run {
  char ch = 0;  ///< 0: not a fence line
  std::size_t length = 0;
  std::size_t after = 0;  ///< the first byte after the run
};

inline fence_run fence_run_of(std::string_view text, const line& l) {
  std::size_t i = l.begin;
  while (i < l.end && text[i] == ' ' && i - l.begin < 4) ++i;
  if (i - l.begin > 3 || i == l.end || (text[i] != '`' && text[i] != '~')) return {};
  const char ch = text[i];
  std::size_t j = i;
  while (j < l.end && text[j] == ch) ++j;
  if (j - i < 3) return {};
  return {ch, j - i, j};
}

inline bool only_spaces_tabs(std::string_view text, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e; ++i)
    if (text[i] != ' ' && text[i] != '\t') return false;
  return true;
}

struct fence_block {
  std::size_t opener = 0;      ///< where the opening line starts
  std::size_t body_begin = 0;  ///< the line after the opening line
  std::size_t body_end = 0;    ///< where the closing line starts, or the part's end
  std::size_t after = 0;       ///< after the closing line and its line ending
  bool closed = false;
  bool has_info = false;
};

/// "A fence opens on a line with at most 3 spaces of indent, then 3 or more backticks or tildes,
/// then an info string (which, for backticks, holds no backtick). It closes at the next line
/// with at most 3 spaces of indent, the same character at least as many times, and only white
/// space after it. A fence that never closes runs to the end of its part."
/// White space after a closer, and around the info string, is spaces and tabs (the project's
/// fences() says so).
inline std::vector<fence_block> find_fences(std::string_view text, std::size_t pb, std::size_t pe) {
  std::vector<fence_block> out;
  for (std::size_t pos = pb; pos < pe;) {
    const line l = line_at(text, pos, pe);
    const fence_run run = fence_run_of(text, l);
    pos = l.next;
    if (!run.ch) continue;
    std::size_t ib = run.after, ie = l.end;
    while (ib < ie && (text[ib] == ' ' || text[ib] == '\t')) ++ib;
    while (ie > ib && (text[ie - 1] == ' ' || text[ie - 1] == '\t')) --ie;
    if (run.ch == '`' && text.substr(ib, ie - ib).find('`') != std::string_view::npos) continue;
    fence_block f;
    f.opener = l.begin;
    f.body_begin = l.next;
    f.body_end = pe;
    f.after = pe;
    f.has_info = ie > ib;
    for (std::size_t q = l.next; q < pe;) {
      const line c = line_at(text, q, pe);
      const fence_run close = fence_run_of(text, c);
      if (close.ch == run.ch && close.length >= run.length &&
          only_spaces_tabs(text, close.after, c.end)) {
        f.body_end = c.begin;
        f.after = c.next;
        f.closed = true;
        break;
      }
      q = c.next;
    }
    out.push_back(f);
    pos = f.after;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// §3 The scan
// ------------------------------------------------------------------------------------------------

/// {line, column} of a byte, both from 1, as messages give them: "A line ends at a line feed
/// (LF), at a carriage return (CR) that no LF follows, or at a CR LF pair, which is one line
/// ending"; columns count code points (UTF-8 continuation bytes take none); a leading BOM takes
/// no column. Plain and quadratic when called per candidate: fine for a reference.
inline std::pair<std::size_t, std::size_t> position_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = after_bom(text); i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
      column = 1;
    } else if (c != '\r' && (c & 0xC0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

/// A raw control character as messages name it: `a raw line break` (LF or CR), `a raw tab`
/// (0x09), `a raw control character (U+00XX)` for the others.
inline std::string control_name(unsigned char c) {
  if (c == '\n' || c == '\r') return "a raw line break";
  if (c == '\t') return "a raw tab";
  constexpr char hex[] = "0123456789ABCDEF";
  return std::string("a raw control character (U+00") + hex[c >> 4] + hex[c & 15] + ")";
}

/// The problem of a text whose first bad byte is a raw control character in a string:
/// `line L col C: <name> in a string`, naming that first offending byte.
inline std::string control_problem(std::string_view text, std::size_t at) {
  const auto [line, column] = position_of(text, at);
  return "line " + std::to_string(line) + " col " + std::to_string(column) + ": " +
         control_name(static_cast<unsigned char>(text[at])) + " in a string";
}

/// A candidate found so far, before the output-wide fields are known. "Only frames are read so:
/// the whole output, a whole part and a fence body stay strict": those (`src` other than scan)
/// are read strictly; a closed frame of the scan is read for raw controls (§3 Raw controls: "a
/// candidate like a valid frame, whose value is that JSON's value"). The problem text names the
/// first bad byte of the reading used, when it is a raw control character (reference README, 24).
inline candidate make_candidate(std::string_view text, std::size_t b, std::size_t e, source src,
                                bool in_reasoning) {
  candidate c;
  c.begin = b;
  c.end = e;
  c.src = src;
  c.in_reasoning = in_reasoning;
  const json_verdict v =
      src == source::scan ? check_json_raw_controls(text, b, e) : check_json(text, b, e);
  c.valid = v.status == json_status::complete && !v.overflow;
  if (c.valid) {
    c.raw_controls = v.raw_controls;
    c.is_object = v.is_object;
    c.keys = v.keys;
    c.val = value_reader(text, v.value_begin).read();
  }
  if (v.status == json_status::invalid && v.stop_control) c.message = control_problem(text, v.stop);
  return c;
}

/// The scan of one segment, "left to right, with a stack of frames".
class segment_scan {
 public:
  segment_scan(std::string_view text, std::size_t b, std::size_t e, bool in_reasoning)
      : text_(text), b_(b), e_(e), in_reasoning_(in_reasoning) {}

  /// Runs the scan. Returns the cut (the swallowing frame's opening byte) when "its segment runs
  /// to the end of the text", and appends the candidates to `out`.
  std::optional<std::size_t> run(std::vector<candidate>& out) {
    for (std::size_t i = b_; i < e_; ++i) read(i);
    const std::optional<std::size_t> cut = end_of_segment();
    for (candidate& c : found_) out.push_back(std::move(c));
    return cut;
  }

 private:
  enum class kind { pending, json_like, prose_like };
  enum class pending_at { after_brace, first_string, after_first_string };
  struct frame {
    std::size_t open = 0;
    bool bracket = false;
    kind k = kind::pending;
    pending_at pend = pending_at::after_brace;
    std::size_t depth = 1;  ///< bracket frames: "[ and ] nest and close it (counted)"
    /// Bracket frames: where its first string's quote is, "when the first byte after its [ that
    /// is not JSON white space is \"" (npos otherwise).
    std::size_t first_quote = std::string_view::npos;
  };

  std::string_view text_;
  std::size_t b_, e_;
  bool in_reasoning_;
  std::vector<frame> frames_;
  std::vector<candidate> found_;
  bool in_string_ = false;
  bool escaped_ = false;
  bool strict_string_ = false;  ///< the string being read is a frame's first string

  /// "[ opens a bracket frame when the next byte that is not JSON white space is {, [ or ", or
  /// when the segment ends first — so citations [1], links [text](url) and checkboxes [ ] stay
  /// text."
  bool bracket_opens(std::size_t i) const {
    for (std::size_t k = i + 1; k < e_; ++k) {
      if (is_json_ws(text_[k])) continue;
      return text_[k] == '{' || text_[k] == '[' || text_[k] == '"';
    }
    return true;
  }

  void open_brace(std::size_t i) { frames_.push_back({i, false, kind::pending}); }
  void open_bracket(std::size_t i) {
    std::size_t k = i + 1;
    while (k < e_ && is_json_ws(text_[k])) ++k;
    const std::size_t quote = k < e_ && text_[k] == '"' ? k : std::string_view::npos;
    frames_.push_back({i, true, kind::json_like, pending_at::after_brace, 1, quote});
  }

  /// "Outside every frame, { opens a brace frame, and [ opens a bracket frame when ... Quotes, }
  /// and ] mean nothing there."
  void outside(std::size_t i) {
    if (text_[i] == '{') open_brace(i);
    if (text_[i] == '[' && bracket_opens(i)) open_bracket(i);
  }

  /// "In a JSON-like frame (and while a brace frame's first string is read), " starts a string".
  /// "A frame's first string — a brace frame's (the one read while its kind is undecided), and a
  /// bracket frame's when the first byte after its [ that is not JSON white space is " — ends at
  /// the next " not escaped by a backslash, or at a raw control character (byte < 0x20), even one
  /// right after a backslash." "Every other string ... ends only at the next " not escaped by a
  /// backslash: a backslash escapes the byte after it, whatever that byte is, and raw control
  /// characters (line breaks, tabs, ...) are string bytes." Returns how the string ended: 0 still
  /// open, 1 by a quote, 2 by a control character (a first string only).
  int string_byte(std::size_t i) {
    const auto c = static_cast<unsigned char>(text_[i]);
    if (strict_string_ && c < 0x20) {
      in_string_ = escaped_ = false;
      return 2;
    }
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
      return 1;
    }
    return 0;
  }

  /// "A brace frame's kind is decided by what follows its {, skipping JSON white space: }, or a
  /// string followed by :, makes it JSON-like; anything else makes it prose-like — including a
  /// first string that a control character ends. The kind is decided at the first byte that does
  /// not fit, and that byte is then read as in a frame of that kind." Returns whether the byte
  /// still has to be read as in a frame of the decided kind.
  bool decide_kind(frame& f, std::size_t i) {
    const char c = text_[i];
    switch (f.pend) {
      case pending_at::after_brace:
        if (is_json_ws(c)) return false;
        if (c == '}') {
          f.k = kind::json_like;
          return true;
        }
        if (c == '"') {
          in_string_ = strict_string_ = true;
          f.pend = pending_at::first_string;
          return false;
        }
        break;
      case pending_at::first_string: {
        const int ended = string_byte(i);
        if (ended == 1) f.pend = pending_at::after_first_string;
        if (ended == 2) f.k = kind::prose_like;  // a control byte means nothing in prose
        return false;
      }
      case pending_at::after_first_string:
        if (is_json_ws(c)) return false;
        if (c == ':') {
          f.k = kind::json_like;
          return true;  // a ':' means nothing in a JSON-like frame outside strings
        }
        break;
    }
    f.k = kind::prose_like;
    return true;
  }

  /// "Inside a brace frame, { opens a nested brace frame, } closes this brace frame, and ] is
  /// text; [ is text too, except in a prose-like frame, where it opens a bracket frame as it
  /// would outside every frame. In a prose-like frame, quotes are text."
  void in_brace(std::size_t i) {
    const frame f = frames_.back();
    const char c = text_[i];
    if (c == '{') open_brace(i);
    if (c == '}') close_top(i);
    if (c == '"' && f.k == kind::json_like) {  // a later string of a JSON-like brace frame
      in_string_ = true;
      strict_string_ = false;
    }
    if (c == '[' && f.k == kind::prose_like && bracket_opens(i)) open_bracket(i);
  }

  /// "Inside a bracket frame, [ and ] nest and close it (counted, outside strings), { opens a
  /// nested brace frame, and } is text." A bracket frame is JSON-like: " starts a string.
  void in_bracket(std::size_t i) {
    const char c = text_[i];
    if (c == '[') ++frames_.back().depth;
    if (c == ']' && --frames_.back().depth == 0) close_top(i);
    if (c == '{') open_brace(i);
    if (c == '"') {
      in_string_ = true;
      strict_string_ = i == frames_.back().first_quote;
    }
  }

  void read(std::size_t i) {
    if (frames_.empty()) return outside(i);
    frame& top = frames_.back();
    if (!top.bracket && top.k == kind::pending) {
      if (!decide_kind(top, i)) return;
    } else if (in_string_) {
      // "A raw control character ending it means that quote was punctuation ... the bracket
      // frame was no frame at all — its [ and the string's bytes are text ..., and the scan
      // goes on after that control character in the frame around it, if any." (Only a bracket
      // frame's first string is read here strictly; a string holds no frame to drop.)
      if (string_byte(i) == 2) frames_.pop_back();
      return;
    }
    if (top.bracket) return in_bracket(i);
    in_brace(i);
  }

  /// Drops the candidates that start at or after `from` and before `to`.
  void drop(std::size_t from, std::size_t to) {
    std::vector<candidate> kept;
    for (candidate& c : found_)
      if (c.begin < from || c.begin >= to) kept.push_back(std::move(c));
    found_ = std::move(kept);
  }

  /// "A frame that closes and is valid JSON (section 1), or valid with raw controls, is a
  /// candidate; candidates found inside it are dropped (they are parts of it). A JSON-like frame
  /// that closes but is neither is malformed: it is reported with the reason and position, and
  /// everything inside it is dropped — a malformed answer's pieces are never answers of their
  /// own. A prose-like frame ... that closes keeps the candidates inside it."
  void close_top(std::size_t i) {
    const frame f = frames_.back();
    frames_.pop_back();
    if (f.k == kind::prose_like) return;
    drop(f.open, e_);
    candidate c = make_candidate(text_, f.open, i + 1, source::scan, in_reasoning_);
    // §5 Selection and policies: "a scan candidate whose opening byte was read outside every frame
    // of its segment (with the stack empty)" can be the fallback; the frames below it enclosed its
    // opening byte then, as they do now.
    c.enclosed = !frames_.empty();
    found_.push_back(std::move(c));
  }

  /// "At the end of a segment, the frames still open are looked at from the outermost in. The
  /// first one whose text so far is a valid JSON prefix swallows everything inside it: if its
  /// segment runs to the end of the text, the output is truncated; otherwise the frame is
  /// malformed (cut by a fence line or a part boundary). The open frames outside it keep the
  /// candidates inside them — except that a JSON-like frame drops the candidates that start
  /// before the byte where its text stopped being a valid JSON prefix (they are pieces of a
  /// malformed answer)." Both tests read the frame's text "as the scan reads its strings"
  /// (check_json_as_scanned).
  std::optional<std::size_t> end_of_segment() {
    std::optional<std::size_t> cut;
    std::vector<std::pair<std::size_t, std::size_t>> dead;  // [open, stop) of JSON-like frames
    for (std::size_t n = 0; n < frames_.size(); ++n) {
      const frame& f = frames_[n];
      const json_verdict v = check_json_as_scanned(text_, f.open, e_);
      if (is_valid_prefix(v)) {
        drop(f.open, e_);
        if (e_ == text_.size()) {
          cut = f.open;
        } else {
          candidate c;
          c.begin = f.open;
          c.end = e_;
          c.valid = false;
          c.src = source::scan;
          c.in_reasoning = in_reasoning_;
          c.enclosed = n > 0;
          found_.push_back(c);
        }
        break;
      }
      if (f.k == kind::json_like) dead.emplace_back(f.open, v.stop);
    }
    for (const auto& [open, stop] : dead) drop(open, stop);
    frames_.clear();
    return cut;
  }
};

// ------------------------------------------------------------------------------------------------
// Sections 3 and 4. Candidates and truncation, part by part
// ------------------------------------------------------------------------------------------------

/// Collects the candidates and the cut of the whole output.
class collector {
 public:
  collector(std::string_view text, scan_result& out) : text_(text), out_(out) {}

  /// §4 Truncation: an unclosed reasoning region's cut wins (§2 Reasoning regions: it "runs to
  /// the end of the text"); otherwise at most one cut exists (only the last segment reaches the
  /// end of the text). The region's cut is noted first, so a cut found later inside that region
  /// (a frame or fence at the end of the text) is dropped.
  void note_cut(std::size_t offset, bool reasoning) {
    if (out_.truncation.truncated) return;
    out_.truncation = {true, offset, reasoning};
  }

  void add(std::size_t b, std::size_t e, source src, bool in_reasoning) {
    out_.candidates.push_back(make_candidate(text_, b, e, src, in_reasoning));
  }

  /// "The scan, run over each remaining segment separately".
  void scan(std::size_t b, std::size_t e, bool in_reasoning) {
    segment_scan s(text_, b, e, in_reasoning);
    if (const auto cut = s.run(out_.candidates)) note_cut(*cut, false);
  }

  /// "Whole parts. Likewise, an answer part (not a region) that, trimmed of JSON white space, is
  /// one valid JSON value is a candidate of any type, and nothing inside it is considered
  /// further; an answer part that is a valid JSON prefix cut by the end of the text makes the
  /// output truncated, with no candidate from that part. An answer part that is empty or only
  /// JSON white space is neither: it yields nothing and is no cut." (§3 Whole parts) Returns
  /// whether the part is done with.
  bool whole_part(const part& p) {
    const json_verdict v = check_json(text_, p.begin, p.end);
    if (v.empty) return true;
    if (v.status == json_status::complete) {
      add(v.value_begin, v.value_end, source::part, false);
      return true;
    }
    if (v.status == json_status::prefix && p.end == text_.size()) {
      note_cut(first_non_ws(p.begin), false);
      return true;
    }
    return false;
  }

  /// "Fence bodies. A fence body that (trimmed of JSON white space) is one valid JSON value is a
  /// candidate, whatever its type, and nothing inside it is considered further. A complete value
  /// is a candidate even when its fence never closes (a number included)."
  /// §4 Truncation: "a fence that never closes and reaches the end of the text has a body that is a
  /// valid prefix of a JSON array or scalar, or has an info string (```json) and an empty or
  /// white-space body — cut right after the opener. A bare fence line with nothing after it is
  /// not a cut". A cut body is not scanned: the cut value owns all inside it (README.md).
  /// Otherwise the body is a segment for the scan.
  void fence_body(const fence_block& f, bool in_reasoning) {
    const json_verdict v = check_json(text_, f.body_begin, f.body_end);
    if (v.status == json_status::complete) {
      add(v.value_begin, v.value_end, source::fence, in_reasoning);
      return;
    }
    if (!f.closed && f.body_end == text_.size()) {
      const bool array_or_scalar_prefix =
          is_valid_prefix(v) && text_[first_non_ws(f.body_begin)] != '{';
      if (array_or_scalar_prefix || (v.empty && f.has_info)) {
        note_cut(f.body_begin, false);
        return;
      }
    }
    scan(f.body_begin, f.body_end, in_reasoning);
  }

  /// "Each part is read as a text of its own ... nothing (a fence, a frame) crosses a part's
  /// boundary." "The fence lines cut each part into segments: prose between fences, and fence
  /// bodies; the fence lines themselves belong to no segment." "Candidates found in a region are
  /// listed for diagnostics".
  void read_part(const part& p) {
    if (!p.region && whole_part(p)) return;
    std::size_t pos = p.begin;
    for (const fence_block& f : find_fences(text_, p.begin, p.end)) {
      scan(pos, f.opener, p.region);
      fence_body(f, p.region);
      pos = f.after;
    }
    scan(pos, p.end, p.region);
  }

  std::size_t first_non_ws(std::size_t i) const {
    while (i < text_.size() && is_json_ws(text_[i])) ++i;
    return i;
  }

 private:
  std::string_view text_;
  scan_result& out_;
};

/// §3 Whole output: "When the whole text (JSON white space aside) is one valid JSON
/// value, it is the one and only candidate. When it is a valid JSON prefix cut by the end of the
/// text, the output is truncated and has no candidates. Either way, nothing below is looked at."
/// Returns whether it applied.
inline bool whole_output(std::string_view text, collector& c, scan_result& out) {
  const json_verdict v = check_json(text, after_bom(text), text.size());
  if (v.empty) return false;
  if (v.status == json_status::complete) {
    c.add(v.value_begin, v.value_end, source::whole, false);
    return true;
  }
  if (v.status == json_status::prefix) {
    out.truncation = {true, c.first_non_ws(after_bom(text)), false};
    return true;
  }
  return false;
}

/// The candidates of `output` in document order, and the cut (sections 2-4), spans in the text
/// read. §2 The text: "The rules read one text: the prefill, then the output." "Unless the whole
/// output is one valid JSON value, whole or cut (section 3), the text is first cut at reasoning
/// regions". "Candidates are taken in document order, and the same span counts once."
inline scan_result candidates(std::string_view output, const options& opts = {}) {
  scan_result out;
  out.text = opts.prefill + std::string(output);
  out.prefill = opts.prefill.size();
  const std::string_view text = out.text;
  collector c(text, out);
  if (whole_output(text, c, out)) return out;
  const layout parts = split_parts(text, after_bom(text), opts);
  if (parts.unclosed_region) c.note_cut(*parts.unclosed_region, true);
  for (const part& p : parts.parts) c.read_part(p);
  std::vector<candidate>& cs = out.candidates;
  for (std::size_t i = 1; i < cs.size(); ++i)  // insertion sort by begin: stable, plain
    for (std::size_t k = i; k > 0 && cs[k - 1].begin > cs[k].begin; --k)
      std::swap(cs[k - 1], cs[k]);
  std::vector<candidate> once;
  for (candidate& x : cs)
    if (once.empty() || once.back().begin != x.begin || once.back().end != x.end)
      once.push_back(std::move(x));
  cs = std::move(once);
  return out;
}

// ------------------------------------------------------------------------------------------------
// Sections 5 and 6. Selection, policies and errors
// ------------------------------------------------------------------------------------------------

/// "a key set (an object with at least one of these top-level keys, compared byte for byte after
/// JSON unescaping) ... or nothing (any object qualifies)". An empty key list means nothing.
inline bool has_any_key(const candidate& c, const std::vector<std::string>& keys) {
  if (!c.is_object) return false;
  if (keys.empty()) return true;
  for (const std::string& want : keys)
    for (const std::string& k : c.keys)
      if (k == want) return true;
  return false;
}

/// "empty: the output (the prefill aside) is empty or holds only ASCII white space (space, tab, LF,
/// CR, form feed, vertical tab) after the BOM." The BOM is the text read's (§1): the output's own
/// leading BOM only when the prefill is empty (reference README, 26).
inline bool is_empty_output(const scan_result& scan) {
  const std::string_view text = scan.text;
  for (std::size_t i = std::max(after_bom(text), scan.prefill); i < text.size(); ++i) {
    const char c = text[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

/// Sections 4-6 for one policy. `qualifies` is the selector, called on valid candidates outside
/// reasoning regions only: "Candidates inside reasoning regions, and invalid candidates, are
/// left out of everything below."
inline outcome select(const scan_result& scan, policy pol,
                      const std::function<bool(const candidate&)>& qualifies,
                      const options& opts = {}) {
  // "too_large: the text read (prefill and output) is longer than the configured limit" (checked
  // first).
  if (scan.text.size() > opts.max_input_bytes) return {error_kind::too_large, 0, false, {}};
  if (is_empty_output(scan)) return {error_kind::empty, 0, false, {}};
  std::vector<std::size_t> eligible, qualifying;
  std::optional<std::size_t> fallback;
  std::size_t answer_text = 0;  // candidates outside reasoning regions, valid or not
  for (std::size_t i = 0; i < scan.candidates.size(); ++i) {
    const candidate& c = scan.candidates[i];
    if (!c.in_reasoning) ++answer_text;
    if (!c.valid || c.in_reasoning) continue;
    eligible.push_back(i);
    if (qualifies(c)) qualifying.push_back(i);
    if (!c.enclosed && !fallback) fallback = i;
  }
  const bool truncated = scan.truncation.truncated;
  auto chosen = [](std::size_t i, bool fb) { return outcome{error_kind::none, i, fb, {}}; };
  auto fail = [](error_kind k) { return outcome{k, 0, false, {}}; };
  // The head of the library's no_match message (extract.hpp, choose): `N candidates, none
  // qualifies`, counting the candidates outside reasoning regions; the same for every no_match.
  auto no_match = [&] {
    return outcome{error_kind::no_match, 0, false,
                   std::to_string(answer_text) + " candidate" + (answer_text == 1 ? "" : "s") +
                       ", none qualifies"};
  };
  switch (pol) {
    case policy::first:
    case policy::first_no_fallback:
      // "policy first returns the first qualifying candidate if there is one and otherwise
      // truncated (never the fallback)"; "first: the first qualifying candidate. If none
      // qualifies and the output is not truncated, the fallback (flagged as such): the first
      // candidate that no frame encloses ... When no candidate can be the fallback, first gives
      // no_match (valid candidates exist and none qualifies; section 6). The caller can turn
      // the fallback off."
      if (!qualifying.empty()) return chosen(qualifying.front(), false);
      if (truncated) return fail(error_kind::truncated);
      if (eligible.empty()) return fail(error_kind::no_json);
      if (pol == policy::first && fallback) return chosen(*fallback, true);
      return no_match();
    case policy::unique:
      // "policies unique and last return truncated whatever else qualifies"; "unique: exactly
      // one qualifying value, else an error. ... Qualifying candidates whose values are equal
      // ... count as one, and the answer is the first of them". "ambiguous: policy unique, two or
      // more candidates with different values qualify."
      if (truncated) return fail(error_kind::truncated);
      if (eligible.empty()) return fail(error_kind::no_json);
      if (qualifying.empty()) return no_match();
      for (std::size_t i : qualifying)
        if (!same_value(scan.candidates[i].val, scan.candidates[qualifying.front()].val))
          return fail(error_kind::ambiguous);
      return chosen(qualifying.front(), false);
    case policy::last:
      if (truncated) return fail(error_kind::truncated);
      if (eligible.empty()) return fail(error_kind::no_json);
      if (qualifying.empty()) return no_match();
      return chosen(qualifying.back(), false);
  }
  return fail(error_kind::none);  // unreachable: every policy returns above
}

/// The candidates, the cut and every policy's outcome for a key selector (an empty list: any
/// object qualifies), on `output` (after `opts.prefill`).
inline result extract(std::string_view output, const std::vector<std::string>& keys,
                      const options& opts = {}) {
  result r;
  r.scan = candidates(output, opts);
  auto by_keys = [&](const candidate& c) { return has_any_key(c, keys); };
  r.first = select(r.scan, policy::first, by_keys, opts);
  r.first_no_fallback = select(r.scan, policy::first_no_fallback, by_keys, opts);
  r.unique = select(r.scan, policy::unique, by_keys, opts);
  r.last = select(r.scan, policy::last, by_keys, opts);
  return r;
}

inline std::string_view to_string(error_kind k) {
  switch (k) {
    case error_kind::none: return "none";
    case error_kind::empty: return "empty";
    case error_kind::no_json: return "no_json";
    case error_kind::truncated: return "truncated";
    case error_kind::no_match: return "no_match";
    case error_kind::ambiguous: return "ambiguous";
    case error_kind::too_large: return "too_large";
  }
  return "unknown";
}

inline std::string_view to_string(source s) {
  switch (s) {
    case source::whole: return "whole";
    case source::part: return "part";
    case source::fence: return "fence";
    case source::scan: return "scan";
  }
  return "unknown";
}

}  // namespace llmjson_ref

#endif  // LLMJSON_TESTS_REFERENCE_REFERENCE_HPP_INCLUDED
