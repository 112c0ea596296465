// llmjson: from_string<E>(name), a public enum's enumerator from its name
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_ENUM_NAMES_HPP_INCLUDED
#define LLMJSON_ENUM_NAMES_HPP_INCLUDED

#include <array>
#include <optional>
#include <string_view>

namespace llmjson {

/// Every enumerator of the public enum `E`, in declaration order. Specialized right below each
/// one (`source`, `error_kind`, `policy`, `output_start`, `reasoning_format`, `unknown_keys`,
/// `attempt_outcome`, `retry_error_kind`, `schema_style`, `kernel`, `member_state`), beside its
/// `to_string`; empty for any other type.
template <class E>
inline constexpr std::array<E, 0> enumerators{};

/// Returns the enumerator of `E` whose `to_string` is `name` (byte for byte: case and spaces
/// count), or nothing for any other string. Does not throw or allocate; usable at compile time.
/// The names are the enumerators' own: `from_string<policy>("unique") == policy::unique`,
/// `from_string<error_kind>("no_json") == error_kind::no_json`, `from_string<policy>("Unique")` is
/// empty.
template <class E>
  requires(enumerators<E>.size() > 0)
[[nodiscard]] constexpr std::optional<E> from_string(std::string_view name) noexcept {
  for (E e : enumerators<E>)
    if (to_string(e) == name) return e;
  return std::nullopt;
}

}  // namespace llmjson

#endif  // LLMJSON_ENUM_NAMES_HPP_INCLUDED
