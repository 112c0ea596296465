// llmjson: the tool's JSON Pointers (RFC 6901), read once from --at, --id-at and --reasoning-at
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_EXAMPLES_CLI_JSON_POINTER_HPP_INCLUDED
#define LLMJSON_EXAMPLES_CLI_JSON_POINTER_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmjson_cli {

/// unescaped (`~1` is `/`, `~0` is `~`).
struct json_pointer {
  std::string text;
  std::vector<std::string> tokens;

  /// Reads `text`; std::nullopt, with `problem` set, when it is not a pointer (`""` is the whole
  /// value; any other pointer starts with `/`, and `~` is followed by `0` or `1`).
  static std::optional<json_pointer> parse(std::string_view text, std::string& problem) {
    json_pointer p;
    p.text = std::string(text);
    if (text.empty()) return p;
    if (text.front() != '/') {
      problem = "'" + p.text + "' is not a JSON Pointer: it must be empty or start with '/'";
      return std::nullopt;
    }
    std::string token;
    for (std::size_t i = 1; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '/') {
        p.tokens.push_back(std::move(token));
        token.clear();
      } else if (text[i] == '~') {
        if (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1')) {
          problem = "'" + p.text + "' is not a JSON Pointer: '~' must be followed by 0 or 1";
          return std::nullopt;
        }
        token += text[++i] == '0' ? '~' : '/';
      } else {
        token += text[i];
      }
    }
    return p;
  }
};

}  // namespace llmjson_cli

#endif  // LLMJSON_EXAMPLES_CLI_JSON_POINTER_HPP_INCLUDED
