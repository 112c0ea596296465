// llmjson: LLMJSON_INLINE, how a function body declared in a public header is compiled
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

#endif  // LLMJSON_DETAIL_CONFIG_HPP_INCLUDED
