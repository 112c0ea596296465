// llmjson: evaluates a value against a compiled JSON Schema with an explicit stack
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
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
/// value `max_depth_limit` levels deep. Evaluation keeps its own stack (on the heap), so the
/// thread's stack use does not grow with the depth of the schema or the value.
inline constexpr std::size_t schema_max_evaluation_depth = 3 * 2048;
/// The most subschema applications one validation may make: a schema whose `$ref`s fan out
/// (`allOf` of two refs to the next level, thirty levels deep) fails cleanly instead of taking
/// exponential time.
inline constexpr std::size_t schema_max_evaluation_steps = std::size_t{1} << 24;

/// Returns the JSON type name used in messages; an integral number is "integer".
inline std::string_view json_type_name(const nlohmann::json& v) noexcept {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::object: return "object";
    case nlohmann::json::value_t::array: return "array";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "integer";
    case nlohmann::json::value_t::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? "integer" : "number";
    }
    default: return "unknown";
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
      case vt::number_unsigned: return static_cast<long double>(v.get<std::uint64_t>());
      case vt::number_integer: return static_cast<long double>(v.get<std::int64_t>());
      default: return static_cast<long double>(v.get<double>());
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
  const double x = value.get<double>(), d = divisor.get<double>();
  // Whole numbers (1e20 as a float, say): fmod is exact, so the answer is too.
  if (std::nearbyint(x) == x && std::nearbyint(d) == d) return d != 0 && std::fmod(x, d) == 0;
  const double q = x / d;
  if (!std::isfinite(q)) return false;
  // Otherwise the quotient must be whole up to the rounding of one division (0.0075 / 0.0001),
  // relative to its size: no absolute floor, which would take 1.0000000001 for a multiple of 1.
  const double tolerance = 4 * DBL_EPSILON * std::fmax(1.0, std::fabs(q));
  return std::fabs(q - std::nearbyint(q)) <= tolerance;
}

/// A hash of the whole value that agrees with nlohmann's `==` (1 and 1.0 hash alike, objects
/// are ordered maps), so `uniqueItems` compares only items in the same bucket. Iterative.
inline std::size_t deep_hash(const nlohmann::json& root) {
  using vt = nlohmann::json::value_t;
  std::size_t h = 0;
  auto mix = [&h](std::size_t x) { h = (h ^ x) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL; };
  std::vector<const nlohmann::json*> todo{&root};
  while (!todo.empty()) {
    const nlohmann::json& v = *todo.back();
    todo.pop_back();
    switch (v.type()) {
      case vt::number_integer:
      case vt::number_unsigned:
      case vt::number_float: {
        double d = v.get<double>();
        if (d == 0) d = 0;  // -0.0 == 0.0
        mix(std::hash<double>{}(d));
        break;
      }
      case vt::string: mix(std::hash<std::string>{}(v.get_ref<const std::string&>())); break;
      case vt::boolean: mix(v.get<bool>() ? 3 : 5); break;
      case vt::array:
        mix(7 + 31 * v.size());
        for (auto it = v.rbegin(); it != v.rend(); ++it) todo.push_back(&*it);
        break;
      case vt::object:
        mix(11 + 37 * v.size());
        for (auto it = v.begin(); it != v.end(); ++it) {
          mix(std::hash<std::string>{}(it.key()));
          todo.push_back(&it.value());
        }
        break;
      default: mix(13); break;
    }
  }
  return h;
}

// Validation never recurses: each subschema being applied is a `frame` on a heap-allocated
// stack (a deque, so a frame's address stays put while its children run). A frame advances
// through phases (the keyword groups, in the order their failures are reported); to apply a
// child schema it pushes a frame and waits; the child's result comes back through `resume`.
class schema_evaluator {
 public:
  explicit schema_evaluator(const schema_tree& t) : t_(t) {}

  /// Returns whether `v` is valid; when not, `reason()` says why.
  bool run(const nlohmann::json& v) {
    bool result = false;
    if (!call(t_.root, &v, false, nullptr, no_node)) return false;
    while (!stack_.empty()) {
      if (aborted_) return false;
      frame& f = stack_.back();
      const outcome o = resume(f, result);
      if (o == outcome::called) continue;
      result = o == outcome::pass;
      pop();
    }
    return result && !aborted_;
  }
  [[nodiscard]] std::string& reason() noexcept { return reason_; }

 private:
  struct step {
    const std::string* key = nullptr;  // object member, or
    std::size_t index = 0;             // array index
  };
  enum class phase : std::uint8_t {
    start,
    tuple,
    additional_items,
    items,
    contains,
    dependencies,
    names,
    members,
    all_of,
    any_of,
    one_of,
    not_,
    if_,
    branch
  };
  enum class outcome : std::uint8_t { pass, fail, called };
  struct frame {
    std::size_t node = 0;
    const nlohmann::json* value = nullptr;
    phase at = phase::start;
    bool waiting = false;         // a child frame was pushed; its result comes next
    bool quiet = false;           // counted in quiet_
    bool pushed_path = false;     // added a step to path_
    bool matched = false;         // members: the current key matched properties/patternProperties
    std::size_t i = 0;            // position within the phase
    std::size_t j = 0;            // members: stage for the current key
    std::size_t first = no_node;  // oneOf: the first alternative that matched
    nlohmann::json::const_iterator member{};  // names/members: the current key
    // propertyNames: the key as a value, judged with a path and reason of its own
    nlohmann::json name;
    std::vector<step> saved_path;
    std::string saved_reason;
  };

  static inline const std::string too_deep = ": schema evaluation too deep (over " +
                                             std::to_string(schema_max_evaluation_depth) +
                                             " nested subschemas)";
  static inline const std::string too_costly = ": schema evaluation too costly (over " +
                                               std::to_string(schema_max_evaluation_steps) +
                                               " subschema applications)";

  const schema_tree& t_;
  std::deque<frame> stack_;
  std::size_t steps_ = 0;
  std::vector<step> path_;
  int quiet_ = 0;  // > 0 inside anyOf/oneOf/not/if/contains: failures are expected, no reason
  bool aborted_ = false;
  std::string reason_;

  // --- the stack ---

  // Pushes a frame applying schema `node` to `*v`. `key`/`index` name the child's place
  // (`key == nullptr` and `index == no_node`: the same place). Returns false when too deep.
  bool call(std::size_t node, const nlohmann::json* v, bool quiet, const std::string* key,
            std::size_t index) {
    if (stack_.size() >= schema_max_evaluation_depth) {
      aborted_ = true;
      reason_ = where() + too_deep;
      return false;
    }
    if (++steps_ > schema_max_evaluation_steps) {
      aborted_ = true;
      reason_ = where() + too_costly;
      return false;
    }
    // $ref chains are acyclic (checked when compiling), so this loop ends.
    while (t_.nodes[node].ref != no_node) node = t_.nodes[node].ref;
    frame& f = stack_.emplace_back();
    f.node = node;
    f.value = v;
    f.quiet = quiet;
    if (quiet) ++quiet_;
    if (key != nullptr || index != no_node) {
      path_.push_back(step{key, key != nullptr ? 0 : index});
      f.pushed_path = true;
    }
    return true;
  }
  outcome child(frame& parent, std::size_t node, const nlohmann::json* v, bool quiet,
                const std::string* key = nullptr, std::size_t index = no_node) {
    parent.waiting = true;
    return call(node, v, quiet, key, index) ? outcome::called : outcome::fail;
  }
  void pop() {
    frame& f = stack_.back();
    if (f.pushed_path) path_.pop_back();
    if (f.quiet) --quiet_;
    stack_.pop_back();
  }

  // --- messages ---

  [[nodiscard]] bool silent() const noexcept { return quiet_ > 0 || !reason_.empty(); }

  [[nodiscard]] std::string where() const {
    if (path_.empty()) return "/";
    std::string out;
    for (const step& s : path_) {
      out += '/';
      out += s.key != nullptr ? pointer_escape(*s.key) : std::to_string(s.index);
    }
    return out;
  }
  outcome fail(std::string_view keyword, std::string_view what) {
    if (!silent()) {
      reason_ = where();
      reason_ += ": ";
      reason_ += keyword;
      reason_ += ": ";
      reason_ += what;
    }
    return outcome::fail;
  }
  static std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
  }
  outcome fail_number(std::string_view keyword, std::string_view relation,
                      const nlohmann::json& bound, const nlohmann::json& got) {
    if (silent()) return outcome::fail;
    return fail(keyword, "expected " + std::string(relation) + " " + show_value(bound) + ", got " +
                             show_value(got));
  }
  outcome fail_count(std::string_view keyword, std::string_view relation, std::size_t bound,
                     std::string_view one, std::string_view many, std::size_t got) {
    if (silent()) return outcome::fail;
    return fail(keyword, "expected " + std::string(relation) + " " + plural(bound, one, many) +
                             ", got " + std::to_string(got));
  }
  outcome fail_key(std::string_view keyword, std::string_view prefix, const std::string& key) {
    if (silent()) return outcome::fail;
    return fail(keyword, std::string(prefix) + json_quote(key));
  }

  static bool type_matches(unsigned types, const nlohmann::json& v) {
    using vt = nlohmann::json::value_t;
    switch (v.type()) {
      case vt::null: return (types & type_null) != 0;
      case vt::boolean: return (types & type_boolean) != 0;
      case vt::object: return (types & type_object) != 0;
      case vt::array: return (types & type_array) != 0;
      case vt::string: return (types & type_string) != 0;
      case vt::number_integer:
      case vt::number_unsigned:
      case vt::number_float:
        return (types & type_number) != 0 ||
               ((types & type_integer) != 0 && json_type_name(v) == "integer");
      default: return false;
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
  static bool in_enum(const nlohmann::json& values, const nlohmann::json& v) {
    for (const auto& e : values) {
      if (v == e) return true;
    }
    return false;
  }
  [[nodiscard]] bool declared(const schema_node& n, const std::string& key) const {
    if (n.find_property(key) != nullptr) return true;
    for (const auto& p : n.pattern_properties) {
      if (p.re.search(key)) return true;
    }
    return false;
  }

  // --- checks that apply no child schema ---

  outcome start(frame& f, const schema_node& n) {
    const nlohmann::json& v = *f.value;
    if (n.kind == schema_node::form::always) return outcome::pass;
    if (n.kind == schema_node::form::never) return fail("false", "no value is allowed here");
    if (n.types != 0 && !type_matches(n.types, v)) {
      if (silent()) return outcome::fail;
      return fail("type",
                  "expected " + type_list(n.types) + ", got " + std::string(json_type_name(v)));
    }
    if (n.const_value && !(v == *n.const_value)) {
      if (silent()) return outcome::fail;
      return fail("const", "expected " + show_value(*n.const_value));
    }
    if (n.enum_values && !in_enum(*n.enum_values, v)) {
      if (silent()) return outcome::fail;
      return fail("enum", "expected one of " + show_value(*n.enum_values, 120));
    }
    outcome o = outcome::pass;
    if (v.is_number()) o = number_checks(n, v);
    if (v.is_string()) o = string_checks(n, v);
    if (v.is_array()) o = array_checks(n, v);
    if (v.is_object()) o = object_checks(n, v);
    if (o == outcome::fail) return o;
    f.at = v.is_array() ? (n.items_is_tuple ? phase::tuple : phase::items)
                        : (v.is_object() ? phase::dependencies : phase::all_of);
    return outcome::called;  // "go on with the next phase"
  }

  outcome number_checks(const schema_node& n, const nlohmann::json& v) {
    if (n.minimum && number_compare(v, *n.minimum) < 0) {
      return fail_number("minimum", "at least", *n.minimum, v);
    }
    if (n.maximum && number_compare(v, *n.maximum) > 0) {
      return fail_number("maximum", "at most", *n.maximum, v);
    }
    if (n.exclusive_minimum && number_compare(v, *n.exclusive_minimum) <= 0) {
      return fail_number("exclusiveMinimum", "more than", *n.exclusive_minimum, v);
    }
    if (n.exclusive_maximum && number_compare(v, *n.exclusive_maximum) >= 0) {
      return fail_number("exclusiveMaximum", "less than", *n.exclusive_maximum, v);
    }
    if (n.multiple_of && !is_multiple(v, *n.multiple_of)) {
      return fail_number("multipleOf", "a multiple of", *n.multiple_of, v);
    }
    return outcome::pass;
  }

  outcome string_checks(const schema_node& n, const nlohmann::json& v) {
    const auto& s = v.get_ref<const std::string&>();
    if (n.min_length || n.max_length) {
      const std::size_t len = utf8_length(s);
      if (n.min_length && len < *n.min_length) {
        return fail_count("minLength", "at least", *n.min_length, "character", "characters", len);
      }
      if (n.max_length && len > *n.max_length) {
        return fail_count("maxLength", "at most", *n.max_length, "character", "characters", len);
      }
    }
    if (n.pattern && !n.pattern->re.search(s)) {
      return fail_key("pattern", "expected to match ", n.pattern->source);
    }
    return outcome::pass;
  }

  outcome array_checks(const schema_node& n, const nlohmann::json& v) {
    const std::size_t size = v.size();
    if (n.min_items && size < *n.min_items) {
      return fail_count("minItems", "at least", *n.min_items, "item", "items", size);
    }
    if (n.max_items && size > *n.max_items) {
      return fail_count("maxItems", "at most", *n.max_items, "item", "items", size);
    }
    if (n.unique_items && size > 1) {
      std::unordered_map<std::size_t, std::vector<std::size_t>> seen;
      for (std::size_t i = 0; i < size; ++i) {
        auto& bucket = seen[deep_hash(v[i])];
        for (const std::size_t j : bucket) {
          if (v[j] == v[i]) {
            if (silent()) return outcome::fail;
            return fail("uniqueItems",
                        "items " + std::to_string(j) + " and " + std::to_string(i) + " are equal");
          }
        }
        bucket.push_back(i);
      }
    }
    return outcome::pass;
  }

  outcome object_checks(const schema_node& n, const nlohmann::json& v) {
    for (const auto& r : n.required) {
      if (!v.contains(r)) return fail_key("required", "missing key ", r);
    }
    const std::size_t size = v.size();
    if (n.min_properties && size < *n.min_properties) {
      return fail_count("minProperties", "at least", *n.min_properties, "property", "properties",
                        size);
    }
    if (n.max_properties && size > *n.max_properties) {
      return fail_count("maxProperties", "at most", *n.max_properties, "property", "properties",
                        size);
    }
    if (closed(n)) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!declared(n, it.key())) {
          return fail_key("additionalProperties", "unexpected key ", it.key());
        }
      }
    }
    for (const auto& [key, keys] : n.dependency_keys) {
      if (!v.contains(key)) continue;
      for (const auto& need : keys) {
        if (!v.contains(need)) {
          if (silent()) return outcome::fail;
          return fail("dependencies",
                      "key " + json_quote(key) + " requires key " + json_quote(need));
        }
      }
    }
    return outcome::pass;
  }

  [[nodiscard]] bool closed(const schema_node& n) const noexcept {
    return n.additional_properties != no_node &&
           t_.nodes[n.additional_properties].kind == schema_node::form::never;
  }

  // --- the phases ---

  // Advances frame `f`; `r` is the result of the child it was waiting for, if any. Returns
  // `called` after pushing a child, else the frame's own result.
  outcome resume(frame& f, bool r) {
    const schema_node& n = t_.nodes[f.node];
    const nlohmann::json& v = *f.value;
    bool returned = f.waiting;
    f.waiting = false;
    for (;;) {
      switch (f.at) {
        case phase::start: {
          const outcome o = start(f, n);
          if (o != outcome::called) return o;
          break;
        }
        case phase::tuple:
          if (returned && !r) return outcome::fail;
          if (f.i < n.tuple.size() && f.i < v.size()) {
            ++f.i;
            return child(f, n.tuple[f.i - 1], &v[f.i - 1], false, nullptr, f.i - 1);
          }
          f.at = phase::additional_items;
          f.i = n.tuple.size();
          if (n.additional_items != no_node && v.size() > n.tuple.size() &&
              t_.nodes[n.additional_items].kind == schema_node::form::never) {
            return fail_count("additionalItems", "at most", n.tuple.size(), "item", "items",
                              v.size());
          }
          returned = false;
          break;
        case phase::additional_items:
          if (returned && !r) return outcome::fail;
          if (n.additional_items != no_node && f.i < v.size()) {
            ++f.i;
            return child(f, n.additional_items, &v[f.i - 1], false, nullptr, f.i - 1);
          }
          f.at = phase::contains;
          f.i = 0;
          returned = false;
          break;
        case phase::items:
          if (returned && !r) return outcome::fail;
          if (n.items != no_node && f.i < v.size()) {
            ++f.i;
            return child(f, n.items, &v[f.i - 1], false, nullptr, f.i - 1);
          }
          f.at = phase::contains;
          f.i = 0;
          returned = false;
          break;
        case phase::contains:
          if (returned && r) {
            f.at = phase::all_of;
            f.i = 0;
            returned = false;
            break;
          }
          if (n.contains == no_node) {
            f.at = phase::all_of;
            f.i = 0;
            break;
          }
          if (f.i < v.size()) {
            ++f.i;
            return child(f, n.contains, &v[f.i - 1], true);
          }
          return fail("contains", v.empty() ? "expected an item that matches, got an empty array"
                                            : "no item matches");
        case phase::dependencies:
          if (returned && !r) return outcome::fail;
          while (f.i < n.dependency_schemas.size()) {
            const auto& [key, node] = n.dependency_schemas[f.i++];
            if (v.contains(key)) return child(f, node, &v, false);
          }
          f.at = phase::names;
          f.i = 0;
          returned = false;
          break;
        case phase::names:
          if (returned) {
            path_.swap(f.saved_path);
            reason_.swap(f.saved_reason);  // f.saved_reason: what the key's check said
            if (!r) {
              std::string inner = std::move(f.saved_reason);
              if (inner.rfind("/: ", 0) == 0) inner.erase(0, 3);
              return fail_name(f.member.key(), inner);
            }
            ++f.member;
          } else if (f.i == 0) {
            f.i = 1;
            f.member = v.begin();
          }
          if (n.property_names != no_node && f.member != v.end()) {
            f.name = f.member.key();
            f.saved_path.clear();
            path_.swap(f.saved_path);
            f.saved_reason.clear();
            reason_.swap(f.saved_reason);
            if (child(f, n.property_names, &f.name, false) == outcome::called)
              return outcome::called;
            // Too deep: put the member's place back before the frames are popped.
            path_.swap(f.saved_path);
            reason_ = where() + too_deep;
            return outcome::fail;
          }
          f.at = phase::members;
          f.i = 0;
          returned = false;
          break;
        case phase::members:
          if (returned && !r) return outcome::fail;
          if (n.properties.empty() && n.pattern_properties.empty() &&
              (n.additional_properties == no_node || closed(n))) {
            f.at = phase::all_of;
            f.i = 0;
            break;
          }
          if (f.i == 0) {
            f.i = 1;
            f.member = v.begin();
            f.j = 0;
            f.matched = false;
          }
          while (f.member != v.end()) {
            const std::string& key = f.member.key();
            const nlohmann::json* value = &f.member.value();
            if (f.j == 0) {
              f.j = 1;
              if (const std::size_t* p = n.find_property(key)) {
                f.matched = true;
                return child(f, *p, value, false, &key);
              }
            }
            while (f.j <= n.pattern_properties.size()) {
              const schema_pattern& p = n.pattern_properties[f.j - 1];
              ++f.j;
              if (p.re.search(key)) {
                f.matched = true;
                return child(f, p.node, value, false, &key);
              }
            }
            if (f.j == n.pattern_properties.size() + 1) {
              ++f.j;
              if (!f.matched && n.additional_properties != no_node && !closed(n)) {
                return child(f, n.additional_properties, value, false, &key);
              }
            }
            ++f.member;
            f.j = 0;
            f.matched = false;
          }
          f.at = phase::all_of;
          f.i = 0;
          break;
        case phase::all_of:
          if (returned && !r) return outcome::fail;
          if (f.i < n.all_of.size()) {
            ++f.i;
            return child(f, n.all_of[f.i - 1], &v, false);
          }
          f.at = phase::any_of;
          f.i = 0;
          returned = false;
          break;
        case phase::any_of:
          if (!n.any_of.empty() && !(returned && r)) {
            if (f.i < n.any_of.size()) {
              ++f.i;
              return child(f, n.any_of[f.i - 1], &v, true);
            }
            return fail("anyOf", "no alternative matches");
          }
          f.at = phase::one_of;
          f.i = 0;
          returned = false;
          break;
        case phase::one_of:
          if (returned && r) {
            if (f.first != no_node) {
              if (silent()) return outcome::fail;
              return fail("oneOf", "expected exactly one alternative to match, got more (#" +
                                       std::to_string(f.first) + " and #" +
                                       std::to_string(f.i - 1) + ")");
            }
            f.first = f.i - 1;
          }
          if (f.i < n.one_of.size()) {
            ++f.i;
            return child(f, n.one_of[f.i - 1], &v, true);
          }
          if (!n.one_of.empty() && f.first == no_node) {
            return fail("oneOf", "expected exactly one alternative to match, got none");
          }
          f.at = phase::not_;
          returned = false;
          break;
        case phase::not_:
          if (returned) {
            if (r) return fail("not", "value matches the excluded schema");
          } else if (n.not_ != no_node) {
            return child(f, n.not_, &v, true);
          }
          f.at = phase::if_;
          returned = false;
          break;
        case phase::if_:
          if (returned) {
            const std::size_t branch = r ? n.then_ : n.else_;
            f.at = phase::branch;
            if (branch != no_node) return child(f, branch, &v, false);
            return outcome::pass;
          }
          if (n.if_ != no_node) return child(f, n.if_, &v, true);
          return outcome::pass;
        case phase::branch: return r ? outcome::pass : outcome::fail;
      }
    }
  }

  outcome fail_name(const std::string& key, const std::string& inner) {
    if (silent()) return outcome::fail;
    return fail("propertyNames", "key " + json_quote(key) + ": " + inner);
  }
};

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_EVAL_HPP_INCLUDED
