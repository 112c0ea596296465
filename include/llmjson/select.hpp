// llmjson: selectors (any_object, any_key, decode<T>) and the Selector concept
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SELECT_HPP_INCLUDED
#define LLMJSON_SELECT_HPP_INCLUDED

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/pointer.hpp>
#include <llmjson/options.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

/// A selector says whether a candidate's value qualifies as the answer.
///
/// Requires: callable as `s(const nlohmann::json&)` on a const `s`, returning `llmjson::verdict`
/// (qualifies, or the reason it does not) or something convertible to `bool`.
/// A selector may declare `static constexpr llmjson::policy default_policy` (strict selectors
/// declare `unique`) and `static constexpr bool allows_fallback = false` (typed decoders: a
/// fallback value would not be a `T`).
template <class S>
concept Selector = std::invocable<const S&, const nlohmann::json&> &&
    (std::same_as<std::invoke_result_t<const S&, const nlohmann::json&>, verdict> ||
     std::convertible_to<std::invoke_result_t<const S&, const nlohmann::json&>, bool>);

/// A caller's check on a decoded `T`: callable on `const T&`, returning `verdict` or `bool`.
template <class F, class T>
concept CheckFor = std::invocable<const F&, const T&> &&
    (std::same_as<std::invoke_result_t<const F&, const T&>, verdict> ||
     std::convertible_to<std::invoke_result_t<const F&, const T&>, bool>);

/// Any JSON object qualifies; arrays and scalars do not. What `extract(text)` uses.
struct any_object {
  verdict operator()(const nlohmann::json& v) const;
};

/// An object with at least one of these top-level keys qualifies (keys compared byte for byte,
/// after JSON unescaping). Owns its keys.
///
/// **Example**: `llmjson::extract(text, llmjson::any_key({"orders", "helm"}))`
class any_key {
 public:
  any_key(std::initializer_list<std::string_view> keys)
      : any_key(std::span(keys.begin(), keys.size())) {}
  explicit any_key(std::span<const std::string_view> keys) : keys_(keys.begin(), keys.end()) {}
  explicit any_key(std::vector<std::string> keys) : keys_(std::move(keys)) {}

  verdict operator()(const nlohmann::json& v) const;
  [[nodiscard]] const std::vector<std::string>& keys() const noexcept { return keys_; }

 private:
  std::vector<std::string> keys_;
};

/// A typed, strict decoder: a candidate qualifies when nlohmann's `from_json` makes a `T` of it,
/// it has no key that `T` does not declare, and the caller's check (if any) passes.
///
/// The declared keys are the ones `to_json(T)` writes: decode<T> decodes the candidate, encodes
/// the `T` again and rejects any key of the candidate, at any depth, that the encoding lacks
/// (like Go's `DisallowUnknownFields`). So `NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(T, ...)`, which
/// declares both directions, is the one declaration needed. A key whose value is `null` and that
/// the encoding omits counts as an absent optional, not an unknown key.
///
/// Requires: `T` decodable by nlohmann (`from_json`). Without `to_json`, every candidate is
/// rejected with a reason that says so, unless `allow_unknown_keys()` is set. Reasons: `missing key
/// "orders"`, `unknown key "draft"`,
/// `/steps/2: unknown key "eta_min"`, `type must be number, but is string`, or the check's own.
/// Only `nlohmann::json::exception` from `from_json` is turned into a reason; any other exception
/// (the caller's own) propagates.
///
/// **Example**:
/// ```cpp
/// auto check = [&](const reply& r) { return r.thread_id == id ? llmjson::verdict::pass()
///     : llmjson::verdict::fail("thread_id: expected \"" + id + "\", got \"" + r.thread_id + "\"");
///     };
/// auto r = llmjson::extract(text, llmjson::decode<reply>{check});
/// ```
template <class T>
class decode {
 public:
  using value_type = T;
  static constexpr llmjson::policy default_policy = llmjson::policy::unique;
  static constexpr bool allows_fallback = false;

  decode() = default;
  /// A decoder that also runs `check(const T&)`, which returns a `verdict` or a `bool`.
  template <CheckFor<T> F>
  explicit decode(F check) : check_(make_check(std::move(check))) {}

  /// Turns off the unknown-key check (for types without `to_json`, or on purpose).
  decode& allow_unknown_keys(bool allow = true) & {
    strict_ = !allow;
    return *this;
  }
  decode&& allow_unknown_keys(bool allow = true) && {
    strict_ = !allow;
    return std::move(*this);
  }

  /// Returns whether `v` decodes to a `T` that passes the checks, and why not.
  verdict operator()(const nlohmann::json& v) const;

  /// Returns `v` decoded. Throws what `from_json` throws; meant for a value that qualified.
  [[nodiscard]] T get(const nlohmann::json& v) const { return v.template get<T>(); }

 private:
  template <class F>
  static std::function<verdict(const T&)> make_check(F f) {
    return [f = std::move(f)](const T& t) -> verdict {
      if constexpr (std::same_as<std::invoke_result_t<const F&, const T&>, verdict>) {
        return f(t);
      } else {
        return static_cast<bool>(f(t)) ? verdict::pass() : verdict::fail("rejected by the check");
      }
    };
  }

  std::function<verdict(const T&)> check_;
  bool strict_ = true;
};

namespace detail {

/// The policy a selector asks for when the caller sets none.
template <class S>
constexpr llmjson::policy default_policy_of() noexcept {
  if constexpr (requires { S::default_policy; }) {
    return S::default_policy;
  } else {
    return llmjson::policy::first;
  }
}

/// Whether `first` may fall back to a candidate the selector rejected.
template <class S>
constexpr bool allows_fallback_of() noexcept {
  if constexpr (requires { S::allows_fallback; }) {
    return S::allows_fallback;
  } else {
    return true;
  }
}

/// Returns nlohmann's exception message without its `[json.exception.type_error.302] ` prefix,
/// with "key 'x' not found" said as `missing key "x"`.
inline std::string describe_json_exception(const nlohmann::json::exception& e) {
  std::string_view m = e.what();
  if (auto close = m.find("] "); m.substr(0, 1) == "[" && close != std::string_view::npos)
    m.remove_prefix(close + 2);
  constexpr std::string_view key_prefix = "key '", key_suffix = "' not found";
  if (m.size() > key_prefix.size() + key_suffix.size() &&
      m.substr(0, key_prefix.size()) == key_prefix &&
      m.substr(m.size() - key_suffix.size()) == key_suffix) {
    auto key = m.substr(key_prefix.size(), m.size() - key_prefix.size() - key_suffix.size());
    return "missing key \"" + std::string(key) + "\"";
  }
  return std::string(m);
}

/// Runs a selector on a value: its verdict, or the `bool` made one. nlohmann's exceptions thrown
/// by a selector become the reason; the caller's own exceptions propagate.
template <class S>
verdict judge(const S& sel, const nlohmann::json& v) {
  try {
    if constexpr (std::same_as<std::invoke_result_t<const S&, const nlohmann::json&>, verdict>) {
      return sel(v);
    } else {
      return static_cast<bool>(sel(v)) ? verdict::pass()
                                       : verdict::fail("rejected by the selector");
    }
  } catch (const nlohmann::json::exception& e) {
    return verdict::fail(describe_json_exception(e));
  }
}

/// Returns the first key of `given` (at any depth) that `encoded` lacks, as a reason, or "".
/// Iterative: no recursion proportional to the value's depth.
inline std::string first_unknown_key(const nlohmann::json& given, const nlohmann::json& encoded) {
  struct item {
    const nlohmann::json* given;
    const nlohmann::json* encoded;
    std::string path;
  };
  std::vector<item> todo{{&given, &encoded, std::string{}}};
  while (!todo.empty()) {
    item it = std::move(todo.back());
    todo.pop_back();
    if (it.given->is_object() && it.encoded->is_object()) {
      // Visit in document order: push in reverse so the first key is reported first.
      std::vector<item> children;
      for (auto kv = it.given->begin(); kv != it.given->end(); ++kv) {
        auto found = it.encoded->find(kv.key());
        if (found == it.encoded->end()) {
          if (kv.value().is_null()) continue;  // an absent optional that to_json omits
          std::string where = it.path.empty() ? std::string{} : it.path + ": ";
          return where + "unknown key \"" + kv.key() + "\"";
        }
        children.push_back({&kv.value(), &*found, it.path + "/" + pointer_escape(kv.key())});
      }
      for (auto c = children.rbegin(); c != children.rend(); ++c) todo.push_back(std::move(*c));
    } else if (it.given->is_array() && it.encoded->is_array()) {
      std::size_t n = std::min(it.given->size(), it.encoded->size());
      for (std::size_t i = n; i-- > 0;)
        todo.push_back({&(*it.given)[i], &(*it.encoded)[i], it.path + "/" + std::to_string(i)});
    }
  }
  return {};
}

}  // namespace detail

inline verdict any_object::operator()(const nlohmann::json& v) const {
  if (v.is_object()) return verdict::pass();
  return verdict::fail(std::string("not an object (") + v.type_name() + ")");
}

inline verdict any_key::operator()(const nlohmann::json& v) const {
  if (!v.is_object()) return verdict::fail(std::string("not an object (") + v.type_name() + ")");
  for (const auto& k : keys_)
    if (v.contains(k)) return verdict::pass();
  std::string why = "has none of the keys ";
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (i) why += ", ";
    why += '"' + keys_[i] + '"';
  }
  return verdict::fail(std::move(why));
}

template <class T>
verdict decode<T>::operator()(const nlohmann::json& v) const {
  std::optional<T> decoded;
  try {
    decoded.emplace(v.template get<T>());
  } catch (const nlohmann::json::exception& e) {
    return verdict::fail(detail::describe_json_exception(e));
  }
  if (strict_) {
    if constexpr (std::is_constructible_v<nlohmann::json, const T&>) {
      nlohmann::json encoded;
      try {
        encoded = nlohmann::json(*decoded);
      } catch (const nlohmann::json::exception& e) {
        return verdict::fail("cannot encode the decoded value to check for unknown keys: " +
                             detail::describe_json_exception(e));
      }
      if (auto why = detail::first_unknown_key(v, encoded); !why.empty())
        return verdict::fail(std::move(why));
    } else {
      // Not a silent pass: every candidate is rejected with this reason until the caller
      // declares to_json or opts out, so the first test run shows it.
      return verdict::fail(
          "cannot check for unknown keys: the type has no to_json (declare it, "
          "e.g. with NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE, or call allow_unknown_keys())");
    }
  }
  if (check_) return check_(*decoded);
  return verdict::pass();
}

}  // namespace llmjson

#endif  // LLMJSON_SELECT_HPP_INCLUDED
