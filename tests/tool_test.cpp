// llmjson: the tool's pieces that a unit test reaches: its reader of a line that is one JSON
// string (examples/cli/json_string.hpp; sixteen bytes a step with SSE2, eight without,
// LLMJSON_CLI_PORTABLE) against nlohmann's parse, and the batch's chunk size (ordered_lines.hpp)
// SPDX-License-Identifier: MIT
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../examples/cli/json_string.hpp"
#include "../examples/cli/ordered_lines.hpp"

namespace llmjson_tests::tool_test {

namespace {

/// What the line means when it is one JSON string: nlohmann's reading, or nothing.
std::optional<std::string> by_nlohmann(std::string_view line) {
  const nlohmann::json v = nlohmann::json::parse(line, nullptr, false);
  if (v.is_discarded() || !v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

/// read_string_line's reading, into a buffer kept from call to call (it only grows, and the
/// bytes of a longer line before must not show through).
std::optional<std::string> by_tool(std::string_view line, std::string& buffer) {
  const std::optional<std::size_t> n = llmjson_cli::read_string_line(line, buffer);
  if (!n) return std::nullopt;
  return buffer.substr(0, *n);
}

}  // namespace

TEST_CASE("the tool reads a line that is one JSON string as nlohmann does, or leaves it",
          "[tool]") {
  // Pieces of a string's body: plain runs of every length up to 100 (so that the specials fall
  // at every place of an 8- and a 16-byte block), escapes valid and not, UTF-8 well formed and
  // not, raw controls; around it white space, or a missing quote, or bytes after it.
  const std::vector<std::string> pieces = {"\\n",      "\\\"",
                                           "\\\\",     "\\/",
                                           "\\b",      "\\f",
                                           "\\r",      "\\t",
                                           "\\u00e9",  "\\ud83d\\ude00",
                                           "\\u0000",  "\\x",
                                           "\\u12",    "\\udc00",
                                           "\\ud800",  "\\ud800\\n",
                                           "\xc3\xa9", "\xf0\x9f\x98\x80",
                                           "\xff",     "\xc3",
                                           "\xe2\x82", "\xed\xa0\x80",
                                           "\x01",     "\n",
                                           "\t",       "\x7f",
                                           " ",        "\\",
                                           "\""};
  std::uint32_t seed = 2026;
  const auto next = [&seed] {
    seed = seed * 1664525U + 1013904223U;
    return seed >> 8;
  };
  std::string buffer;
  std::size_t read = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string body;
    const std::size_t parts = next() % 12;
    for (std::size_t k = 0; k < parts; ++k) {
      body.append(next() % (round % 3 == 0 ? 101 : 20), static_cast<char>('a' + next() % 26));
      // Mostly the escapes a model's output holds, now and then anything of the list.
      body += pieces[next() % 4 == 0 ? next() % pieces.size() : next() % 4];
    }
    body.append(next() % 90, 'z');
    std::string line = std::string(next() % 3, ' ') + "\"" + body;
    switch (next() % 8) {
      case 0: break;                     // no closing quote
      case 1: line += "\" x"; break;     // a byte after the string
      case 2: line += "\"\t \r"; break;  // white space after it
      default: line += "\""; break;
    }
    INFO(round << ": " << line);
    const std::optional<std::string> want = by_nlohmann(line);
    CHECK(by_tool(line, buffer) == want);
    if (want) ++read;
  }
  CHECK(read > 5000);  // the usual line, valid, is most of them
  // Not a string: read by json_line_reader instead.
  for (std::string_view line : {"", " ", "{\"a\":1}", "\"a\" \"b\"", "1", "null", "\"\\"}) {
    INFO(line);
    CHECK(!by_tool(line, buffer));
  }
}

TEST_CASE("a batch's chunks are 1 MiB, less with many jobs, never under 256 KiB", "[tool]") {
  using llmjson_cli::default_chunk_bytes;
  // tests/cli/cli_test.py puts the bytes it tests at the end of a 1 MiB chunk with --jobs 1 and 2.
  for (unsigned jobs : {0U, 1U, 2U, 7U}) CHECK(default_chunk_bytes(jobs) == 1U << 20);
  // At most 16 MiB in the 2 × jobs + 1 chunks, down to 256 KiB a chunk.
  CHECK(default_chunk_bytes(8) == (16U << 20) / 17);
  for (unsigned jobs : {8U, 12U, 20U, 31U})
    CHECK(default_chunk_bytes(jobs) * (2 * jobs + 1) <= 16U << 20);
  for (unsigned jobs : {32U, 64U, 1000U}) CHECK(default_chunk_bytes(jobs) == 256U << 10);
}

}  // namespace llmjson_tests::tool_test
