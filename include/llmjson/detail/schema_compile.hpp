// llmjson: the compiled form of a JSON Schema (draft 7) and the compiler that builds it
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_COMPILE_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_COMPILE_HPP_INCLUDED

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/regex.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

inline constexpr std::size_t no_node = static_cast<std::size_t>(-1);

/// JSON type bits of the `type` keyword.
enum type_bit : unsigned {
  type_null = 1U << 0U,
  type_boolean = 1U << 1U,
  type_object = 1U << 2U,
  type_array = 1U << 3U,
  type_number = 1U << 4U,
  type_string = 1U << 5U,
  type_integer = 1U << 6U,
};

struct schema_pattern {
  std::string source;
  regex re;
  std::size_t node = no_node;
};

/// One compiled (sub)schema. Child schemas are indices into `schema_tree::nodes`.
struct schema_node {
  enum class form : std::uint8_t { always, never, object };
  form kind = form::object;

  std::size_t ref = no_node;  // $ref target; when set, the other keywords are ignored (draft 7)

  unsigned types = 0;  // 0: no `type` keyword
  std::optional<nlohmann::json> const_value;
  std::optional<nlohmann::json> enum_values;  // an array

  // numbers
  std::optional<nlohmann::json> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  // strings
  std::optional<std::size_t> min_length, max_length;
  std::optional<schema_pattern> pattern;
  // arrays
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
  std::size_t items = no_node;     // `items` as one schema
  std::vector<std::size_t> tuple;  // `items` as an array of schemas
  bool items_is_tuple = false;
  std::size_t additional_items = no_node;
  std::size_t contains = no_node;
  // objects
  std::optional<std::size_t> min_properties, max_properties;
  std::vector<std::pair<std::string, std::size_t>> properties;  // sorted by key
  std::vector<schema_pattern> pattern_properties;
  std::size_t additional_properties = no_node;
  std::size_t property_names = no_node;
  std::vector<std::string> required;
  std::vector<std::pair<std::string, std::vector<std::string>>> dependency_keys;
  std::vector<std::pair<std::string, std::size_t>> dependency_schemas;
  // combinators
  std::vector<std::size_t> all_of, any_of, one_of;
  std::size_t not_ = no_node;
  std::size_t if_ = no_node, then_ = no_node, else_ = no_node;

  [[nodiscard]] const std::size_t* find_property(std::string_view key) const noexcept {
    auto it = std::lower_bound(
        properties.begin(), properties.end(), key,
        [](const auto& p, std::string_view k) { return std::string_view(p.first) < k; });
    return it != properties.end() && it->first == key ? &it->second : nullptr;
  }
};

/// A whole compiled schema: immutable once built, shared by every copy of `llmjson::schema`.
struct schema_tree {
  std::vector<schema_node> nodes;
  std::size_t root = 0;
};

// --- URIs (RFC 3986 reference resolution, enough for $id and $ref) ---------------------------

struct uri_parts {
  std::optional<std::string> scheme, authority, query, fragment;
  std::string path;
};

inline uri_parts uri_parse(std::string_view s) {
  uri_parts u;
  if (const auto hash = s.find('#'); hash != std::string_view::npos) {
    u.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  if (const auto q = s.find('?'); q != std::string_view::npos) {
    u.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  const auto colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      s.substr(0, colon).find('/') == std::string_view::npos) {
    bool ok = (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z');
    for (const char c : s.substr(0, colon)) {
      ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '-' || c == '.');
    }
    if (ok) {
      u.scheme = std::string(s.substr(0, colon));
      s = s.substr(colon + 1);
    }
  }
  if (s.substr(0, 2) == "//") {
    s = s.substr(2);
    const auto slash = s.find('/');
    u.authority = std::string(s.substr(0, slash));
    s = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);
  }
  u.path = std::string(s);
  return u;
}

inline std::string uri_remove_dots(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const auto last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      const auto next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in = next == std::string_view::npos ? std::string_view{} : in.substr(next);
    }
  }
  return out;
}

inline std::string uri_resolve(std::string_view base, std::string_view ref) {
  const uri_parts b = uri_parse(base);
  const uri_parts r = uri_parse(ref);
  uri_parts t;
  if (r.scheme) {
    t = r;
    t.path = uri_remove_dots(r.path);
  } else if (r.authority) {
    t = r;
    t.scheme = b.scheme;
    t.path = uri_remove_dots(r.path);
  } else {
    t.scheme = b.scheme;
    t.authority = b.authority;
    if (r.path.empty()) {
      t.path = b.path;
      t.query = r.query ? r.query : b.query;
    } else {
      if (r.path[0] == '/') {
        t.path = uri_remove_dots(r.path);
      } else if (b.authority && b.path.empty()) {
        t.path = uri_remove_dots("/" + r.path);
      } else {
        const auto slash = b.path.rfind('/');
        t.path = uri_remove_dots(
            (slash == std::string::npos ? std::string() : b.path.substr(0, slash + 1)) + r.path);
      }
      t.query = r.query;
    }
    t.fragment = r.fragment;
  }
  std::string out;
  if (t.scheme) out += *t.scheme + ":";
  if (t.authority) out += "//" + *t.authority;
  out += t.path;
  if (t.query) out += "?" + *t.query;
  if (t.fragment) out += "#" + *t.fragment;
  return out;
}

inline std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

/// Returns a JSON string literal for `s` (for messages); never throws on bad UTF-8.
inline std::string json_quote(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Returns whether `v` nests deeper than `limit` levels (an object or array is one level).
/// Iterative, so it is safe on values too deep for nlohmann's recursive copy.
inline bool deeper_than(const nlohmann::json& v, std::size_t limit) {
  std::vector<std::pair<const nlohmann::json*, std::size_t>> stack{{&v, 0}};
  while (!stack.empty()) {
    auto [p, d] = stack.back();
    stack.pop_back();
    if (!p->is_structured()) continue;
    if (d + 1 > limit) return true;
    for (const auto& child : *p) stack.emplace_back(&child, d + 1);
  }
  return false;
}

/// Returns `v` as compact JSON, cut to about `limit` bytes (for messages).
inline std::string show_value(const nlohmann::json& v, std::size_t limit = 80) {
  // nlohmann's dump recurses: a value nested deeper than a message needs is named, not printed.
  if (deeper_than(v, 16)) return v.is_array() ? "a deeply nested array" : "a deeply nested object";
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > limit) {
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0U) == 0x80U) --cut;
    s.resize(cut);
    s += "...";
  }
  return s;
}

// --- the compiler ----------------------------------------------------------------------------

class schema_compiler {
 public:
  explicit schema_compiler(const nlohmann::json& document) : doc_(document) {}

  /// Compiles the document; returns false and sets `error()` on the first problem.
  bool run() {
    resources_[""] = 0;
    tree_.root = enqueue(&doc_, no_node, "", "");
    if (!drain()) return false;
    if (!resolve_refs()) return false;
    if (!check_unknown_keywords()) return false;
    return check_cycles();
  }

  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  schema_tree take() { return std::move(tree_); }

 private:
  struct work {
    const nlohmann::json* value;
    std::size_t node;
    std::string base;
  };
  struct pending_ref {
    std::size_t node;
    std::string target;  // absolute (or base-relative) URI
    std::string text;    // as written
  };
  struct unknown_keyword {
    std::size_t node;
    std::string keyword;
    const nlohmann::json* value;
  };

  const nlohmann::json& doc_;
  schema_tree tree_;
  std::vector<const nlohmann::json*> raw_;  // node → its JSON in the document
  std::vector<std::size_t> parent_;         // node → parent node, or no_node
  std::vector<std::string> token_;          // node → pointer suffix from its parent
  std::vector<std::string> base_;           // node → base URI
  std::unordered_map<const nlohmann::json*, std::size_t> at_;
  std::unordered_map<std::string, std::size_t> resources_;  // URI without fragment → node
  std::unordered_map<std::string, std::size_t> anchors_;    // URI with plain-name fragment → node
  std::vector<work> queue_;
  std::vector<pending_ref> refs_;
  std::vector<unknown_keyword> unknown_;
  std::string error_;

  bool fail_at(std::size_t node, std::string_view token, std::string_view what) {
    return fail(path_of(node) + std::string(token), what);
  }
  bool fail(std::string where, std::string_view what) {
    if (error_.empty())
      error_ = (where.empty() ? std::string("/") : where) + ": " + std::string(what);
    return false;
  }

 public:
  /// Returns the JSON pointer of a node within the document ("" for the root).
  [[nodiscard]] std::string path_of(std::size_t n) const {
    std::vector<const std::string*> parts;
    for (std::size_t i = n; i != no_node; i = parent_[i]) parts.push_back(&token_[i]);
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += **it;
    return out;
  }

 private:
  std::size_t enqueue(const nlohmann::json* v, std::size_t parent, std::string token,
                      std::string base) {
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

  bool drain() {
    while (!queue_.empty()) {
      work w = std::move(queue_.back());
      queue_.pop_back();
      if (!compile_one(w)) return false;
    }
    return true;
  }

  std::size_t child(const nlohmann::json& v, std::size_t parent, std::string token,
                    const std::string& base) {
    return enqueue(&v, parent, std::move(token), base);
  }

  static bool is_schema(const nlohmann::json& v) { return v.is_object() || v.is_boolean(); }

  static std::optional<std::size_t> as_count(const nlohmann::json& v) {
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

  static bool is_draft7_uri(std::string_view s) {
    for (std::string_view ok :
         {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
          "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema"}) {
      if (s == ok) return true;
    }
    return false;
  }

  bool compile_one(const work& w) {
    const nlohmann::json& j = *w.value;
    const std::size_t id = w.node;
    schema_node n;
    if (j.is_boolean()) {
      n.kind = j.get<bool>() ? schema_node::form::always : schema_node::form::never;
      tree_.nodes[id] = std::move(n);
      return true;
    }
    if (!j.is_object()) return fail_at(id, "", "a schema must be an object or a boolean");

    // $id: a new base URI (a resource) or, with a plain-name fragment, an anchor. Ignored beside
    // $ref, as draft 7 ignores every keyword there.
    std::string base = w.base;
    const bool has_ref = j.contains("$ref");
    if (auto it = j.find("$id"); it != j.end()) {
      if (!it->is_string()) return fail_at(id, "/$id", "expected a string");
      if (!has_ref) {
        const std::string resolved = uri_resolve(base, it->get<std::string>());
        const auto hash = resolved.find('#');
        const std::string doc_part = resolved.substr(0, hash);
        const std::string frag =
            hash == std::string::npos ? std::string() : resolved.substr(hash + 1);
        if (!frag.empty() && frag[0] == '/')
          return fail_at(id, "/$id", "a JSON-pointer fragment is not allowed in $id");
        if (frag.empty()) {
          resources_[doc_part] = id;
        } else {
          anchors_[doc_part + "#" + frag] = id;
        }
        base = doc_part;
        base_[id] = base;
      }
    }

    auto schema_at = [&](const nlohmann::json& v, const std::string& token, std::size_t& out) {
      if (!is_schema(v)) return fail_at(id, token, "a schema must be an object or a boolean");
      out = child(v, id, token, base);
      return true;
    };
    auto schema_list = [&](const nlohmann::json& v, const std::string& token,
                           std::vector<std::size_t>& out, bool non_empty) {
      if (!v.is_array()) return fail_at(id, token, "expected an array of schemas");
      if (non_empty && v.empty()) return fail_at(id, token, "expected at least one schema");
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::size_t c = no_node;
        if (!schema_at(v[i], token + "/" + std::to_string(i), c)) return false;
        out.push_back(c);
      }
      return true;
    };
    auto schema_map = [&](const nlohmann::json& v, const std::string& token,
                          std::vector<std::pair<std::string, std::size_t>>* out) {
      if (!v.is_object()) return fail_at(id, token, "expected an object of schemas");
      for (auto it = v.begin(); it != v.end(); ++it) {
        std::size_t c = no_node;
        if (!schema_at(it.value(), token + "/" + pointer_escape(it.key()), c)) return false;
        if (out) out->emplace_back(it.key(), c);
      }
      return true;
    };
    auto number = [&](const nlohmann::json& v, const std::string& token,
                      std::optional<nlohmann::json>& out) {
      if (!v.is_number()) return fail_at(id, token, "expected a number");
      out = v;
      return true;
    };
    auto count = [&](const nlohmann::json& v, const std::string& token,
                     std::optional<std::size_t>& out) {
      out = as_count(v);
      if (!out) return fail_at(id, token, "expected a non-negative integer");
      return true;
    };
    auto compile_pattern = [&](const std::string& src,
                               const std::string& token) -> std::optional<schema_pattern> {
      std::string why;
      auto re = regex::compile(src, why);
      if (!re) {
        fail_at(id, token, "pattern " + json_quote(src) + ": " + why);
        return std::nullopt;
      }
      return schema_pattern{src, std::move(*re), no_node};
    };

    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const nlohmann::json& v = it.value();
      const std::string token = "/" + pointer_escape(k);
      bool ok = true;
      if (k == "$ref") {
        if (!v.is_string()) return fail_at(id, token, "expected a string");
        refs_.push_back(
            pending_ref{id, uri_resolve(base, v.get<std::string>()), v.get<std::string>()});
      } else if (k == "$id") {
        // handled above
      } else if (k == "$schema") {
        if (!v.is_string() || !is_draft7_uri(v.get<std::string>())) {
          return fail_at(
              id, token,
              "only draft 7 is supported (\"http://json-schema.org/draft-07/schema#\"), got " +
                  show_value(v));
        }
      } else if (k == "$comment" || k == "title" || k == "description") {
        if (!v.is_string()) return fail_at(id, token, "expected a string");
      } else if (k == "format") {
        if (!v.is_string()) return fail_at(id, token, "expected a string");
      } else if (k == "readOnly" || k == "writeOnly") {
        // draft 7 meta-data (generators such as Pydantic emit them): they assert nothing
        if (!v.is_boolean()) return fail_at(id, token, "expected a boolean");
      } else if (k == "default" || k == "examples") {
        // annotations: any value
      } else if (k == "type") {
        auto one = [&](const nlohmann::json& t) {
          static constexpr std::pair<std::string_view, unsigned> names[] = {
              {"null", type_null},      {"boolean", type_boolean}, {"object", type_object},
              {"array", type_array},    {"number", type_number},   {"string", type_string},
              {"integer", type_integer}};
          if (t.is_string()) {
            for (const auto& [name, bit] : names) {
              if (t.get_ref<const std::string&>() == name) {
                n.types |= bit;
                return true;
              }
            }
          }
          return fail_at(id, token, "unknown type " + show_value(t));
        };
        if (v.is_array()) {
          if (v.empty()) return fail_at(id, token, "expected at least one type");
          for (const auto& t : v) ok = ok && one(t);
        } else {
          ok = one(v);
        }
      } else if (k == "properties") {
        ok = schema_map(v, token, &n.properties);
        std::sort(n.properties.begin(), n.properties.end());
      } else if (k == "patternProperties") {
        if (!v.is_object()) return fail_at(id, token, "expected an object of schemas");
        for (auto p = v.begin(); p != v.end() && ok; ++p) {
          const std::string sub = token + "/" + pointer_escape(p.key());
          auto pat = compile_pattern(p.key(), sub);
          if (!pat) return false;
          ok = schema_at(p.value(), sub, pat->node);
          n.pattern_properties.push_back(std::move(*pat));
        }
      } else if (k == "additionalProperties") {
        ok = schema_at(v, token, n.additional_properties);
      } else if (k == "propertyNames") {
        ok = schema_at(v, token, n.property_names);
      } else if (k == "required") {
        if (!v.is_array()) return fail_at(id, token, "expected an array of strings");
        for (const auto& r : v) {
          if (!r.is_string()) return fail_at(id, token, "expected an array of strings");
          n.required.push_back(r.get<std::string>());
        }
      } else if (k == "items") {
        if (v.is_array()) {
          n.items_is_tuple = true;
          ok = schema_list(v, token, n.tuple, true);
        } else {
          ok = schema_at(v, token, n.items);
        }
      } else if (k == "additionalItems") {
        ok = schema_at(v, token, n.additional_items);
      } else if (k == "contains") {
        ok = schema_at(v, token, n.contains);
      } else if (k == "enum" || k == "const") {
        if (k == "enum" && !v.is_array()) return fail_at(id, token, "expected an array");
        if (deeper_than(v, max_depth_limit)) {
          return fail_at(id, token,
                         "value nested deeper than " + std::to_string(max_depth_limit) + " levels");
        }
        (k == "enum" ? n.enum_values : n.const_value) = v;
      } else if (k == "allOf") {
        ok = schema_list(v, token, n.all_of, true);
      } else if (k == "anyOf") {
        ok = schema_list(v, token, n.any_of, true);
      } else if (k == "oneOf") {
        ok = schema_list(v, token, n.one_of, true);
      } else if (k == "not") {
        ok = schema_at(v, token, n.not_);
      } else if (k == "if") {
        ok = schema_at(v, token, n.if_);
      } else if (k == "then") {
        ok = schema_at(v, token, n.then_);
      } else if (k == "else") {
        ok = schema_at(v, token, n.else_);
      } else if (k == "minimum") {
        ok = number(v, token, n.minimum);
      } else if (k == "maximum") {
        ok = number(v, token, n.maximum);
      } else if (k == "exclusiveMinimum") {
        ok = number(v, token, n.exclusive_minimum);
      } else if (k == "exclusiveMaximum") {
        ok = number(v, token, n.exclusive_maximum);
      } else if (k == "multipleOf") {
        ok = number(v, token, n.multiple_of);
        if (ok && !(v.get<double>() > 0))
          return fail_at(id, token, "expected a number greater than 0");
      } else if (k == "minLength") {
        ok = count(v, token, n.min_length);
      } else if (k == "maxLength") {
        ok = count(v, token, n.max_length);
      } else if (k == "minItems") {
        ok = count(v, token, n.min_items);
      } else if (k == "maxItems") {
        ok = count(v, token, n.max_items);
      } else if (k == "minProperties") {
        ok = count(v, token, n.min_properties);
      } else if (k == "maxProperties") {
        ok = count(v, token, n.max_properties);
      } else if (k == "pattern") {
        if (!v.is_string()) return fail_at(id, token, "expected a string");
        n.pattern = compile_pattern(v.get<std::string>(), token);
        ok = n.pattern.has_value();
      } else if (k == "uniqueItems") {
        if (!v.is_boolean()) return fail_at(id, token, "expected a boolean");
        n.unique_items = v.get<bool>();
      } else if (k == "dependencies") {
        if (!v.is_object()) return fail_at(id, token, "expected an object");
        for (auto d = v.begin(); d != v.end() && ok; ++d) {
          const std::string sub = token + "/" + pointer_escape(d.key());
          if (d.value().is_array()) {
            std::vector<std::string> keys;
            for (const auto& r : d.value()) {
              if (!r.is_string())
                return fail_at(id, sub, "expected an array of strings or a schema");
              keys.push_back(r.get<std::string>());
            }
            n.dependency_keys.emplace_back(d.key(), std::move(keys));
          } else {
            std::size_t c = no_node;
            ok = schema_at(d.value(), sub, c);
            n.dependency_schemas.emplace_back(d.key(), c);
          }
        }
      } else if (k == "definitions" || k == "$defs") {
        ok = schema_map(v, token, nullptr);
      } else {
        // Unknown: an error unless the value only holds schemas reached through $ref
        // (a definitions container under another name); decided once all refs are resolved.
        unknown_.push_back(unknown_keyword{id, k, &v});
      }
      if (!ok) return false;
    }
    tree_.nodes[id] = std::move(n);
    return true;
  }

  // Follows a JSON-pointer fragment (already percent-decoded) from `from`.
  static const nlohmann::json* follow(const nlohmann::json* from, std::string_view pointer) {
    if (pointer.empty()) return from;
    if (pointer[0] != '/') return nullptr;
    const nlohmann::json* cur = from;
    std::size_t pos = 1;
    for (;;) {
      const auto end = pointer.find('/', pos);
      std::string_view raw =
          pointer.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
      std::string tok;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
          tok.push_back(raw[i + 1] == '0' ? '~' : '/');
          ++i;
        } else if (raw[i] == '~') {
          return nullptr;
        } else {
          tok.push_back(raw[i]);
        }
      }
      if (cur->is_object()) {
        auto it = cur->find(tok);
        if (it == cur->end()) return nullptr;
        cur = &*it;
      } else if (cur->is_array()) {
        if (tok.empty() || (tok.size() > 1 && tok[0] == '0')) return nullptr;
        std::size_t idx = 0;
        for (const char c : tok) {
          if (c < '0' || c > '9' || idx > cur->size()) return nullptr;
          idx = idx * 10 + static_cast<std::size_t>(c - '0');
        }
        if (idx >= cur->size()) return nullptr;
        cur = &(*cur)[idx];
      } else {
        return nullptr;
      }
      if (end == std::string_view::npos) return cur;
      pos = end + 1;
    }
  }

  // Resolves every $ref; a ref into a part of the document not yet compiled compiles it (which
  // may add refs and $ids), so this repeats until nothing changes.
  bool resolve_refs() {
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
          if (auto a = anchors_.find(doc_part + "#" + frag); a != anchors_.end())
            target = a->second;
        } else if (auto res = resources_.find(doc_part); res != resources_.end()) {
          const nlohmann::json* at = follow(raw_[res->second], frag);
          if (at == nullptr) {
            return fail(path_of(r.node) + "/$ref",
                        "reference " + json_quote(r.text) + " points to nothing");
          }
          if (!is_schema(*at)) {
            return fail(path_of(r.node) + "/$ref",
                        "reference " + json_quote(r.text) + " does not point to a schema");
          }
          target = enqueue(at, no_node, path_of(res->second) + frag, base_[res->second]);
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

  bool check_unknown_keywords() {
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

  // Edges evaluated against the same value; a cycle through them never ends.
  template <class F>
  void same_value_edges(std::size_t id, F&& f) const {
    const schema_node& n = tree_.nodes[id];
    if (n.ref != no_node) {
      f(n.ref);
      return;
    }
    for (const std::size_t c : n.all_of) f(c);
    for (const std::size_t c : n.any_of) f(c);
    for (const std::size_t c : n.one_of) f(c);
    for (const std::size_t c : {n.not_, n.if_, n.then_, n.else_}) {
      if (c != no_node) f(c);
    }
    for (const auto& d : n.dependency_schemas) f(d.second);
  }

  bool check_cycles() {
    const std::size_t count_nodes = tree_.nodes.size();
    std::vector<std::uint8_t> color(count_nodes, 0);  // 0 new, 1 on the stack, 2 done
    for (std::size_t start = 0; start < count_nodes; ++start) {
      if (color[start] != 0) continue;
      std::vector<std::pair<std::size_t, std::vector<std::size_t>>> stack;
      auto push = [&](std::size_t id) {
        std::vector<std::size_t> next;
        same_value_edges(id, [&](std::size_t c) { next.push_back(c); });
        color[id] = 1;
        stack.emplace_back(id, std::move(next));
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
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_COMPILE_HPP_INCLUDED
