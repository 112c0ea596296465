// llmjson: checks the Unicode tables of schema patterns (unicode_tables.hpp, from the UCD by
// tests/unicode/generate_tables.py) against a second source, ICU (72: Unicode 15.0), for every
// code point: General_Category, Script, Script_Extensions, every binary property ICU knows, and
// the names and aliases. Prints each disagreement (the first few per property) and exits 1 if any.
// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/uversion.h>

#include <llmjson/detail/schema/unicode.hpp>

namespace {

namespace u = llmjson::detail::unicode;

std::map<std::string, int> failures;  // per check

void fail(const std::string& check, char32_t c, const std::string& ours, const std::string& icu) {
  if (++failures[check] <= 5) {
    std::printf("%s U+%04X: tables say %s, ICU says %s\n", check.c_str(), static_cast<unsigned>(c),
                ours.c_str(), icu.c_str());
  }
}

std::string s(std::string_view v) { return std::string(v); }

bool in(const u::range_list& r, char32_t c) {
  const auto it = std::upper_bound(r.begin(), r.end(), std::pair<char32_t, char32_t>(c, 0x10FFFF));
  return it != r.begin() && c <= std::prev(it)->second;
}

}  // namespace

int main() {
  UVersionInfo version;
  u_getUnicodeVersion(version);
  char text[U_MAX_VERSION_STRING_LENGTH];
  u_versionToString(version, text);
  std::printf("tables: Unicode %s; ICU %s: Unicode %s\n", s(u::version).c_str(), U_ICU_VERSION,
              text);
  if (s(u::version).rfind(std::string(text).substr(0, 4), 0) != 0) {
    std::printf("SKIPPED: ICU's Unicode version is not the tables'\n");
    return 0;
  }

  // The binary properties by ICU's enum; those ICU does not know are named and left out.
  std::vector<UProperty> binary;
  for (const auto name : u::binary_long_names) {
    const UProperty p = u_getPropertyEnum(s(name).c_str());
    if (p == UCHAR_INVALID_CODE || p >= UCHAR_BINARY_LIMIT) {
      std::printf("ICU does not know the binary property %s: not checked\n", s(name).c_str());
    }
    binary.push_back(p);
  }
  u::range_list assigned;
  u::range_list ascii;
  u::range_list any;
  if (!u::property_ranges("Assigned", assigned) || !u::property_ranges("ASCII", ascii) ||
      !u::property_ranges("Any", any)) {
    std::printf("Assigned, ASCII or Any is missing\n");
    return 1;
  }

  std::size_t checked = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    const auto uc = static_cast<UChar32>(c);
    const char* gc =
        u_getPropertyValueName(UCHAR_GENERAL_CATEGORY, u_charType(uc), U_SHORT_PROPERTY_NAME);
    const std::string ours_gc = s(u::gc_short_names[u::general_category(c)]);
    if (ours_gc != gc) fail("General_Category", c, ours_gc, gc);

    UErrorCode err = U_ZERO_ERROR;
    const UScriptCode sc = uscript_getScript(uc, &err);
    const std::string ours_sc = s(u::script_short_names[u::script(c)]);
    if (U_FAILURE(err) || ours_sc != uscript_getShortName(sc)) {
      fail("Script", c, ours_sc, uscript_getShortName(sc));
    }

    UScriptCode scx[64];
    err = U_ZERO_ERROR;
    const int n = uscript_getScriptExtensions(uc, scx, 64, &err);
    std::set<std::string> icu_scx;
    for (int i = 0; U_SUCCESS(err) && i < n; ++i) icu_scx.insert(uscript_getShortName(scx[i]));
    std::uint8_t own = 0;
    std::set<std::string> ours_scx;
    for (const std::uint8_t k : u::script_extensions(c, own)) {
      ours_scx.insert(s(u::script_short_names[k]));
    }
    if (ours_scx != icu_scx) {
      std::string a;
      std::string b;
      for (const auto& x : ours_scx) a += x + " ";
      for (const auto& x : icu_scx) b += x + " ";
      fail("Script_Extensions", c, a, b);
    }

    for (std::size_t k = 0; k < binary.size(); ++k) {
      if (binary[k] == UCHAR_INVALID_CODE || binary[k] >= UCHAR_BINARY_LIMIT) continue;
      const bool ours = u::has_binary(k, c);
      if (ours != (u_hasBinaryProperty(uc, binary[k]) != 0)) {
        fail(s(u::binary_long_names[k]), c, ours ? "yes" : "no", ours ? "no" : "yes");
      }
    }
    if (in(assigned, c) != (u_charType(uc) != U_UNASSIGNED)) {
      fail("Assigned", c, in(assigned, c) ? "yes" : "no", in(assigned, c) ? "no" : "yes");
    }
    if (in(ascii, c) != (c < 0x80)) fail("ASCII", c, in(ascii, c) ? "yes" : "no", "-");
    if (!in(any, c)) fail("Any", c, "no", "yes");
    ++checked;
  }

  // The names: each alias means, to ICU, what it means to the tables.
  for (const auto& [name, mask] : u::gc_names) {
    std::uint32_t icu_mask = 0;
    for (std::size_t i = 0; i < std::size(u::gc_short_names); ++i) {
      if ((mask >> i) & 1U) {
        icu_mask |=
            U_MASK(u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY, s(u::gc_short_names[i]).c_str()));
      }
    }
    const auto want = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, s(name).c_str());
    if (want == UCHAR_INVALID_CODE || static_cast<std::uint32_t>(want) != icu_mask) {
      fail("General_Category name " + s(name), 0, std::to_string(icu_mask), std::to_string(want));
    }
  }
  for (const auto& [name, index] : u::script_names) {
    const auto code = u_getPropertyValueEnum(UCHAR_SCRIPT, s(name).c_str());
    if (code == UCHAR_INVALID_CODE ||
        s(u::script_short_names[index]) != uscript_getShortName(static_cast<UScriptCode>(code))) {
      fail("Script name " + s(name), 0, s(u::script_short_names[index]), "another script");
    }
  }
  for (const auto& [name, index] : u::binary_names) {
    if (u_getPropertyEnum(s(name).c_str()) != binary[index]) {
      fail("binary property name " + s(name), 0, s(u::binary_long_names[index]),
           "another property");
    }
  }

  std::printf("%zu code points checked\n", checked);
  int total = 0;
  for (const auto& [check, count] : failures) {
    std::printf("%s: %d disagreements\n", check.c_str(), count);
    total += count;
  }
  return total == 0 ? 0 : 1;
}
