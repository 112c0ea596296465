// llmjson: the bodies of detail/schema/evaluator.hpp
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_EVALUATOR_INL_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_EVALUATOR_INL_HPP_INCLUDED

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/pointer.hpp>
#include <llmjson/detail/schema/evaluator.hpp>
#include <llmjson/detail/schema/messages.hpp>
#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/tree.hpp>
#include <llmjson/detail/schema/values.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/options.hpp>

namespace llmjson::detail {

LLMJSON_INLINE bool schema_evaluator::run(const nlohmann::json& v) {
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

LLMJSON_INLINE bool schema_evaluator::admit() {
  if (depth_ >= schema_max_evaluation_depth) {
    aborted_ = true;
    message_ = where() + too_deep;
    return false;
  }
  if (++steps_ > schema_max_evaluation_steps) {
    aborted_ = true;
    message_ = where() + too_costly;
    return false;
  }
  return true;
}

LLMJSON_INLINE schema_evaluator::scratch* schema_evaluator::take_scratch() {
  static thread_local scratch kept;
  if (!kept.taken) {
    kept.taken = true;
    return &kept;
  }
  return &own_.emplace();
}

LLMJSON_INLINE std::size_t schema_evaluator::target(std::size_t node) const noexcept {
  return t_.resolve(node);
}

LLMJSON_INLINE const std::vector<std::string>* schema_evaluator::required_first(
    const schema_tree& t) noexcept {
  // run() on an object: `call` admits the root (never over a limit there), `start` runs
  // own_checks: the form, `type`, `const`, `enum`, then object_checks, whose first loop is
  // `required` in its order; every subschema comes after (`next`).
  const schema_node& n = t.nodes[t.resolve(t.root)];
  if (n.kind != schema_node::form::object || (n.types != 0 && (n.types & type_object) == 0) ||
      n.const_value || n.enum_values || n.required.empty())
    return nullptr;
  return &n.required;
}

LLMJSON_INLINE std::string& schema_evaluator::lacks(const std::string& key) {
  fail_key("required", "missing key ", key);
  return message_;
}

LLMJSON_INLINE bool schema_evaluator::call(std::size_t node, const nlohmann::json* v, bool quiet,
                                           const std::string* key, std::size_t index) {
  if (!admit()) return false;
  node = target(node);
  frame& f = stack_.emplace_back();
  ++depth_;
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

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::child(frame& parent, std::size_t node,
                                                                 const nlohmann::json* v,
                                                                 bool quiet, const std::string* key,
                                                                 std::size_t index) {
  parent.waiting = true;
  const schema_node& n = t_.nodes[target(node)];
  if (n.applies_subschemas)
    return call(node, v, quiet, key, index) ? outcome::called : outcome::fail;
  // Judged here, as a frame of its own would judge it (the same limits, place and quietness),
  // and answered at once: resume() hands the answer to `parent` as a child's.
  if (!admit()) return outcome::fail;
  if (quiet) ++quiet_;
  const bool place = key != nullptr || index != no_node;
  if (place) path_.push_back(step{key, key != nullptr ? 0 : index});
  answer_ = own_checks(n, *v) == outcome::pass ? reply::passed : reply::failed;
  if (place) path_.pop_back();
  if (quiet) --quiet_;
  return outcome::called;
}

LLMJSON_INLINE void schema_evaluator::pop() {
  frame& f = stack_.back();
  if (f.pushed_path) path_.pop_back();
  if (f.quiet) --quiet_;
  stack_.pop_back();
  --depth_;
}

LLMJSON_INLINE std::string schema_evaluator::where() const {
  if (path_.empty()) return "/";
  std::string out;
  for (const step& s : path_) {
    out += '/';
    out += s.key != nullptr ? pointer_escape(*s.key) : std::to_string(s.index);
  }
  return out;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::fail(std::string_view keyword,
                                                                std::string_view what) {
  if (!silent()) {
    message_ = where();
    message_.reserve(message_.size() + keyword.size() + what.size() + 4);  // one allocation
    message_ += ": ";
    message_ += keyword;
    message_ += ": ";
    message_ += what;
  }
  return outcome::fail;
}

LLMJSON_INLINE std::string schema_evaluator::plural(std::size_t n, std::string_view one,
                                                    std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::fail_number(std::string_view keyword,
                                                                       std::string_view relation,
                                                                       const nlohmann::json& bound,
                                                                       const nlohmann::json& got) {
  if (silent()) return outcome::fail;
  return fail(keyword, "expected " + std::string(relation) + " " + show_value(bound) + ", got " +
                           show_value(got));
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::fail_count(
    std::string_view keyword, std::string_view relation, std::size_t bound, std::string_view one,
    std::string_view many, std::size_t got) {
  if (silent()) return outcome::fail;
  return fail(keyword, "expected " + std::string(relation) + " " + plural(bound, one, many) +
                           ", got " + std::to_string(got));
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::fail_key(std::string_view keyword,
                                                                    std::string_view prefix,
                                                                    const std::string& key) {
  if (silent()) return outcome::fail;
  std::string what;  // one allocation, the quote written into it
  what.reserve(prefix.size() + key.size() + 2);
  what += prefix;
  append_json_quote(what, key);
  return fail(keyword, what);
}

LLMJSON_INLINE bool schema_evaluator::type_matches(unsigned types, const nlohmann::json& v) {
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

LLMJSON_INLINE std::string schema_evaluator::type_list(unsigned types) {
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

LLMJSON_INLINE bool schema_evaluator::in_enum(const nlohmann::json& values,
                                              const nlohmann::json& v) {
  for (const auto& e : values) {
    if (v == e) return true;
  }
  return false;
}

LLMJSON_INLINE bool schema_evaluator::declared(const schema_node& n, const std::string& key) const {
  if (n.find_property(key) != nullptr) return true;
  for (const auto& p : n.pattern_properties) {
    if (p.re.search(key)) return true;
  }
  return false;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::start(frame& f, const schema_node& n) {
  const nlohmann::json& v = *f.value;
  const outcome o = own_checks(n, v);
  if (o != outcome::pass || n.kind != schema_node::form::object || !n.applies_subschemas) return o;
  f.at = v.is_array() ? (n.items_is_tuple ? phase::tuple : phase::items)
                      : (v.is_object() ? phase::dependencies : phase::all_of);
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::own_checks(const schema_node& n,
                                                                      const nlohmann::json& v) {
  if (n.kind == schema_node::form::always) return outcome::pass;
  if (n.kind == schema_node::form::never) return fail("false", "no value is allowed here");
  if (n.types != 0 && !type_matches(n.types, v)) {
    if (silent()) return outcome::fail;
    return fail("type",
                "expected " + type_list(n.types) + ", got " + std::string(json_type_name(v)));
  }
  const bool open = partial_ && &v == open_string_;
  if (n.const_value && !(open ? may_become(*n.const_value, v) : v == *n.const_value)) {
    if (silent()) return outcome::fail;
    return fail("const", "expected " + show_value(*n.const_value));
  }
  if (n.enum_values &&
      !(open ? std::any_of(n.enum_values->begin(), n.enum_values->end(),
                           [&](const nlohmann::json& e) { return may_become(e, v); })
             : in_enum(*n.enum_values, v))) {
    if (silent()) return outcome::fail;
    return fail("enum", "expected one of " + show_value(*n.enum_values, 120));
  }
  outcome o = outcome::pass;
  if (v.is_number()) o = number_checks(n, v);
  if (v.is_string() && !open) o = string_checks(n, v);
  if (v.is_array()) o = array_checks(n, v);
  if (v.is_object()) o = object_checks(n, v);
  return o;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::number_checks(const schema_node& n,
                                                                         const nlohmann::json& v) {
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

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::string_checks(const schema_node& n,
                                                                         const nlohmann::json& v) {
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

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::array_checks(const schema_node& n,
                                                                        const nlohmann::json& v) {
  const std::size_t size = v.size();
  if (n.min_items && !partial_ && size < *n.min_items) {
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

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::object_checks(const schema_node& n,
                                                                         const nlohmann::json& v) {
  for (const auto& r : n.required) {
    if (!partial_ && !v.contains(r)) return fail_key("required", "missing key ", r);
  }
  const std::size_t size = v.size();
  if (n.min_properties && !partial_ && size < *n.min_properties) {
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
        return fail("dependencies", "key " + json_quote(key) + " requires key " + json_quote(need));
      }
    }
  }
  return outcome::pass;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::resume(frame& f, bool r) {
  const schema_node& n = t_.nodes[f.node];
  // Only the phase that pushed the child hears its result; a phase entered after it hears none.
  reply got = f.waiting ? (r ? reply::passed : reply::failed) : reply::none;
  f.waiting = false;
  for (;;) {
    outcome o = outcome::next;
    switch (f.at) {
      case phase::start: o = start(f, n); break;
      case phase::tuple: o = tuple_phase(f, n, got); break;
      case phase::additional_items:
      case phase::items: o = items_phase(f, n, got); break;
      case phase::contains: o = contains_phase(f, n, got); break;
      case phase::dependencies: o = dependencies_phase(f, n, got); break;
      case phase::names: o = names_phase(f, n, got); break;
      case phase::members: o = members_phase(f, n, got); break;
      case phase::all_of: o = all_of_phase(f, n, got); break;
      case phase::any_of: o = any_of_phase(f, n, got); break;
      case phase::one_of: o = one_of_phase(f, n, got); break;
      case phase::not_: o = not_phase(f, n, got); break;
      case phase::if_: o = if_phase(f, n, got); break;
      case phase::branch: return got == reply::passed ? outcome::pass : outcome::fail;
    }
    if (o == outcome::called && answer_ != reply::none) {
      // A child judged without a frame (child()): its answer is heard at once.
      got = answer_;
      answer_ = reply::none;
      f.waiting = false;
      continue;
    }
    if (o != outcome::next) return o;
    got = reply::none;
  }
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::tuple_phase(frame& f,
                                                                       const schema_node& n,
                                                                       reply got) {
  const nlohmann::json& v = *f.value;
  if (got == reply::failed) return outcome::fail;
  if (f.i < n.tuple.size() && f.i < v.size()) {
    ++f.i;
    return child(f, n.tuple[f.i - 1], &v[f.i - 1], false, nullptr, f.i - 1);
  }
  f.at = phase::additional_items;
  f.i = n.tuple.size();
  if (n.additional_items != no_node && v.size() > n.tuple.size() &&
      t_.nodes[n.additional_items].kind == schema_node::form::never) {
    return fail_count("additionalItems", "at most", n.tuple.size(), "item", "items", v.size());
  }
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::items_phase(frame& f,
                                                                       const schema_node& n,
                                                                       reply got) {
  // One schema for each item from f.i on: `items`, or `additionalItems` after a tuple.
  const nlohmann::json& v = *f.value;
  if (got == reply::failed) return outcome::fail;
  const std::size_t each = f.at == phase::items ? n.items : n.additional_items;
  if (each != no_node && f.i < v.size()) {
    ++f.i;
    return child(f, each, &v[f.i - 1], false, nullptr, f.i - 1);
  }
  enter(f, phase::contains);
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::contains_phase(frame& f,
                                                                          const schema_node& n,
                                                                          reply got) {
  const nlohmann::json& v = *f.value;
  if (got == reply::passed || n.contains == no_node) {
    enter(f, phase::all_of);
    return outcome::next;
  }
  if (f.i < v.size()) {
    ++f.i;
    return child(f, n.contains, &v[f.i - 1], true);
  }
  return fail("contains",
              v.empty() ? "expected an item that matches, got an empty array" : "no item matches");
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::dependencies_phase(frame& f,
                                                                              const schema_node& n,
                                                                              reply got) {
  if (got == reply::failed) return outcome::fail;
  while (f.i < n.dependency_schemas.size()) {
    const auto& [key, node] = n.dependency_schemas[f.i++];
    if (f.value->contains(key)) return child(f, node, f.value, false);
  }
  enter(f, phase::names);
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::names_phase(frame& f,
                                                                       const schema_node& n,
                                                                       reply got) {
  const nlohmann::json& v = *f.value;
  if (got != reply::none) {
    // The key's check ran with a path and a message of its own: put the member's back.
    path_.swap(f.saved_path);
    message_.swap(f.saved_message);  // f.saved_message: what the key's check said
    if (got == reply::failed) return fail_name(f.member.key(), std::move(f.saved_message));
    ++f.member;
  } else if (f.i == 0) {
    f.i = 1;
    f.member = v.begin();
  }
  if (n.property_names == no_node || f.member == v.end()) {
    enter(f, phase::members);
    return outcome::next;
  }
  // The key is judged as a string value at the root: its own path and message.
  f.name = f.member.key();
  f.saved_path.clear();
  path_.swap(f.saved_path);
  f.saved_message.clear();
  message_.swap(f.saved_message);
  if (child(f, n.property_names, &f.name, false) == outcome::called) return outcome::called;
  // Too deep: put the member's place back before the frames are popped.
  path_.swap(f.saved_path);
  message_ = where() + too_deep;
  return outcome::fail;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::members_phase(frame& f,
                                                                         const schema_node& n,
                                                                         reply got) {
  if (got == reply::failed) return outcome::fail;
  if (n.properties.empty() && n.pattern_properties.empty() &&
      (n.additional_properties == no_node || closed(n))) {
    enter(f, phase::all_of);
    return outcome::next;
  }
  if (f.i == 0) {
    f.i = 1;
    f.member = f.value->begin();
    f.j = 0;
    f.matched = false;
  }
  // Each key in stages: f.j 0 its `properties` entry, 1 to the count of `patternProperties` the
  // patterns, then `additionalProperties` when none matched (f.matched).
  while (f.member != f.value->end()) {
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
  enter(f, phase::all_of);
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::all_of_phase(frame& f,
                                                                        const schema_node& n,
                                                                        reply got) {
  if (!n.combines) return outcome::pass;  // none of the phases from here on has work
  if (got == reply::failed) return outcome::fail;
  if (f.i < n.all_of.size()) {
    ++f.i;
    return child(f, n.all_of[f.i - 1], f.value, false);
  }
  enter(f, phase::any_of);
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::any_of_phase(frame& f,
                                                                        const schema_node& n,
                                                                        reply got) {
  if (n.any_of.empty() || got == reply::passed) {
    enter(f, phase::one_of);
    return outcome::next;
  }
  if (f.i < n.any_of.size()) {
    ++f.i;
    return child(f, n.any_of[f.i - 1], f.value, true);
  }
  return fail("anyOf", "no alternative matches");
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::one_of_phase(frame& f,
                                                                        const schema_node& n,
                                                                        reply got) {
  if (got == reply::passed) {
    if (f.first != no_node) {
      if (silent()) return outcome::fail;
      return fail("oneOf", "expected exactly one alternative to match, got more (#" +
                               std::to_string(f.first) + " and #" + std::to_string(f.i - 1) + ")");
    }
    f.first = f.i - 1;
  }
  if (f.i < n.one_of.size()) {
    ++f.i;
    return child(f, n.one_of[f.i - 1], f.value, true);
  }
  if (!n.one_of.empty() && f.first == no_node) {
    return fail("oneOf", "expected exactly one alternative to match, got none");
  }
  f.at = phase::not_;
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::not_phase(frame& f, const schema_node& n,
                                                                     reply got) {
  if (got == reply::passed) return fail("not", "value matches the excluded schema");
  if (got == reply::none && n.not_ != no_node) return child(f, n.not_, f.value, true);
  f.at = phase::if_;
  return outcome::next;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::if_phase(frame& f, const schema_node& n,
                                                                    reply got) {
  if (got == reply::none) {
    return n.if_ != no_node ? child(f, n.if_, f.value, true) : outcome::pass;
  }
  const std::size_t branch = got == reply::passed ? n.then_ : n.else_;
  f.at = phase::branch;
  return branch != no_node ? child(f, branch, f.value, false) : outcome::pass;
}

LLMJSON_INLINE schema_evaluator::outcome schema_evaluator::fail_name(const std::string& key,
                                                                     std::string inner) {
  if (silent()) return outcome::fail;
  // The key was judged at the root: "/: type: ..." reads "key "k": type: ...".
  if (inner.rfind("/: ", 0) == 0) inner.erase(0, 3);
  return fail("propertyNames", "key " + json_quote(key) + ": " + inner);
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_EVALUATOR_INL_HPP_INCLUDED
