// llmjson: evaluates a value against a compiled JSON Schema, with a bounded depth
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/regex.hpp>
#include <llmjson/detail/schema_compile.hpp>

namespace llmjson::detail {

/// The most nested schema evaluations (one per subschema applied, `$ref` chains excepted) before
/// validation stops with "schema evaluation too deep". Deep enough for a recursive schema on a
/// value `max_depth_limit` levels deep; shallow enough for a thread's stack.
inline constexpr std::size_t schema_max_evaluation_depth = 3 * 2048;

/// Returns the JSON type name used in messages; an integral number is "integer".
inline std::string_view json_type_name(const nlohmann::json& v) noexcept {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer";
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? "integer" : "number";
    }
    default:
      return "unknown";
  }
}

/// Compares two JSON numbers exactly when both are integers, else as long double.
/// Returns <0, 0 or >0. Does not throw.
inline int number_compare(const nlohmann::json& a, const nlohmann::json& b) noexcept {
  using vt = nlohmann::json::value_t;
  const bool ai = a.type() != vt::number_float;
  const bool bi = b.type() != vt::number_float;
  if (ai && bi) {
    const bool au = a.type() == vt::number_unsigned;
    const bool bu = b.type() == vt::number_unsigned;
    if (au && bu) {
      const auto x = a.get<std::uint64_t>();
      const auto y = b.get<std::uint64_t>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (!au && !bu) {
      const auto x = a.get<std::int64_t>();
      const auto y = b.get<std::int64_t>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (au) {  // unsigned vs signed
      const auto y = b.get<std::int64_t>();
      if (y < 0) return 1;
      const auto x = a.get<std::uint64_t>();
      const auto yu = static_cast<std::uint64_t>(y);
      return x < yu ? -1 : (x > yu ? 1 : 0);
    }
    const auto x = a.get<std::int64_t>();
    if (x < 0) return -1;
    const auto xu = static_cast<std::uint64_t>(x);
    const auto y = b.get<std::uint64_t>();
    return xu < y ? -1 : (xu > y ? 1 : 0);
  }
  auto wide = [](const nlohmann::json& v) -> long double {
    switch (v.type()) {
      case vt::number_unsigned:
        return static_cast<long double>(v.get<std::uint64_t>());
      case vt::number_integer:
        return static_cast<long double>(v.get<std::int64_t>());
      default:
        return static_cast<long double>(v.get<double>());
    }
  };
  const long double x = wide(a);
  const long double y = wide(b);
  return x < y ? -1 : (x > y ? 1 : 0);
}

/// Returns whether `value` is a multiple of `divisor` (> 0): exactly for integers, else by the
/// quotient being within a relative tolerance of a whole number (0.0075 is a multiple of 0.0001).
inline bool is_multiple(const nlohmann::json& value, const nlohmann::json& divisor) noexcept {
  using vt = nlohmann::json::value_t;
  if (value.type() != vt::number_float && divisor.type() != vt::number_float) {
    std::uint64_t mag = 0;
    if (value.type() == vt::number_unsigned) {
      mag = value.get<std::uint64_t>();
    } else {
      const auto i = value.get<std::int64_t>();
      mag =
          i < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    }
    const std::uint64_t d = divisor.type() == vt::number_unsigned
                                ? divisor.get<std::uint64_t>()
                                : static_cast<std::uint64_t>(divisor.get<std::int64_t>());
    return d != 0 && mag % d == 0;
  }
  const double q = value.get<double>() / divisor.get<double>();
  if (!std::isfinite(q)) return false;
  const double tolerance = std::fmax(1e-9, 4 * DBL_EPSILON * std::fabs(q));
  return std::fabs(q - std::nearbyint(q)) <= tolerance;
}

/// A shallow hash that agrees with nlohmann's `==` (1 and 1.0 hash alike); buckets `uniqueItems`.
inline std::size_t shallow_hash(const nlohmann::json& v) {
  using vt = nlohmann::json::value_t;
  switch (v.type()) {
    case vt::number_integer:
    case vt::number_unsigned:
    case vt::number_float: {
      double d = v.get<double>();
      if (d == 0) d = 0;  // -0.0 == 0.0
      return std::hash<double>{}(d);
    }
    case vt::string:
      return std::hash<std::string>{}(v.get_ref<const std::string&>());
    case vt::boolean:
      return v.get<bool>() ? 3 : 5;
    case vt::array:
      return 7 + 31 * v.size();
    case vt::object:
      return 11 + 37 * v.size();
    default:
      return 13;
  }
}

class schema_evaluator {
 public:
  explicit schema_evaluator(const schema_tree& t) : t_(t) {}

  /// Returns whether `v` is valid; when not, `reason()` says why.
  bool run(const nlohmann::json& v) { return eval(t_.root, v, 0); }
  [[nodiscard]] std::string& reason() noexcept { return reason_; }

 private:
  struct step {
    const std::string* key = nullptr;  // object member, or
    std::size_t index = 0;             // array index
  };

  const schema_tree& t_;
  std::vector<step> path_;
  int quiet_ = 0;  // > 0 inside anyOf/oneOf/not/if/contains: failures are expected, no reason
  bool aborted_ = false;
  std::string reason_;

  [[nodiscard]] std::string where() const {
    if (path_.empty()) return "/";
    std::string out;
    for (const step& s : path_) {
      out += '/';
      out += s.key != nullptr ? pointer_escape(*s.key) : std::to_string(s.index);
    }
    return out;
  }

  bool fail(std::string_view keyword, const std::string& what) {
    if (quiet_ == 0 && reason_.empty())
      reason_ = where() + ": " + std::string(keyword) + ": " + what;
    return false;
  }

  static std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
  }

  bool quietly(std::size_t node, const nlohmann::json& v, std::size_t depth) {
    ++quiet_;
    const bool ok = eval(node, v, depth);
    --quiet_;
    return ok;
  }

  bool at_key(std::size_t node, const nlohmann::json& v, const std::string& key,
              std::size_t depth) {
    path_.push_back(step{&key, 0});
    const bool ok = eval(node, v, depth);
    path_.pop_back();
    return ok;
  }
  bool at_index(std::size_t node, const nlohmann::json& v, std::size_t i, std::size_t depth) {
    path_.push_back(step{nullptr, i});
    const bool ok = eval(node, v, depth);
    path_.pop_back();
    return ok;
  }

  static bool type_matches(unsigned types, const nlohmann::json& v) {
    using vt = nlohmann::json::value_t;
    switch (v.type()) {
      case vt::null:
        return (types & type_null) != 0;
      case vt::boolean:
        return (types & type_boolean) != 0;
      case vt::object:
        return (types & type_object) != 0;
      case vt::array:
        return (types & type_array) != 0;
      case vt::string:
        return (types & type_string) != 0;
      case vt::number_integer:
      case vt::number_unsigned:
      case vt::number_float:
        return (types & type_number) != 0 ||
               ((types & type_integer) != 0 && json_type_name(v) == "integer");
      default:
        return false;
    }
  }
  static std::string type_list(unsigned types) {
    static constexpr std::pair<unsigned, std::string_view> names[] = {
        {type_null, "null"},      {type_boolean, "boolean"}, {type_object, "object"},
        {type_array, "array"},    {type_number, "number"},   {type_string, "string"},
        {type_integer, "integer"}};
    std::string out;
    std::size_t count = 0;
    for (const auto& [bit, name] : names) {
      if ((types & bit) == 0) continue;
      out += (count++ == 0 ? "" : ", ");
      out += name;
    }
    return count > 1 ? "one of " + out : out;
  }

  bool eval(std::size_t id, const nlohmann::json& v, std::size_t depth) {
    if (aborted_) return false;
    if (++depth > schema_max_evaluation_depth) {
      aborted_ = true;
      reason_ = where() + ": schema evaluation too deep (over " +
                std::to_string(schema_max_evaluation_depth) + " nested subschemas)";
      return false;
    }
    // $ref chains are acyclic (checked when compiling), so this loop ends.
    while (t_.nodes[id].ref != no_node) id = t_.nodes[id].ref;
    const schema_node& n = t_.nodes[id];
    if (n.kind == schema_node::form::always) return true;
    if (n.kind == schema_node::form::never) return fail("false", "no value is allowed here");

    if (n.types != 0 && !type_matches(n.types, v)) {
      return fail("type",
                  "expected " + type_list(n.types) + ", got " + std::string(json_type_name(v)));
    }
    if (n.const_value && !(v == *n.const_value))
      return fail("const", "expected " + show_value(*n.const_value));
    if (n.enum_values) {
      bool found = false;
      for (const auto& e : *n.enum_values) {
        if (v == e) {
          found = true;
          break;
        }
      }
      if (!found) return fail("enum", "expected one of " + show_value(*n.enum_values, 120));
    }

    if (v.is_number() && !number_checks(n, v)) return false;
    if (v.is_string() && !string_checks(n, v)) return false;
    if (v.is_array() && !array_checks(n, v, depth)) return false;
    if (v.is_object() && !object_checks(n, v, depth)) return false;

    for (const std::size_t c : n.all_of) {
      if (!eval(c, v, depth)) return false;
    }
    if (!n.any_of.empty()) {
      bool any = false;
      for (const std::size_t c : n.any_of) {
        if (quietly(c, v, depth)) {
          any = true;
          break;
        }
        if (aborted_) return false;
      }
      if (!any) return fail("anyOf", "no alternative matches");
    }
    if (!n.one_of.empty()) {
      std::vector<std::size_t> hits;
      for (std::size_t i = 0; i < n.one_of.size() && hits.size() < 2; ++i) {
        if (quietly(n.one_of[i], v, depth)) hits.push_back(i);
        if (aborted_) return false;
      }
      if (hits.empty()) return fail("oneOf", "expected exactly one alternative to match, got none");
      if (hits.size() > 1) {
        return fail("oneOf", "expected exactly one alternative to match, got more (#" +
                                 std::to_string(hits[0]) + " and #" + std::to_string(hits[1]) +
                                 ")");
      }
    }
    if (n.not_ != no_node) {
      const bool matched = quietly(n.not_, v, depth);
      if (aborted_) return false;
      if (matched) return fail("not", "value matches the excluded schema");
    }
    if (n.if_ != no_node) {
      const bool cond = quietly(n.if_, v, depth);
      if (aborted_) return false;
      const std::size_t branch = cond ? n.then_ : n.else_;
      if (branch != no_node && !eval(branch, v, depth)) return false;
    }
    return true;
  }

  bool number_checks(const schema_node& n, const nlohmann::json& v) {
    if (n.minimum && number_compare(v, *n.minimum) < 0) {
      return fail("minimum",
                  "expected at least " + show_value(*n.minimum) + ", got " + show_value(v));
    }
    if (n.maximum && number_compare(v, *n.maximum) > 0) {
      return fail("maximum",
                  "expected at most " + show_value(*n.maximum) + ", got " + show_value(v));
    }
    if (n.exclusive_minimum && number_compare(v, *n.exclusive_minimum) <= 0) {
      return fail("exclusiveMinimum", "expected more than " + show_value(*n.exclusive_minimum) +
                                          ", got " + show_value(v));
    }
    if (n.exclusive_maximum && number_compare(v, *n.exclusive_maximum) >= 0) {
      return fail("exclusiveMaximum", "expected less than " + show_value(*n.exclusive_maximum) +
                                          ", got " + show_value(v));
    }
    if (n.multiple_of && !is_multiple(v, *n.multiple_of)) {
      return fail("multipleOf", "expected a multiple of " + show_value(*n.multiple_of) + ", got " +
                                    show_value(v));
    }
    return true;
  }

  bool string_checks(const schema_node& n, const nlohmann::json& v) {
    const auto& s = v.get_ref<const std::string&>();
    if (n.min_length || n.max_length) {
      const std::size_t len = utf8_length(s);
      if (n.min_length && len < *n.min_length) {
        return fail("minLength", "expected at least " +
                                     plural(*n.min_length, "character", "characters") + ", got " +
                                     std::to_string(len));
      }
      if (n.max_length && len > *n.max_length) {
        return fail("maxLength", "expected at most " +
                                     plural(*n.max_length, "character", "characters") + ", got " +
                                     std::to_string(len));
      }
    }
    if (n.pattern && !n.pattern->re.search(s))
      return fail("pattern", "expected to match " + json_quote(n.pattern->source));
    return true;
  }

  bool array_checks(const schema_node& n, const nlohmann::json& v, std::size_t depth) {
    const std::size_t size = v.size();
    if (n.min_items && size < *n.min_items) {
      return fail("minItems", "expected at least " + plural(*n.min_items, "item", "items") +
                                  ", got " + std::to_string(size));
    }
    if (n.max_items && size > *n.max_items) {
      return fail("maxItems", "expected at most " + plural(*n.max_items, "item", "items") +
                                  ", got " + std::to_string(size));
    }
    if (n.unique_items && size > 1) {
      std::unordered_map<std::size_t, std::vector<std::size_t>> seen;
      for (std::size_t i = 0; i < size; ++i) {
        auto& bucket = seen[shallow_hash(v[i])];
        for (const std::size_t j : bucket) {
          if (v[j] == v[i]) {
            return fail("uniqueItems",
                        "items " + std::to_string(j) + " and " + std::to_string(i) + " are equal");
          }
        }
        bucket.push_back(i);
      }
    }
    if (n.items_is_tuple) {
      const std::size_t fixed = n.tuple.size() < size ? n.tuple.size() : size;
      for (std::size_t i = 0; i < fixed; ++i) {
        if (!at_index(n.tuple[i], v[i], i, depth)) return false;
      }
      if (n.additional_items != no_node && size > n.tuple.size()) {
        if (t_.nodes[n.additional_items].kind == schema_node::form::never) {
          return fail("additionalItems", "expected at most " +
                                             plural(n.tuple.size(), "item", "items") + ", got " +
                                             std::to_string(size));
        }
        for (std::size_t i = n.tuple.size(); i < size; ++i) {
          if (!at_index(n.additional_items, v[i], i, depth)) return false;
        }
      }
    } else if (n.items != no_node) {
      for (std::size_t i = 0; i < size; ++i) {
        if (!at_index(n.items, v[i], i, depth)) return false;
      }
    }
    if (n.contains != no_node) {
      bool found = false;
      for (std::size_t i = 0; i < size && !found; ++i) {
        found = quietly(n.contains, v[i], depth);
        if (aborted_) return false;
      }
      if (!found)
        return fail("contains", size == 0 ? "expected an item that matches, got an empty array"
                                          : "no item matches");
    }
    return true;
  }

  bool object_checks(const schema_node& n, const nlohmann::json& v, std::size_t depth) {
    for (const auto& r : n.required) {
      if (!v.contains(r)) return fail("required", "missing key " + json_quote(r));
    }
    const std::size_t size = v.size();
    if (n.min_properties && size < *n.min_properties) {
      return fail("minProperties", "expected at least " +
                                       plural(*n.min_properties, "property", "properties") +
                                       ", got " + std::to_string(size));
    }
    if (n.max_properties && size > *n.max_properties) {
      return fail("maxProperties", "expected at most " +
                                       plural(*n.max_properties, "property", "properties") +
                                       ", got " + std::to_string(size));
    }
    const bool closed = n.additional_properties != no_node &&
                        t_.nodes[n.additional_properties].kind == schema_node::form::never;
    auto is_declared = [&](const std::string& key) {
      if (n.find_property(key) != nullptr) return true;
      for (const auto& p : n.pattern_properties) {
        if (p.re.search(key)) return true;
      }
      return false;
    };
    if (closed) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!is_declared(it.key()))
          return fail("additionalProperties", "unexpected key " + json_quote(it.key()));
      }
    }
    for (const auto& [key, keys] : n.dependency_keys) {
      if (!v.contains(key)) continue;
      for (const auto& need : keys) {
        if (!v.contains(need))
          return fail("dependencies",
                      "key " + json_quote(key) + " requires key " + json_quote(need));
      }
    }
    for (const auto& [key, node] : n.dependency_schemas) {
      if (v.contains(key) && !eval(node, v, depth)) return false;
    }
    if (n.property_names != no_node) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        const nlohmann::json name = it.key();
        // The key is judged as a value of its own: its path is not a place in `v`.
        std::vector<step> saved;
        saved.swap(path_);
        std::string inner;
        inner.swap(reason_);
        const bool ok = eval(n.property_names, name, depth);
        path_.swap(saved);
        inner.swap(reason_);
        if (aborted_) {
          reason_ = where() + ": propertyNames: " + inner;
          return false;
        }
        if (!ok) {
          if (inner.rfind("/: ", 0) == 0) inner.erase(0, 3);
          return fail("propertyNames", "key " + json_quote(it.key()) + ": " + inner);
        }
      }
    }
    if (n.properties.empty() && n.pattern_properties.empty() &&
        (n.additional_properties == no_node || closed)) {
      return true;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      bool declared = false;
      if (const std::size_t* p = n.find_property(key)) {
        declared = true;
        if (!at_key(*p, it.value(), key, depth)) return false;
      }
      for (const auto& p : n.pattern_properties) {
        if (!p.re.search(key)) continue;
        declared = true;
        if (!at_key(p.node, it.value(), key, depth)) return false;
      }
      if (!declared && n.additional_properties != no_node && !closed &&
          !at_key(n.additional_properties, it.value(), key, depth)) {
        return false;
      }
    }
    return true;
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED
