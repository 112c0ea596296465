// llmjson: what LLMJSON_DEFINE_TYPE knows of a member: its kind, its strict decoding and encoding
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_OF_MEMBERS_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_OF_MEMBERS_HPP_INCLUDED

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/select.hpp>  // partial_judging

namespace llmjson::detail {

/// One member of a declared struct: its JSON name (the member's name as written), where it is,
/// and its description ("" when none).
template <class C, class M>
struct field {
  using member_type = M;
  M C::*member;
  std::string_view name;
  std::string_view description;
};

/// Fails the build when LLMJSON_DEFINE_TYPE or LLMJSON_DEFINE_ENUM is given too many names.
template <class T>
constexpr int too_many_members() {
  static_assert(dependent_false<T>,
                "llmjson: LLMJSON_DEFINE_TYPE and LLMJSON_DEFINE_ENUM take at most "
                "LLMJSON_MAX_MEMBERS (64) members or enumerators");
  return 0;
}

// ---- kinds of member ---------------------------------------------------------------------

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};

/// std::map and std::unordered_map, with any key type (the key is checked apart).
template <class T>
struct is_map : std::false_type {};
template <class K, class V, class C, class A>
struct is_map<std::map<K, V, C, A>> : std::true_type {};
template <class K, class V, class H, class E, class A>
struct is_map<std::unordered_map<K, V, H, E, A>> : std::true_type {};

template <class T>
inline constexpr bool is_char_type =
    std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t> ||
    std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

/// An integer member: any integral type but bool and the character types (`std::int8_t` and
/// `std::uint8_t`, signed and unsigned char, are integers).
template <class T>
inline constexpr bool is_json_integer =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_type<T>;

/// A struct declared with LLMJSON_DEFINE_TYPE (found by argument-dependent lookup of the
/// `llmjson_type_name` the macro defines first).
template <class T>
concept declared_record = std::is_class_v<T> && requires(const T* p) {
  { llmjson_type_name(p) } -> std::convertible_to<std::string_view>;
};

/// An enum declared with LLMJSON_DEFINE_ENUM.
template <class T>
concept declared_enum = std::is_enum_v<T> && requires(const T* p) {
  { llmjson_type_name(p) } -> std::convertible_to<std::string_view>;
};

/// Whether a member of type `M` is supported (records and enums count as supported when
/// declared: their own members were checked by their own declaration).
template <class M>
constexpr bool supported_member() {
  if constexpr (std::is_const_v<M> || std::is_volatile_v<M>) {
    return false;
  } else if constexpr (std::is_same_v<M, bool> || is_json_integer<M> ||
                       std::is_floating_point_v<M> || std::is_same_v<M, std::string>) {
    return true;
  } else if constexpr (is_optional<M>::value) {
    return !is_optional<typename M::value_type>::value &&
           supported_member<typename M::value_type>();
  } else if constexpr (is_vector<M>::value || is_std_array<M>::value) {
    return supported_member<typename M::value_type>();
  } else if constexpr (is_map<M>::value) {
    return std::is_same_v<typename M::key_type, std::string> &&
           supported_member<typename M::mapped_type>();
  } else {
    return declared_record<M> || declared_enum<M>;
  }
}

/// Fails the build, naming the problem, when a member of type `M` is not supported. The first
/// error of a declaration with such a member is one of these.
template <class M>
constexpr void explain_member() {
  if constexpr (std::is_const_v<M> || std::is_volatile_v<M>) {
    static_assert(dependent_false<M>,
                  "llmjson: LLMJSON_DEFINE_TYPE: a const member cannot be decoded into");
  } else if constexpr (std::is_pointer_v<M> || std::is_member_pointer_v<M>) {
    static_assert(dependent_false<M>,
                  "llmjson: LLMJSON_DEFINE_TYPE: a pointer member cannot be decoded from JSON "
                  "(who would own the pointee?): use the value, or std::optional<T> for one that "
                  "may be absent");
  } else if constexpr (is_char_type<M>) {
    static_assert(dependent_false<M>,
                  "llmjson: LLMJSON_DEFINE_TYPE: a char member is ambiguous (a number or a "
                  "one-character string?): use std::string, or std::int8_t / std::uint8_t for a "
                  "small integer");
  } else if constexpr (is_optional<M>::value) {
    if constexpr (is_optional<typename M::value_type>::value) {
      static_assert(dependent_false<M>,
                    "llmjson: LLMJSON_DEFINE_TYPE: std::optional<std::optional<T>> cannot be "
                    "told apart in JSON (both absent states are null)");
    } else {
      explain_member<typename M::value_type>();
    }
  } else if constexpr (is_vector<M>::value || is_std_array<M>::value) {
    explain_member<typename M::value_type>();
  } else if constexpr (is_map<M>::value) {
    if constexpr (!std::is_same_v<typename M::key_type, std::string>) {
      static_assert(dependent_false<M>,
                    "llmjson: LLMJSON_DEFINE_TYPE: a map member must have std::string keys (the "
                    "keys of a JSON object are strings)");
    } else {
      explain_member<typename M::mapped_type>();
    }
  } else if constexpr (std::is_enum_v<M> && !declared_enum<M>) {
    static_assert(dependent_false<M>,
                  "llmjson: LLMJSON_DEFINE_TYPE: an enum member needs LLMJSON_DEFINE_ENUM(E, "
                  "enumerators...), before this declaration");
  } else if constexpr (!supported_member<M>()) {
    static_assert(dependent_false<M>,
                  "llmjson: LLMJSON_DEFINE_TYPE: member type not supported. Supported: bool, "
                  "integers, float, double, std::string, std::optional<T>, std::vector<T>, "
                  "std::array<T, N>, std::map / std::unordered_map with std::string keys, "
                  "structs declared with LLMJSON_DEFINE_TYPE and enums declared with "
                  "LLMJSON_DEFINE_ENUM (each declared before the type that uses it)");
  }
}

/// Returns the field of member `m` named `name`, described by `description`. What
/// LLMJSON_DEFINE_TYPE calls for each member; fails the build for an unsupported member type.
template <class C, class M>
constexpr field<C, M> make_field(M C::*m, std::string_view name,
                                 std::string_view description = {}) {
  explain_member<M>();
  return field<C, M>{m, name, description};
}

/// Returns whether the names of a tuple of fields are distinct.
template <class Tuple>
constexpr bool distinct_names(const Tuple& fields) {
  return std::apply(
      [](const auto&... f) {
        const std::string_view names[] = {std::string_view{}, f.name...};
        for (std::size_t i = 1; i < std::size(names); ++i)
          for (std::size_t j = 1; j < i; ++j)
            if (names[i] == names[j]) return false;
        return true;
      },
      fields);
}

/// Returns the fields of a declared struct, as a tuple of `field`.
template <declared_record T>
constexpr auto fields_of() {
  constexpr auto fields = llmjson_fields(static_cast<const T*>(nullptr));
  static_assert(distinct_names(fields), "llmjson: LLMJSON_DEFINE_TYPE lists a member twice");
  return fields;
}

/// Calls `f(field)` for each field of the declared struct `T`, in declaration order.
template <class T, class F>
void for_each_field(F&& f) {
  static constexpr auto fields = fields_of<T>();
  std::apply([&](const auto&... fd) { (static_cast<void>(f(fd)), ...); }, fields);
}

/// Returns the name of a declared struct or enum as written in its declaration.
template <class T>
constexpr std::string_view type_name_of() {
  return llmjson_type_name(static_cast<const T*>(nullptr));
}

/// One enumerator of a declared enum and its name.
template <class E>
struct enum_name {
  E value;
  std::string_view name;
};

/// Returns whether the names of an enum's table are distinct.
template <class E, std::size_t N>
constexpr bool distinct_enum_names(const std::array<enum_name<E>, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (names[i].name == names[j].name) return false;
  return true;
}

/// Returns the enumerators of a declared enum and their names, in declaration order.
template <declared_enum E>
constexpr auto enum_names_of() {
  constexpr auto names = llmjson_enum_names(static_cast<const E*>(nullptr));
  static_assert(distinct_enum_names(names),
                "llmjson: LLMJSON_DEFINE_ENUM lists an enumerator twice");
  return names;
}

// ---- paths and errors --------------------------------------------------------------------

/// A place in the value being decoded, linked to its parent: built only into a string (a JSON
/// Pointer) when something fails there.
struct json_path {
  const json_path* parent = nullptr;
  std::string_view key;  ///< the object key, when not `is_index`
  std::size_t index = 0;
  bool is_index = false;
};

/// Returns the JSON Pointer of `at` (`/steps/2/eta`), "" for the root (null).
std::string path_string(const json_path* at);
/// Returns `s` as a JSON string literal (invalid UTF-8 as U+FFFD).
std::string json_quoted(std::string_view s);
/// Returns `path_string(at) + ": "`, or "" for the root.
std::string path_prefix(const json_path* at);
/// Returns how a value is shown in a message: a number or literal as written (`1.5`, `true`,
/// `null`), a string quoted (shortened past 40 bytes), else its type (`array`, `object`).
std::string describe_value(const nlohmann::json& v);

/// Throws `nlohmann::json::type_error` (302): `/at: expected <expected>, got <v>`.
[[noreturn]] void throw_wrong_type(const json_path* at, std::string_view expected,
                                   const nlohmann::json& v);
/// Throws `nlohmann::json::out_of_range` (406): `/at: <what>`.
[[noreturn]] void throw_out_of_range(const json_path* at, const std::string& what);
/// Throws `nlohmann::json::out_of_range` (403): `/at: missing key "k"`, and the first key of
/// `object` that `declared` does not name, if any, as a likely misspelling.
[[noreturn]] void throw_missing_key(const json_path* at, std::string_view key,
                                    const nlohmann::json& object, const std::string_view* declared,
                                    std::size_t count);
/// Throws `nlohmann::json::out_of_range` (406): `/at: unknown key "k"`.
[[noreturn]] void throw_unknown_key(const json_path* at, std::string_view key);

/// Returns "an integer in [min, max]" for the range of `I`.
template <class I>
std::string integer_expectation() {
  return "an integer in [" + std::to_string(std::numeric_limits<I>::min()) + ", " +
         std::to_string(std::numeric_limits<I>::max()) + "]";
}

/// Returns "a number in [-m, m] (the range of float)", with m as JSON prints it.
std::string float_expectation();

// ---- decoding ----------------------------------------------------------------------------

template <class M>
void read_member(const nlohmann::json& j, M& out, const json_path* at);

/// Sets `out` to the integer `j` holds and returns true when `j` is a JSON integer, or a number
/// with no fractional part (JSON Schema's "integer", as llmjson::schema reads it), within `I`'s
/// range; else returns false and leaves `out` alone. What `read_integer` accepts.
template <class I>
bool integer_in_range(const nlohmann::json& j, I& out) noexcept {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (!std::in_range<I>(u)) return false;
    out = static_cast<I>(u);
  } else if (j.is_number_integer()) {
    const auto s = j.get<std::int64_t>();
    if (!std::in_range<I>(s)) return false;
    out = static_cast<I>(s);
  } else if (j.is_number_float()) {
    const double d = j.get<double>();
    // Both bounds exact in a double: the minimum (0 or -2^k) and max + 1 (2^digits).
    const double low = static_cast<double>(std::numeric_limits<I>::min());
    const double past = std::ldexp(1.0, std::numeric_limits<I>::digits);
    if (!(std::isfinite(d) && std::floor(d) == d && d >= low && d < past)) return false;
    out = static_cast<I>(d);
  } else {
    return false;
  }
  return true;
}

/// Reads an integer: a JSON integer, or a number with no fractional part (JSON Schema's
/// "integer", as llmjson::schema reads it), within `I`'s range.
template <class I>
void read_integer(const nlohmann::json& j, I& out, const json_path* at) {
  if (integer_in_range(j, out)) return;
  if (!j.is_number()) throw_wrong_type(at, integer_expectation<I>(), j);
  throw_out_of_range(at, "expected " + integer_expectation<I>() + ", got " + describe_value(j));
}

/// Sets `out` to the number `j` holds and returns true when `j` is a JSON number (a `float`: one
/// within float's finite range); else returns false and leaves `out` alone. What
/// `read_floating` accepts.
template <class F>
bool floating_in_range(const nlohmann::json& j, F& out) noexcept {
  if (!j.is_number()) return false;
  const double d = j.get<double>();
  if constexpr (std::numeric_limits<F>::max() < std::numeric_limits<double>::max()) {
    constexpr double most = static_cast<double>(std::numeric_limits<F>::max());
    if (d < -most || d > most) return false;
  }
  out = static_cast<F>(d);
  return true;
}

/// Reads a floating-point number: any JSON number; a `float` only within its finite range.
template <class F>
void read_floating(const nlohmann::json& j, F& out, const json_path* at) {
  if (!j.is_number()) throw_wrong_type(at, "a number", j);
  if (!floating_in_range(j, out))
    throw_out_of_range(at, "expected " + float_expectation() + ", got " + describe_value(j));
}

/// Sets `out` to the enumerator of the declared enum `E` named `name` (exactly) and returns
/// true; returns false, `out` left alone, when no enumerator has that name.
template <class E>
constexpr bool enum_from_name(std::string_view name, E& out) noexcept {
  for (const auto& n : enum_names_of<E>()) {
    if (n.name == name) {
      out = n.value;
      return true;
    }
  }
  return false;
}

/// Reads a declared enum: one of its names, exactly.
template <class E>
void read_enum(const nlohmann::json& j, E& out, const json_path* at) {
  static constexpr auto names = enum_names_of<E>();
  auto one_of = [] {
    std::string s = "one of";
    for (std::size_t i = 0; i < names.size(); ++i) {
      s += i ? ", \"" : " \"";
      s.append(names[i].name);
      s += '"';
    }
    return s;
  };
  if (!j.is_string()) throw_wrong_type(at, one_of(), j);
  if (enum_from_name(j.get_ref<const std::string&>(), out)) return;
  throw_out_of_range(at, "expected " + one_of() + ", got " + describe_value(j));
}

/// Reads a declared struct: an object with every member that is not a std::optional, and no
/// other key.
template <class T>
void read_record(const nlohmann::json& j, T& out, const json_path* at) {
  static constexpr auto names = std::apply(
      [](const auto&... f) { return std::array<std::string_view, sizeof...(f)>{f.name...}; },
      fields_of<T>());
  if (!j.is_object()) throw_wrong_type(at, "an object", j);
  std::size_t present = 0;  // keys of `j` that name a member
  for_each_field<T>([&](const auto& fd) {
    using M = typename std::remove_cvref_t<decltype(fd)>::member_type;
    const auto it = j.find(fd.name);
    if (it != j.end()) {
      ++present;
      const json_path here{at, fd.name};
      read_member(*it, out.*fd.member, &here);
    } else if constexpr (is_optional<M>::value) {
      (out.*fd.member).reset();
    } else if (!partial_judging) {  // a stream's partial answer: left as it is
      throw_missing_key(at, fd.name, j, names.data(), names.size());
    }
  });
  if (present == j.size()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const auto n : names) known = known || n == it.key();
    if (!known) throw_unknown_key(at, it.key());
  }
}

template <class M>
void read_member(const nlohmann::json& j, M& out, const json_path* at) {
  if constexpr (std::is_same_v<M, bool>) {
    if (!j.is_boolean()) throw_wrong_type(at, "a boolean", j);
    out = j.get<bool>();
  } else if constexpr (is_json_integer<M>) {
    read_integer(j, out, at);
  } else if constexpr (std::is_floating_point_v<M>) {
    read_floating(j, out, at);
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (!j.is_string()) throw_wrong_type(at, "a string", j);
    out = j.get_ref<const std::string&>();
  } else if constexpr (is_optional<M>::value) {
    if (j.is_null()) {
      out.reset();
    } else {
      out.emplace();
      read_member(j, *out, at);
    }
  } else if constexpr (is_vector<M>::value) {
    if (!j.is_array()) throw_wrong_type(at, "an array", j);
    M items;
    items.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      const json_path here{at, {}, i, true};
      typename M::value_type item{};
      read_member(j[i], item, &here);
      items.push_back(std::move(item));
    }
    out = std::move(items);
  } else if constexpr (is_std_array<M>::value) {
    constexpr std::size_t n = std::tuple_size_v<M>;
    const std::string expected = "an array of exactly " + std::to_string(n) + " items";
    if (!j.is_array()) throw_wrong_type(at, expected, j);
    if (j.size() != n)
      throw_out_of_range(at, "expected " + expected + ", got " + std::to_string(j.size()));
    for (std::size_t i = 0; i < n; ++i) {
      const json_path here{at, {}, i, true};
      read_member(j[i], out[i], &here);
    }
  } else if constexpr (is_map<M>::value) {
    if (!j.is_object()) throw_wrong_type(at, "an object", j);
    M entries;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const json_path here{at, it.key()};
      typename M::mapped_type value{};
      read_member(it.value(), value, &here);
      entries.emplace(it.key(), std::move(value));
    }
    out = std::move(entries);
  } else if constexpr (declared_record<M>) {
    read_record(j, out, at);
  } else if constexpr (declared_enum<M>) {
    read_enum(j, out, at);
  } else {
    explain_member<M>();
  }
}

// ---- encoding ----------------------------------------------------------------------------

template <class M>
nlohmann::json write_member(const M& v, const json_path* at);

/// Returns the name of a declared enum's value; throws `nlohmann::json::out_of_range` (406) for
/// a value that has none (a cast integer).
template <class E>
std::string_view enum_to_name(E e, const json_path* at) {
  static constexpr auto names = enum_names_of<E>();
  for (const auto& n : names)
    if (n.value == e) return n.name;
  using U = std::underlying_type_t<E>;
  throw_out_of_range(
      at,
      "the value " + std::to_string(static_cast<std::common_type_t<U, int>>(static_cast<U>(e))) +
          " of enum " + std::string(type_name_of<E>()) + " has no name in its LLMJSON_DEFINE_ENUM");
}

/// Writes a declared struct: every member, a std::optional without a value as `null`.
template <class T>
void write_record(nlohmann::json& j, const T& v, const json_path* at) {
  nlohmann::json out = nlohmann::json::object();
  for_each_field<T>([&](const auto& fd) {
    const json_path here{at, fd.name};
    out[std::string(fd.name)] = write_member(v.*fd.member, &here);
  });
  j = std::move(out);
}

template <class M>
nlohmann::json write_member(const M& v, const json_path* at) {
  if constexpr (std::is_same_v<M, bool> || is_json_integer<M> || std::is_same_v<M, std::string>) {
    return nlohmann::json(v);
  } else if constexpr (std::is_floating_point_v<M>) {
    if (!std::isfinite(v))
      throw_out_of_range(at, "cannot write " + std::string(std::isnan(v) ? "NaN" : "infinity") +
                                 ": JSON has no such number");
    return nlohmann::json(static_cast<double>(v));
  } else if constexpr (is_optional<M>::value) {
    return v ? write_member(*v, at) : nlohmann::json(nullptr);
  } else if constexpr (is_vector<M>::value || is_std_array<M>::value) {
    nlohmann::json out = nlohmann::json::array();
    std::size_t i = 0;
    for (const auto& item : v) {
      const json_path here{at, {}, i++, true};
      out.push_back(write_member(static_cast<const typename M::value_type&>(item), &here));
    }
    return out;
  } else if constexpr (is_map<M>::value) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : v) {
      const json_path here{at, key};
      out[key] = write_member(value, &here);
    }
    return out;
  } else if constexpr (declared_record<M>) {
    nlohmann::json out;
    write_record(out, v, at);
    return out;
  } else if constexpr (declared_enum<M>) {
    return nlohmann::json(std::string(enum_to_name(v, at)));
  } else {
    explain_member<M>();
    return nullptr;
  }
}

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_OF_MEMBERS_HPP_INCLUDED
