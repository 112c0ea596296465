// llmjson: LLMJSON_INLINE, how a function body declared in a public header is compiled, and
// dependent_false, for the static_asserts that explain a misuse
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_DETAIL_CONFIG_HPP_INCLUDED
#define LLMJSON_DETAIL_CONFIG_HPP_INCLUDED

// Header-only by default: each public header `x.hpp` declares, and includes the bodies of its
// non-template functions from `detail/.../x-inl.hpp`, marked LLMJSON_INLINE (`inline`).
//
// With LLMJSON_SEPARATE_COMPILATION defined in every translation unit of a program, the public
// headers leave the bodies out, and exactly one source file compiles them all by including
// <llmjson/src.hpp>. The library and its answers are the same; what changes is that the scanner
// and the schema compiler are compiled once instead of in every file that calls them.
#ifdef LLMJSON_SEPARATE_COMPILATION
#define LLMJSON_INLINE
#else
#define LLMJSON_INLINE inline
#endif

namespace llmjson::detail {

/// A `false` that depends on `T`: a static_assert on it fails only when instantiated, so that a
/// branch of `if constexpr` or an overload kept for misuses can explain what went wrong.
template <class T>
inline constexpr bool dependent_false = false;

}  // namespace llmjson::detail

#endif  // LLMJSON_DETAIL_CONFIG_HPP_INCLUDED
