// llmjson: a span that is one JSON value, checked and built in one nlohmann pass
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/scan/text.hpp>

namespace llmjson::detail {

/// nlohmann's SAX events into a `json`, refusing what the rules add to RFC 8259: a repeated key
/// (nlohmann hands keys over unescaped, as the rules compare them) and nesting deeper than
/// `max_depth`. Any refusal stops the parse.
class checked_dom {
 public:
  using json = nlohmann::json;
  checked_dom(json& root, std::size_t max_depth) : root_(root), max_depth_(max_depth) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t&) { return false; }  // not JSON text
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool key(json::string_t& k) {
    auto [it, inserted] = stack_.back()->get_ref<json::object_t&>().emplace(std::move(k), json());
    slot_ = &it->second;
    return inserted;  // a repeated key: not valid under the rules
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  bool open(json::value_t kind) {
    if (stack_.size() >= max_depth_) return false;
    json* v = place(json(kind));
    stack_.push_back(v);
    return true;
  }
  bool put(json&& v) {
    place(std::move(v));
    return true;
  }
  json* place(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      auto& arr = parent.get_ref<json::array_t&>();
      arr.push_back(std::move(v));
      return &arr.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }

  json& root_;
  std::size_t max_depth_;
  std::vector<json*> stack_;  // the open containers
  json* slot_ = nullptr;      // the member the next value goes to
};

/// Whether `text[b, e)` is one valid JSON value under the rules (JSON white space around it
/// allowed), built into `out` in the same pass. A `false` decides nothing: the caller reads the
/// text the slow way, which tells a prefix, an invalid text, or a value nlohmann cannot hold.
/// nlohmann's parser agrees with llmjson's validator but for what `checked_dom` adds (the
/// extract fuzz target checks it); but it skips a BOM and takes a NUL byte for the end of the
/// input, so a text starting with a BOM, or holding a NUL, is refused here.
inline bool parse_whole(std::string_view text, std::size_t b, std::size_t e, std::size_t max_depth,
                        nlohmann::json& out) {
  if (bom_length(text.substr(b)) != 0) return false;
  if (std::memchr(text.data() + b, '\0', e - b) != nullptr) return false;
  checked_dom dom(out, max_depth);
  const char* first = text.data() + b;
  try {
    return nlohmann::json::sax_parse(first, text.data() + e, &dom,
                                     nlohmann::json::input_format_t::json, /*strict=*/true);
  } catch (const nlohmann::json::exception&) {
    return false;  // nlohmann reports through the handler; this is only a guard
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCAN_WHOLE_HPP_INCLUDED
