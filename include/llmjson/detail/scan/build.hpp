// llmjson: building the value of a span the validator accepted, without lexing it as nlohmann does
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_BUILD_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_BUILD_HPP_INCLUDED

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/text/ascii.hpp>
#include <llmjson/detail/text/utf8.hpp>

namespace llmjson::detail {

/// Builds the value of a span that llmjson's validator accepted, the same `nlohmann::json` that
/// `nlohmann::json::parse` makes of it (the same types: an integer is `number_unsigned` when it
/// is not negative and fits 64 bits, `number_integer` when it is negative and fits, else a
/// `number_float`, as nlohmann's lexer decides), in a fraction of its time: the text is known
/// to be valid, so nothing is checked again, a string's plain text is copied as a run, and no
/// position is tracked. A raw line feed, carriage return or tab in a string (a candidate valid
/// with raw controls, rules §3) is taken as that character, as nlohmann reads the escaped text.
///
/// Returns false, with `out` unspecified, only when a number does not fit a double (`1e400`):
/// nlohmann refuses the text then too. Not for text the validator has not accepted (it does not
/// check: such text gives an unspecified value, never undefined behaviour, as every read is
/// bounded). Iterative: any depth. The tests and the extract fuzz target compare it with
/// nlohmann's parse, type for type.
class value_builder {
 public:
  using json = nlohmann::json;

  bool build(std::string_view text, json& out) {
    s_ = text;
    i_ = 0;
    stack_.clear();
    json* root = &out;
    for (;;) {
      // A value.
      skip_ws();
      if (i_ >= s_.size()) return true;  // not a valid text: whatever was built
      json* made = nullptr;
      const char c = s_[i_];
      if (c == '{' || c == '[') {
        made = place(root, c == '{' ? json(json::value_t::object) : json(json::value_t::array));
        stack_.push_back(made);
        ++i_;
        skip_ws();
        if (i_ < s_.size() && (s_[i_] == '}' || s_[i_] == ']')) {
          ++i_;
          stack_.pop_back();
        } else {
          if (c == '{' && !member_key()) return true;
          continue;
        }
      } else if (c == '"') {
        std::string v;
        read_string(v);
        place(root, json(std::move(v)));
      } else if (c == 't' || c == 'f' || c == 'n') {
        place(root, c == 't' ? json(true) : c == 'f' ? json(false) : json(nullptr));
        i_ += c == 'f' ? 5 : 4;
      } else {
        json v;
        if (!read_number(v)) return false;
        place(root, std::move(v));
      }
      // After a value: commas and closing brackets, up to the next value.
      for (;;) {
        skip_ws();
        if (stack_.empty() || i_ >= s_.size()) return true;
        const char d = s_[i_++];
        if (d == ',') {
          if (stack_.back()->is_object() && !member_key()) return true;
          break;
        }
        stack_.pop_back();  // '}' or ']'
      }
    }
  }

 private:
  void skip_ws() noexcept {
    while (i_ < s_.size() && is_json_ws(s_[i_])) ++i_;
  }

  /// Puts `v` where the next value goes: the root, the end of the open array, or the member
  /// whose key was read last. Returns where it is (stable while it is open: its parent grows
  /// only after it closes, and a map's nodes never move).
  json* place(json* root, json&& v) {
    if (stack_.empty()) {
      *root = std::move(v);
      return root;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      auto& a = parent.get_ref<json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    // Keys are unique in a valid text: one node made with its pair, no null value to overwrite.
    auto& o = parent.get_ref<json::object_t&>();
    return &o.emplace(std::move(key_), std::move(v)).first->second;
  }

  /// Reads `"key" :` into `key_`. False at the end of the text.
  bool member_key() {
    skip_ws();
    if (i_ >= s_.size()) return false;
    key_.clear();
    read_string(key_);
    skip_ws();
    ++i_;  // ':'
    return true;
  }

  /// Reads the string at `i_` (its opening quote) into `out`, unescaped.
  void read_string(std::string& out) {
    static constexpr byte_finder stops{"\"\\"};
    ++i_;
    for (;;) {
      const std::size_t j = stops.next(s_, i_, s_.size());
      out.append(s_.data() + i_, j - i_);
      i_ = j;
      if (i_ >= s_.size()) return;  // the end (not a valid text)
      if (s_[i_] == '"') {
        ++i_;
        return;
      }
      i_ = append_escape(s_, i_, out);
    }
  }

  /// Reads the number at `i_` as nlohmann's lexer types it. False when it does not fit a
  /// double.
  bool read_number(json& out) {
    const std::size_t b = i_;
    bool integer = true;
    for (; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (c == '.' || c == 'e' || c == 'E') {
        integer = false;
      } else if ((c < '0' || c > '9') && c != '-' && c != '+') {
        break;
      }
    }
    if (i_ == b) {  // not a valid text: skip a byte rather than stall
      ++i_;
      return true;
    }
    const char* first = s_.data() + b;
    const char* last = s_.data() + i_;
    if (integer) {
      if (*first == '-') {
        json::number_integer_t v = 0;
        const auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
          out = json(v);
          return true;
        }
      } else {
        json::number_unsigned_t v = 0;
        const auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
          out = json(v);
          return true;
        }
      }
    }
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    // A standard library with from_chars for doubles (libstdc++ 11 and later): correctly
    // rounded, as nlohmann's strtod is, and independent of the C locale.
    json::number_float_t d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc() && r.ptr == last) {
      out = json(d);
      return true;
    }
#endif
    // Out of range: beyond a double (refused), or below its smallest (nlohmann rounds to 0); or
    // a library without from_chars for doubles (libc++ 14): nlohmann decides, on the token alone.
    out = json::parse(first, last, nullptr, false);
    return !out.is_discarded();
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::vector<json*> stack_;  // the open containers
  std::string key_;           // the key of the member whose value comes next
};

/// `value_builder().build(text, out)`.
inline bool build_json(std::string_view text, nlohmann::json& out) {
  value_builder b;
  return b.build(text, out);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_BUILD_HPP_INCLUDED
