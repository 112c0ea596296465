// llmjson: selectors (any_object, any_key, decode<T>) and the Selector concept
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_SELECT_HPP_INCLUDED
#define LLMJSON_SELECT_HPP_INCLUDED

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/enum_names.hpp>
#include <llmjson/options.hpp>
#include <llmjson/verdict.hpp>

namespace llmjson {

// Declared here so that a use without its header names the header: the compilers quote this line.
class schema;  // llmjson::schema is defined in <llmjson/schema.hpp>: #include it to use it
namespace detail {
// <llmjson/schema.hpp> says what it does: a stream's partial answer judged by a schema.
verdict judge_partial(const schema& s, const nlohmann::json& value,
                      const nlohmann::json* open_string);
// And the root's `required` keys, which may reject a candidate from its top-level keys alone.
const std::vector<std::string>* required_first(const schema& s) noexcept;
verdict lacks_required(const schema& s, const std::string& key);
verdict judge_built(const schema& s, const nlohmann::json& value);
}  // namespace detail

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

class any_key;
namespace detail {
verdict judge_text(const any_key& sel, std::string_view text);
}  // namespace detail

/// An object with at least one of these top-level keys qualifies (keys compared byte for byte,
/// after JSON unescaping). Owns its keys.
///
/// **Example**: `llmjson::extract(text, llmjson::any_key({"orders", "helm"}))`
class any_key {
 public:
  any_key(std::initializer_list<std::string_view> keys)
      : any_key(std::span(keys.begin(), keys.size())) {}
  explicit any_key(std::span<const std::string_view> keys)
      : any_key(std::vector<std::string>(keys.begin(), keys.end())) {}
  explicit any_key(std::vector<std::string> keys) : keys_(std::move(keys)) {
    missing_ = "has none of the keys ";
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (i) missing_ += ", ";
      missing_ += '"' + keys_[i] + '"';
    }
  }

  verdict operator()(const nlohmann::json& v) const;
  [[nodiscard]] const std::vector<std::string>& keys() const noexcept { return keys_; }

 private:
  friend verdict detail::judge_text(const any_key& sel, std::string_view text);
  std::vector<std::string> keys_;
  std::string missing_;  // the reason of an object without the keys, written once
};

/// Whether `decode` rejects the keys its type does not declare (`reject`, the default) or lets
/// them pass (`allow`).
///
/// A template argument rather than a switch, so that a type that cannot be checked (one without
/// `to_json`) is refused when the program is built, rather than on every candidate at run time,
/// each attempt of a retry billed.
enum class unknown_keys { reject, allow };

/// Returns the enumerator's name: `"reject"`, `"allow"`. Does not throw.
[[nodiscard]] constexpr std::string_view to_string(unknown_keys k) noexcept {
  switch (k) {
    case unknown_keys::reject: return "reject";
    case unknown_keys::allow: return "allow";
  }
  return "unknown";
}

/// Every `unknown_keys`: `from_string<unknown_keys>("allow") == unknown_keys::allow`.
template <>
inline constexpr std::array enumerators<unknown_keys>{unknown_keys::reject, unknown_keys::allow};

namespace detail {

/// What `json_decodes` and `json_encodes` look into: pairs and tuples.
template <class T>
struct json_parts {
  static constexpr bool is_product = false;
};
template <class A, class B>
struct json_parts<std::pair<A, B>> {
  static constexpr bool is_product = true;
  template <template <class> class Check>
  static constexpr bool all = Check<A>::value&& Check<B>::value;
};
template <class... E>
struct json_parts<std::tuple<E...>> {
  static constexpr bool is_product = true;
  template <template <class> class Check>
  static constexpr bool all = (Check<E>::value && ...);
};

/// Whether `nlohmann::json::get<T>()` makes a `T`: nlohmann's own test (the call is declared),
/// then the same for the elements of containers, pairs and tuples, where nlohmann declares the
/// call for any element and fails only inside it (`std::map<std::string, X>`, `std::pair<int,
/// X>` with an `X` that has no `from_json`).
template <class T>
struct json_decodes;
/// Whether `nlohmann::json(t)` encodes a `T` (`to_json`), looked into as `json_decodes` does.
template <class T>
struct json_encodes;

template <class U, template <class> class Self>
constexpr bool json_parts_ok() noexcept {
  if constexpr (nlohmann::detail::is_basic_json<U>::value) {
    return true;
  } else if constexpr (json_parts<U>::is_product) {
    return json_parts<U>::template all<Self>;
  } else if constexpr (requires {
                         typename U::key_type;
                         typename U::mapped_type;
                       }) {
    return Self<typename U::key_type>::value && Self<typename U::mapped_type>::value;
  } else if constexpr (requires(const U& u) {
                         std::begin(u);
                         typename U::value_type;
                       }) {
    if constexpr (std::same_as<std::remove_cv_t<typename U::value_type>, U>) {
      return true;  // a range of itself (std::filesystem::path)
    } else {
      return Self<std::remove_cv_t<typename U::value_type>>::value;
    }
  } else {
    return true;
  }
}

template <class T>
struct json_decodes {
  static constexpr bool value = [] {
    if constexpr (requires(const nlohmann::json& j) { j.template get<T>(); }) {
      return json_parts_ok<T, json_decodes>();
    } else {
      return false;
    }
  }();
};

template <class T>
struct json_encodes {
  static constexpr bool value = [] {
    if constexpr (std::is_constructible_v<nlohmann::json, const T&>) {
      return json_parts_ok<T, json_encodes>();
    } else {
      return false;
    }
  }();
};

/// Whether `decode<T, Keys>` can work: `T` has `from_json`, and `to_json` unless unknown keys
/// are allowed.
template <class T, unknown_keys Keys>
inline constexpr bool decodable = json_decodes<T>::value &&
                                  (Keys == unknown_keys::allow || json_encodes<T>::value);

/// Fails the build with what `decode<T, Keys>` lacks. Called only when `decodable<T, Keys>` is
/// false, before anything else is instantiated with `T`, so this is the first error.
template <class T, unknown_keys Keys>
constexpr void explain_decode() {
  if constexpr (!json_decodes<T>::value) {
    static_assert(json_decodes<T>::value,
                  "llmjson: decode<T> and extract<T> need nlohmann's from_json for T, and its "
                  "to_json as well (the decoded T is encoded again to find unknown keys): declare "
                  "both with LLMJSON_DEFINE_TYPE(T, members...) after T (<llmjson/schema_of.hpp>: "
                  "strict, and T's JSON Schema too) or NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(T, "
                  "members...). See decode in <llmjson/select.hpp>");
  } else {
    static_assert(json_encodes<T>::value,
                  "llmjson: decode<T> and extract<T> need nlohmann's to_json for T as well as its "
                  "from_json: the decoded T is encoded again to find the keys T does not declare. "
                  "Declare both with LLMJSON_DEFINE_TYPE(T, members...) (<llmjson/schema_of.hpp>) "
                  "or NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(T, members...), or let "
                  "unknown keys pass: llmjson::decode<T>{}.allow_unknown_keys(). See decode in "
                  "<llmjson/select.hpp>");
  }
}

}  // namespace detail

/// A typed, strict decoder: a candidate qualifies when nlohmann's `from_json` makes a `T` of it,
/// it has no key that `T` does not declare, and the caller's check (if any) passes.
///
/// The declared keys are the ones `to_json(T)` writes: decode<T> decodes the candidate, encodes
/// the `T` again and rejects any key of the candidate, at any depth, that the encoding lacks
/// (like Go's `DisallowUnknownFields`). So one declaration of both directions is needed:
/// `LLMJSON_DEFINE_TYPE(T, ...)` (`<llmjson/schema_of.hpp>`: a strict `from_json`, and T's JSON
/// Schema) or `NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(T, ...)` (whose conversions are lax: `1.5`
/// decodes into an `int` as `1`). A key whose value is `null` and that
/// the encoding omits counts as an absent optional, not an unknown key.
///
/// Requires: `T` decodable by nlohmann (`from_json`), and encodable (`to_json`) unless `Keys` is
/// `unknown_keys::allow` (`allow_unknown_keys()` makes one); otherwise the build fails with a
/// message that says which is missing. Reasons: `missing key "orders"`, `unknown key "draft"`,
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
template <class T, unknown_keys Keys = unknown_keys::reject>
class decode {
 public:
  using value_type = T;
  static constexpr llmjson::policy default_policy = llmjson::policy::unique;
  static constexpr bool allows_fallback = false;

  decode() = default;
  /// A decoder that also runs `check(const T&)`, which returns a `verdict` or a `bool`.
  template <CheckFor<T> F>
  explicit decode(F check) : check_(make_check(std::move(check))) {}

  /// Returns this decoder, its check included, with the unknown-key check off: a
  /// `decode<T, unknown_keys::allow>`, for types without `to_json` (or on purpose). The decoder
  /// it is called on is unchanged.
  [[nodiscard]] decode<T, unknown_keys::allow> allow_unknown_keys() const& {
    return decode<T, unknown_keys::allow>(check_, 0);
  }
  [[nodiscard]] decode<T, unknown_keys::allow> allow_unknown_keys() && {
    return decode<T, unknown_keys::allow>(std::move(check_), 0);
  }

  /// Returns whether `v` decodes to a `T` that passes the checks, and why not.
  verdict operator()(const nlohmann::json& v) const;

  /// Returns `v` decoded. Throws what `from_json` throws; meant for a value that qualified.
  [[nodiscard]] T get(const nlohmann::json& v) const {
    if constexpr (detail::json_decodes<T>::value) {
      return v.template get<T>();
    } else {
      detail::explain_decode<T, Keys>();
      throw;  // never reached: the build failed above
    }
  }

 private:
  template <class, unknown_keys>
  friend class decode;
  decode(std::function<verdict(const T&)> check, int) : check_(std::move(check)) {}

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
};

/// The policy `extract` and `stream` use with selector `S` when `options::policy` is unset:
/// `S::default_policy` when it declares one (`unique` for `decode<T>` and schemas), else
/// `first`. A program that reports the policy (the `llmjson` tool) asks it here.
template <class S>
constexpr llmjson::policy default_policy_of() noexcept {
  if constexpr (requires { S::default_policy; }) {
    return S::default_policy;
  } else {
    return llmjson::policy::first;
  }
}

namespace detail {

using ::llmjson::default_policy_of;

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
std::string describe_json_exception(const nlohmann::json::exception& e);

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

/// Set while a stream judges a healed value (rules §8 Qualifying: its partial answer) with a
/// typed decoder: a member of a struct declared with `LLMJSON_DEFINE_TYPE` that the value lacks
/// is left default-constructed instead of failing the decoding (each member present must still
/// decode to its type), and `decode`'s caller check is not run (it judges the complete `T`:
/// `finish()` runs it). `partial_judging_scope` sets it for one judging.
inline thread_local bool partial_judging = false;

/// Sets `partial_judging` while it lives.
struct partial_judging_scope {
  partial_judging_scope() noexcept : was_(partial_judging) { partial_judging = true; }
  ~partial_judging_scope() { partial_judging = was_; }
  partial_judging_scope(const partial_judging_scope&) = delete;
  partial_judging_scope& operator=(const partial_judging_scope&) = delete;

 private:
  bool was_;
};

/// Returns the first key of `given` (at any depth) that `encoded` lacks, as a reason, or "".
/// Iterative: no recursion proportional to the value's depth.
std::string first_unknown_key(const nlohmann::json& given, const nlohmann::json& encoded);

}  // namespace detail

template <class T, unknown_keys Keys>
verdict decode<T, Keys>::operator()(const nlohmann::json& v) const {
  if constexpr (!detail::decodable<T, Keys>) {
    detail::explain_decode<T, Keys>();
    return verdict::fail("");  // never reached: the build failed above
  } else {
    std::optional<T> decoded;
    try {
      decoded.emplace(v.template get<T>());
    } catch (const nlohmann::json::exception& e) {
      return verdict::fail(detail::describe_json_exception(e));
    }
    if constexpr (Keys == unknown_keys::reject) {
      nlohmann::json encoded;
      try {
        encoded = nlohmann::json(*decoded);
      } catch (const nlohmann::json::exception& e) {
        return verdict::fail("cannot encode the decoded value to check for unknown keys: " +
                             detail::describe_json_exception(e));
      }
      if (auto why = detail::first_unknown_key(v, encoded); !why.empty())
        return verdict::fail(std::move(why));
    }
    if (check_ && !detail::partial_judging) return check_(*decoded);
    return verdict::pass();
  }
}

}  // namespace llmjson

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/select/select-inl.hpp>
#endif

#endif  // LLMJSON_SELECT_HPP_INCLUDED
