// llmjson: healing, the value of a valid JSON prefix as far as it is written (rules §8)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_HEAL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_HEAL_HPP_INCLUDED

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/text/ascii.hpp>

namespace llmjson::detail {

/// What healing made of a valid JSON prefix.
struct healed_value {
  nlohmann::json value;
  /// The JSON pointer of the innermost value still being written: the string being written, or
  /// the innermost open array or object ("" the root). Everything in `value` off that path is
  /// complete.
  std::string open;
  bool open_string = false;  ///< `open` names the string being written
  /// Nothing was open: the text is a whole value (then `open` is empty and means nothing).
  bool complete = false;
  /// The root object's member keys whose `:` was read, in order (their members may be left out:
  /// a value not begun, a number in progress).
  std::vector<std::string> root_keys;
};

/// Rules §8 Healing: the value of `text`, a valid JSON prefix as the scan reads a frame's (raw
/// control characters in strings are string bytes, a backslash before one stands for it), with
/// the string being written closed as written so far (an incomplete last escape, a high surrogate
/// still waiting for its pair and a cut UTF-8 sequence left out), and left out with its member or
/// element: a key not yet followed by its `:`, a member with no value yet, a number, `true`,
/// `false` or `null` that a later byte could still extend; then every open array and object
/// closed. A complete `true`, `false` or `null` stays (no byte extends it); a number at the end
/// never does (a digit may follow).
///
/// Returns nothing when no value is left (a number or literal in progress at the root, only
/// white space), when a number does not fit a double (the value would have none, §1), or when
/// `text` turns out not to be a valid prefix (then nothing is made up). Linear in `text`: one
/// walk that writes the healed text, then `value_builder` over it. Iterative: any depth.
inline std::optional<healed_value> heal(std::string_view text) {
  struct level {
    bool object = false;
    std::size_t count = 0;  // arrays: elements begun (the last one's index + 1)
    std::string key;        // objects: the key of the member whose `:` was read last
  };
  std::vector<level> stack;
  std::vector<std::string> root_keys;
  std::size_t safe = 0;  // the healed text is text[..safe), then the closers
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto skip_ws = [&] {
    while (i < n && is_json_ws(text[i])) ++i;
  };
  // The pointer of the open levels, and of one more token below them.
  auto pointer = [&](const std::string* below) {
    std::string p;
    for (std::size_t d = 1; d < stack.size(); ++d) {
      const level& parent = stack[d - 1];
      p += '/';
      p += parent.object ? pointer_escape(parent.key) : std::to_string(parent.count - 1);
    }
    if (below) {
      p += '/';
      p += pointer_escape(*below);
    }
    return p;
  };
  // Ends the string whose opening quote is at `q`: its end just past its closing quote, or
  // npos when the text ends first; `kept` is then where its complete content ends.
  auto string_end = [&](std::size_t q, std::size_t& kept) {
    std::size_t k = q + 1;
    std::size_t last_complete = k;  // after the last complete character or escape
    while (k < n) {
      const unsigned char c = static_cast<unsigned char>(text[k]);
      if (c == '"') return k + 1;
      if (c == '\\') {
        if (k + 1 >= n) break;
        if (text[k + 1] != 'u') {
          k += 2;
          last_complete = k;
          continue;
        }
        if (k + 6 > n) break;  // `\u` and fewer than 4 digits
        unsigned cp = 0;
        for (std::size_t d = k + 2; d < k + 6; ++d) {
          const int h = hex_value(text[d]);
          if (h < 0) return std::string_view::npos - 1;  // not a prefix
          cp = (cp << 4) | static_cast<unsigned>(h);
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // its low surrogate must follow
          if (k + 12 > n) break;
          k += 12;
        } else {
          k += 6;
        }
        last_complete = k;
        continue;
      }
      if (c >= 0x80) {  // a UTF-8 sequence: kept once whole
        const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (k + len > n) break;
        k += len;
        last_complete = k;
        continue;
      }
      ++k;
      last_complete = k;
    }
    kept = last_complete;
    return std::string_view::npos;
  };
  constexpr std::size_t broken = std::string_view::npos - 1;

  healed_value out;
  std::string healed;  // the text to build from, when it differs from text[..safe) + closers
  bool in_string = false;
  std::size_t string_kept = 0;
  bool at_value = true;  // a value comes next (else: a `,` or a closer)
  for (;;) {
    skip_ws();
    if (i >= n) break;
    if (at_value) {
      const char c = text[i];
      if (c == '{' || c == '[') {
        if (!stack.empty() && !stack.back().object) ++stack.back().count;
        stack.push_back(level{c == '{', 0, {}});
        ++i;
        safe = i;
        skip_ws();
        if (i < n && text[i] == (c == '{' ? '}' : ']')) {
          ++i;
          stack.pop_back();
          safe = i;
          at_value = false;
          if (stack.empty()) break;
          continue;
        }
        if (c == '{') {
          // A key: its string, then `:`.
          if (i >= n) break;
          if (text[i] != '"') return std::nullopt;
          std::size_t kept = 0;
          const std::size_t e = string_end(i, kept);
          if (e == broken) return std::nullopt;
          if (e == std::string_view::npos) break;  // a key in progress: left out
          std::string key;
          unescape_string(text.substr(i + 1, e - 1 - (i + 1)), key);
          i = e;
          skip_ws();
          if (i >= n) break;  // no `:` yet
          if (text[i] != ':') return std::nullopt;
          ++i;
          if (stack.size() == 1) root_keys.push_back(key);
          stack.back().key = std::move(key);
        }
        continue;  // a value
      }
      if (!stack.empty() && !stack.back().object) ++stack.back().count;
      if (c == '"') {
        std::size_t kept = 0;
        const std::size_t e = string_end(i, kept);
        if (e == broken) return std::nullopt;
        if (e == std::string_view::npos) {
          in_string = true;
          string_kept = kept;
          out.open = stack.empty() ? std::string()
                     : stack.back().object
                         ? pointer(&stack.back().key)
                         : pointer(nullptr) + '/' + std::to_string(stack.back().count - 1);
          break;
        }
        i = e;
      } else if (c == 't' || c == 'f' || c == 'n') {
        const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        const std::string_view got = text.substr(i, word.size());
        if (word.substr(0, got.size()) != got) return std::nullopt;
        if (got.size() < word.size()) break;  // in progress: left out
        i += word.size();
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        std::size_t k = i;
        while (k < n && (text[k] == '-' || text[k] == '+' || text[k] == '.' || text[k] == 'e' ||
                         text[k] == 'E' || (text[k] >= '0' && text[k] <= '9')))
          ++k;
        if (k >= n) break;  // a later digit could extend it: left out
        i = k;
      } else {
        return std::nullopt;
      }
      safe = i;
      at_value = false;
      if (stack.empty()) break;  // a complete root: nothing is open
      continue;
    }
    // After a value.
    const char d = text[i++];
    if (d == ',') {
      if (stack.back().object) {
        skip_ws();
        if (i >= n) break;
        if (text[i] != '"') return std::nullopt;
        std::size_t kept = 0;
        const std::size_t e = string_end(i, kept);
        if (e == broken) return std::nullopt;
        if (e == std::string_view::npos) break;
        std::string key;
        unescape_string(text.substr(i + 1, e - 1 - (i + 1)), key);
        i = e;
        skip_ws();
        if (i >= n) break;
        if (text[i] != ':') return std::nullopt;
        ++i;
        if (stack.size() == 1) root_keys.push_back(key);
        stack.back().key = std::move(key);
      }
      at_value = true;
      continue;
    }
    if (d != (stack.back().object ? '}' : ']')) return std::nullopt;
    stack.pop_back();
    safe = i;
    if (stack.empty()) break;
  }
  if (stack.empty() && !in_string && safe == 0) return std::nullopt;  // nothing written
  out.complete = stack.empty() && !in_string;
  if (!in_string) out.open = pointer(nullptr);
  if (in_string) {
    healed.assign(text.substr(0, string_kept));
    healed.push_back('"');
  } else {
    healed.assign(text.substr(0, safe));
  }
  for (std::size_t d = stack.size(); d-- > 0;) healed.push_back(stack[d].object ? '}' : ']');
  if (!build_json(healed, out.value)) return std::nullopt;
  out.open_string = in_string;
  out.root_keys = std::move(root_keys);
  return out;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_HEAL_HPP_INCLUDED
