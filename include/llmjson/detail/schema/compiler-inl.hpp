// llmjson: the bodies of detail/schema/compiler.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_COMPILER_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_COMPILER_INL_HPP_INCLUDED

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/schema/compiler.hpp>
#include <llmjson/detail/schema/messages.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/tree.hpp>
#include <llmjson/detail/schema/uri.hpp>
#include <llmjson/detail/schema/values.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

LLMJSON_INLINE bool schema_compiler::run() {
  resources_[""] = 0;
  tree_.root = enqueue(&doc_, no_node, "", "");
  if (!drain()) return false;
  if (!resolve_refs()) return false;
  if (!check_unknown_keywords()) return false;
  if (!check_cycles()) return false;
  mark_applicators();
  return true;
}

LLMJSON_INLINE void schema_compiler::mark_applicators() {
  for (schema_node& n : tree_.nodes) {
    n.combines = !n.all_of.empty() || !n.any_of.empty() || !n.one_of.empty() || n.not_ != no_node ||
                 n.if_ != no_node;
    const bool closed = n.additional_properties != no_node &&
                        tree_.nodes[n.additional_properties].kind == schema_node::form::never;
    n.applies_subschemas = n.combines || n.items != no_node || n.items_is_tuple ||
                           n.contains != no_node || !n.properties.empty() ||
                           !n.pattern_properties.empty() ||
                           (n.additional_properties != no_node && !closed) ||
                           n.property_names != no_node || !n.dependency_schemas.empty();
  }
}

LLMJSON_INLINE std::string schema_compiler::path_of(std::size_t n) const {
  std::vector<const std::string*> parts;
  for (std::size_t i = n; i != no_node; i = parent_[i]) parts.push_back(&token_[i]);
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += **it;
  return out;
}

LLMJSON_INLINE bool schema_compiler::fail_at(std::size_t node, std::string_view token,
                                             std::string_view what) {
  return fail(path_of(node) + std::string(token), what);
}

LLMJSON_INLINE bool schema_compiler::fail(std::string where, std::string_view what) {
  if (message_.empty())
    message_ = (where.empty() ? std::string("/") : where) + ": " + std::string(what);
  return false;
}

// --- subschemas to nodes ---------------------------------------------------------------------

LLMJSON_INLINE std::size_t schema_compiler::enqueue(const nlohmann::json* v, std::size_t parent,
                                                    std::string token, std::string base) {
  if (auto it = at_.find(v); it != at_.end()) return it->second;
  const std::size_t id = tree_.nodes.size();
  tree_.nodes.emplace_back();
  raw_.push_back(v);
  parent_.push_back(parent);
  token_.push_back(std::move(token));
  base_.push_back(base);
  at_.emplace(v, id);
  queue_.push_back(work{v, id, std::move(base)});
  return id;
}

LLMJSON_INLINE bool schema_compiler::drain() {
  while (!queue_.empty()) {
    work w = std::move(queue_.back());
    queue_.pop_back();
    if (!compile_one(w)) return false;
  }
  return true;
}

LLMJSON_INLINE bool schema_compiler::compile_one(const work& w) {
  const nlohmann::json& j = *w.value;
  const std::size_t id = w.node;
  schema_node n;
  if (j.is_boolean()) {
    n.kind = j.get<bool>() ? schema_node::form::always : schema_node::form::never;
    tree_.nodes[id] = std::move(n);
    return true;
  }
  if (!j.is_object()) return fail_at(id, "", "a schema must be an object or a boolean");
  if (j.contains("$ref") && !check_ref_siblings(j, id)) return false;
  std::string base = w.base;
  if (!read_id(j, id, base)) return false;
  // `n` is filled apart and stored at the end: compiling a child grows `tree_.nodes`.
  const place at{id, base};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!compile_keyword(at, n, keyword{it.key(), it.value(), "/" + pointer_escape(it.key())}))
      return false;
  }
  // OpenAPI 3.0's nullable: true adds "null" to the types `type` allows, only where `type` is
  // given; other keywords (enum, const, allOf...) still apply, and may refuse null.
  if (const auto it = j.find("nullable");
      it != j.end() && it->is_boolean() && it->get<bool>() && n.types != 0)
    n.types |= type_null;
  tree_.nodes[id] = std::move(n);
  return true;
}

// Draft 7 ignores every keyword beside $ref, later drafts apply them, and OpenAPI 3.0 ignores
// them too: a keyword there that would assert something means different things to different
// validators (the provider's among them), so it is refused, with the form that means the same
// everywhere. Annotations, $schema, $comment and definitions ($defs) assert nothing: accepted.
// An unknown keyword is left to check_unknown_keywords.
LLMJSON_INLINE bool schema_compiler::check_ref_siblings(const nlohmann::json& j, std::size_t id) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    if (!asserts(name)) continue;
    const std::string instead =
        name == "nullable"
            ? R"(to allow null, write "anyOf": [{"$ref": ...}, {"type": "null"}])"
            : R"(to apply it, write "allOf": [{"$ref": ...}, {)" + json_quote(name) + ": ...}]";
    return fail_at(id, "/" + pointer_escape(name),
                   "a keyword beside \"$ref\" is refused: draft 7 and OpenAPI 3.0 ignore it, "
                   "later drafts apply it; " +
                       instead);
  }
  return true;
}

LLMJSON_INLINE bool schema_compiler::asserts(std::string_view keyword) {
  // The keywords of validation_keyword and applicator_keyword, $id and nullable.
  static constexpr std::string_view names =
      " $id type enum const minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength"
      " maxLength minItems maxItems minProperties maxProperties pattern uniqueItems required"
      " properties patternProperties additionalProperties propertyNames dependencies items"
      " additionalItems contains allOf anyOf oneOf not if then else nullable ";
  if (keyword.empty() || keyword.find(' ') != std::string_view::npos) return false;
  return names.find(" " + std::string(keyword) + " ") != std::string_view::npos;
}

// $id: a new base URI (a resource) or, with a plain-name fragment, an anchor. Never beside $ref
// (check_ref_siblings refuses it there).
LLMJSON_INLINE bool schema_compiler::read_id(const nlohmann::json& j, std::size_t id,
                                             std::string& base) {
  auto it = j.find("$id");
  if (it == j.end()) return true;
  if (!it->is_string()) return fail_at(id, "/$id", "expected a string");
  const std::string resolved = uri_resolve(base, it->get<std::string>());
  const auto hash = resolved.find('#');
  const std::string doc_part = resolved.substr(0, hash);
  const std::string frag = hash == std::string::npos ? std::string() : resolved.substr(hash + 1);
  if (!frag.empty() && frag[0] == '/')
    return fail_at(id, "/$id", "a JSON-pointer fragment is not allowed in $id");
  if (frag.empty()) {
    resources_[doc_part] = id;
  } else {
    anchors_[doc_part + "#" + frag] = id;
  }
  base = doc_part;
  base_[id] = base;
  return true;
}

// --- the keywords ----------------------------------------------------------------------------

LLMJSON_INLINE bool schema_compiler::compile_keyword(const place& at, schema_node& n,
                                                     const keyword& k) {
  if (const auto done = core_keyword(at, k)) return *done;
  if (const auto done = annotation_keyword(at, k)) return *done;
  if (const auto done = validation_keyword(at, n, k)) return *done;
  if (const auto done = applicator_keyword(at, n, k)) return *done;
  // Unknown: an error unless the value only holds schemas reached through $ref (a definitions
  // container under another name); decided once all refs are resolved.
  unknown_.push_back(unknown_keyword{at.id, k.name, &k.value});
  return true;
}

// $ref, $id, $schema, definitions, $defs.
LLMJSON_INLINE std::optional<bool> schema_compiler::core_keyword(const place& at,
                                                                 const keyword& k) {
  const nlohmann::json& v = k.value;
  if (k.name == "$ref") {
    if (!v.is_string()) return fail_at(at.id, k.token, "expected a string");
    refs_.push_back(
        pending_ref{at.id, uri_resolve(at.base, v.get<std::string>()), v.get<std::string>()});
    return true;
  }
  if (k.name == "$id") return true;  // read first, by read_id
  if (k.name == "$schema") {
    if (!v.is_string() || !is_draft7_uri(v.get<std::string>())) {
      return fail_at(
          at.id, k.token,
          "only draft 7 is supported (\"http://json-schema.org/draft-07/schema#\"), got " +
              show_value(v));
    }
    return true;
  }
  if (k.name == "definitions" || k.name == "$defs") return schema_map(at, v, k.token, nullptr);
  return std::nullopt;
}

// Keywords that assert nothing: $comment, title, description, format, contentMediaType,
// contentEncoding (draft 7 makes the content keywords annotations unless a validator opts in),
// readOnly, writeOnly, deprecated (2019-09 meta-data, which generators emit), default, examples,
// and OpenAPI's extensions x-*.
LLMJSON_INLINE std::optional<bool> schema_compiler::annotation_keyword(const place& at,
                                                                       const keyword& k) {
  const nlohmann::json& v = k.value;
  if (k.name == "$comment" || k.name == "title" || k.name == "description" || k.name == "format" ||
      k.name == "contentMediaType" || k.name == "contentEncoding") {
    if (!v.is_string()) return fail_at(at.id, k.token, "expected a string");
    return true;
  }
  if (k.name == "readOnly" || k.name == "writeOnly" || k.name == "deprecated") {
    if (!v.is_boolean()) return fail_at(at.id, k.token, "expected a boolean");
    return true;
  }
  if (k.name == "default" || k.name == "examples") return true;  // any value
  if (k.name.rfind("x-", 0) == 0) return true;                   // any value
  return std::nullopt;
}

// Keywords that judge the value itself, applying no subschema: type, enum, const, the number
// bounds, the length and size bounds, pattern, uniqueItems, required.
LLMJSON_INLINE std::optional<bool> schema_compiler::validation_keyword(const place& at,
                                                                       schema_node& n,
                                                                       const keyword& k) {
  const nlohmann::json& v = k.value;
  const std::string& name = k.name;
  if (name == "type") {
    auto one = [&](const nlohmann::json& t) {
      static constexpr std::pair<std::string_view, unsigned> names[] = {
          {"null", type_null},      {"boolean", type_boolean}, {"object", type_object},
          {"array", type_array},    {"number", type_number},   {"string", type_string},
          {"integer", type_integer}};
      if (t.is_string()) {
        for (const auto& [type_name, bit] : names) {
          if (t.get_ref<const std::string&>() == type_name) {
            n.types |= bit;
            return true;
          }
        }
      }
      return fail_at(at.id, k.token, "unknown type " + show_value(t));
    };
    if (!v.is_array()) return one(v);
    if (v.empty()) return fail_at(at.id, k.token, "expected at least one type");
    bool ok = true;
    for (const auto& t : v) ok = ok && one(t);
    return ok;
  }
  if (name == "enum" || name == "const") {
    if (name == "enum" && !v.is_array()) return fail_at(at.id, k.token, "expected an array");
    if (deeper_than(v, max_depth_limit)) {
      return fail_at(at.id, k.token,
                     "value nested deeper than " + std::to_string(max_depth_limit) + " levels");
    }
    (name == "enum" ? n.enum_values : n.const_value) = v;
    return true;
  }
  if (name == "minimum") return number(at, v, k.token, n.minimum);
  if (name == "maximum") return number(at, v, k.token, n.maximum);
  if (name == "exclusiveMinimum") return number(at, v, k.token, n.exclusive_minimum);
  if (name == "exclusiveMaximum") return number(at, v, k.token, n.exclusive_maximum);
  if (name == "multipleOf") {
    if (!number(at, v, k.token, n.multiple_of)) return false;
    if (!(v.get<double>() > 0)) return fail_at(at.id, k.token, "expected a number greater than 0");
    return true;
  }
  if (name == "minLength") return count(at, v, k.token, n.min_length);
  if (name == "maxLength") return count(at, v, k.token, n.max_length);
  if (name == "minItems") return count(at, v, k.token, n.min_items);
  if (name == "maxItems") return count(at, v, k.token, n.max_items);
  if (name == "minProperties") return count(at, v, k.token, n.min_properties);
  if (name == "maxProperties") return count(at, v, k.token, n.max_properties);
  if (name == "pattern") {
    if (!v.is_string()) return fail_at(at.id, k.token, "expected a string");
    n.pattern = compile_pattern(at, v.get<std::string>(), k.token);
    return n.pattern.has_value();
  }
  if (name == "nullable") {  // OpenAPI 3.0: applied by compile_one, once `type` is read
    if (!v.is_boolean()) return fail_at(at.id, k.token, "expected a boolean");
    return true;
  }
  if (name == "uniqueItems") {
    if (!v.is_boolean()) return fail_at(at.id, k.token, "expected a boolean");
    n.unique_items = v.get<bool>();
    return true;
  }
  if (name == "required") {
    if (!v.is_array()) return fail_at(at.id, k.token, "expected an array of strings");
    for (const auto& r : v) {
      if (!r.is_string()) return fail_at(at.id, k.token, "expected an array of strings");
      n.required.push_back(r.get<std::string>());
    }
    return true;
  }
  return std::nullopt;
}

// Keywords that apply subschemas: to members (properties, patternProperties,
// additionalProperties, propertyNames, dependencies), to items (items, additionalItems,
// contains), to the same value (allOf, anyOf, oneOf, not, if, then, else).
LLMJSON_INLINE std::optional<bool> schema_compiler::applicator_keyword(const place& at,
                                                                       schema_node& n,
                                                                       const keyword& k) {
  const nlohmann::json& v = k.value;
  const std::string& name = k.name;
  const std::string& token = k.token;
  if (name == "properties") {
    const bool ok = schema_map(at, v, token, &n.properties);
    std::sort(n.properties.begin(), n.properties.end());
    return ok;
  }
  if (name == "patternProperties") {
    if (!v.is_object()) return fail_at(at.id, token, "expected an object of schemas");
    bool ok = true;
    for (auto p = v.begin(); p != v.end() && ok; ++p) {
      const std::string sub = token + "/" + pointer_escape(p.key());
      auto pat = compile_pattern(at, p.key(), sub);
      if (!pat) return false;
      ok = schema_at(at, p.value(), sub, pat->node);
      n.pattern_properties.push_back(std::move(*pat));
    }
    return ok;
  }
  if (name == "additionalProperties") return schema_at(at, v, token, n.additional_properties);
  if (name == "propertyNames") return schema_at(at, v, token, n.property_names);
  if (name == "dependencies") {
    if (!v.is_object()) return fail_at(at.id, token, "expected an object");
    bool ok = true;
    for (auto d = v.begin(); d != v.end() && ok; ++d) {
      const std::string sub = token + "/" + pointer_escape(d.key());
      if (d.value().is_array()) {
        std::vector<std::string> keys;
        for (const auto& r : d.value()) {
          if (!r.is_string())
            return fail_at(at.id, sub, "expected an array of strings or a schema");
          keys.push_back(r.get<std::string>());
        }
        n.dependency_keys.emplace_back(d.key(), std::move(keys));
      } else {
        std::size_t c = no_node;
        ok = schema_at(at, d.value(), sub, c);
        n.dependency_schemas.emplace_back(d.key(), c);
      }
    }
    return ok;
  }
  if (name == "items") {
    if (!v.is_array()) return schema_at(at, v, token, n.items);
    n.items_is_tuple = true;
    return schema_list(at, v, token, n.tuple);
  }
  if (name == "additionalItems") return schema_at(at, v, token, n.additional_items);
  if (name == "contains") return schema_at(at, v, token, n.contains);
  if (name == "allOf") return schema_list(at, v, token, n.all_of);
  if (name == "anyOf") return schema_list(at, v, token, n.any_of);
  if (name == "oneOf") return schema_list(at, v, token, n.one_of);
  if (name == "not") return schema_at(at, v, token, n.not_);
  if (name == "if") return schema_at(at, v, token, n.if_);
  if (name == "then") return schema_at(at, v, token, n.then_);
  if (name == "else") return schema_at(at, v, token, n.else_);
  return std::nullopt;
}

// --- what the keywords' values must be -------------------------------------------------------

LLMJSON_INLINE bool schema_compiler::schema_at(const place& at, const nlohmann::json& v,
                                               const std::string& token, std::size_t& out) {
  if (!is_schema(v)) return fail_at(at.id, token, "a schema must be an object or a boolean");
  out = enqueue(&v, at.id, token, at.base);
  return true;
}

LLMJSON_INLINE bool schema_compiler::schema_list(const place& at, const nlohmann::json& v,
                                                 const std::string& token,
                                                 std::vector<std::size_t>& out) {
  if (!v.is_array()) return fail_at(at.id, token, "expected an array of schemas");
  if (v.empty()) return fail_at(at.id, token, "expected at least one schema");
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::size_t c = no_node;
    if (!schema_at(at, v[i], token + "/" + std::to_string(i), c)) return false;
    out.push_back(c);
  }
  return true;
}

LLMJSON_INLINE bool schema_compiler::schema_map(
    const place& at, const nlohmann::json& v, const std::string& token,
    std::vector<std::pair<std::string, std::size_t>>* out) {
  if (!v.is_object()) return fail_at(at.id, token, "expected an object of schemas");
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::size_t c = no_node;
    if (!schema_at(at, it.value(), token + "/" + pointer_escape(it.key()), c)) return false;
    if (out) out->emplace_back(it.key(), c);
  }
  return true;
}

LLMJSON_INLINE bool schema_compiler::number(const place& at, const nlohmann::json& v,
                                            const std::string& token,
                                            std::optional<nlohmann::json>& out) {
  if (!v.is_number()) return fail_at(at.id, token, "expected a number");
  out = v;
  return true;
}

LLMJSON_INLINE bool schema_compiler::count(const place& at, const nlohmann::json& v,
                                           const std::string& token,
                                           std::optional<std::size_t>& out) {
  out = as_count(v);
  if (!out) return fail_at(at.id, token, "expected a non-negative integer");
  return true;
}

LLMJSON_INLINE std::optional<schema_pattern> schema_compiler::compile_pattern(
    const place& at, const std::string& source, const std::string& token) {
  std::string why;
  auto re = regex::compile(source, why);
  if (!re) {
    fail_at(at.id, token, "pattern " + json_quote(source) + ": " + why);
    return std::nullopt;
  }
  return schema_pattern{source, std::move(*re), no_node};
}

LLMJSON_INLINE bool schema_compiler::is_schema(const nlohmann::json& v) {
  return v.is_object() || v.is_boolean();
}

LLMJSON_INLINE std::optional<std::size_t> schema_compiler::as_count(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::size_t>();  // no cast: -Wuseless-cast where equal
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= 0) return static_cast<std::size_t>(i);
    return std::nullopt;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d < 1.8e19 && std::floor(d) == d) return static_cast<std::size_t>(d);
  }
  return std::nullopt;
}

LLMJSON_INLINE bool schema_compiler::is_draft7_uri(std::string_view s) {
  for (std::string_view ok :
       {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema"}) {
    if (s == ok) return true;
  }
  return false;
}

// --- after the queue -------------------------------------------------------------------------

// Resolves every $ref; a ref into a part of the document not yet compiled compiles it (which
// may add refs and $ids), so this repeats until nothing changes.
LLMJSON_INLINE bool schema_compiler::resolve_refs() {
  std::vector<pending_ref> open = std::move(refs_);
  refs_.clear();
  for (;;) {
    std::vector<pending_ref> still;
    bool progress = false;
    for (auto& r : open) {
      const auto hash = r.target.find('#');
      const std::string doc_part = r.target.substr(0, hash);
      const std::string frag =
          hash == std::string::npos ? std::string() : percent_decode(r.target.substr(hash + 1));
      std::size_t target = no_node;
      if (!frag.empty() && frag[0] != '/') {
        if (auto a = anchors_.find(doc_part + "#" + frag); a != anchors_.end()) target = a->second;
      } else if (auto res = resources_.find(doc_part); res != resources_.end()) {
        const nlohmann::json* found = pointer_follow(raw_[res->second], frag);
        if (found == nullptr) {
          return fail(path_of(r.node) + "/$ref",
                      "reference " + json_quote(r.text) + " points to nothing");
        }
        if (!is_schema(*found)) {
          return fail(path_of(r.node) + "/$ref",
                      "reference " + json_quote(r.text) + " does not point to a schema");
        }
        target = enqueue(found, no_node, path_of(res->second) + frag, base_[res->second]);
      }
      if (target == no_node) {
        still.push_back(std::move(r));
      } else {
        tree_.nodes[r.node].ref = target;
        progress = true;
      }
    }
    if (!drain()) return false;
    for (auto& r : refs_) still.push_back(std::move(r));
    refs_.clear();
    if (still.empty()) return true;
    if (!progress) {
      const pending_ref& r = still.front();
      const auto hash = r.target.find('#');
      const std::string frag =
          hash == std::string::npos ? std::string() : r.target.substr(hash + 1);
      if (resources_.count(r.target.substr(0, hash)) != 0 && !frag.empty() && frag[0] != '/') {
        return fail(path_of(r.node) + "/$ref",
                    "reference " + json_quote(r.text) + ": no $id names this anchor");
      }
      return fail(path_of(r.node) + "/$ref",
                  "remote reference " + json_quote(r.text) + " is not supported");
    }
    open = std::move(still);
  }
}

LLMJSON_INLINE bool schema_compiler::check_unknown_keywords() {
  for (const auto& u : unknown_) {
    bool container = false;
    std::vector<const nlohmann::json*> stack{u.value};
    while (!stack.empty() && !container) {
      const nlohmann::json* p = stack.back();
      stack.pop_back();
      if (at_.count(p) != 0) container = true;
      if (p->is_structured()) {
        for (const auto& c : *p) stack.push_back(&c);
      }
    }
    if (!container) return fail(path_of(u.node), "unsupported keyword " + json_quote(u.keyword));
  }
  return true;
}

// Refuses a cycle of edges that apply a schema to the same value ($ref, allOf, anyOf, oneOf,
// not, if, then, else, a dependency's schema): evaluating it would never end.
LLMJSON_INLINE bool schema_compiler::check_cycles() {
  auto same_value_edges = [this](std::size_t id) {
    std::vector<std::size_t> next;
    const schema_node& n = tree_.nodes[id];
    if (n.ref != no_node) {
      next.push_back(n.ref);
      return next;
    }
    for (const std::size_t c : n.all_of) next.push_back(c);
    for (const std::size_t c : n.any_of) next.push_back(c);
    for (const std::size_t c : n.one_of) next.push_back(c);
    for (const std::size_t c : {n.not_, n.if_, n.then_, n.else_}) {
      if (c != no_node) next.push_back(c);
    }
    for (const auto& d : n.dependency_schemas) next.push_back(d.second);
    return next;
  };
  const std::size_t count_nodes = tree_.nodes.size();
  std::vector<std::uint8_t> color(count_nodes, 0);  // 0 new, 1 on the stack, 2 done
  for (std::size_t start = 0; start < count_nodes; ++start) {
    if (color[start] != 0) continue;
    std::vector<std::pair<std::size_t, std::vector<std::size_t>>> stack;
    auto push = [&](std::size_t id) {
      color[id] = 1;
      stack.emplace_back(id, same_value_edges(id));
    };
    push(start);
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      if (next.empty()) {
        color[id] = 2;
        stack.pop_back();
        continue;
      }
      const std::size_t c = next.back();
      next.pop_back();
      if (color[c] == 1) {
        return fail(path_of(c),
                    "reference cycle: the schema refers back to itself without descending into "
                    "the value");
      }
      if (color[c] == 0) push(c);
    }
  }
  return true;
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_COMPILER_INL_HPP_INCLUDED
