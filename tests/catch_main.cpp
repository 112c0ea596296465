// llmjson: main() of every test executable, compiled once into llmjson_catch_main
// SPDX-License-Identifier: MIT
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>  // v3: the Catch2 library holds the runner

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#else
#define CATCH_CONFIG_MAIN  // v2 (Debian's 2.13): the runner and main() are compiled here
#include <catch2/catch.hpp>
#endif
