// llmjson: URI references (RFC 3986) as far as $id and $ref need them
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_SCHEMA_URI_HPP_INCLUDED
#define LLMJSON_DETAIL_SCHEMA_URI_HPP_INCLUDED

#include <optional>
#include <string>
#include <string_view>

#include <llmjson/detail/config.hpp>

namespace llmjson::detail {

/// The five parts of a URI reference; an absent part is `std::nullopt` (the path is always there,
/// possibly empty).
struct uri_parts {
  std::optional<std::string> scheme, authority, query, fragment;
  std::string path;
};

/// Splits `s` into its parts (RFC 3986 §3). Never fails: any text is some reference.
uri_parts uri_parse(std::string_view s);

/// Returns `path` with its `.` and `..` segments removed (RFC 3986 §5.2.4).
std::string uri_remove_dots(std::string_view path);

/// Returns `ref` resolved against `base` (RFC 3986 §5.2.2):
/// `uri_resolve("http://x.org/a/b.json", "c.json#/d")` is `"http://x.org/a/c.json#/d"`.
std::string uri_resolve(std::string_view base, std::string_view ref);

/// Returns `s` with each `%HH` decoded; a `%` not followed by two hex digits stays as it is.
std::string percent_decode(std::string_view s);

}  // namespace llmjson::detail

#ifndef LLMJSON_SEPARATE_COMPILATION
#include <llmjson/detail/schema/uri-inl.hpp>
#endif

#endif  // LLMJSON_DETAIL_SCHEMA_URI_HPP_INCLUDED
