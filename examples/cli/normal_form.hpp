// llmjson: --normalize's form of a value, nlohmann's compact dump, written a run of plain bytes
// at a time
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json_string.hpp"
#include "text.hpp"

namespace llmjson_cli {

/// Appends `s` as nlohmann's compact dump writes a string (no `ensure_ascii`): quoted, `"` and
/// `\` escaped, `\b \f \n \r \t`, the other controls as `\u00xx` (lower-case hex), every other
/// byte as it is. Returns false, having appended nothing, when `s` is not well-formed UTF-8
/// (nlohmann's replacement of such bytes is its own to say).
inline bool append_dumped_string(std::string_view s, std::string& out) {
  static constexpr char hex[] = "0123456789abcdef";
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

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_NORMAL_FORM_HPP_INCLUDED
