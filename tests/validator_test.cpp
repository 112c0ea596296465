// llmjson: the validator's token-at-a-time reading (`validator::run`, `prefix_watch`) against its
// byte-at-a-time one (`validator::feed`), which the rest of the tests check against the rules;
// the whole-value reader against the validator
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/prefix_watch.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole_value.hpp>

#include "catch_compat.hpp"
#include "read_file.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#ifndef LLMJSON_JSONTESTSUITE_DIR
#error "LLMJSON_JSONTESTSUITE_DIR must name the folder of JSONTestSuite's test_parsing files"
#endif

namespace llmjson_tests::validator_test {

namespace {

using llmjson::detail::prefix_watch;
using llmjson::detail::validator;
using llmjson::detail::whole_value_reader;

/// How a validator reads strings: strictly, as the frames' valid-prefix tests do, or as a closed
/// frame is judged.
enum class mode { strict, relaxed, raw_whitespace };

/// Everything a caller can read of a validator, after it read a text.
struct seen {
  bool failed = false;
  std::size_t error = 0, fault = 0;
  std::string reason;
  std::size_t depth = 0;
  bool started = false, complete = false, would_finish = false, plain = false;
  std::size_t last_raw = 0, last_bad_raw = 0, last_big = 0;
  bool finished = false;
  std::size_t finish_error = 0;
  std::string finish_reason;

  bool operator==(const seen&) const = default;
};

seen look(validator& v, std::size_t end) {
  seen s;
  s.failed = v.failed();
  if (s.failed) {
    s.error = v.error_offset();
    s.fault = v.fault_offset();
    s.reason = v.reason();
  }
  s.depth = v.depth();
  s.started = v.started();
  s.complete = v.complete();
  s.would_finish = v.would_finish();
  s.plain = v.in_plain_string();
  s.last_raw = v.last_raw();
  s.last_bad_raw = v.last_bad_raw();
  s.last_big = v.last_big_number();
  s.finished = v.finish(end);
  if (!s.finished) {
    s.finish_error = v.error_offset();
    s.finish_reason = v.reason();
  }
  return s;
}

void start(validator& v, std::string_view text, mode m, std::size_t max_depth, bool quiet) {
  v.reset(text, max_depth, quiet);
  if (m == mode::relaxed) v.relax_strings();
  if (m == mode::raw_whitespace) v.allow_raw_whitespace();
}

/// A small generator, the same sequence on every platform.
struct lcg {
  std::uint64_t state;
  std::uint32_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
};

/// Reads `text` byte by byte with `feed`, and in pieces cut at random with `run` (the return
/// value checked too), in one mode, and compares what each leaves.
void same_reading(std::string_view text, mode m, std::size_t max_depth, bool quiet, lcg& rng) {
  validator a;
  start(a, text, m, max_depth, quiet);
  std::size_t stop = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!a.feed(i)) {
      stop = i;
      break;
    }
  }
  validator b;
  start(b, text, m, max_depth, quiet);
  std::size_t i = 0, ran = text.size();
  while (i < text.size()) {
    const std::size_t piece = rng.below(4) == 0 ? text.size() - i : 1 + rng.below(12);
    const std::size_t e = i + piece < text.size() ? i + piece : text.size();
    const std::size_t got = b.run(i, e);
    if (got != e) {
      ran = got;
      break;
    }
    i = e;
  }
  INFO("text: " << std::string(text.substr(0, 300)));
  INFO("mode " << static_cast<int>(m) << ", max depth " << max_depth << ", quiet " << quiet);
  CHECK(ran == stop);
  CHECK(look(a, text.size()) == look(b, text.size()));
}

void all_modes(std::string_view text, lcg& rng) {
  for (const mode m : {mode::strict, mode::relaxed, mode::raw_whitespace}) {
    same_reading(text, m, static_cast<std::size_t>(-1), false, rng);
    same_reading(text, m, 3, true, rng);
  }
}

/// Random text made of JSON's tokens and of the bytes that break them: most are valid prefixes
/// for a while, then go wrong somewhere.
std::string random_json_ish(lcg& rng) {
  static constexpr std::array<std::string_view, 44> pieces{"{",
                                                           "}",
                                                           "[",
                                                           "]",
                                                           ",",
                                                           ":",
                                                           " ",
                                                           "\n",
                                                           "\t",
                                                           "\r",
                                                           "\"a\"",
                                                           "\"b\"",
                                                           "\"a\\u0062\"",
                                                           "\"k\\\"\"",
                                                           "\"\\\\\"",
                                                           "\"abcdefghij\"",
                                                           "\"abcdefghiX\"",
                                                           "\"x y\"",
                                                           "\"",
                                                           "\\",
                                                           "\\u",
                                                           "d83d",
                                                           "\\udc00",
                                                           "\\ud83d\\ude00",
                                                           "\xc3\xa9",
                                                           "\xe2\x82",
                                                           "\xff",
                                                           "\x01",
                                                           "true",
                                                           "tru",
                                                           "false",
                                                           "null",
                                                           "nul",
                                                           "0",
                                                           "-",
                                                           "12",
                                                           "1.5",
                                                           "1e5",
                                                           "-0.0E+2",
                                                           "01",
                                                           ".",
                                                           "e",
                                                           "x",
                                                           "'"};
  std::string out;
  const std::size_t n = 1 + rng.below(40);
  for (std::size_t k = 0; k < n; ++k) out += pieces[rng.below(pieces.size())];
  return out;
}

/// Reads the value at `text[b]`, up to `e`, with the validator (strict and quiet, as the frames'
/// quick path asks it) and with the whole-value reader, which must give the validator's answer
/// or none: complete, ending at the same byte, a number flagged alike. Returns whether the
/// reader settled it.
bool same_as_validator(std::string_view text, std::size_t b, std::size_t e, std::size_t max_depth) {
  validator v;
  v.reset(text, max_depth, /*quiet=*/true);
  const std::size_t after = v.run_value(b, e);
  const whole_value_reader::value got = whole_value_reader::of_thread().read(text, b, e, max_depth);
  if (got.end == 0) return false;
  INFO("text: " << std::string(text.substr(b, 300)) << " (to " << e - b << ", max depth "
                << max_depth << ")");
  CHECK(v.complete());
  CHECK(got.end == after);
  CHECK(got.big == (v.last_big_number() != validator::no_raw));
  return true;
}

/// `same_as_validator` from each of the first `most` openers of `text`, to the end (at most 2 KB
/// on: the deep files would take the time of thousands) and one byte short, under several
/// depth limits. Returns how many readings the reader settled.
std::size_t same_from_openers(std::string_view text, std::size_t most = 64) {
  std::size_t settled = 0, openers = 0;
  for (std::size_t b = 0; b < text.size() && openers < most; ++b) {
    if (text[b] != '{' && text[b] != '[') continue;
    ++openers;
    const std::size_t e = text.size() - b > 2048 ? b + 2048 : text.size();
    for (const std::size_t depth : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{64},
                                    std::size_t{65}, static_cast<std::size_t>(-1)}) {
      if (same_as_validator(text, b, e, depth)) ++settled;
      if (e - b > 1 && same_as_validator(text, b, e - 1, depth)) ++settled;
    }
  }
  return settled;
}

}  // namespace

TEST_CASE("validator::run reads every JSONTestSuite file as feed does, in any pieces",
          "[validator]") {
  lcg rng{7};
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_JSONTESTSUITE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".json")) continue;
    INFO(name);
    all_modes(llmjson_tests::read_file(e.path()), rng);
    ++files;
  }
  CHECK(files > 300);
}

TEST_CASE("validator::run reads random token soup as feed does, in any pieces", "[validator]") {
  lcg rng{11};
  for (int k = 0; k < 20000; ++k) all_modes(random_json_ish(rng), rng);
  // Keys told apart by their first 8 bytes or more, with escapes, and repeated.
  for (const char* text :
       {R"({"abcdefgh": 1, "abcdefgi": 2, "abcdefgh": 3})", R"({"a": 1, "\u0061": 2})",
        R"({"long key number one": 1, "long key number two": 2, "long key number one": 0})",
        R"({"a": {"a": {"a": 1}, "b": 2}, "b": 3, "a": 4})", R"({"\\": 1, "\\\\": 2, "\\": 3})",
        "{\"a\": \"line\nbreak\", \"b\": \"\x01\"}", R"([1, 2e400, -0, 1.5E-3, 300])"})
    all_modes(text, rng);
}

TEST_CASE("an object of many keys reads as feed does: the hash set past 16 keys", "[validator]") {
  lcg rng{13};
  std::string text = "{";
  for (int k = 0; k < 40; ++k)
    text += "\"key" + std::to_string(k) + "\": " + std::to_string(k) + ", ";
  text += "\"k\\u0065y7\": 1}";  // key7 again, escaped: a duplicate
  all_modes(text, rng);
  text.replace(text.find("\\u0065y7"), 8, "ey41");
  all_modes(text, rng);
}

TEST_CASE("the validator flags only the numbers a double may not hold (no second scan)",
          "[validator]") {
  // A number with an exponent that surely_fits lets through is not flagged: the span's value
  // needs no numbers_fit. One it does not, or 300 digits and more, is; the last one is kept.
  const std::string digits300(300, '7');
  const struct {
    std::string text;
    std::size_t big;  // the offset last_big_number() gives
  } cases[] = {
      {"[1e5, 2.5E-3, -0.1e+307, 12]", validator::no_raw},
      {"[1e5, 1e400, 2e3]", 6},
      {"[1e400, 2e3, 9e999]", 13},
      {"{\"a\": 1E309}", 6},
      {"[" + digits300 + "]", 1},
      {"[0." + digits300 + "]", validator::no_raw},  // long, but below 1: a double holds it
      {"[1e0000000001]", 1},                         // an exponent of 10 digits: not judged here
      {"1e5", validator::no_raw},
      {"1e400", 0},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    for (const bool by_run : {false, true}) {
      validator v;
      v.reset(c.text);
      if (by_run) {
        v.run(0, c.text.size());
      } else {
        for (std::size_t i = 0; i < c.text.size(); ++i) v.feed(i);
      }
      CHECK(v.finish(c.text.size()));
      CHECK(v.last_big_number() == c.big);
    }
  }
}

TEST_CASE("prefix_watch fed in any pieces sees the value and its ends as fed whole",
          "[validator]") {
  lcg rng{17};
  for (const std::string& text :
       {std::string("  {\"a\": [1, \"x y  \"], \"b\": null}  \n"), std::string(" 12 "),
        std::string("\"ends in spaces   \""), std::string("[1, 2"), std::string("   "),
        std::string("{\"a\" 1}"), std::string("[\"a\", {\"b\": true}]\t\r\n")}) {
    for (int round = 0; round < 50; ++round) {
      prefix_watch whole, pieces;
      whole.start(text, 0, 512);
      pieces.start(text, 0, 512);
      const bool whole_ok = whole.feed(text.size());
      bool pieces_ok = true;
      for (std::size_t i = 0; i < text.size() && pieces_ok;) {
        i += 1 + rng.below(5);
        if (i > text.size()) i = text.size();
        pieces_ok = pieces.feed(i);
      }
      INFO(text);
      REQUIRE(whole_ok == pieces_ok);
      if (!whole_ok) continue;
      CHECK(whole.first() == pieces.first());
      CHECK(whole.would_finish() == pieces.would_finish());
      const auto ending = whole.finish(text.size());
      CHECK(ending == pieces.finish(text.size()));
      if (ending == prefix_watch::ending::value) {
        CHECK(whole.last() == pieces.last());
        CHECK(
            text.substr(whole.first(), whole.last() - whole.first()).find_last_not_of(" \t\r\n") ==
            whole.last() - whole.first() - 1);
      }
    }
  }
}

TEST_CASE("the whole-value reader gives the validator's answer on every JSONTestSuite file",
          "[validator]") {
  std::size_t settled = 0;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_JSONTESTSUITE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".json")) continue;
    INFO(name);
    settled += same_from_openers(llmjson_tests::read_file(e.path()));
  }
  CHECK(settled > 500);  // it reads most valid values itself
}

TEST_CASE("the whole-value reader gives the validator's answer on random token soup",
          "[validator]") {
  lcg rng{19};
  std::size_t settled = 0;
  for (int k = 0; k < 20000; ++k) settled += same_from_openers("[" + random_json_ish(rng), 8);
  CHECK(settled > 1000);
}

TEST_CASE("the whole-value reader leaves to the validator what it does not read itself",
          "[validator]") {
  auto settles = [](const std::string& text, std::size_t max_depth = 512) {
    INFO(text);
    return same_as_validator(text, 0, text.size(), max_depth);
  };
  // Read and settled: strings with every escape, UTF-8 and a surrogate pair; numbers of every
  // form (one flagged); keys that differ in their last byte, and the same key in two objects.
  CHECK(settles(R"({"a": "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "b": [-0.5e-3, 0, 12, 1E+2]})"));
  CHECK(settles("{\"\xc3\xa9t\xc3\xa9\": \"\xe2\x82\xac \xf0\x9f\x98\x80\"}"));
  CHECK(settles(R"([1e400, {"abcdefgh": 1, "abcdefgi": 2}, {"abcdefgh": 3}])"));
  CHECK(settles(R"({"a": {"a": {"a": []}}, "b": {}})", 4));
  // Left: a key with an escape (its text is not its value), a repeated key, an object of more
  // than 32 keys, nesting past the limit or past 64 levels, and whatever is not JSON.
  CHECK_FALSE(settles(R"({"\u0061": 1})"));
  CHECK_FALSE(settles(R"({"a": 1, "a": 2})"));
  std::string many = "{";
  for (int k = 0; k < 33; ++k) many += (k ? ", \"" : "\"") + std::to_string(k) + "\": 0";
  CHECK_FALSE(settles(many + "}"));
  CHECK(settles(many.substr(0, many.rfind(',')) + "}"));  // 32 keys
  CHECK_FALSE(settles(R"({"a": {"a": {"a": []}}})", 3));
  CHECK_FALSE(settles(std::string(65, '[') + std::string(65, ']')));
  CHECK(settles(std::string(64, '[') + std::string(64, ']')));
  for (const char* bad : {"[01]", "[1.]", "[-]", "[1e]", "[tru]", "[\"\\x\"]", "[\"\\udc00\"]",
                          "[\"\\ud83d\"]", "[\"\xed\xa0\x80\"]", "[\"\x01\"]", "[1,]", "{\"a\" 1}",
                          "[1 2]", "{\"a\": 1]", "[\"\\u00g0\"]"})
    CHECK_FALSE(settles(bad));
}

TEST_CASE("the whole-value reader tells a repeated key from keys that only look alike",
          "[validator]") {
  // The reader compares an object's keys only when one of the same length and last byte was
  // seen in it: keys that share both (`ab`, `cb`), or whose bit is the same (the length times
  // 7 plus the last byte, modulo 64: `a` and `abcdefghij` ... `q`), are told apart by their
  // bytes; a repeat is left to the validator wherever it stands, in an inner object, after one,
  // or in a sibling.
  auto settles = [](const std::string& text) {
    INFO(text);
    return same_as_validator(text, 0, text.size(), 512);
  };
  CHECK(settles(R"({"ab": 1, "cb": 2, "db": 3, "eb": {"ab": 1, "cb": 2}, "fb": 5})"));
  CHECK(settles(R"({"a": 1, "b": 2, "A": 3, "abcdefghi!": 4, "": 5, "x": {"": 1}})"));
  CHECK(settles(R"([{"a": 1}, {"a": 2}, {"a": {"a": {"a": 3}}}])"));
  CHECK_FALSE(settles(R"({"ab": 1, "cb": 2, "ab": 3})"));
  CHECK_FALSE(settles(R"({"ab": {"cb": 1, "cb": 2}})"));
  CHECK_FALSE(settles(R"({"ab": {"ab": 1}, "ab": 2})"));
  CHECK_FALSE(settles(R"([{"a": 1}, {"b": 2, "": 0, "b": 3}])"));
  CHECK_FALSE(settles(R"({"": 1, "": 2})"));
  // Random objects of keys from a few bytes: repeats and look-alikes everywhere. The reader
  // must never settle a repeat (same_as_validator checks it against the validator), and must
  // settle every object whose keys are distinct (the look-alikes compared, not refused).
  lcg rng{29};
  std::size_t distinct = 0, repeated = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = "{";
    std::vector<std::string> keys;
    const std::size_t n = 1 + rng.below(20);
    for (std::size_t k = 0; k < n; ++k) {
      std::string key;
      for (std::size_t len = rng.below(4); len > 0; --len) key += "ab"[rng.below(2)];
      key += "xy"[rng.below(2)];
      keys.push_back(key);
      text += (k ? ", \"" : "\"") + key + "\": ";
      text += rng.below(4) == 0 ? std::string("{\"") + key + "\": 1}" : std::to_string(k);
    }
    text += "}";
    std::sort(keys.begin(), keys.end());
    const bool unique = std::adjacent_find(keys.begin(), keys.end()) == keys.end();
    INFO(text);
    CHECK(settles(text) == unique);
    ++(unique ? distinct : repeated);
  }
  CHECK(distinct > 300);
  CHECK(repeated > 300);
}

TEST_CASE("prefix_watch reads a value whole, when the text is all there, as it reads it fed",
          "[validator]") {
  lcg rng{23};
  for (const std::string& text :
       {std::string("  {\"a\": [1, \"x y  \"], \"b\": null}  \n"), std::string(" [1e400] "),
        std::string("[1, 2"), std::string("{\"a\": 1} x"), std::string("[[[{}]]]\t\r\n"),
        std::string("{\"a\": 1, \"a\": 2}"), std::string(" {\"\\u0061\": [true, false]} ")}) {
    for (int round = 0; round < 50; ++round) {
      // The span ends somewhere in the text, as a fence body ends at its closing line.
      const std::size_t end = rng.below(3) == 0 ? 1 + rng.below(text.size()) : text.size();
      prefix_watch fed, whole;
      fed.start(text, 0, 512);
      whole.start(text, 0, 512, /*whole_text=*/true);
      bool fed_ok = true, whole_ok = true;
      INFO(text << " to " << end);
      for (std::size_t i = 0; i < end && fed_ok;) {
        i += 1 + rng.below(5);
        if (i > end) i = end;
        fed_ok = fed.feed(i);
        whole_ok = whole.feed(i);
        REQUIRE(fed_ok == whole_ok);
        if (!fed_ok) break;
        CHECK(fed.depth() == whole.depth());
        CHECK(fed.would_finish() == whole.would_finish());
      }
      if (!fed_ok) continue;
      CHECK(fed.first() == whole.first());
      const auto ending = fed.finish(end);
      CHECK(ending == whole.finish(end));
      if (ending == prefix_watch::ending::value) {
        CHECK(fed.last() == whole.last());
        CHECK(fed.big_number() == whole.big_number());
      }
    }
  }
}

}  // namespace llmjson_tests::validator_test
