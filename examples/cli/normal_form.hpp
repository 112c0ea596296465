// llmjson: --normalize's form of a value, nlohmann's compact dump, written a run of plain bytes
// at a time
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_string.hpp"
#include "text.hpp"

namespace llmjson_cli {

/// Appends the ASCII byte `c`, a quote, a backslash or a control, escaped as nlohmann's dump
/// escapes it: `\"`, `\\`, `\b \f \n \r \t`, the other controls as `\u00xx` (lower-case hex).
inline void append_escaped(unsigned char c, std::string& out) {
  static constexpr char hex[] = "0123456789abcdef";
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: {  // the other controls
      const char u[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      out.append(u, sizeof u);
    }
  }
}

/// Appends `s` as nlohmann's compact dump writes a string (no `ensure_ascii`): quoted, `"` and
/// `\` escaped, `\b \f \n \r \t`, the other controls as `\u00xx` (lower-case hex), every other
/// byte as it is. Returns false, having appended nothing, when `s` is not well-formed UTF-8
/// (nlohmann's replacement of such bytes is its own to say).
inline bool append_dumped_string(std::string_view s, std::string& out) {
  const std::size_t start = out.size();
  out += '"';
  for (std::size_t at = 0;;) {
    const std::size_t plain = next_special(s.data(), at, s.size());
    out.append(s.data() + at, plain - at);
    if (plain == s.size()) break;
    const auto c = static_cast<unsigned char>(s[plain]);
    at = plain + 1;
    if (c >= 0x80) {  // a multi-byte sequence: as it is, when it is one
      const std::size_t n = utf8_sequence_at(s, plain);
      if (n == 0) {
        out.resize(start);
        return false;
      }
      out.append(s.data() + plain, n);
      at = plain + n;
      continue;
    }
    append_escaped(c, out);
  }
  out += '"';
  return true;
}

/// Appends `v` as `v.dump(-1, ' ', false, error_handler_t::replace)` writes it, the same bytes
/// (tests/tool_test.cpp checks them on random values): `--normalize`'s form of an answer. Strings
/// are copied a run of plain bytes at a time (nlohmann's dump decodes each byte's UTF-8), integers
/// written with `to_chars`; a double, and a string that is not well-formed UTF-8, are dumped by
/// nlohmann itself. Recursive, as nlohmann's dump is: a value's depth is bounded by the scan's
/// `max_depth`.
inline void append_dump(const nlohmann::json& v, std::string& out) {
  using value_t = nlohmann::json::value_t;
  const auto dumped = [&](const nlohmann::json& x) {
    out += x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  const auto integer = [&](auto n) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  };
  switch (v.type()) {
    case value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, member] : v.get_ref<const nlohmann::json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        if (!append_dumped_string(key, out)) dumped(nlohmann::json(key));
        out += ':';
        append_dump(member, out);
      }
      out += '}';
      break;
    }
    case value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v) {
        if (!first) out += ',';
        first = false;
        append_dump(item, out);
      }
      out += ']';
      break;
    }
    case value_t::string:
      if (!append_dumped_string(v.get_ref<const std::string&>(), out)) dumped(v);
      break;
    case value_t::boolean: out += v.get<bool>() ? "true" : "false"; break;
    case value_t::null: out += "null"; break;
    case value_t::number_integer: integer(v.get<nlohmann::json::number_integer_t>()); break;
    case value_t::number_unsigned: integer(v.get<nlohmann::json::number_unsigned_t>()); break;
    default: dumped(v);  // a double (nlohmann's own shortest form), binary, discarded
  }
}

/// Writes a JSON text's normal form (nlohmann's compact dump of its value) from the text itself,
/// building no value: `append_normalized`. Its room (for the text's objects and arrays, and the
/// open objects' members) is kept from one text to the next.
class text_normalizer {
 public:
  /// Appends the normal form of `text`; false, having appended nothing, where it is not one
  /// value as the library validates it (unique keys, escapes nlohmann reads; see
  /// append_normalized).
  bool run(std::string_view text, std::string& out) {
    t_ = text;
    boxes_.clear();
    members_.clear();
    keys_.clear();
    const std::size_t start = out.size();
    std::size_t at = skip_ws(0), first_box = 0;
    const bool ok =
        index() && at < t_.size() && value(at, first_box, out) && skip_ws(at) == t_.size();
    if (!ok) out.resize(start);
    return ok;
  }

 private:
  // An object or array, in the order they open: where it closes, and how many open inside it
  // (the next one at its level is `inside + 1` on).
  struct box {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t inside = 0;
  };
  // An object's member: its key (decoded), where its value starts, and the value's box (when it
  // is an object or an array).
  struct member {
    std::string_view key;
    std::size_t value = 0;
    std::size_t box = 0;
  };

  std::string_view t_;
  std::vector<box> boxes_;
  std::vector<std::size_t> open_;  // index(): the boxes not yet closed
  std::vector<member> members_;    // the open objects' members, the innermost last
  std::deque<std::string> keys_;   // decoded keys that had escapes (a deque: views stay put)

  [[nodiscard]] char at_or_0(std::size_t i) const noexcept { return i < t_.size() ? t_[i] : '\0'; }

  [[nodiscard]] std::size_t skip_ws(std::size_t i) const noexcept {
    while (i < t_.size() && is_json_ws(t_[i])) ++i;
    return i;
  }

  // The closing quote of the string whose opening quote is at `i`, or npos.
  [[nodiscard]] std::size_t string_end(std::size_t i) const noexcept {
    for (++i; i < t_.size(); ++i) {
      i = next_special(t_.data(), i, t_.size());
      if (i == t_.size()) break;
      if (t_[i] == '"') return i;
      if (t_[i] == '\\') ++i;  // the escaped byte is never the end
    }
    return std::string_view::npos;
  }

  // Writes the string whose opening quote is at `at` as nlohmann dumps its characters (see
  // append_dumped_string), escapes decoded on the way, and moves `at` past it. False on an
  // escape nlohmann does not read or ill-formed UTF-8.
  bool string(std::size_t& at, std::string& out) {
    const char* const s = t_.data();
    const std::size_t n = t_.size();
    out += '"';
    for (std::size_t i = at + 1;;) {
      const std::size_t plain = next_special(s, i, n);
      out.append(s + i, plain - i);
      if (plain >= n) return false;
      const auto c = static_cast<unsigned char>(s[plain]);
      if (c == '"') {
        out += '"';
        at = plain + 1;
        return true;
      }
      if (c >= 0x80) {  // a multi-byte sequence: as it is, when it is one
        const std::size_t len = utf8_sequence_at(t_, plain);
        if (len == 0) return false;
        out.append(s + plain, len);
        i = plain + len;
        continue;
      }
      char decoded[4];  // an escape's character as UTF-8, or a raw control as it is
      char* w = decoded;
      i = plain;
      if (c != '\\') {
        *w++ = static_cast<char>(c);
        ++i;
      } else if (!escape_checked(t_, i, w)) {
        return false;
      }
      const auto first = static_cast<unsigned char>(decoded[0]);
      if (w - decoded == 1 && (first < 0x20 || first == '"' || first == '\\')) {
        append_escaped(first, out);
      } else {
        out.append(decoded, static_cast<std::size_t>(w - decoded));
      }
    }
  }

  // Every object's and array's end, once, before anything is written: members are written in
  // key order, and a value is then found by its box, not by reading the ones before it again.
  bool index() {
    std::vector<std::size_t>& open = open_;
    open.clear();
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const char c = t_[i];
      if (c == '"') {
        i = string_end(i);
        if (i == std::string_view::npos) return false;
      } else if (c == '{' || c == '[') {
        open.push_back(boxes_.size());
        boxes_.push_back(box{i, 0, 0});
      } else if (c == '}' || c == ']') {
        if (open.empty() || t_[boxes_[open.back()].begin] != (c == '}' ? '{' : '[')) return false;
        box& b = boxes_[open.back()];
        b.end = i;
        b.inside = boxes_.size() - open.back() - 1;
        open.pop_back();
      }
    }
    return open.empty();
  }

  // The characters of the key at [i, close]: a view of the text when it has no escape, else
  // decoded into `into` (they are sorted as nlohmann's map sorts them, decoded). False when an
  // escape is not one nlohmann reads.
  bool chars(std::size_t i, std::size_t close, std::string& into, std::string_view& got) {
    got = t_.substr(i + 1, close - i - 1);
    if (got.find('\\') == std::string_view::npos) return true;
    const std::optional<std::size_t> n = read_string_line(t_.substr(i, close - i + 1), into);
    if (!n) return false;
    got = std::string_view(into.data(), *n);
    return true;
  }

  // Writes the value at `at` and moves `at` past it; `next_box` is the value's box when it is an
  // object or an array, moved past it and the ones inside it.
  bool value(std::size_t& at, std::size_t& next_box, std::string& out) {
    switch (t_[at]) {
      case '{': return object(at, next_box, out);
      case '[': return array(at, next_box, out);
      case '"': return string(at, out);
      case 't': return word(at, "true", out);
      case 'f': return word(at, "false", out);
      case 'n': return word(at, "null", out);
      default: return number(at, out);
    }
  }

  bool word(std::size_t& at, std::string_view w, std::string& out) {
    if (t_.substr(at, w.size()) != w) return false;
    out += w;
    at += w.size();
    return true;
  }

  // An integer nlohmann holds as one (int64 with a sign, else uint64) written with to_chars; any
  // other number as nlohmann reads and dumps it (its double's shortest form).
  bool number(std::size_t& at, std::string& out) {
    std::size_t end = at;
    bool integer = true;
    for (; end < t_.size(); ++end) {
      const char c = t_[end];
      if (c == '.' || c == 'e' || c == 'E') {
        integer = false;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
    }
    const std::string_view token = t_.substr(at, end - at);
    if (token.empty()) return false;
    at = end;
    const char* first = token.data();
    const char* last = first + token.size();
    char digits[24];
    if (integer && token[0] == '-') {
      std::int64_t n = 0;
      const auto r = std::from_chars(first, last, n);
      if (r.ec == std::errc() && r.ptr == last) {
        out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
        return true;
      }
    } else if (integer) {
      std::uint64_t n = 0;
      const auto r = std::from_chars(first, last, n);
      if (r.ec == std::errc() && r.ptr == last) {
        out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
        return true;
      }
    }
    // nlohmann reads the others with strtod: the double nearest the decimal, which from_chars
    // finds too; anything out of its range (an overflow nlohmann refuses, an underflow it takes
    // as 0) is left to nlohmann's reading.
    if (double d = 0; nearest_double(token, d)) {
      append_dump(nlohmann::json(d), out);
      return true;
    }
    const nlohmann::json v = nlohmann::json::parse(token, nullptr, false);
    if (v.is_discarded() || !v.is_number()) return false;
    append_dump(v, out);
    return true;
  }

  // The double nearest the decimal `token` (all of it), as strtod reads it in the C locale:
  // false when it is not one, or out of a double's range. With from_chars where the standard
  // library has it for doubles (libstdc++ 11 on; not libc++ 14), else strtod.
  static bool nearest_double(std::string_view token, double& d) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    const auto r = std::from_chars(token.data(), token.data() + token.size(), d);
    return r.ec == std::errc() && r.ptr == token.data() + token.size();
#else
    const std::string copy(token);  // strtod needs the end marked
    char* end = nullptr;
    errno = 0;
    d = std::strtod(copy.c_str(), &end);
    return errno == 0 && end == copy.c_str() + copy.size();
#endif
  }

  // Whether box `b` is the one that opens at `at`: where the text is not valid JSON, the boxes
  // counted by index() and the values read may not agree, and then nothing is written.
  [[nodiscard]] bool opens_at(std::size_t b, std::size_t at) const noexcept {
    return b < boxes_.size() && boxes_[b].begin == at;
  }

  // After a member or an item at `p`: past the comma, or at the container's end `end`.
  bool separator(std::size_t& p, std::size_t end) const noexcept {
    p = skip_ws(p);
    if (at_or_0(p) == ',') {
      p = skip_ws(p + 1);
      return p < end;
    }
    return p == end;
  }

  // The box `next_box` (opening at `at`) is entered: where it ends, and the first box inside
  // it; `next_box` moves past it and those inside it. False when it does not open at `at`.
  bool enter(std::size_t at, std::size_t& next_box, std::size_t& end, std::size_t& inner) {
    const std::size_t self = next_box;
    if (!opens_at(self, at)) return false;
    end = boxes_[self].end;
    inner = self + 1;
    next_box = self + 1 + boxes_[self].inside;
    return true;
  }

  bool array(std::size_t& at, std::size_t& next_box, std::string& out) {
    std::size_t end = 0, inner = 0;
    if (!enter(at, next_box, end, inner)) return false;
    out += '[';
    const std::size_t first = skip_ws(at + 1);
    for (std::size_t p = first; p < end;) {
      if (p != first) out += ',';
      if (!value(p, inner, out) || !separator(p, end)) return false;
    }
    out += ']';
    at = end + 1;
    return true;
  }

  bool object(std::size_t& at, std::size_t& next_box, std::string& out) {
    std::size_t end = 0, inner = 0;
    if (!enter(at, next_box, end, inner)) return false;
    const std::size_t base = members_.size(), key_base = keys_.size();
    for (std::size_t p = skip_ws(at + 1); p < end;) {
      const std::size_t close = at_or_0(p) == '"' ? string_end(p) : std::string_view::npos;
      if (close == std::string_view::npos || close >= end) return false;
      member m;
      if (!chars(p, close, keys_.emplace_back(), m.key)) return false;
      if (m.key.data() != keys_.back().data()) keys_.pop_back();  // no escape: a view of the text
      p = skip_ws(close + 1);
      if (at_or_0(p) != ':') return false;
      p = m.value = skip_ws(p + 1);
      const char c = at_or_0(p);
      if (c == '{' || c == '[') {
        if (!opens_at(inner, p)) return false;
        m.box = inner;
        p = boxes_[inner].end + 1;
        inner += 1 + boxes_[inner].inside;
      } else if (c == '"') {
        p = string_end(p);
        if (p == std::string_view::npos) return false;
        ++p;
      } else {
        while (p < end && !is_json_ws(t_[p]) && t_[p] != ',') ++p;
      }
      members_.push_back(m);
      if (!separator(p, end)) return false;
    }
    // nlohmann's object is a std::map: its keys in byte order, each once.
    const auto first = members_.begin() + static_cast<std::ptrdiff_t>(base);
    std::sort(first, members_.end(),
              [](const member& a, const member& b) { return a.key < b.key; });
    out += '{';
    for (std::size_t k = base; k < members_.size(); ++k) {
      if (k > base) {
        if (members_[k].key == members_[k - 1].key) return false;
        out += ',';
      }
      if (!append_dumped_string(members_[k].key, out)) return false;
      out += ':';
      std::size_t p = members_[k].value, its_box = members_[k].box;
      if (!value(p, its_box, out)) return false;
    }
    out += '}';
    members_.resize(base);
    keys_.resize(key_base);
    at = end + 1;
    return true;
  }
};

/// Appends the normal form of `text` (`--normalize`'s): the bytes `append_dump` writes of
/// nlohmann's reading of it, without reading it into a value. `text` is one JSON value as the
/// library validates a candidate (keys unique, well-formed UTF-8, at most `max_depth` levels:
/// the writing recurses a level a call); a raw control character in a string (a candidate with
/// `raw_controls`) is written as nlohmann writes it, escaped. Linear in `text`: every object's
/// and array's end is found first, in one pass, so that members are written in key order without
/// reading a value twice. Returns false, having appended nothing, on such text it cannot write
/// (a key with both an escape and a raw control): dump the value then. Other text is not
/// checked: it may be refused or written, and is never read past its end
/// (tests/fuzz/normalize_fuzz.cpp).
inline bool append_normalized(std::string_view text, std::string& out) {
  thread_local text_normalizer normalizer;  // a batch's worker keeps its room
  return normalizer.run(text, out);
}

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED
