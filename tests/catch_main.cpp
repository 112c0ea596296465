// llmjson: Catch2 v2's main(), compiled once into llmjson_catch_main (v3 has Catch2WithMain)
// SPDX-License-Identifier: MIT
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
