// llmjson: every kernel this build and CPU run gives the scalar kernel's answers, at every
// alignment, and the bit helpers give a byte loop's
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/classify.hpp>
#include <llmjson/detail/scan/find.hpp>
#include <llmjson/kernel.hpp>

#include "catch_compat.hpp"
#include "enum_names_check.hpp"
#include "kernel_ops.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmjson_tests::kernel_test {

namespace {

using llmjson::kernel;
using llmjson::detail::block_masks;

/// A small deterministic generator (the tests must replay).
struct rng {
  std::uint64_t state;
  std::uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

/// Texts of up to 200 bytes that test the kernels: random bytes of all 256 values, JSON-ish
/// text, runs of backslashes that cross 16-, 32- and 64-byte boundaries, dense quotes.
std::vector<std::string> texts() {
  std::vector<std::string> all;
  rng r{0x9E3779B97F4A7C15u};
  std::string any(200, '\0');
  for (char& c : any) c = static_cast<char>(r.below(256));
  all.push_back(any);
  const std::string_view alphabet =
      "\"\\{}[]:,<|`~\n\r\t \x01\x1F\x7F\x80\xC3\xFF"
      "ab";
  std::string mix(200, ' ');
  for (char& c : mix) c = alphabet[r.below(alphabet.size())];
  all.push_back(mix);
  std::string slashes;
  for (std::size_t run = 1; slashes.size() < 200; run = run % 9 + 1)
    slashes += std::string(run, '\\') + '"';
  all.push_back(slashes.substr(0, 200));
  // A run of backslashes ending at each byte of 60..70, then a quote: the odd/even carry
  // across the 64-byte boundary.
  for (std::size_t length : {1u, 2u, 3u, 63u, 64u, 65u, 66u, 127u, 128u, 129u}) {
    std::string s = "ab\"" + std::string(length, '\\') + "\"x\"";
    while (s.size() < 200) s += s;
    all.push_back(s.substr(0, 200));
  }
  all.push_back(std::string(200, '"'));
  all.push_back(std::string(200, '\\'));
  all.push_back(std::string(200, 'a'));
  return all;
}

/// Bit `i`: XOR of bits 0 to `i`, a bit at a time.
std::uint64_t naive_prefix_xor(std::uint64_t x) {
  std::uint64_t out = 0, parity = 0;
  for (unsigned i = 0; i < 64; ++i) {
    parity ^= (x >> i) & 1;
    out |= parity << i;
  }
  return out;
}

}  // namespace

TEST_CASE("kernel names, the available kernels, and forcing one", "[kernel]") {
  STATIC_REQUIRE(enum_names_check::round_trips<kernel>());
  STATIC_REQUIRE(enum_names_check::rejects_near_names<kernel>());
  const std::vector<kernel> available = llmjson::available_kernels();
  REQUIRE(!available.empty());
  CHECK(available.front() == kernel::scalar);
  for (kernel k : available) CHECK(k != kernel::automatic);
#if defined(LLMJSON_NO_SIMD)
  CHECK(available.size() == 1);
#endif
  const kernel best = llmjson::active_kernel();
  CHECK(best != kernel::automatic);
  for (kernel k : available) {
    INFO("kernel " << to_string(k));
    REQUIRE(llmjson::use_kernel(k));
    CHECK(llmjson::active_kernel() == k);
  }
  // A kernel this build or CPU does not run is refused, and the choice stays.
  REQUIRE(llmjson::use_kernel(kernel::scalar));
  for (kernel k : llmjson::enumerators<kernel>) {
    bool listed = k == kernel::automatic;
    for (kernel a : available) listed = listed || a == k;
    if (listed) continue;
    INFO("kernel " << to_string(k));
    CHECK_FALSE(llmjson::use_kernel(k));
    CHECK(llmjson::active_kernel() == kernel::scalar);
  }
  // automatic: the CPU's best, the last of the list (scalar, sse42, avx2: later is faster).
  REQUIRE(llmjson::use_kernel(kernel::automatic));
  CHECK(llmjson::active_kernel() == available.back());
}

TEST_CASE("prefix_xor, unescaped_quotes and string_mask give a byte loop's answers", "[kernel]") {
  rng r{12345};
  for (int round = 0; round < 2000; ++round) {
    const std::uint64_t x = round < 64 ? std::uint64_t{1} << round : r.next() & r.next();
    CHECK(llmjson::detail::prefix_xor(x) == naive_prefix_xor(x));
  }
  std::vector<std::string> all = texts();
  for (int round = 0; round < 200; ++round) {  // longer texts of quotes, backslashes, letters
    std::string s(64 * 5, 'a');
    for (char& c : s) c = "\\\\\\\"a"[r.below(5)];
    all.push_back(s);
  }
  for (const std::string& text : all) {
    // The byte loop: a backslash escapes the next byte; an unescaped quote opens or closes.
    std::vector<std::uint64_t> quotes((text.size() + 63) / 64), inside(quotes.size());
    bool escaped = false, in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const std::uint64_t bit = std::uint64_t{1} << (i % 64);
      if (escaped) {
        escaped = false;
      } else if (text[i] == '\\') {
        escaped = true;
      } else if (text[i] == '"') {
        quotes[i / 64] |= bit;
        in_string = !in_string;
      }
      if (in_string) inside[i / 64] |= bit;  // an opening quote is in, a closing one is out
    }
    // The helpers, block after block, on the scalar kernel's masks.
    std::uint64_t escaped_in = 0, in_string_in = 0;
    for (std::size_t b = 0; b < quotes.size(); ++b) {
      const std::size_t n = text.size() - 64 * b < 64 ? text.size() - 64 * b : 64;
      const block_masks m = llmjson_test::kernels::scalar::classify(text.data() + 64 * b, n);
      const std::uint64_t q = llmjson::detail::unescaped_quotes(m.quote, m.backslash, escaped_in);
      INFO("text " << text << " block " << b);
      CHECK(q == quotes[b]);
      const std::uint64_t s =
          llmjson::detail::string_mask(q, in_string_in) & llmjson::detail::low_bits(n);
      CHECK(s == inside[b]);
    }
  }
}

TEST_CASE("classify: every kernel gives the scalar masks, at every alignment and length",
          "[kernel]") {
  std::vector<std::string> all = texts();
  std::string every(256, '\0');  // all 256 byte values, at every position of a block
  for (std::size_t i = 0; i < 256; ++i) every[i] = static_cast<char>(i);
  for (std::size_t shift = 0; shift < 256; shift += 64) all.push_back(every.substr(shift, 64));
  for (kernel k : llmjson::available_kernels()) {
    INFO("kernel " << to_string(k));
    for (const std::string& text : all)
      for (std::size_t n = 0; n <= 64 && n <= text.size(); ++n)
        for (std::size_t offset = 0; offset < 64; ++offset) {
          const llmjson_test::placed_bytes placed(text.data(), n, offset);
          const block_masks want = llmjson_test::kernels::scalar::classify(placed.data(), n);
          if (llmjson_test::classify(k, placed.data(), n) != want) {
            INFO("length " << n << " offset " << offset << " text " << text.substr(0, n));
            CHECK(false);
          }
        }
  }
  // The scalar kernel itself, byte value by byte value.
  for (unsigned v = 0; v < 256; ++v) {
    const char c = static_cast<char>(v);
    const block_masks m = llmjson_test::kernels::scalar::classify(&c, 1);
    INFO("byte " << v);
    CHECK(m.control == (v < 0x20 && v != '\n' && v != '\r' ? 1u : 0u));
    CHECK(m.non_ascii == (v >= 0x80 ? 1u : 0u));
    CHECK(m.ws == (v == ' ' || v == '\t' || v == '\n' || v == '\r' ? 1u : 0u));
    CHECK(m.quote + m.backslash + m.lbrace + m.rbrace + m.lbracket + m.rbracket + m.colon +
              m.comma + m.lt + m.pipe + m.backtick + m.tilde + m.lf + m.cr ==
          (std::string_view("\"\\{}[]:,<|`~\n\r").find(c) != std::string_view::npos ? 1u : 0u));
  }
}

TEST_CASE("find_any: every kernel gives the scalar answer, sets of 1 to 8 bytes", "[kernel]") {
  rng r{777};
  for (kernel k : llmjson::available_kernels()) {
    INFO("kernel " << to_string(k));
    for (std::size_t count = 1; count <= 8; ++count) {
      char set[8];
      for (std::size_t j = 0; j < count; ++j) set[j] = static_cast<char>(r.below(256));
      for (std::size_t n = 0; n <= 200; ++n) {
        // Bytes outside the set, and one byte of the set planted somewhere (or none).
        std::string text(n, '\0');
        for (char& c : text) {
          do c = static_cast<char>(r.below(256));
          while (std::string_view(set, count).find(c) != std::string_view::npos);
        }
        const std::size_t planted = r.below(n + 1);
        if (planted < n) text[planted] = set[r.below(count)];
        for (std::size_t from : {std::size_t{0}, std::size_t{1}, planted, n / 3}) {
          if (from > n) continue;
          // The scalar answer does not depend on the alignment: once per start.
          const std::size_t want =
              llmjson_test::kernels::scalar::find_any(text.data(), from, n, set, count);
          for (std::size_t offset = 0; offset < 64; ++offset) {
            const llmjson_test::placed_bytes placed(text.data(), n, offset);
            const std::size_t got = llmjson_test::find_any(k, placed.data(), from, n, set, count);
            if (got != want) {
              INFO("count " << count << " length " << n << " offset " << offset << " from "
                            << from);
              CHECK(got == want);
            }
          }
        }
      }
    }
    // Every byte value, alone in a set, found in a text of all 256 values.
    std::string every(256, '\0');
    for (std::size_t i = 0; i < 256; ++i) every[i] = static_cast<char>(255 - i);
    for (unsigned v = 0; v < 256; ++v) {
      const char c = static_cast<char>(v);
      CHECK(llmjson_test::find_any(k, every.data(), 0, every.size(), &c, 1) == 255 - v);
    }
  }
}

TEST_CASE("next_in_string: every kernel gives the scalar answer, with and without non-ASCII",
          "[kernel]") {
  rng r{4242};
  const std::string_view plain = "abc xyz{}[]:,\x7F~|`<";
  const std::string_view stops = "\"\\\x01\x1F\n\r\t\x80\xC3\xFF";
  for (kernel k : llmjson::available_kernels()) {
    INFO("kernel " << to_string(k));
    for (std::size_t n = 0; n <= 200; ++n) {
      std::string text(n, ' ');
      for (char& c : text) c = plain[r.below(plain.size())];
      const std::size_t planted = r.below(n + 1);
      if (planted < n) text[planted] = stops[r.below(stops.size())];
      for (bool non_ascii : {false, true})
        for (std::size_t from : {std::size_t{0}, std::size_t{2}, planted}) {
          if (from > n) continue;
          const std::size_t want =
              llmjson_test::kernels::scalar::next_in_string(text.data(), from, n, non_ascii);
          for (std::size_t offset = 0; offset < 64; ++offset) {
            const llmjson_test::placed_bytes placed(text.data(), n, offset);
            const std::size_t got =
                llmjson_test::next_in_string(k, placed.data(), from, n, non_ascii);
            if (got != want) {
              INFO("length " << n << " offset " << offset << " from " << from << " non_ascii "
                             << non_ascii);
              CHECK(got == want);
            }
          }
        }
    }
    std::string every(256, '\0');
    for (std::size_t i = 0; i < 256; ++i) every[i] = static_cast<char>(i);
    for (std::size_t from = 0; from < 256; ++from)
      for (bool non_ascii : {false, true}) {
        const std::size_t want = from <= 0x1F   ? from
                                 : from <= '"'  ? std::size_t{'"'}
                                 : from <= '\\' ? std::size_t{'\\'}
                                 : non_ascii    ? (from < 0x80 ? std::size_t{0x80} : from)
                                                : std::size_t{256};
        INFO("from " << from << " non_ascii " << non_ascii);
        CHECK(llmjson_test::next_in_string(k, every.data(), from, 256, non_ascii) == want);
      }
  }
}

// The first search of the process comes in this test when it runs alone, as ctest runs it: with
// LLMJSON_KERNEL unset (kernel_test/...), and set by the ctests kernel_env/*.
TEST_CASE("LLMJSON_KERNEL sets the first choice, else or if unknown or unavailable the best",
          "[kernel]") {
  const char* value = std::getenv("LLMJSON_KERNEL");
  const kernel first = llmjson::active_kernel();
  REQUIRE(llmjson::use_kernel(kernel::automatic));
  const kernel best = llmjson::active_kernel();
  const std::string_view name = value ? value : "";
  const std::optional<kernel> named = llmjson::from_string<kernel>(name);
  const std::vector<kernel> available = llmjson::available_kernels();
  const bool runs =
      named && std::find(available.begin(), available.end(), *named) != available.end();
  INFO("LLMJSON_KERNEL=" << name << ", first " << to_string(first) << ", best " << to_string(best));
  CHECK(first == (runs ? *named : best));
  if (name == "scalar") CHECK(first == kernel::scalar);
}

}  // namespace llmjson_tests::kernel_test
