// llmjson: the answer as the model wrote it: extraction::text(), minify and pretty keep every token
// SPDX-License-Identifier: MIT
#include <llmjson/extract.hpp>
#include <llmjson/json_text.hpp>

#include "catch_compat.hpp"
#include "minify_reference.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace llmjson_tests::json_text_test {

namespace {

using json = nlohmann::json;

// Every token nlohmann's reading changes: key order, 1.10, integers beyond 64 bits either way,
// 1e5, -0, an escape, and CRLF and tabs in the white space between tokens.
const std::string as_written =
    "{ \"z\": 1.10,\r\n\t\"a\": 15511210043330985984000000,\r\n\t\"n\": "
    "-15511210043330985984000000, \"e\": 1e5, \"m\": -0, \"s\": \"caf\\u00e9 \\\"q\\\" \\\\\",\n"
    "  \"t\": [ ], \"o\": {\t}, \"k\": [1, {\"x\": null}] }";
const std::string minified =
    "{\"z\":1.10,\"a\":15511210043330985984000000,\"n\":-15511210043330985984000000,\"e\":1e5,"
    "\"m\":-0,\"s\":\"caf\\u00e9 \\\"q\\\" \\\\\",\"t\":[],\"o\":{},\"k\":[1,{\"x\":null}]}";

}  // namespace

TEST_CASE("minify keeps every token as written and removes only white space", "[json_text]") {
  CHECK(llmjson::minify(as_written) == minified);
  CHECK(llmjson::minify(minified) == minified);
  // White space inside strings is part of the token.
  CHECK(llmjson::minify("[\"a b\\t\", \" \\\" \" ]") == "[\"a b\\t\",\" \\\" \"]");
  CHECK(llmjson::minify("") == "");
  CHECK(llmjson::minify(" \r\n\t42 ") == "42");
}

TEST_CASE("pretty lays out the tokens as nlohmann's dump(2) does, changing none", "[json_text]") {
  CHECK(llmjson::pretty("{\"b\":[1.10,{}]}") == "{\n  \"b\": [\n    1.10,\n    {}\n  ]\n}");
  CHECK(llmjson::minify(llmjson::pretty(as_written)) == minified);
  CHECK(json::parse(llmjson::pretty(as_written)) == json::parse(as_written));
  CHECK(llmjson::pretty(as_written, 4).find("\n        1,\n") != std::string::npos);
  // On text nlohmann writes (sorted keys, its number forms), the layout is dump(2)'s exactly.
  for (const char* text :
       {R"({"a":[],"b":{},"c":[1,[2,[]],{"d":"x:y,z"}],"e":"\u00e9\"{[","f":-1.5e-07,"g":null})",
        R"([[],[[]],{"":{"":[true,false]}}])", R"("just a string")", "0", "[]", "{}"}) {
    const json v = json::parse(text);
    INFO(text);
    CHECK(llmjson::pretty(v.dump()) == v.dump(2));
    CHECK(llmjson::pretty(v.dump(), 3) == v.dump(3));
    CHECK(llmjson::minify(v.dump(2)) == v.dump());
  }
}

using llmjson_test::minify_bytewise;

TEST_CASE("minify, 64 bytes a step or a byte at a time, and pretty give what a byte loop gives",
          "[json_text]") {
  // Every special byte (and bytes near them: 0x21, 0x5B, 0x5D, 0x08, 0x0B, 0x80, 0xFF) at every
  // place of an 8-byte word and of a 64-byte block, across words and blocks, in texts of every
  // length up to 300: minify's blocks (SSE2), its byte loop (without, and where a block hands
  // over: a backslash outside strings, a raw control in one) and pretty's copy of strings.
  const std::string alphabet = std::string("\"\\\n\r\t !#[]\x08\x0b\x80\xff aZ09\0", 21);
  std::uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1664525U + 1013904223U;
    return seed >> 8;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string text = round % 2 ? "\"" : "";
    const std::size_t n = next() % (round % 4 < 2 ? 41 : 301);
    // Mostly plain bytes, a special one now and then; or plain bytes and white space with a
    // quote now and then (a JSON text's usual blocks: nothing hands them over).
    const int mode = round % 3;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t r = next();
      if (mode == 0 && r % 8 != 0)
        text += 'x';
      else if (mode == 1 && r % 16 != 0)
        text += " \"x:,{"[r % 6];
      else
        text += alphabet[next() % alphabet.size()];
    }
    INFO(round);
    const std::string expected = minify_bytewise(text);
    CHECK(llmjson::minify(text) == expected);
    std::string appended = "kept:";
    llmjson::minify(text, appended);
    CHECK(appended == "kept:" + expected);
    CHECK(llmjson::minify(llmjson::pretty(text)) == expected);  // pretty's copy
  }
  CHECK(llmjson::minify("\"0123456789abcdef\\\"0123456789\n\"") ==
        "\"0123456789abcdef\\\"0123456789\\n\"");
}

TEST_CASE("minify appends to a string that holds the text it reads", "[json_text]") {
  // Growing `out` moves its bytes: the text is read from a copy, whatever its length.
  for (std::size_t n : {1U, 15U, 16U, 100U, 5000U}) {
    std::string out = "[ " + std::string(n, '1') + " ]";
    const std::string before = out;
    llmjson::minify(out, out);
    CHECK(out == before + "[" + std::string(n, '1') + "]");
  }
  std::string tail = "x{ \"a\" : 1 }";
  llmjson::minify(std::string_view(tail).substr(1), tail);
  CHECK(tail == "x{ \"a\" : 1 }{\"a\":1}");
}

TEST_CASE("minify carries a string and a backslash across its 64-byte blocks", "[json_text]") {
  // A string that opens in one block and closes in a later one, its white space kept; a
  // backslash as a block's last byte escaping the next block's first (a quote, a backslash);
  // two backslashes there (the second escapes nothing); a raw line feed past the first block.
  for (std::size_t at = 50; at < 80; ++at) {
    INFO(at);
    for (std::string_view after :
         {"\\\" x\" , 1", "\\\\\" , 1", "\\\\\\\" \" ,1", "\\n \" , 1", "\n\" , 1", "\\\n\" , 1"}) {
      INFO(after);
      std::string text = "[ \"" + std::string(at, 'a') + " b ";
      text += after;
      text += std::string(100, ' ') + "]";
      CHECK(llmjson::minify(text) == minify_bytewise(text));
    }
  }
}

TEST_CASE("minify and pretty never fail on text that is not JSON", "[json_text]") {
  for (std::string_view text : {"\"unterminated", "\"ends in a backslash\\", "}}]] ,:", "{[",
                                "\xff\xfe not utf-8 \"\xc3\"", "\\", "\"\\"}) {
    INFO(text);
    const std::string m = llmjson::minify(text);
    CHECK(m.size() <= text.size());
    CHECK(llmjson::minify(llmjson::pretty(text)) == m);
  }
  CHECK(llmjson::minify("\"a b") == "\"a b");  // an unclosed string keeps its white space
}

TEST_CASE("extraction::text() is the answer as written, in a fence body and as the whole output",
          "[json_text][extract]") {
  const std::string fenced = "Here:\n```json\n" + as_written + "\n```\nDone.";
  const std::string whole = "\xEF\xBB\xBF \r\n" + as_written + "\r\n";
  for (const std::string* text : {&fenced, &whole}) {
    auto r = llmjson::extract(*text);
    REQUIRE(r);
    CHECK(r->chosen().source ==
          (text == &fenced ? llmjson::source::fence : llmjson::source::whole));
    CHECK(llmjson::minify(r->text()) == minified);
    CHECK(r->text().data() >= text->data());  // a view into the caller's text
    // The value is nlohmann's reading, which differs: sorted keys, 1.1, doubles.
    CHECK(r->json()["a"].is_number_float());
    CHECK(r->json().dump().find("1.10") == std::string::npos);
    CHECK(r->json().dump().substr(0, 5) == "{\"a\":");
  }
}

TEST_CASE("an integer beyond any double makes its candidate invalid, so it is never misread",
          "[json_text][extract]") {
  const std::string huge = "{\"n\": 1" + std::string(400, '0') + "}";
  auto r = llmjson::extract(huge);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == llmjson::error_kind::no_json);
  REQUIRE(r.error().candidates.size() == 1);
  CHECK_FALSE(r.error().candidates[0].valid);
  const std::string negative = "{\"n\": -1" + std::string(400, '0') + ", \"ok\": true}";
  CHECK_FALSE(llmjson::extract(negative));
}

TEST_CASE("one_line: controls escaped, ill-formed UTF-8 replaced, valid UTF-8 kept",
          "[json_text]") {
  using std::string_literals::operator""s;
  CHECK(llmjson::one_line("a\nb") == "a\\nb");
  CHECK(llmjson::one_line("\t\r\x01\x7f"s) == "\\t\\r\\x01\\x7f");
  CHECK(llmjson::one_line("nul\0!"s) == "nul\\x00!");
  CHECK(llmjson::one_line("caf\xC3\xA9 \xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");
  // A lone continuation byte, an overlong form and a cut sequence: one U+FFFD per byte.
  CHECK(llmjson::one_line("\x80") == "\xEF\xBF\xBD");
  CHECK(llmjson::one_line("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(llmjson::one_line("x\xE2\x9C") == "x\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(llmjson::one_line("") == "");
}

}  // namespace llmjson_tests::json_text_test
