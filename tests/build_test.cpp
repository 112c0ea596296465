// llmjson: value_builder (detail/scan/build.hpp) builds what nlohmann's parse builds, type for
// type, and a span's type and top-level keys (detail/scan/keys.hpp) are read as its value has them
// SPDX-License-Identifier: MIT
#include <llmjson/detail/scan/build.hpp>
#include <llmjson/detail/scan/keys.hpp>
#include <llmjson/detail/scan/validator.hpp>
#include <llmjson/detail/scan/whole.hpp>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "read_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#ifndef LLMJSON_JSONTESTSUITE_DIR
#error "LLMJSON_JSONTESTSUITE_DIR must name the folder of JSONTestSuite's test_parsing files"
#endif

namespace llmjson_tests::build_test {

namespace {

// Equal and of the same types all the way down: nlohmann's == takes 1 and 1u and 1.0 for equal.
bool same_typed(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case nlohmann::json::value_t::object: {
      if (a.size() != b.size()) return false;
      auto i = a.begin();
      auto j = b.begin();
      for (; i != a.end(); ++i, ++j)
        if (i.key() != j.key() || !same_typed(*i, *j)) return false;
      return true;
    }
    case nlohmann::json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t k = 0; k < a.size(); ++k)
        if (!same_typed(a[k], b[k])) return false;
      return true;
    }
    case nlohmann::json::value_t::number_float: {
      const double x = a.get<double>(), y = b.get<double>();
      return x == y && std::signbit(x) == std::signbit(y);
    }
    default: return a == b;
  }
}

// Builds `text` (which the validator must accept) both ways and compares.
void check_built(std::string_view text) {
  INFO(std::string(text.substr(0, 200)));
  llmjson::detail::validator v;
  std::size_t vb = 0, ve = 0;
  REQUIRE(llmjson::detail::shape_of(v, text, 0, text.size(), 10000, vb, ve) ==
          llmjson::detail::value_shape::complete);
  const auto theirs = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  nlohmann::json ours;
  const bool built = llmjson::detail::build_json(text.substr(vb, ve - vb), ours);
  REQUIRE(built == !theirs.is_discarded());
  if (built) CHECK(same_typed(ours, theirs));
}

}  // namespace

TEST_CASE("the builder types numbers as nlohmann's lexer does", "[build]") {
  for (const char* t : {"0",
                        "-0",
                        "1",
                        "-1",
                        "0.0",
                        "-0.0",
                        "1e2",
                        "1E+2",
                        "1e-2",
                        "-1.5e-3",
                        "18446744073709551615",
                        "18446744073709551616",
                        "-9223372036854775808",
                        "-9223372036854775809",
                        "9223372036854775807",
                        "9223372036854775808",
                        "123456789012345678901234567890",
                        "1e308",
                        "1.7976931348623157e308",
                        "1e-400",
                        "-1e-400",
                        "4.9e-324",
                        "2.4703282292062327e-324",
                        "1e400",
                        "-1e400",
                        "[1e999]",
                        "0.1",
                        "0.30000000000000004",
                        "1.0000000000000002"})
    check_built(t);
}

TEST_CASE("numbers_fit says what nlohmann holds, and surely_fits never lets a number it refuses",
          "[build]") {
  // Number tokens around the largest double (D + E near 308), long mantissas, leading zeros,
  // huge and tiny exponents: numbers_fit(token) is nlohmann's own answer, and a token that
  // surely_fits lets through without asking nlohmann is one nlohmann holds.
  std::uint64_t state = 3;
  auto below = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  auto digits = [&](std::size_t n) {
    std::string d;
    for (std::size_t k = 0; k < n; ++k) d += static_cast<char>('0' + below(10));
    return d;
  };
  std::size_t checked = 0, let_through = 0;
  for (int k = 0; k < 20000; ++k) {
    std::string t = below(2) ? "-" : "";
    const std::size_t int_digits = below(4) == 0 ? 300 + below(20) : below(12);
    if (int_digits == 0 || below(3) == 0) {
      t += "0";
    } else {
      t += static_cast<char>('1' + below(9));
      t += digits(int_digits - 1);
    }
    if (below(2)) t += "." + digits(1 + below(int_digits > 200 ? 5 : 400));
    if (below(8) != 0) {
      t += below(2) ? "e" : "E";
      const std::uint64_t sign = below(3);
      t += sign == 0 ? "" : sign == 1 ? "+" : "-";
      const std::uint64_t size = below(10);
      t += size < 7 ? std::to_string(below(size < 4 ? 320 : 1000)) : digits(1 + below(12));
    }
    INFO(t);
    const bool holds = !nlohmann::json::parse(t, nullptr, false).is_discarded();
    CHECK(llmjson::detail::numbers_fit(t) == holds);
    if (llmjson::detail::surely_fits(t)) {
      CHECK(holds);
      ++let_through;
    }
    ++checked;
  }
  for (const char* t : {"1e307", "9.99e306", "1e308", "1.7976931348623157e308", "1.8e308",
                        "0.00001e310", "0e999999999", "1e-999999999", "10e307", "-1E+0308",
                        "0.4e0066999999999999999999999999999999999999999", "1e-0000000000001"}) {
    INFO(t);
    CHECK(llmjson::detail::numbers_fit(t) ==
          !nlohmann::json::parse(t, nullptr, false).is_discarded());
  }
  CHECK(let_through > checked / 3);
}

TEST_CASE("the builder unescapes strings and keys as nlohmann does", "[build]") {
  for (const char* t :
       {R"("")", R"("plain")", R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u00e9\u20ac\ud83d\ude00")",
        R"({"\u0061": 1, "b\n": [true, false, null]})", R"({"k": {"k": {"k": []}}, "z": {}})",
        "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"", R"([[], {}, [[]], [{}], "x", -1, 2.5])",
        " \t\r\n{ \"a\" : [ 1 , 2 ] } \n"})
    check_built(t);
}

TEST_CASE("the builder takes a raw line break in a string as the escaped text means", "[build]") {
  const std::string raw = "{\"a\": \"line one\nline two\ttab\rcr\", \"b\": [\"x\ny\"]}";
  nlohmann::json ours;
  REQUIRE(llmjson::detail::build_json(raw, ours));
  const std::string escaped = R"({"a": "line one\nline two\ttab\rcr", "b": ["x\ny"]})";
  CHECK(same_typed(ours, nlohmann::json::parse(escaped)));
}

TEST_CASE("the builder builds any depth without recursion", "[build]") {
  const std::size_t depth = 100000;
  const std::string text = std::string(depth, '[') + "1" + std::string(depth, ']');
  nlohmann::json ours;
  REQUIRE(llmjson::detail::build_json(text, ours));
  const nlohmann::json* v = &ours;
  for (std::size_t k = 0; k < depth; ++k) {
    REQUIRE(v->is_array());
    REQUIRE(v->size() == 1);
    v = &(*v)[0];
  }
  CHECK(*v == 1);
  // nlohmann's destructor is iterative too: dropping `ours` here must not overflow the stack.
}

TEST_CASE("the builder agrees with nlohmann on every JSONTestSuite file the validator accepts",
          "[build]") {
  std::size_t checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_JSONTESTSUITE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".json") || name.starts_with("n_")) continue;
    const std::string text = llmjson_tests::read_file(e.path());
    llmjson::detail::validator v;
    std::size_t vb = 0, ve = 0;
    if (llmjson::detail::shape_of(v, text, 0, text.size(), 512, vb, ve) !=
        llmjson::detail::value_shape::complete)
      continue;
    if (text.find('\0') != std::string::npos) continue;  // nlohmann stops at a NUL
    INFO(name);
    check_built(text);
    ++checked;
  }
  CHECK(checked > 90);
}

namespace {

// The top-level keys `any_top_level_key` reads, sorted (as nlohmann's object keeps them).
std::vector<std::string> keys_read(std::string_view span) {
  std::vector<std::string> out;
  llmjson::detail::any_top_level_key(span, [&](std::string_view k) {
    out.emplace_back(k);
    return false;
  });
  std::sort(out.begin(), out.end());
  return out;
}

void check_keys(std::string_view text) {
  INFO(std::string(text.substr(0, 200)));
  const auto value = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  REQUIRE(!value.is_discarded());
  CHECK(std::string_view(llmjson::detail::type_name_of(text)) == value.type_name());
  std::vector<std::string> theirs;
  if (value.is_object())
    for (const auto& [k, v] : value.items()) theirs.push_back(k);
  CHECK(keys_read(text) == theirs);
}

}  // namespace

TEST_CASE("a span's type and top-level keys are read from its text as its value has them",
          "[build]") {
  for (const char* t :
       {R"({})", R"({"a": 1})", R"( {"b": {"x": [1, {"y": "}"}]}, "a": "]\"{", "c": null} )",
        R"({"\u0061\n": [], "\ud83d\ude00": {}, "z\\": true, "q\"": -1.5e3})", R"([{"a": 1}])",
        R"("s")", "12", "-0.5", "true", "false", "null",
        R"({"a":{"b":{"c":{}}},"d":[[[]]],"e":1})"})
    check_keys(t);
  for (const auto& e : std::filesystem::directory_iterator(LLMJSON_JSONTESTSUITE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("y_") || !name.ends_with(".json")) continue;
    const std::string text = llmjson_tests::read_file(e.path());
    llmjson::detail::validator v;
    std::size_t vb = 0, ve = 0;
    if (llmjson::detail::shape_of(v, text, 0, text.size(), 512, vb, ve) !=
            llmjson::detail::value_shape::complete ||
        text.find('\0') != std::string::npos)
      continue;
    INFO(name);
    check_keys(std::string_view(text).substr(vb, ve - vb));
  }
}

TEST_CASE("a key with a raw line break reads as the value with it escaped has it", "[build]") {
  const std::string raw = "{\"a\": 1, \"line\nbreak\": {\"in\": \"x\ty\"}}";
  CHECK(keys_read(raw) == std::vector<std::string>{"a", "line\nbreak"});
}

}  // namespace llmjson_tests::build_test
