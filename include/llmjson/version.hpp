// llmjson: the library's version, the only place it is written
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_VERSION_HPP_INCLUDED
#define LLMJSON_VERSION_HPP_INCLUDED

#define LLMJSON_VERSION_MAJOR 0
#define LLMJSON_VERSION_MINOR 1
#define LLMJSON_VERSION_PATCH 0

namespace llmjson {
/// The version as "MAJOR.MINOR.PATCH".
inline constexpr const char* version_string = "0.1.0";
}  // namespace llmjson

#endif  // LLMJSON_VERSION_HPP_INCLUDED
