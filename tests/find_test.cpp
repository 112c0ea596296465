// llmjson: byte_finder and next_in_string agree with a plain loop under every kernel this build
// and CPU run, and position_finder with a byte loop (built again with LLMJSON_NO_SIMD, for
// positions.hpp's portable path, which that macro alone selects)
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/detail/scan/positions.hpp>
#include <llmjson/kernel.hpp>

#include "catch_compat.hpp"
#include "kernel_ops.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmjson_tests::find_test {

namespace {

std::size_t naive(std::string_view text, std::string_view set, std::size_t from, std::size_t end) {
  for (std::size_t i = from; i < end && i < text.size(); ++i)
    if (set.find(text[i]) != std::string_view::npos) return i;
  return end < text.size() ? end : text.size();
}

}  // namespace

TEST_CASE("byte_finder finds the next byte of its set, at every offset and length", "[find]") {
  std::string text;
  unsigned state = 12345;
  for (int i = 0; i < 700; ++i) {
    state = state * 1103515245u + 12345u;
    const unsigned r = (state >> 16) % 64;
    text += r == 0   ? '{'
            : r == 1 ? '['
            : r == 2 ? '\xE2'
            : r == 3 ? '\0'
                     : static_cast<char>('a' + r % 26);
  }
  for (llmjson::kernel k : llmjson::available_kernels()) {
    const llmjson_test::kernel_scope scope(k);
    INFO("kernel " << to_string(k));
    for (std::string_view set :
         {std::string_view("{"), std::string_view("{["), std::string_view("<[\xE2"),
          std::string_view("{[\xE2\0", 4), std::string_view("{[\xE2\0ab", 6),
          std::string_view("abcdefgh"), std::string_view("abcdefghij{"), std::string_view("")}) {
      const llmjson::detail::byte_finder f(set);
      for (std::size_t from = 0; from < text.size(); from += 7)
        for (std::size_t end : {from, from + 1, from + 15, from + 16, from + 17, from + 31,
                                from + 33, from + 80, from + 100, text.size(), text.size() + 5}) {
          INFO("set size " << set.size() << " from " << from << " end " << end);
          CHECK(f.next(text, from, end) == naive(text, set, from, end));
        }
    }
  }
}

TEST_CASE("next_in_string stops where a string's scan must look, under every kernel", "[find]") {
  std::string text;
  unsigned state = 999;
  for (int i = 0; i < 700; ++i) {
    state = state * 1103515245u + 12345u;
    const unsigned r = (state >> 16) % 80;
    text += r == 0   ? '"'
            : r == 1 ? '\\'
            : r == 2 ? '\xC3'
            : r == 3 ? '\x1F'
            : r == 4 ? '\x7F'
                     : static_cast<char>('a' + r % 26);
  }
  auto naive_string = [&](std::size_t from, std::size_t end, bool non_ascii) {
    for (std::size_t i = from; i < end && i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80)) return i;
    }
    return end < text.size() ? end : text.size();
  };
  for (llmjson::kernel k : llmjson::available_kernels()) {
    const llmjson_test::kernel_scope scope(k);
    INFO("kernel " << to_string(k));
    for (bool non_ascii : {false, true})
      for (std::size_t from = 0; from < text.size(); from += 5)
        for (std::size_t end : {from, from + 1, from + 15, from + 16, from + 17, from + 33,
                                from + 100, text.size(), text.size() + 5}) {
          INFO("from " << from << " end " << end << " non_ascii " << non_ascii);
          CHECK(llmjson::detail::next_in_string(text, from, end, non_ascii) ==
                naive_string(from, end, non_ascii));
        }
  }
}

namespace {

/// {line, column} of every offset of `text`, a byte at a time, as the rules define them (a
/// leading BOM takes no column).
std::vector<std::pair<std::size_t, std::size_t>> byte_loop_positions(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> expected(text.size() + 1);
  std::size_t line = 1, column = 1, i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (std::size_t k = 0; k <= i && k <= text.size(); ++k) expected[k] = {1, 1};
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
      column = 1;
    } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column;
    }
    expected[i + 1] = {line, column};
  }
  return expected;
}

}  // namespace

TEST_CASE("position_finder counts lines and code points as a byte loop does", "[find]") {
  unsigned state = 777;
  for (int round = 0; round < 40; ++round) {
    std::string text = round % 3 == 0 ? "\xEF\xBB\xBF" : "";
    // Odd rounds have no CR (the path that counts LFs alone); the last rounds span many
    // 64-byte steps and groups of steps.
    const bool no_cr = round % 2 == 1;
    for (int i = 0, n = round < 34 ? 300 : 9000; i < n; ++i) {
      state = state * 1103515245u + 12345u;
      unsigned r = (state >> 16) % 12;
      if (no_cr && (r == 1 || r == 2)) r = 0;
      text += r == 0   ? "\n"
              : r == 1 ? "\r"
              : r == 2 ? "\r\n"
              : r == 3 ? "\xC3\xA9"
              : r == 4 ? "\xE6\x97\xA5"
                       : "ab";
    }
    const auto expected = byte_loop_positions(text);
    // positions.hpp counts with AVX2 only while the AVX2 kernel is in use.
    for (llmjson::kernel k : llmjson::available_kernels()) {
      const llmjson_test::kernel_scope scope(k);
      INFO("kernel " << to_string(k));
      for (std::size_t step : {std::size_t{1}, std::size_t{5}, std::size_t{17}, std::size_t{64},
                               std::size_t{999}, std::size_t{20011}}) {
        llmjson::detail::position_finder f(text);
        for (std::size_t offset = 0; offset <= text.size(); offset += step) {
          INFO("round " << round << " step " << step << " offset " << offset);
          CHECK(f.at(offset) == expected[offset]);
        }
      }
    }
    INFO("round " << round << ": the end at once");
    CHECK(llmjson::detail::position_finder(text).at(text.size()) == expected[text.size()]);
  }
}

TEST_CASE("position_finder counts long stretches as a byte loop does", "[find]") {
  // Positions far apart (prose, then a candidate kilobytes later): the LFs are counted alone up
  // to the block of the last one. Lines of any length, some with a CR (alone or before a LF),
  // UTF-8 around the line ends; the gaps cross many 127-block groups.
  unsigned state = 4242;
  const auto next = [&state] {
    state = state * 1103515245u + 12345u;
    return state >> 16;
  };
  for (int round = 0; round < 12; ++round) {
    std::string text;
    while (text.size() < 60000) {
      const unsigned len = next() % (round % 3 == 0 ? 3000 : 200);
      for (unsigned k = 0; k < len; ++k) text += next() % 9 == 0 ? "\xE6\x97\xA5" : "x";
      const unsigned end = next() % 10;
      text += round % 2 == 0 && end == 0 ? "\r" : round % 2 == 0 && end == 1 ? "\r\n" : "\n";
    }
    const auto expected = byte_loop_positions(text);
    for (llmjson::kernel k : llmjson::available_kernels()) {
      const llmjson_test::kernel_scope scope(k);
      llmjson::detail::position_finder f(text);
      for (std::size_t offset = next() % 2000; offset <= text.size();
           offset += 1 + next() % 20000) {
        INFO("kernel " << to_string(k) << " round " << round << " offset " << offset);
        CHECK(f.at(offset) == expected[offset]);
      }
    }
  }
}

TEST_CASE("sort_runs merges offsets gathered source after source into order", "[find]") {
  using offsets = std::vector<std::size_t>;
  // A scan's sources: records (a start, then its problem within it), near misses, the cut.
  for (offsets v : {offsets{}, offsets{7}, offsets{1, 2, 2, 3}, offsets{1, 5, 9, 2, 3, 10, 0, 4},
                    offsets{5, 4, 3, 2, 1}, offsets{3, 3, 1, 1, 2, 2}, offsets{1, 9, 2, 8, 3, 7, 6},
                    offsets{0, 0, 0}}) {
    offsets sorted = v;
    std::sort(sorted.begin(), sorted.end());
    llmjson::detail::sort_runs(v);
    CHECK(v == sorted);
  }
  // Interleaved runs of every count and length.
  unsigned state = 31;
  auto next = [&](unsigned n) {
    state = state * 1103515245u + 12345u;
    return (state >> 16) % n;
  };
  for (int round = 0; round < 300; ++round) {
    offsets v;
    for (unsigned runs = 1 + next(9), k = 0; k < runs; ++k) {
      std::size_t at = next(50);
      for (unsigned n = next(40); n > 0; --n) v.push_back(at += next(7));
    }
    offsets sorted = v;
    std::sort(sorted.begin(), sorted.end());
    llmjson::detail::sort_runs(v);
    INFO("round " << round);
    CHECK(v == sorted);
  }
}

}  // namespace llmjson_tests::find_test
