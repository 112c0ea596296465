// llmjson: a declared type read from a partial answer, member by member, with each member's state
// SPDX-License-Identifier: MIT
//
// Included by <llmjson/partial.hpp> once `member_state` is declared; not on its own.
#ifndef LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_READ_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_READ_HPP_INCLUDED

#include <array>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/config.hpp>
#include <llmjson/detail/schema_of/members.hpp>

namespace llmjson::detail {

/// The state of one value of a partial answer and of its parts: for a declared struct, one item
/// per member in declaration order; for a std::vector or std::array, one per element read (the
/// elements before the first that cannot be read); for a std::optional, those of its value.
/// Scalars, strings, enums and maps have no items. An absent value has none.
struct partial_node {
  member_state state = member_state::absent;
  std::vector<partial_node> items;
};

/// The node of a value that has not arrived: absent, no items.
const partial_node& absent_node() noexcept;

/// Returns the tokens of the JSON Pointer `open` (RFC 6901: `/steps/0/t`: "steps", "0", "t"; ""
/// names the root: no token), checked to name a value inside `value`. Throws
/// std::invalid_argument naming the pointer when it is malformed (no leading `/`, a `~` not
/// followed by `0` or `1`) or names nothing in `value`.
std::vector<std::string> open_tokens(const nlohmann::json& value, std::string_view open);

/// Returns whether `token` is the JSON Pointer array index of `i`: its decimal digits, no
/// leading zero.
bool is_index_token(std::string_view token, std::size_t i) noexcept;

/// Where a value being read stands against the open pointer: `on` when its own pointer is a
/// prefix of the open one (the value is being written, or encloses the one that is), `depth`
/// its number of tokens.
struct open_cursor {
  const std::vector<std::string>* tokens = nullptr;
  std::size_t depth = 0;
  bool on = false;

  /// The cursor of the member `key` of this value.
  [[nodiscard]] open_cursor member(std::string_view key) const noexcept {
    return {tokens, depth + 1, on && depth < tokens->size() && (*tokens)[depth] == key};
  }
  /// The cursor of the element `i` of this value.
  [[nodiscard]] open_cursor element(std::size_t i) const noexcept {
    return {tokens, depth + 1, on && depth < tokens->size() && is_index_token((*tokens)[depth], i)};
  }
  /// The state of a value that has arrived and reads as its type: in progress on the open path,
  /// else complete.
  [[nodiscard]] member_state arrived() const noexcept {
    return on ? member_state::in_progress : member_state::complete;
  }
};

/// `X` for a `std::optional<X>`, else `M`.
template <class M>
struct unwrap_optional {
  using type = M;
};
template <class M>
struct unwrap_optional<std::optional<M>> {
  using type = M;
};
template <class M>
using unwrap_optional_t = typename unwrap_optional<M>::type;

template <class M>
member_state read_partial(const nlohmann::json& j, M& out, partial_node& node, open_cursor at);

/// Reads the elements of the JSON array `j` into `put(i, element)`, one by one, up to the first
/// that cannot be read (absent), giving `node` an item per element read. Returns whether every
/// element was read.
template <class E, class Put>
bool read_partial_elements(const nlohmann::json& j, partial_node& node, open_cursor at, Put put) {
  node.items.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    E item{};
    partial_node item_node;
    item_node.state = read_partial(j[i], item, item_node, at.element(i));
    if (item_node.state == member_state::absent) return false;
    put(i, std::move(item));
    node.items.push_back(std::move(item_node));
  }
  return true;
}

/// Reads a declared struct from the JSON object `j`, member by member (keys `T` does not declare
/// are ignored). Complete when it is written to its end and every member is complete, or, for a
/// std::optional one, its key never came (null, as decoding reads it); written to its end
/// without that, it is absent.
template <class T>
member_state read_partial_record(const nlohmann::json& j, T& out, partial_node& node,
                                 open_cursor at) {
  if (!j.is_object()) return member_state::absent;
  node.items.resize(std::tuple_size_v<decltype(fields_of<T>())>);
  bool whole = true;  // every member complete, or an optional one not given
  std::size_t index = 0;
  for_each_field<T>([&](const auto& fd) {
    using M = typename std::remove_cvref_t<decltype(fd)>::member_type;
    partial_node& item = node.items[index++];
    const auto it = j.find(fd.name);
    if (it == j.end()) {
      whole = whole && is_optional<M>::value;
      return;
    }
    item.state = read_partial(*it, out.*fd.member, item, at.member(fd.name));
    whole = whole && item.state == member_state::complete;
  });
  if (at.on) return member_state::in_progress;
  if (whole) return member_state::complete;
  out = T{};
  node.items.clear();
  return member_state::absent;
}

/// Reads a declared enum: a string that is one of its names (written to its end or not yet).
template <class E>
member_state read_partial_enum(const nlohmann::json& j, E& out, open_cursor at) {
  if (!j.is_string() || !enum_from_name(j.get_ref<const std::string&>(), out))
    return member_state::absent;
  return at.arrived();
}

/// Reads the partial value `j` into `out` (default-constructed on entry) and returns its state,
/// giving `node` the items of its parts. An absent value leaves `out` default-constructed and
/// `node` without items; a value that reads as `M` so far is in progress on the open path, and
/// complete elsewhere when it reads as `M` as decoding would (std::vector and std::array: every
/// element; a struct: see read_partial_record).
template <class M>
member_state read_partial(const nlohmann::json& j, M& out, partial_node& node, open_cursor at) {
  if constexpr (std::is_same_v<M, bool>) {
    if (!j.is_boolean()) return member_state::absent;
    out = j.get<bool>();
    return at.arrived();
  } else if constexpr (is_json_integer<M>) {
    return integer_in_range(j, out) ? at.arrived() : member_state::absent;
  } else if constexpr (std::is_floating_point_v<M>) {
    return floating_in_range(j, out) ? at.arrived() : member_state::absent;
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (!j.is_string()) return member_state::absent;
    out = j.get_ref<const std::string&>();
    return at.arrived();
  } else if constexpr (is_optional<M>::value) {
    if (j.is_null()) return at.arrived();  // out is already std::nullopt
    typename M::value_type inner{};
    const member_state s = read_partial(j, inner, node, at);
    if (s != member_state::absent) out = std::move(inner);
    return s;
  } else if constexpr (is_vector<M>::value) {
    if (!j.is_array()) return member_state::absent;
    out.reserve(j.size());
    const bool all = read_partial_elements<typename M::value_type>(
        j, node, at, [&](std::size_t, typename M::value_type&& e) { out.push_back(std::move(e)); });
    if (at.on) return member_state::in_progress;
    if (all) return member_state::complete;
    out = M{};
    node.items.clear();
    return member_state::absent;
  } else if constexpr (is_std_array<M>::value) {
    if (!j.is_array() || j.size() > out.size()) return member_state::absent;
    const bool all = read_partial_elements<typename M::value_type>(
        j, node, at, [&](std::size_t i, typename M::value_type&& e) { out[i] = std::move(e); });
    if (at.on) return member_state::in_progress;
    if (all && j.size() == out.size()) return member_state::complete;
    out = M{};
    node.items.clear();
    return member_state::absent;
  } else if constexpr (is_map<M>::value) {
    if (!j.is_object()) return member_state::absent;
    bool all = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      typename M::mapped_type v{};
      partial_node entry;
      if (read_partial(it.value(), v, entry, at.member(it.key())) == member_state::absent) {
        all = false;  // an entry that cannot be read is left out
      } else {
        out.emplace(it.key(), std::move(v));
      }
    }
    if (at.on) return member_state::in_progress;
    if (all) return member_state::complete;
    out = M{};
    return member_state::absent;
  } else if constexpr (declared_record<M>) {
    return read_partial_record(j, out, node, at);
  } else if constexpr (declared_enum<M>) {
    return read_partial_enum(j, out, at);
  } else {
    explain_member<M>();
    return member_state::absent;
  }
}

/// Returns the index of `member` among the members `T` declares, or the number of members when
/// it is none of them. Fails the build when no declared member has type `M`.
template <class T, class M>
std::size_t field_index(M T::*member) noexcept {
  static constexpr auto fields = fields_of<T>();
  constexpr bool some = std::apply(
      [](const auto&... fd) { return (std::is_same_v<decltype(fd.member), M T::*> || ...); },
      fields);
  static_assert(some,
                "llmjson::partial<T>: no member of T declared in LLMJSON_DEFINE_TYPE has "
                "this type: pass a pointer to one of them (&T::member)");
  std::size_t found = std::tuple_size_v<decltype(fields)>;
  std::size_t index = 0;
  std::apply(
      [&](const auto&... fd) {
        const auto one = [&](const auto& f) {
          if constexpr (std::is_same_v<decltype(f.member), M T::*>) {
            if (f.member == member && found == std::tuple_size_v<decltype(fields)>) found = index;
          }
          ++index;
        };
        (one(fd), ...);
      },
      fields);
  return found;
}

/// Throws std::invalid_argument: `member` of `type` (as declared) is not one of its members
/// declared in LLMJSON_DEFINE_TYPE.
[[noreturn]] void throw_undeclared_member(std::string_view type);

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_SCHEMA_OF_PARTIAL_READ_HPP_INCLUDED
