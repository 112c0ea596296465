// llmjson tests: minify written as the plainest byte loop, what the 64-byte steps of
// detail/text/minify.hpp (and the byte loop beside them) must give on any bytes
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_MINIFY_REFERENCE_HPP_INCLUDED
#define LLMJSON_TESTS_MINIFY_REFERENCE_HPP_INCLUDED

#include <string>
#include <string_view>

namespace llmjson_test {

/// `llmjson::minify(text)`, a byte at a time: outside strings, JSON white space dropped; in one,
/// a raw LF, CR or tab escaped (after a backslash too), the byte after a backslash taken as it
/// is (a quote there does not close the string); an unclosed string keeps its white space.
inline std::string minify_bytewise(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  const auto escape = [](char c) {
    return c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\0';
  };
  while (i < text.size()) {
    const char c = text[i++];
    if (c == '"') {
      out += c;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size()) out += text[i++];
        if (const char e = escape(text[i])) {
          out += '\\';
          out += e;
          ++i;
          continue;
        }
        out += text[i++];
      }
      if (i < text.size()) out += text[i++];
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out += c;
    }
  }
  return out;
}

}  // namespace llmjson_test

#endif  // LLMJSON_TESTS_MINIFY_REFERENCE_HPP_INCLUDED
