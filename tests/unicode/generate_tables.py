#!/usr/bin/env python3
# llmjson: writes include/llmjson/detail/schema/unicode_tables.hpp from the Unicode Character
# Database, the data of the `\p{..}` escapes of schema patterns (README, "pattern").
# SPDX-License-Identifier: MIT
#
# Reads the UCD as Debian's unicode-data package installs it (/usr/share/unicode, its extracted/
# and emoji/ folders; Python 3 standard library only) and writes the header:
#   python3 tests/unicode/generate_tables.py            # rewrites the header
#   python3 tests/unicode/generate_tables.py --check    # exit 1 if the header differs
# --ucd DIR reads another copy of the UCD (the same layout); --output FILE writes elsewhere.
# With --check and no UCD folder, it prints "SKIPPED: ..." and exits 0 (ctest reports a skip).
#
# Every table is a list of ranges, searched by binary search or scanned when a pattern is
# compiled: General_Category and Script as runs (the first code point of each run and its value),
# Script_Extensions as runs of a set of scripts (set 0: no entry, the Script applies), each binary
# property as its boundaries (first, last + 1, first, last + 1, ...).
import argparse
import os
import re
import sys

VERSION = "15.0.0"
MAX = 0x10FFFF

# ECMA-262's binary properties (table "Binary Unicode property aliases") read from the UCD; ASCII,
# Any and Assigned are ECMA-262's own and computed by the library (unicode.hpp).
BINARY = [
    "ASCII_Hex_Digit", "Alphabetic", "Bidi_Control", "Bidi_Mirrored", "Case_Ignorable", "Cased",
    "Changes_When_Casefolded", "Changes_When_Casemapped", "Changes_When_Lowercased",
    "Changes_When_NFKC_Casefolded", "Changes_When_Titlecased", "Changes_When_Uppercased", "Dash",
    "Default_Ignorable_Code_Point", "Deprecated", "Diacritic", "Emoji", "Emoji_Component",
    "Emoji_Modifier", "Emoji_Modifier_Base", "Emoji_Presentation", "Extended_Pictographic",
    "Extender", "Grapheme_Base", "Grapheme_Extend", "Hex_Digit", "IDS_Binary_Operator",
    "IDS_Trinary_Operator", "ID_Continue", "ID_Start", "Ideographic", "Join_Control",
    "Logical_Order_Exception", "Lowercase", "Math", "Noncharacter_Code_Point", "Pattern_Syntax",
    "Pattern_White_Space", "Quotation_Mark", "Radical", "Regional_Indicator", "Sentence_Terminal",
    "Soft_Dotted", "Terminal_Punctuation", "Unified_Ideograph", "Uppercase", "Variation_Selector",
    "White_Space", "XID_Continue", "XID_Start",
]
BINARY_FILES = [
    "PropList.txt", "DerivedCoreProperties.txt", "DerivedNormalizationProps.txt",
    "extracted/DerivedBinaryProperties.txt", "emoji/emoji-data.txt",
]
# The 30 General_Category values, in the order of the table's indices.
GC = ["Cc", "Cf", "Cn", "Co", "Cs", "Ll", "Lm", "Lo", "Lt", "Lu", "Mc", "Me", "Mn", "Nd", "Nl",
      "No", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Sc", "Sk", "Sm", "So", "Zl", "Zp", "Zs"]


def data_lines(path):
    """Yields the fields of each data line of a UCD file, comments and blanks dropped."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [x.strip() for x in line.split(";")]


def code_range(field):
    a, _, b = field.partition("..")
    return int(a, 16), int(b or a, 16)


def check_version(path, expect_name):
    with open(path, encoding="utf-8") as f:
        head = f.read(400)
    if expect_name == "emoji":
        ok = "Emoji Version " + VERSION[:4] in head
    else:
        ok = head.startswith("# %s-%s.txt" % (expect_name, VERSION))
    if not ok:
        sys.exit("%s: not Unicode %s's" % (path, VERSION))


def runs(values):
    """The runs of a list indexed by code point: [(first, value)], each value differing from the
    previous one."""
    out = []
    for cp, v in enumerate(values):
        if not out or out[-1][1] != v:
            out.append((cp, v))
    return out


def boundaries(member):
    out = []
    inside = False
    for cp, m in enumerate(member):
        if m != inside:
            out.append(cp)
            inside = m
    if inside:
        out.append(MAX + 1)
    return out


def read(ucd):
    p = lambda name: os.path.join(ucd, name)
    for name in ["PropertyAliases", "PropertyValueAliases", "Scripts", "ScriptExtensions",
                 "PropList", "DerivedCoreProperties", "DerivedNormalizationProps"]:
        check_version(p(name + ".txt"), name)
    for name in ["DerivedGeneralCategory", "DerivedBinaryProperties"]:
        check_version(p("extracted/" + name + ".txt"), name)
    check_version(p("emoji/emoji-data.txt"), "emoji")

    # Names: a property's aliases (short name first), and the values of gc and sc.
    prop_aliases = {}
    for f in data_lines(p("PropertyAliases.txt")):
        prop_aliases[f[1]] = f[:1] + f[2:]  # long -> [short, others...]
    gc_values = []  # (names, members)
    scripts = []  # names, short name first
    for f in data_lines(p("PropertyValueAliases.txt")):
        if f[0] == "gc":
            gc_values.append(f[1:])
        elif f[0] == "sc":
            scripts.append(f[1:])
    # Group values (L, LC, P...): their members are on the line's comment.
    groups = {}
    with open(p("PropertyValueAliases.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"gc ; (\w+)\s*;.*#\s*([\w |]+)$", line.strip())
            if m:
                groups[m.group(1)] = [x.strip() for x in m.group(2).split("|")]
    gc_names = []
    for names in gc_values:
        members = groups.get(names[0], [names[0]])
        assert all(x in GC for x in members), names
        mask = sum(1 << GC.index(x) for x in members)
        for n in names:
            gc_names.append((n, mask))
    assert sorted(n[0] for n in gc_values if n[0] not in groups) == sorted(GC)

    gc = [GC.index("Cn")] * (MAX + 1)
    for f in data_lines(p("extracted/DerivedGeneralCategory.txt")):
        a, b = code_range(f[0])
        for cp in range(a, b + 1):
            gc[cp] = GC.index(f[1])

    long_script = {s[1]: i for i, s in enumerate(scripts)}
    short_script = {s[0]: i for i, s in enumerate(scripts)}
    sc = [short_script["Zzzz"]] * (MAX + 1)
    for f in data_lines(p("Scripts.txt")):
        a, b = code_range(f[0])
        for cp in range(a, b + 1):
            sc[cp] = long_script[f[1]]

    sets = [()]  # set 0: no Script_Extensions entry
    scx = [0] * (MAX + 1)
    for f in data_lines(p("ScriptExtensions.txt")):
        a, b = code_range(f[0])
        s = tuple(sorted(short_script[x] for x in f[1].split()))
        if s not in sets:
            sets.append(s)
        for cp in range(a, b + 1):
            scx[cp] = sets.index(s)

    member = {name: [False] * (MAX + 1) for name in BINARY}
    for name in BINARY_FILES:
        for f in data_lines(p(name)):
            if len(f) == 2 and f[1] in member:
                a, b = code_range(f[0])
                for cp in range(a, b + 1):
                    member[f[1]][cp] = True
    for name in BINARY:
        assert any(member[name]), name + " has no code point: not in the files read"
        assert name in prop_aliases, name

    return {
        "gc_names": gc_names,
        "gc_runs": runs(gc),
        "scripts": scripts,
        "sc_runs": runs(sc),
        "scx_sets": sets,
        "scx_runs": runs(scx),
        "binary_names": [(n, i) for i, name in enumerate(BINARY)
                         for n in [name] + [a for a in prop_aliases[name] if a != name]],
        "binary_bounds": [boundaries(member[name]) for name in BINARY],
    }


def numbers(values, per_line, fmt="%d"):
    items = [fmt % v for v in values]
    return "\n".join("    " + ",".join(items[i:i + per_line]) + ","
                     for i in range(0, len(items), per_line))


def render(d):
    out = []
    w = out.append
    w("// llmjson: Unicode %s's property tables, for \\p{..} in schema patterns (generated)"
      % VERSION)
    w("// SPDX-License-Identifier: MIT")
    w("//")
    w("// GENERATED by tests/unicode/generate_tables.py from the Unicode Character Database %s" % VERSION)
    w("// (Debian's unicode-data: /usr/share/unicode). Do not edit; to regenerate, run")
    w("//   python3 tests/unicode/generate_tables.py")
    w("// (ctest's unicode_tables_current checks that this file is what it writes). Read it through")
    w("// <llmjson/detail/schema/unicode.hpp>.")
    w("#ifndef LLMJSON_DETAIL_SCHEMA_UNICODE_TABLES_HPP_INCLUDED")
    w("#define LLMJSON_DETAIL_SCHEMA_UNICODE_TABLES_HPP_INCLUDED")
    w("")
    w("#include <cstdint>")
    w("#include <string_view>")
    w("")
    w("// clang-format off")
    w("namespace llmjson::detail::unicode {")
    w("")
    w('inline constexpr std::string_view version = "%s";' % VERSION)
    w("")
    w("/// A name of a property or value and what it stands for.")
    w("struct name_value {")
    w("  std::string_view name;")
    w("  std::uint32_t value;")
    w("};")
    w("")
    w("/// The General_Category values, by index; `gc_runs` holds these indices.")
    w("inline constexpr std::string_view gc_short_names[] = {%s};" %
      ", ".join('"%s"' % g for g in GC))
    w("/// Every name of a General_Category value (PropertyValueAliases.txt) and its categories, one")
    w("/// bit per index of `gc_short_names` (a group such as L or LC has several).")
    w("inline constexpr name_value gc_names[] = {")
    w(numbers(["{\"%s\", %d}" % (n, m) for n, m in d["gc_names"]], 4, "%s"))
    w("};")
    # The run tables pack a value beside the code point in 32 bits: a later Unicode version
    # with more categories, scripts or script sets must fail here, not corrupt the tables.
    assert len(GC) <= 32 and all(v < 32 for _, v in d["gc_runs"]), "gc values need 5 bits"
    assert len(d["scripts"]) <= 256 and all(v < 256 for _, v in d["sc_runs"]), "scripts need 8 bits"
    assert all(v < 256 for _, v in d["scx_runs"]), "script sets need 8 bits"
    assert all(a <= 0x10FFFF for a, _ in d["sc_runs"] + d["gc_runs"] + d["scx_runs"])
    w("/// The runs of General_Category: (first code point << 5) | index; a run lasts to the next.")
    w("inline constexpr std::uint32_t gc_runs[] = {")
    w(numbers([(a << 5) | v for a, v in d["gc_runs"]], 16))
    w("};")
    w("")
    w("/// The scripts, by index: their short names (sc's values), as `sc_runs` and the sets use them.")
    w("inline constexpr std::string_view script_short_names[] = {")
    w(numbers(['"%s"' % s[0] for s in d["scripts"]], 10, "%s"))
    w("};")
    w("/// Every name of a script (PropertyValueAliases.txt) and its index.")
    w("inline constexpr name_value script_names[] = {")
    w(numbers(["{\"%s\", %d}" % (n, i) for i, s in enumerate(d["scripts"]) for n in s], 4, "%s"))
    w("};")
    w("/// The runs of Script: (first code point << 8) | script; a run lasts to the next.")
    w("inline constexpr std::uint32_t sc_runs[] = {")
    w(numbers([(a << 8) | v for a, v in d["sc_runs"]], 16))
    w("};")
    w("/// The runs of Script_Extensions: (first code point << 8) | set, set 0 for code points")
    w("/// ScriptExtensions.txt does not list (their Script_Extensions is their Script).")
    w("inline constexpr std::uint32_t scx_runs[] = {")
    w(numbers([(a << 8) | v for a, v in d["scx_runs"]], 16))
    w("};")
    items = []
    offsets = []
    for s in d["scx_sets"]:
        offsets.append(len(items))
        items.extend(s)
    offsets.append(len(items))
    w("/// Set k holds the scripts scx_set_items[scx_set_offsets[k] .. scx_set_offsets[k + 1]).")
    w("inline constexpr std::uint16_t scx_set_offsets[] = {")
    w(numbers(offsets, 16, "%d"))
    w("};")
    w("inline constexpr std::uint8_t scx_set_items[] = {")
    w(numbers(items, 20, "%d"))
    w("};")
    w("")
    w("/// The binary properties read from the UCD, by index (ASCII, Any and Assigned are computed).")
    w("inline constexpr std::string_view binary_long_names[] = {")
    w(numbers(['"%s"' % n for n in BINARY], 4, "%s"))
    w("};")
    w("/// Every name of those properties (PropertyAliases.txt) and its index.")
    w("inline constexpr name_value binary_names[] = {")
    w(numbers(["{\"%s\", %d}" % (n, i) for n, i in d["binary_names"]], 4, "%s"))
    w("};")
    offsets = []
    flat = []
    for b in d["binary_bounds"]:
        offsets.append(len(flat))
        flat.extend(b)
    offsets.append(len(flat))
    w("/// Property k's boundaries are binary_bounds[binary_offsets[k] .. binary_offsets[k + 1]):")
    w("/// first, last + 1, first, last + 1, ... of its ranges.")
    w("inline constexpr std::uint32_t binary_offsets[] = {")
    w(numbers(offsets, 10, "%d"))
    w("};")
    w("inline constexpr std::uint32_t binary_bounds[] = {")
    w(numbers(flat, 16))
    w("};")
    w("")
    w("}  // namespace llmjson::detail::unicode")
    w("// clang-format on")
    w("")
    w("#endif  // LLMJSON_DETAIL_SCHEMA_UNICODE_TABLES_HPP_INCLUDED")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "..", "include", "llmjson", "detail", "schema",
                               "unicode_tables.hpp")
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ucd", default="/usr/share/unicode", help="the UCD folder")
    ap.add_argument("--output", default=os.path.normpath(default_out), help="the header to write")
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.ucd, "PropertyValueAliases.txt")):
        if args.check:
            print("SKIPPED: no Unicode Character Database at %s (Debian: apt-get install "
                  "unicode-data)" % args.ucd)
            return 0
        sys.exit("no Unicode Character Database at %s" % args.ucd)
    text = render(read(args.ucd))
    if args.check:
        with open(args.output, encoding="utf-8") as f:
            if f.read() != text:
                print("%s is not what %s writes from %s: run it to regenerate"
                      % (args.output, os.path.basename(__file__), args.ucd))
                return 1
        print("%s is current" % args.output)
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
