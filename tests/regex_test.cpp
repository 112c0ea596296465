// llmjson: schema patterns read as ECMA-262 with the u flag: code points, \p{..}, strict syntax
// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ios>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <llmjson/detail/schema/regex.hpp>
#include <llmjson/detail/schema/unicode.hpp>
#include <llmjson/detail/text/utf8.hpp>
#include <llmjson/schema.hpp>

#include "catch_compat.hpp"
#include "sweep.hpp"

namespace llmjson_tests::regex_test {

namespace {

using nlohmann::json;

bool matches(const std::string& pattern, const std::string& text) {
  std::string error;
  auto re = llmjson::detail::regex::compile(pattern, error);
  INFO("pattern " << pattern << ": " << error);
  REQUIRE(re);
  return re->search(text);
}

std::string refusal(const std::string& pattern) {
  std::string error;
  auto re = llmjson::detail::regex::compile(pattern, error);
  INFO("pattern " << pattern);
  CHECK_FALSE(re);
  return error;
}

bool valid(const std::string& pattern) {
  std::string error;
  return llmjson::detail::regex::compile(pattern, error).has_value();
}

const std::string grinning = "\xF0\x9F\x98\x80";      // U+1F600
const std::string slight_smile = "\xF0\x9F\x99\x82";  // U+1F642
const std::string thumbs_up = "\xF0\x9F\x91\x8D";     // U+1F44D

}  // namespace

TEST_CASE("u flag: a code point beyond U+FFFF is one, in the pattern and in the text",
          "[schema][regex]") {
  CHECK(matches("^.{1,3}$", grinning + grinning + grinning));
  CHECK_FALSE(matches("^.{1,3}$", grinning + grinning + grinning + grinning));
  CHECK(matches("^[\xF0\x9F\x98\x80-\xF0\x9F\x99\x8F]$", slight_smile));  // [😀-🙏]
  CHECK_FALSE(matches("^[\xF0\x9F\x98\x80-\xF0\x9F\x99\x8F]$", thumbs_up));
  CHECK(matches("^[^\xF0\x9F\x98\x80]$", slight_smile));  // a negated class: one code point
  CHECK(matches("^\\u{1F600}$", grinning));
  CHECK(matches("^\\u{01f600}$", grinning));  // any number of hex digits
  CHECK(matches("^\\u{41}\\u{0}?$", "A"));
  CHECK_FALSE(matches("^\\u{1F600}$", slight_smile));
  CHECK(matches("^\\uD83D\\uDE00$", grinning));  // a pair of escapes is one code point
  CHECK(matches("^[\\uD83D\\uDE00-\\u{1F64F}]$", slight_smile));
  CHECK_FALSE(matches("\\uD83D", grinning));  // a lone surrogate matches no code point of text
  CHECK(matches("^\\D\\S\\W\\P{L}$", grinning + grinning + grinning + grinning));
  CHECK_FALSE(matches("^\\D\\D$", grinning));
  CHECK(matches("^[^]$", grinning));
  CHECK(matches("^[^]$", "\n"));
  CHECK_FALSE(matches("[]", grinning));
  CHECK_FALSE(matches("[]", ""));
  CHECK(refusal("\\u{110000}") == "\\u{...} beyond U+10FFFF");
  CHECK(refusal("\\u{}") == "incomplete \\u{...} escape");
  CHECK(refusal("\\u{12") == "incomplete \\u{...} escape");
  CHECK(refusal("[\\u{1F64F}-\\u{1F600}]") == "range out of order in character class");
}

TEST_CASE("u flag: \\d \\w \\s . ^ $ are ECMA-262's", "[schema][regex]") {
  CHECK(matches("^\\d+$", "0123456789"));
  CHECK_FALSE(matches("\\d", "\xD9\xA3"));  // U+0663 ARABIC-INDIC DIGIT THREE is no \d
  CHECK(matches("^\\w+$", "azAZ09_"));
  CHECK_FALSE(matches("\\w", "\xC3\xA9"));  // é is no \w
  CHECK(matches("\\b", "a"));               // \b and \B use \w
  CHECK_FALSE(matches("\\b", "\xC3\xA9"));  // é: no word boundary
  CHECK(matches("^\\B.\\B$", "\xC3\xA9"));
  for (const char* space : {"\t", "\v", "\f", " ", "\n", "\r", "\xC2\xA0", "\xE1\x9A\x80",
                            "\xE2\x80\x80", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
                            "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"}) {
    INFO(json(space).dump());
    CHECK(matches("^\\s$", space));
    CHECK_FALSE(matches("\\S", space));
  }
  // \s is ECMA-262's WhiteSpace and LineTerminator: Zs (Unicode 15.0) and TAB VT FF LF CR
  // ZWNBSP LS PS, over the whole BMP (no astral code point is either).
  {
    namespace u = llmjson::detail::unicode;
    std::string error;
    const auto space = llmjson::detail::regex::compile("^\\s$", error);
    REQUIRE(space);
    for (char32_t c = 0; c < 0x10000; ++c) {
      if (c >= 0xD800 && c <= 0xDFFF) continue;  // no UTF-8 text holds a surrogate
      std::string text;
      llmjson::detail::append_utf8(text, c);
      const bool want = u::gc_short_names[u::general_category(c)] == "Zs" ||
                        (c >= 0x09 && c <= 0x0D) || c == 0xFEFF || c == 0x2028 || c == 0x2029;
      INFO("U+" << std::hex << static_cast<unsigned>(c));
      CHECK(space->search(text) == want);
    }
  }
  CHECK_FALSE(matches("\\s", "\xE2\x80\x8B"));  // U+200B ZERO WIDTH SPACE is no white space
  CHECK_FALSE(matches("\\s", "\xC2\x85"));      // nor U+0085 NEXT LINE
  for (const char* terminator : {"\n", "\r", "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
    CHECK_FALSE(matches(".", terminator));
  }
  CHECK(matches("^.$", "\xC2\x85"));
  CHECK_FALSE(matches("^b", "a\nb"));  // no multiline flag
  CHECK_FALSE(matches("a$", "a\nb"));
}

TEST_CASE("u flag: \\p and \\P take the forms ECMA-262 lists, names spelled exactly",
          "[schema][regex]") {
  const std::string e_acute = "\xC3\xA9";             // U+00E9, Ll, Latin
  const std::string alpha_tonos = "\xCE\xAC";         // U+03AC, Ll, Greek
  const std::string perispomeni = "\xCD\x82";         // U+0342, Mn, Inherited; scx Greek
  const std::string arabic_three = "\xD9\xA3";        // U+0663, Nd, Arabic
  const std::string unassigned = "\xF3\xA0\x82\x80";  // U+E0080: unassigned in 15.0
  // General_Category: alone, gc=, General_Category=, groups and aliases.
  for (const char* p :
       {"\\p{L}", "\\p{Letter}", "\\p{Ll}", "\\p{Lowercase_Letter}", "\\p{LC}", "\\p{Cased_Letter}",
        "\\p{gc=L}", "\\p{General_Category=Letter}", "\\p{gc=Ll}"}) {
    INFO(p);
    CHECK(matches(std::string("^") + p + "$", e_acute));
    CHECK_FALSE(matches(p, "1"));
  }
  CHECK(matches("^\\p{Nd}\\p{digit}\\p{Decimal_Number}$", arabic_three + "7" + arabic_three));
  CHECK(matches("^\\p{P}\\p{punct}\\p{Punctuation}$", "!,."));
  CHECK(matches("^\\p{Cc}\\p{cntrl}$", "\x01\x7F"));
  CHECK(matches("^\\p{M}\\p{Combining_Mark}\\p{Mn}$", perispomeni + perispomeni + perispomeni));
  CHECK_FALSE(matches("\\p{Lu}", e_acute));
  CHECK(matches("^\\p{Cn}$", unassigned));
  CHECK(matches("^\\p{Unassigned}$", "\xEF\xBF\xBF"));  // U+FFFF
  // Script and Script_Extensions: a code point without an scx entry has its script's.
  CHECK(matches("^\\p{sc=Grek}$", alpha_tonos));
  CHECK(matches("^\\p{Script=Greek}$", alpha_tonos));
  CHECK(matches("^\\p{scx=Grek}$", alpha_tonos));
  CHECK(matches("^\\p{Script_Extensions=Greek}$", alpha_tonos));
  CHECK_FALSE(matches("\\p{sc=Grek}", perispomeni));  // Script=Inherited
  CHECK(matches("^\\p{sc=Zinh}\\p{sc=Inherited}\\p{sc=Qaai}$",
                perispomeni + perispomeni + perispomeni));
  CHECK(matches("^\\p{scx=Grek}$", perispomeni));  // ScriptExtensions.txt: 0342 ; Grek
  CHECK_FALSE(matches("\\p{scx=Zinh}", perispomeni));
  CHECK(matches("^\\p{sc=Zzzz}\\p{sc=Unknown}\\p{scx=Unknown}$",
                unassigned + unassigned + unassigned));
  CHECK(matches("^\\p{sc=Zyyy}$", "1"));
  CHECK(matches("^\\p{scx=Arab}$", "\xD8\x8C"));  // U+060C ARABIC COMMA: Common, scx Arab...
  CHECK_FALSE(matches("\\p{sc=Arab}", "\xD8\x8C"));
  // Binary properties, long and short names; ECMA-262's own.
  CHECK(matches("^\\p{Alphabetic}\\p{Alpha}$", e_acute + alpha_tonos));
  CHECK(matches("^\\p{White_Space}\\p{WSpace}\\p{space}$", " \t\xE3\x80\x80"));
  CHECK(matches("^\\p{Emoji_Presentation}\\p{EPres}\\p{Extended_Pictographic}$",
                grinning + grinning + grinning));
  CHECK(matches("^\\p{ExtPict}$", "\xF0\x9F\x83\x8F"));  // U+1F0CF
  CHECK(matches("^\\p{ExtPict}$", "\xF0\x9F\x84\x8D"));  // U+1F10D (emoji-data.txt lists it)
  CHECK(matches("^\\p{Regional_Indicator}$", "\xF0\x9F\x87\xA6"));
  CHECK(matches("^\\p{Any}+$", "\x01" + grinning + unassigned));
  CHECK(matches("^\\p{ASCII}+$", std::string("\x00\x7F", 2)));
  CHECK_FALSE(matches("\\p{ASCII}", "\xC2\x80"));
  CHECK(matches("^\\p{Assigned}+$", "a" + grinning));
  CHECK_FALSE(matches("\\p{Assigned}", unassigned));
  CHECK(matches("^\\P{Assigned}$", unassigned));
  CHECK(matches("^\\p{Noncharacter_Code_Point}$", "\xEF\xBF\xBF"));
  CHECK(matches("^\\p{Changes_When_NFKC_Casefolded}\\p{CWKCF}$", "AB"));
  CHECK(matches("^\\p{Bidi_Mirrored}\\p{Bidi_M}$", "()"));
  // \P is the complement, also inside a class.
  CHECK(matches("^\\P{L}$", "1"));
  CHECK_FALSE(matches("\\P{L}", e_acute));
  CHECK(matches("^\\P{Any}?$", ""));
  CHECK_FALSE(matches("\\P{Any}", grinning));
  CHECK(matches("^[\\P{L}\\p{Lu}]+$", "A1!"));
  CHECK_FALSE(matches("[\\P{L}\\p{Lu}]", "a"));
  CHECK(matches("^[^\\p{L}]$", "1"));
  // Invalid: wrong case, no sc= for a script, a name no file has, an incomplete escape.
  for (const char* p : {"\\p{letter}",
                        "\\p{Greek}",
                        "\\p{L&}",
                        "\\p{l}",
                        "\\p{alpha}",
                        "\\p{gc=Greek}",
                        "\\p{sc=L}",
                        "\\p{Script=greek}",
                        "\\p{General_Category}",
                        "\\p{Hyphen}",
                        "\\p{ascii}",
                        "\\p{InBasic_Latin}",
                        "\\p{Block=Basic_Latin}",
                        "\\p{scx}",
                        "\\p{}",
                        "\\p{ L}",
                        "\\p{Lu }",
                        "\\P{Other_Alphabetic}",
                        "\\p{gc=}",
                        "\\p{=L}"}) {
    INFO(p);
    CHECK(refusal(p).rfind(std::string("unknown Unicode property ") + p, 0) == 0);
  }
  CHECK(refusal("\\p{Greek}") ==
        "unknown Unicode property \\p{Greek}: a script needs sc= or scx=, as in \\p{sc=Greek}");
  CHECK(refusal("\\p") == "incomplete \\p escape (\\p{...} names a property)");
  CHECK(refusal("\\PL") == "incomplete \\P escape (\\P{...} names a property)");
  CHECK(refusal("\\p{L") == "incomplete \\p{L escape (no closing '}')");
  CHECK(refusal("[\\p{Lu}-z]") == "a class escape cannot start a range (as in [\\w-z])");
}

TEST_CASE("u flag: Annex B's leniencies are syntax errors, each named", "[schema][regex]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a{,2}", "lone '{'"},
      {"{", "lone '{'"},
      {"a{2", "lone '{'"},
      {"a{2,1x}", "lone '{'"},
      {"x}", "lone '}'"},
      {"x]", "lone ']'"},
      {"{2}", "nothing to repeat"},
      {"a{3,1}", "numbers out of order in {} quantifier"},
      {"\\a", "invalid escape \\a"},
      {"\\_", "invalid escape \\_"},
      {"\\e", "invalid escape \\e"},
      {"\\\xC3\xA9", "invalid escape \\\xC3\xA9"},
      {"[\\_]", "invalid escape \\_"},
      {"[\\B]", "invalid escape \\B"},
      {"\\-", "\\- outside a class is an invalid escape with the u flag"},
      {"[\\w-z]", "a class escape cannot start a range"},
      {"[a-\\d]", "a class escape cannot end a range"},
      {"[\\s--]", "a class escape cannot start a range"},
      {"[\\d\\d-z]", "a class escape cannot start a range"},  // the \d written again, skipped
      {"\\c", "\\c must be followed by an ASCII letter"},
      {"\\c1", "\\c must be followed by an ASCII letter"},
      {"[\\c_]", "\\c must be followed by an ASCII letter"},
      {"\\00", "\\0 before a digit is a legacy octal escape"},
      {"[\\01]", "\\0 before a digit is a legacy octal escape"},
      {"[\\1]", "\\1 in a class is a legacy octal escape"},
      {"\\x", "incomplete \\x escape"},
      {"\\x4g", "incomplete \\x escape"},
      {"\\u12", "incomplete \\u escape"},
      {"\\u", "incomplete \\u escape"},
      {"(?=a)*", "an assertion (^ $ \\b \\B or a lookaround) cannot be quantified"},
      {"(?!a)+", "an assertion (^ $ \\b \\B or a lookaround) cannot be quantified"},
      {"(?i:a)", "invalid group (?i: only (?: (?= (?! (?<= (?<! and (?<name> are groups"},
      {"(?<n>a)|(?<n>b)", "duplicate group name <n>"},
      {"(?<n>a)(?<n>b)", "duplicate group name <n>"},
      {"(?<1a>x)", "invalid group name"},
      {"(?<>x)", "invalid group name"},
      {"(?<a-b>x)", "invalid group name"},
      {"\\k", "\\k is an invalid escape with the u flag"},
      {"(?<a", "unterminated group name"},
  };
  for (const auto& [pattern, start] : cases) {
    INFO(pattern);
    const std::string why = refusal(pattern);
    CHECK(why.rfind(start, 0) == 0);
    CHECK_FALSE(why.empty());
  }
  // What u-mode keeps: escaped syntax characters and '/', \- and \b in a class, literal '-' and
  // '[' in a class, lazy quantifiers, named groups with Unicode names.
  CHECK(matches("^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$", "^$\\.*+?()[]{}|/"));
  CHECK(matches("^[\\-\\b[a-]+$", "-\b[a"));
  CHECK(matches("^[\\w-]+$", "a-b"));
  CHECK(matches("^[--/]$", "."));
  CHECK(matches("^a+?b*?c??d{1,2}?$", "aaacd"));
  CHECK(matches("^(?<\xC3\xA9t\xC3\xA9>x)(?<$_a1>y)(?<\\u0041>z)$", "xyz"));
  CHECK(matches("^\\cJ\\ca$", "\n\x01"));
  CHECK(matches("^\\0$", std::string(1, '\0')));
  CHECK(matches("^\\x41\\t$", "A\t"));
  CHECK(matches("^\\n\\v\\f\\r$", "\n\v\f\r"));
  CHECK(matches("^\\uD83D?\\u0041$", "A"));  // a high surrogate escape, then no low one
  CHECK(matches("^[\\p{Lu}][\\p{Lu}a]\\p{Lu}$", "ABC"));  // one \p{Lu}, read three times
  CHECK(valid("(?<=a+)b(?<!c{2,})"));
}

TEST_CASE("backreferences are refused with the workaround", "[schema][regex]") {
  const std::string help =
      " is not supported (a rule such as \"no character three times in a row\", (?!.*(.)\\1\\1), "
      "is written without one: (?!.*(?:a{3}|b{3}|...)) over the characters allowed)";
  CHECK(refusal("(a)\\1") == "backreference \\1" + help);
  CHECK(refusal("^(?!.*(.)\\1\\1)") == "backreference \\1" + help);
  CHECK(refusal("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10") == "backreference \\10" + help);
  CHECK(refusal("(?<word>a+) \\k<word>") == "backreference \\k<word>" + help);
  CHECK(refusal("\\k<nothing>") == "backreference \\k<nothing>" + help);
  // The workaround itself compiles and means the rule.
  const std::string no_three = "^(?!.*(?:a{3}|b{3}|c{3}))[abc]*$";
  CHECK(matches(no_three, "aabbaacc"));
  CHECK_FALSE(matches(no_three, "abbbc"));

  // Through a schema: refused when loaded, naming the pattern and the construct.
  auto r = llmjson::schema::compile(json::parse(R"j({"pattern": "^(?!.*(.)\\1\\1)"})j"));
  REQUIRE_FALSE(r);
  CHECK(r.error() == "/pattern: pattern \"^(?!.*(.)\\\\1\\\\1)\": backreference \\1" + help);
  r = llmjson::schema::compile(json::parse(R"j({"patternProperties": {"^x\\_": {}}})j"));
  REQUIRE_FALSE(r);
  CHECK(r.error().rfind("/patternProperties/^x\\_: pattern \"^x\\\\_\": invalid escape \\_", 0) ==
        0);
}

TEST_CASE("u flag: properties in schema patterns", "[schema][regex]") {
  auto s = llmjson::schema::compile(
      json::parse(R"({"pattern": "^\\p{Lu}\\p{L}*(?:[ -]\\p{Lu}\\p{L}*)*$"})"));
  REQUIRE(s);
  CHECK((*s)(json("Zo\xC3\xAB \xC3\x85ngstr\xC3\xB6m-\xC3\x98"
                  "berg"))
            .ok);
  CHECK_FALSE((*s)(json("zo\xC3\xAB")).ok);
  auto t = llmjson::schema::compile(json::parse(R"({"pattern": "^.{1,20}$"})"));
  REQUIRE(t);
  // 20 code points, 23 UTF-16 code units.
  CHECK((*t)(json("Big launch today \xF0\x9F\x9A\x80\xF0\x9F\x94\xA5\xF0\x9F\x8E\x89")).ok);
  CHECK_FALSE((*t)(json("Big launch today!! \xF0\x9F\x9A\x80\xF0\x9F\x94\xA5")).ok);
}

TEST_CASE("unicode tables: lookups by code point agree with the classes", "[schema][regex]") {
  namespace u = llmjson::detail::unicode;
  CHECK(u::version == "15.0.0");
  CHECK(u::gc_short_names[u::general_category(U'A')] == "Lu");
  CHECK(u::gc_short_names[u::general_category(0x1F600)] == "So");
  CHECK(u::gc_short_names[u::general_category(0xE0080)] == "Cn");
  CHECK(u::gc_short_names[u::general_category(0x10FFFF)] == "Cn");
  CHECK(u::gc_short_names[u::general_category(0x10FFFD)] == "Co");
  CHECK(u::script_short_names[u::script(0x3AC)] == "Grek");
  CHECK(u::script_short_names[u::script(0xE0080)] == "Zzzz");
  std::uint8_t own = 0;
  const auto scx = u::script_extensions(0x342, own);
  REQUIRE(scx.size() == 1);
  CHECK(u::script_short_names[scx[0]] == "Grek");
  CHECK(u::script_extensions(0x3AC, own).size() == 1);
  CHECK(u::script_short_names[own] == "Grek");
  // Every named property's class holds exactly the code points the lookup gives, sampled.
  u::range_list r;
  REQUIRE(u::property_ranges("Alphabetic", r));
  const auto in = [&](char32_t c) {  // r is sorted and merged
    const auto it =
        std::upper_bound(r.begin(), r.end(), std::pair<char32_t, char32_t>(c, 0x10FFFF));
    return it != r.begin() && c <= std::prev(it)->second;
  };
  for (std::size_t k = 0; k < std::size(u::binary_long_names); ++k) {
    REQUIRE(u::property_ranges(u::binary_long_names[k], r));
    for (char32_t c = 0; c <= 0x10FFFF; c += static_cast<char32_t>(97 * sweep_step())) {
      INFO(u::binary_long_names[k] << " U+" << std::hex << static_cast<unsigned>(c));
      CHECK(in(c) == u::has_binary(k, c));
    }
  }
  for (std::size_t s = 0; s < std::size(u::script_short_names); ++s) {
    REQUIRE(u::property_ranges("scx=" + std::string(u::script_short_names[s]), r));
    for (char32_t c = 0; c <= 0x10FFFF; c += static_cast<char32_t>(89 * sweep_step())) {
      const auto x = u::script_extensions(c, own);
      CHECK(in(c) == (std::find(x.begin(), x.end(), s) != x.end()));
    }
  }
}

TEST_CASE("a pattern that names properties again and again stays small",
          "[schema][regex][hostile]") {
  // 200,000 class escapes in one class (1.3 MB of pattern): each written again adds nothing,
  // so the class holds their ranges once (copied each time, they would be gigabytes).
  std::string many = "^[";
  for (int k = 0; k < 200000; ++k)
    many += k % 3 == 0 ? "\\p{Ll}" : k % 3 == 1 ? "\\p{sc=Greek}" : "\\d";
  many += "]+$";
  CHECK(matches(many,
                "\xC3\xA9t\xC3\xA9"
                "42\xCE\x91"));     // été42Α: Ll, digits, Greek
  CHECK_FALSE(matches(many, "A"));  // Lu, Latin
  CHECK_FALSE(matches(many, " "));
  // Distinct names, many times each, in one class: merged as they come.
  std::string names = "[";
  for (int k = 0; k < 20000; ++k)
    names += k % 4 == 0   ? "\\p{sc=Greek}"
             : k % 4 == 1 ? "\\p{Letter}"
             : k % 4 == 2 ? "\\p{Nd}"
                          : "\\p{Emoji}";
  names += "]";
  CHECK(matches(names, "\xCE\xB1"));
  // Outside a class each \p is an instruction: the program's cap refuses the pattern.
  std::string atoms;
  for (int k = 0; k < 200000; ++k) atoms += "\\p{L}";
  CHECK(refusal(atoms).find("pattern too large") != std::string::npos);
}

}  // namespace llmjson_tests::regex_test
