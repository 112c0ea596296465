// llmjson: the tool's pieces that a unit test reaches: its reader of a line that is one JSON
// string (examples/cli/json_string.hpp; sixteen bytes a step with SSE2, eight without,
// LLMJSON_CLI_PORTABLE) against nlohmann's parse, --normalize's writer (normal_form.hpp) against
// nlohmann's dump, and the batch's chunk size (ordered_lines.hpp)
// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../examples/cli/json_string.hpp"
#include "../examples/cli/normal_form.hpp"
#include "../examples/cli/ordered_lines.hpp"
#include "sweep.hpp"

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

TEST_CASE("the tool's --normalize writes a value as nlohmann's compact dump does", "[tool]") {
  std::uint32_t seed = 31;
  const auto next = [&seed] {
    seed = seed * 1664525U + 1013904223U;
    return seed >> 8;
  };
  // Strings: plain runs (so that the specials fall at every place of an 8- and a 16-byte block),
  // every control, quotes, backslashes, DEL, UTF-8 well formed and not.
  const std::vector<std::string> pieces = {
      "\"",           "\\",   "\x7f", "\xc3\xa9",     "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      "\xef\xbf\xbf", "\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf",     "/"};
  const auto text = [&] {
    std::string s;
    for (std::size_t k = next() % 6; k > 0; --k) {
      s.append(next() % 40, static_cast<char>('a' + next() % 26));
      const std::uint32_t pick = next() % 4;
      if (pick == 0) {
        s += static_cast<char>(next() % 32);  // a control
      } else if (pick == 1) {
        s += pieces[next() % pieces.size()];
      }
    }
    return s;
  };
  const std::vector<double> doubles = {0.0,
                                       -0.0,
                                       0.52,
                                       1.0,
                                       -1.5,
                                       1e100,
                                       1.5e-5,
                                       123456789012345680.0,
                                       1e15,
                                       1e16,
                                       0.1 + 0.2,
                                       5e-324,
                                       std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity()};
  // A random value, `depth` levels at most.
  const auto value = [&](auto&& self, int depth) -> nlohmann::json {
    switch (next() % (depth > 0 ? 10 : 7)) {
      case 0: return nullptr;
      case 1: return next() % 2 == 0;
      case 2: return static_cast<std::int64_t>(next()) * (next() % 2 ? -1 : 1) * (next() % 1000);
      case 3:
        return next() % 3 ? std::numeric_limits<std::int64_t>::min()
                          : std::numeric_limits<std::int64_t>::max();
      case 4:
        return next() % 2 ? std::numeric_limits<std::uint64_t>::max()
                          : static_cast<std::uint64_t>(next()) << 32;
      case 5:
        return next() % 2 ? doubles[next() % doubles.size()]
                          : static_cast<double>(next()) / static_cast<double>(next() % 997 + 1);
      case 6: return text();
      case 7:
      case 8: {
        nlohmann::json o = nlohmann::json::object();
        for (std::size_t k = next() % 5; k > 0; --k) o[text()] = self(self, depth - 1);
        return o;
      }
      default: {
        nlohmann::json a = nlohmann::json::array();
        for (std::size_t k = next() % 5; k > 0; --k) a.push_back(self(self, depth - 1));
        return a;
      }
    }
  };
  std::size_t escaped = 0;
  for (int round = 0; round < 20000; ++round) {
    const nlohmann::json v = value(value, 4);
    const std::string want = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string got = "kept";  // appended to
    llmjson_cli::append_dump(v, got);
    INFO(round << ": " << want);
    CHECK(got == "kept" + want);
    if (want.find('\\') != std::string::npos) ++escaped;
  }
  CHECK(escaped > 3000);  // escapes in many of them
  nlohmann::json binary = nlohmann::json::binary({1, 2, 3});
  std::string got;
  llmjson_cli::append_dump(binary, got);
  CHECK(got == binary.dump());
}

TEST_CASE("the tool's --normalize writes a JSON text as nlohmann's dump of its value", "[tool]") {
  std::uint32_t seed = 33;
  const auto next = [&seed] {
    seed = seed * 1664525U + 1013904223U;
    return seed >> 8;
  };
  // Characters that strings and keys are made of: ASCII, controls, quotes, backslashes, the
  // slash, DEL, two-, three- and four-byte UTF-8.
  const std::vector<char32_t> cps = {'a',  'b',  'z',    ' ',    '"',     '\\',
                                     '/',  0x7f, 0x00,   0x01,   '\n',    '\t',
                                     0x1f, 0xe9, 0x20ac, 0xffff, 0x1f600, 0x10ffff};
  const auto chars = [&] {
    std::u32string s;
    for (std::size_t k = next() % 7; k > 0; --k) s += cps[next() % cps.size()];
    return s;
  };
  // A string token of `s`, each character as it is (where JSON lets it) or escaped in one of the
  // ways nlohmann reads: short escapes, \u in either case, surrogate pairs.
  const auto token = [&](const std::u32string& s) {
    std::string out = "\"";
    for (const char32_t c : s) {
      const std::uint32_t how = next() % 4;
      if (!(c < 0x20 || c == '"' || c == '\\') && how < 2) {
        llmjson_cli::append_utf8(out, c);
      } else if (how == 2 && (c == '"' || c == '\\' || c == '/' || c == '\n' || c == '\t')) {
        out += '\\';
        out += c == '\n' ? 'n' : (c == '\t' ? 't' : static_cast<char>(c));
      } else {
        const auto u = [&](char32_t v) {
          char hex[8];
          std::snprintf(hex, sizeof hex, next() % 2 ? "\\u%04x" : "\\u%04X",
                        static_cast<unsigned>(v));
          out += hex;
        };
        if (c >= 0x10000) {
          u(0xD800 + ((c - 0x10000) >> 10));
          u(0xDC00 + ((c - 0x10000) & 0x3FF));
        } else {
          u(c);
        }
      }
    }
    return out + "\"";
  };
  const auto ws = [&] {
    static constexpr char spaces[] = {' ', '\n', '\t', '\r'};
    return std::string(next() % 3, spaces[next() % 4]);
  };
  // Numbers as written, nlohmann's reading deciding their form: integers of every size (past
  // 64 bits too), -0, fractions and exponents.
  const std::vector<std::string> numbers = {"0",
                                            "-0",
                                            "7",
                                            "-12",
                                            "9223372036854775807",
                                            "-9223372036854775808",
                                            "-9223372036854775809",
                                            "18446744073709551615",
                                            "18446744073709551616",
                                            "123456789012345678901234567890",
                                            "1.0",
                                            "1.50",
                                            "-0.0",
                                            "1e2",
                                            "1E+2",
                                            "25e-1",
                                            "0.1",
                                            "0.52",
                                            "-1.5e-7",
                                            "5e-324",
                                            "1.7976931348623157e308"};
  // A random JSON text, `depth` levels at most: members in no order, white space about.
  const auto text = [&](auto&& self, int depth) -> std::string {
    switch (next() % (depth > 0 ? 8 : 5)) {
      case 0: return next() % 2 ? "null" : (next() % 2 ? "true" : "false");
      case 1:
      case 2: return numbers[next() % numbers.size()];
      case 3:
      case 4: return token(chars());
      case 5:
      case 6: {
        std::vector<std::u32string> keys;
        std::string o = "{" + ws();
        for (std::size_t k = next() % 6; k > 0; --k) {
          std::u32string key = chars();
          if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;  // unique
          if (!keys.empty()) o += "," + ws();
          keys.push_back(key);
          o += token(key) + ws() + ":" + ws() + self(self, depth - 1) + ws();
        }
        return o + "}";
      }
      default: {
        std::string a = "[" + ws();
        for (std::size_t k = next() % 5; k > 0; --k) {
          if (a.find_first_not_of(" \n\t\r", 1) != std::string::npos) a += "," + ws();
          a += self(self, depth - 1) + ws();
        }
        return a + "]";
      }
    }
  };
  // 8,000 texts (a third under the sanitizers and libc++: LLMJSON_TEST_SWEEP_STEP); the fuzz
  // target normalize_fuzz goes further.
  const std::size_t rounds = 8000 / sweep_step();
  std::size_t sorted = 0;
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::string t = ws() + text(text, 4) + ws();
    const nlohmann::json v = nlohmann::json::parse(t);
    std::string got = "kept";  // appended to
    INFO(round << ": " << t);
    REQUIRE(llmjson_cli::append_normalized(t, got));
    CHECK(got == "kept" + v.dump());
    if (v.is_object() && v.size() > 1) ++sorted;
  }
  CHECK(sorted * 10 > rounds);  // objects of several members, in many of them
  // Raw line breaks and tabs in a string (an answer with `raw_controls`): escaped, as nlohmann
  // writes them, beside escapes too; in a key beside an escape they are left to the caller
  // (false, nothing appended).
  std::string got;
  CHECK(llmjson_cli::append_normalized("{\"b\": \"x\n\ty\", \"a\": [1.0, \"\\u00e9\r\\n\"]}", got));
  CHECK(got == "{\"a\":[1.0,\"\xc3\xa9\\r\\n\"],\"b\":\"x\\n\\ty\"}");
  got = "kept";
  CHECK_FALSE(llmjson_cli::append_normalized("{\"x\n\\ty\": 1}", got));
  CHECK(got == "kept");
  // Not one value: nothing appended (and, under the sanitizers, nothing read past the text: a
  // backslash at the end, found by normalize_fuzz).
  for (const std::string_view bad :
       {"", " ", "{", "[1,]", "{\"a\":1,\"a\":2}", "1 2", "[}", "\"x", "{\"a\" 1}", "tru", "{1:2}",
        "[1]]", "[\"\\", "{\"a\":tru{e}}", "[{]}"}) {
    got = "kept";
    INFO(bad);
    CHECK_FALSE(llmjson_cli::append_normalized(bad, got));
    CHECK(got == "kept");
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
