// llmjson: the bodies of schema_of.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_OF_SCHEMA_OF_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_OF_SCHEMA_OF_INL_HPP_INCLUDED

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/schema_of.hpp>

namespace llmjson::detail {

LLMJSON_INLINE std::string path_string(const json_path* at) {
  std::vector<const json_path*> steps;
  for (; at; at = at->parent) steps.push_back(at);
  std::string out;
  for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
    out += '/';
    out += (*s)->is_index ? std::to_string((*s)->index) : pointer_escape((*s)->key);
  }
  return out;
}

/// Returns `s` as a JSON string literal; invalid UTF-8 (possible in a value built in code, not
/// in a parsed one) shown as U+FFFD rather than thrown.
LLMJSON_INLINE std::string json_quoted(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

LLMJSON_INLINE std::string describe_value(const nlohmann::json& v) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    constexpr std::size_t most = 40;
    if (s.size() <= most) return "string " + json_quoted(s);
    std::size_t cut = most;  // not inside a UTF-8 sequence
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0U) == 0x80U) --cut;
    return "string " + json_quoted(std::string_view(s).substr(0, cut)) + "...";
  }
  if (v.is_array() || v.is_object()) return v.type_name();
  return v.dump();  // a number as written back, true, false, null
}

LLMJSON_INLINE std::string path_prefix(const json_path* at) {
  std::string p = path_string(at);
  return p.empty() ? p : p + ": ";
}

LLMJSON_INLINE void throw_wrong_type(const json_path* at, std::string_view expected,
                                     const nlohmann::json& v) {
  throw nlohmann::json::type_error::create(
      302, path_prefix(at) + "expected " + std::string(expected) + ", got " + describe_value(v),
      nullptr);
}

LLMJSON_INLINE void throw_out_of_range(const json_path* at, const std::string& what) {
  throw nlohmann::json::out_of_range::create(406, path_prefix(at) + what, nullptr);
}

LLMJSON_INLINE void throw_missing_key(const json_path* at, std::string_view key,
                                      const nlohmann::json& object,
                                      const std::string_view* declared, std::size_t count) {
  std::string what = path_prefix(at) + "missing key " + json_quoted(key);
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(declared, declared + count, it.key()) == declared + count) {
      what += " (beside the unknown key " + json_quoted(it.key()) + ")";
      break;
    }
  }
  throw nlohmann::json::out_of_range::create(403, what, nullptr);
}

LLMJSON_INLINE void throw_unknown_key(const json_path* at, std::string_view key) {
  throw nlohmann::json::out_of_range::create(
      406, path_prefix(at) + "unknown key " + json_quoted(key), nullptr);
}

LLMJSON_INLINE std::string float_expectation() {
  const std::string most = nlohmann::json(static_cast<double>(FLT_MAX)).dump();
  return "a number in [-" + most + ", " + most + "] (the range of float)";
}

LLMJSON_INLINE std::size_t schema_build::find(const void* key) const noexcept {
  std::size_t i = 0;
  while (i < defs.size() && defs[i].key != key) ++i;
  return i;
}

LLMJSON_INLINE schema_json schema_build::refer(std::size_t i) {
  def& d = defs[i];
  if (!d.recursive) {
    d.recursive = true;
    std::string base = schema_name(d.type_name), name = base;
    for (int n = 2; std::any_of(defs.begin(), defs.end(),
                                [&](const def& o) { return o.recursive && o.name == name; });
         ++n)
      name = base + "_" + std::to_string(n);
    d.name = std::move(name);
  }
  const char* where = openai_strict ? "#/$defs/" : "#/definitions/";
  return schema_json{{"$ref", where + pointer_escape(d.name)}};
}

LLMJSON_INLINE schema_json nullable(schema_json s) {
  const auto type = s.find("type");
  if (type != s.end() && type->is_string() && !s.contains("enum")) {
    const auto& t = type->get_ref<const std::string&>();
    if (t == "boolean" || t == "integer" || t == "number" || t == "string") {
      *type = schema_json::array({t, "null"});
      return s;
    }
  }
  return schema_json{{"anyOf", schema_json::array({std::move(s), {{"type", "null"}}})}};
}

LLMJSON_INLINE schema_json finish_schema(const schema_build& b, schema_json s) {
  schema_json defs = schema_json::object();
  for (const auto& d : b.defs)
    if (d.recursive) defs[d.name] = d.body;
  if (!defs.empty()) {
    // The root may be a $ref-free wrapper (anyOf, array): the definitions sit beside it.
    s[b.openai_strict ? "$defs" : "definitions"] = std::move(defs);
  }
  if (b.openai_strict) return s;
  schema_json out = {{"$schema", "http://json-schema.org/draft-07/schema#"}};
  out.update(s);  // the keys of `s`, in their order, after "$schema"
  return out;
}

LLMJSON_INLINE void throw_strict_map(std::string_view root, const std::string& where) {
  throw std::invalid_argument(
      "llmjson::schema_of<" + std::string(root) + ">(schema_style::openai_strict): " + where +
      " is a map (an object with any keys), which OpenAI's strict mode cannot express: it "
      "requires \"additionalProperties\": false on every object. Use a std::vector of a struct "
      "with a key member, or schema_style::draft7");
}

LLMJSON_INLINE void throw_strict_root() {
  throw std::invalid_argument(
      "llmjson::schema_of<T>(schema_style::openai_strict): T must be a struct declared with "
      "LLMJSON_DEFINE_TYPE: OpenAI's strict mode wants an object at the root");
}

LLMJSON_INLINE std::string schema_name(std::string_view type_name) {
  std::string out(type_name.substr(0, 64));
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

LLMJSON_INLINE schema_json response_format(const std::string& name, schema_json schema) {
  if (name.empty() || name.size() > 64 || schema_name(name) != name)
    throw std::invalid_argument("llmjson::openai_response_format: the name " + json_quoted(name) +
                                " must be 1 to 64 ASCII letters, digits, '_' or '-'");
  return {{"type", "json_schema"},
          {"json_schema", {{"name", name}, {"strict", true}, {"schema", std::move(schema)}}}};
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_OF_SCHEMA_OF_INL_HPP_INCLUDED
