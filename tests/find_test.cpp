// llmjson: byte_finder agrees with a plain loop (built twice: SSE2 and LLMJSON_NO_SIMD)
// SPDX-License-Identifier: MIT
#include <llmjson/detail/find.hpp>

#include "catch_compat.hpp"

#include <cstddef>
#include <string>
#include <string_view>

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
  for (std::string_view set :
       {std::string_view("{"), std::string_view("{["), std::string_view("<[\xE2"),
        std::string_view("{[\xE2\0", 4), std::string_view("abcdefghij{"), std::string_view("")}) {
    const llmjson::detail::byte_finder f(set);
    for (std::size_t from = 0; from < text.size(); from += 7)
      for (std::size_t end : {from, from + 1, from + 15, from + 16, from + 17, from + 100,
                              text.size(), text.size() + 5}) {
        INFO("set size " << set.size() << " from " << from << " end " << end);
        CHECK(f.next(text, from, end) == naive(text, set, from, end));
      }
  }
}
