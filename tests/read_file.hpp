// llmjson: the tests' one way to read a file whole (corpus cases, JSONTestSuite files, seeds)
// SPDX-License-Identifier: MIT
#ifndef LLMJSON_TESTS_READ_FILE_HPP_INCLUDED
#define LLMJSON_TESTS_READ_FILE_HPP_INCLUDED

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace llmjson_tests {

/// The bytes of the file at `p`, as they are (binary); empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace llmjson_tests

#endif  // LLMJSON_TESTS_READ_FILE_HPP_INCLUDED
