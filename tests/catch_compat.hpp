// llmjson: includes Catch2's test macros from v3 or from v2 (Debian's 2.13)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_CATCH_COMPAT_HPP_INCLUDED
#define LLMJSON_TESTS_CATCH_COMPAT_HPP_INCLUDED

// Use only TEST_CASE, SECTION, REQUIRE/CHECK (and their _FALSE/_THROWS forms) and GENERATE:
// those are spelled the same in both versions; matchers are not.
#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>  // v3
#include <catch2/generators/catch_generators.hpp>
#else
#include <catch2/catch.hpp>  // v2
#endif

#endif  // LLMJSON_TESTS_CATCH_COMPAT_HPP_INCLUDED
