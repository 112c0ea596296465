#!/usr/bin/env python3
# llmjson: the README's blocks, each checked by exactly one mechanism (C++ built and run, console
# sessions run against the built tool, messages against the library)
# SPDX-License-Identifier: MIT
"""Checks that what README.md and the manuals beside it show is what the code does.

The files are given with --readme, once each (README.md, examples/cli/README.md,
examples/openai/README.md, tests/bench/README.md, tests/fuzz/README.md: tests/CMakeLists.txt
lists them); their blocks are one collection (names are unique across files, and exactly one
file has the quick start's `tool` block). Every fenced block is checked by exactly one
mechanism, named by an HTML comment
on the line before it (`<!-- check: KIND ARGS -->`, invisible on GitHub); a ```console block
needs none: it is always run.

  program NAME     ```cpp, a whole program: built as llmjson_readme_NAME (with the warnings of
                   llmjson's own tests), run by ctest readme/NAME; it must exit 0, and when the
                   next block is `output`, print exactly that. `program NAME stop_token`: one that
                   needs std::stop_token, built only where the library has it
  fragment NAME    ```cpp, part of a program: spliced into tests/readme/NAME.cpp (where it says
                   #include "NAME.inc"), which declares what the fragment assumes and checks
                   what it did; built and run as a program
  in FILE          ```cpp compiled and run by another test: FILE holds it, white space aside
  file NAME        ```cpp saved as NAME for the console block after it, which builds it
  output           the output of the program or fragment before it
  output messages ARG   the output of `llmjson_readme_messages ARG` (tests/readme/messages.cpp)
  ci [FUNCTION]    ```sh, exactly the one command of .ci/run's FUNCTION (readme_test_command:
                   the README's test command; readme_full_test_command: the integration tests)
  tool             ```sh, the quick start's first command: its packages are among .ci/run's,
                   ctest readme/quick_start runs its build with no test dependency in reach,
                   and its `llmjson` command prints the plan
  packages         ```sh, `apt-get install -y PACKAGE...`: all of them among .ci/run's
  test NAME        checked by the ctest NAME (cmake_readme_fetch_content: the FetchContent block)
  none WHY         not checked, and why (a diagram)

```console blocks: each `$ COMMAND` runs with bash in a folder that mirrors the repository
root (its files and folders linked, plus the `file` blocks before), with the built `llmjson`
and a stand-in `model-cli` (tests/readme/bin) first on PATH. The lines under it are its stdout,
then its stderr; `$ echo $?` shows the previous command's exit status. No command is timed (a
loaded machine may take minutes to compile a block): a command with `model-cli` in it proves
that the reader stopped early because the stand-in never finished writing (it leaves
.model-cli-finished only when it did, after ten minutes). HANG_SECONDS only ends a command that
hangs.

Two tables are checked as well: the error kinds' messages (`| kind | when | example |`) against
`llmjson_readme_messages error KIND`, and the schema compile errors (`| schema | compile error |`)
against `llmjson_readme_messages schema` on the schema in the row. The tool's flag table
(`| Flag | Meaning |`) names exactly the flags `llmjson --help` lists (each `  --flag` that starts
an option line), and the values of a flag written `--flag a\|b` are the ones --help's synopsis
gives it (`[--flag a|b]`) where it gives them (console mode).

Figures quoted in prose (blocks mode): every "N corpus cases" is the number of cases in
tests/corpus (a NAME.txt beside a NAME.expect.json), and the API map (`| header | what |`) names
exactly the headers of include/llmjson, the fuzz targets' table (`| target | what it checks on
every input |`) exactly the tests/fuzz/NAME_fuzz.cpp. Every figure of the README's
Performance table (`| input | `extract` |`) is written as it is in tests/bench/README.md, and
the Build options table (`| option | default |`) names exactly the option()s of the CMake files.

usage: readme_test.py --readme FILE [--readme FILE...] MODE ...
  generate --out DIR          (configure time) the programs and fragments, and DIR/blocks.cmake
  blocks --source-dir DIR     every block has one mechanism; `in`, `ci` and `test` blocks hold
  run NAME --exe PATH         runs a program or fragment, compares with its `output` block
  console --tool PATH --source-dir DIR
  messages --helper PATH      `output messages` blocks and the two tables
  quick-start --source-dir DIR --work DIR --cmake PATH --tool-name NAME [--generator G]
              [--make-program P] [--cxx C]
Exit 0: passed; 1: failed (each failure on its own line).
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
MARKER = re.compile(r"^<!-- check: (\S+)(?: (.*?))? -->$")
KINDS_WITH_NAME = ("program", "fragment", "in", "file", "test")
# A console command that runs this long hangs: it is ended and fails. Not a measure of speed.
HANG_SECONDS = 1200  # below ctest's default timeout (1500 s), which would end the test unexplained


class Block:
    def __init__(self, info, first_line, lines, indent, marker, after, file):
        self.file = file                  # the Markdown file's absolute path
        self.path = shown(file)           # the file, as the messages name it
        self.info = info                  # the info string: cpp, console, sh, cmake, text, ""
        self.first_line = first_line      # 1-based line of the first line of the body
        self.lines = lines                # the body, its indentation removed
        self.indent = indent
        self.kind, self.arg = marker if marker else (None, None)
        # `program NAME stop_token`: the program needs std::stop_token (a streaming adapter), so
        # it is built and run only where the standard library has it (not libc++ 14).
        self.needs_stop_token = False
        if self.kind == "program" and self.arg and self.arg.endswith(" stop_token"):
            self.arg = self.arg[: -len(" stop_token")]
            self.needs_stop_token = True
        self.after = after                # the prose line before the block (for messages)

    @property
    def text(self):
        return "".join(line + "\n" for line in self.lines)

    def where(self):
        return "%s:%d (```%s)" % (self.path, self.first_line - 1, self.info)


def shown(path):
    """`path` as messages name it: relative to the folder of the first --readme (the root)."""
    return os.path.relpath(path, ROOT[0]) if ROOT else path


ROOT = []


def read_blocks(path):
    """The fenced blocks of a Markdown file, as CommonMark finds them at any indent up to 3
    spaces (list items included), with the `<!-- check: ... -->` marker before each."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            ch, n, info = m.group(2)[0], len(m.group(2)), m.group(3).strip()
            indent = len(lines[i]) - len(lines[i].lstrip(" "))
            close = re.compile(r"^ {0,3}" + re.escape(ch) + "{%d,}[ \t]*$" % n)
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            body = [l[indent:] if l[:indent].strip() == "" else l.lstrip() for l in lines[i + 1:j]]
            k = i - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            marker = None
            mm = MARKER.match(lines[k].strip()) if k >= 0 else None
            if mm:
                marker = (mm.group(1), mm.group(2) or "")
                k -= 1
                while k >= 0 and lines[k].strip() == "":
                    k -= 1
            blocks.append(Block(info, i + 2, body, indent, marker, lines[k] if k >= 0 else "",
                                path))
            i = j + 1
            continue
        i += 1
    return blocks


def all_blocks(readmes):
    """The blocks of every file, file after file."""
    return [b for readme in readmes for b in read_blocks(readme)]


class Checker:
    def __init__(self):
        self.failures = []
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures.append(what)
        return ok

    def finish(self, name):
        for f in self.failures:
            print("FAIL:", f)
        print("%s: %d checks, %d failed" % (name, self.checks, len(self.failures)))
        return 1 if self.failures else 0


def squeeze(text):
    return re.sub(r"\s+", "", text)


def diff(expected, actual):
    return "\n--- the README shows:\n%s--- got:\n%s---" % (expected, actual)


# ---------------------------------------------------------------------------------------------
# generate: the programs and fragments, for tests/CMakeLists.txt

def generate(readmes, out):
    os.makedirs(out, exist_ok=True)
    programs, fragments, stop_token = [], [], []
    for b in all_blocks(readmes):
        if b.info != "cpp" or b.kind not in ("program", "fragment"):
            continue
        code = '#line %d "%s"\n%s' % (b.first_line, b.file, b.text)
        name = b.arg
        if not re.fullmatch(r"[a-z0-9_]+", name):
            sys.exit("%s: a program or fragment name is [a-z0-9_]+, not %r" % (b.where(), name))
        if name in programs or name in fragments:
            sys.exit("%s: the name %s is taken" % (b.where(), name))
        target = os.path.join(out, name + (".cpp" if b.kind == "program" else ".inc"))
        old = open(target, encoding="utf-8").read() if os.path.exists(target) else None
        if old != code:  # unchanged files keep their time stamp: nothing to rebuild
            with open(target, "w", encoding="utf-8") as f:
                f.write(code)
        (programs if b.kind == "program" else fragments).append(name)
        if b.needs_stop_token:
            stop_token.append(name)
    write_if_changed(os.path.join(out, "all_programs.cpp"),
                     all_programs(out, programs, fragments, stop_token))
    with open(os.path.join(out, "blocks.cmake"), "w", encoding="utf-8") as f:
        f.write("set(LLMJSON_README_PROGRAMS %s)\n" % " ".join(programs))
        f.write("set(LLMJSON_README_FRAGMENTS %s)\n" % " ".join(fragments))
        f.write("set(LLMJSON_README_STOP_TOKEN_PROGRAMS %s)\n" % " ".join(stop_token))
    return 0


def write_if_changed(path, text):
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if old != text:  # an unchanged file keeps its time stamp: nothing to rebuild
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def all_programs(out, programs, fragments, stop_token=()):
    """Every program, and every fragment's test program (tests/readme/<name>.cpp), as one source
    (the unity build of tests/CMakeLists.txt, LLMJSON_UNITY_TESTS): compiled one by one they
    took five times as long, each parsing and instantiating the same library. Each goes into a
    namespace of its own, its `int main()` renamed `readme_main` (with a `return 0;` before its
    last brace, which a main may leave out and a function may not: main must be the program's
    last function, or the build says so), its `#include <...>` lines moved to the top; `main`
    runs the one its first argument names. Each file still compiles alone without the unity
    build (the libc++ stage of .ci/run does that). The programs that need std::stop_token are
    left out by the preprocessor where the library has none (LLMJSON_HAS_STOP_TOKEN 0), and
    their `#include <stop_token>` is kept only where the header exists."""
    here = os.path.dirname(os.path.abspath(__file__))
    sources = [(n, os.path.join(out, n + ".cpp")) for n in programs]
    sources += [(n, os.path.join(here, n + ".cpp")) for n in fragments]
    includes, parts = [], []
    for name, path in sources:
        lines = open(path, encoding="utf-8").read().split("\n")
        for i, line in enumerate(lines):
            if line.startswith("#include <"):
                if line == "#include <stop_token>":
                    line = "#if __has_include(<stop_token>)\n#include <stop_token>\n#endif"
                if line not in includes:
                    includes.append(line)
                lines[i] = ""  # the line numbers stay those of the file
        text = "\n".join(lines)
        text, n = re.subn(r"^int main\(\) \{", "int readme_main() {", text, count=1, flags=re.M)
        end = text.rstrip().rfind("}")
        if n != 1 or end < 0:
            sys.exit("%s: no `int main() {` line, or no `}` after it" % path)
        text = text[:end] + "return 0;\n" + text[end:]
        if not text.startswith("#line"):
            text = '#line 1 "%s"\n%s' % (path, text)
        part = ("namespace llmjson_readme::%s {\n%s\n}  // namespace llmjson_readme::%s\n"
                % (name, text, name))
        if name in stop_token:
            part = "#if LLMJSON_HAS_STOP_TOKEN\n%s#endif\n" % part
        parts.append(part)
    calls = ""
    for n, _ in sources:
        call = '  if (name == "%s") return llmjson_readme::%s::readme_main();\n' % (n, n)
        calls += "#if LLMJSON_HAS_STOP_TOKEN\n%s#endif\n" % call if n in stop_token else call
    return ("// Generated by tests/readme/readme_test.py from the README's programs: do not edit\n"
            + "\n".join(includes) + "\n#include <iostream>\n#include <string_view>\n\n"
            + "\n".join(parts)
            + '\n#line 1 "all_programs.cpp (main)"\n'
            + "int main(int argc, char** argv) {\n"
            + '  const std::string_view name = argc > 1 ? argv[1] : "";\n' + calls
            + '  std::cerr << "no README program is named \\"" << name << "\\"\\n";\n'
            + "  return 2;\n}\n")


# ---------------------------------------------------------------------------------------------
# blocks: one mechanism per block, and the checks that need no build

def ci_command(source_dir, function):
    with open(os.path.join(source_dir, ".ci", "run"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^%s\(\) \{\n(.*?)\n\}" % re.escape(function), text, re.S | re.M)
    if not m:
        return None
    lines = [l.strip() for l in m.group(1).split("\n")]
    lines = [l for l in lines if l and not l.startswith("#") and l != "rm -rf build"]
    return lines[0] if len(lines) == 1 else None


def ci_packages(source_dir):
    with open(os.path.join(source_dir, ".ci", "run"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"apt-get install -y --no-install-recommends \\\n(.*?)\n\s*g\+\+ --version",
                  text, re.S)
    return set(m.group(1).replace("\\", " ").split()) if m else set()


def tool_command(block):
    """The quick start's first command, split at `&&`: apt-get update, apt-get install, then the
    rest (configure, build, run the tool)."""
    parts = [p.strip() for p in " ".join(block.lines).split("&&")]
    if len(parts) < 5 or parts[0] != "apt-get update" or not parts[1].startswith("apt-get install -y "):
        return None
    return parts[1].split()[3:], parts[2:]


def mode_blocks(a):
    c = Checker()
    blocks = all_blocks(a.readme)
    counts = {}
    names = set()
    previous_program = None
    for i, b in enumerate(blocks):
        kind = b.kind or ("console" if b.info == "console" else None)
        if not c.check(kind is not None, "%s has no <!-- check: ... --> marker" % b.where()):
            continue
        counts[kind] = counts.get(kind, 0) + 1
        print("%-34s %s %s" % (b.where(), kind, b.arg or ""))
        if kind in KINDS_WITH_NAME and not c.check(b.arg, "%s: `%s` needs a name" % (b.where(), kind)):
            continue
        if kind in ("program", "fragment"):
            c.check(b.info == "cpp", "%s: only ```cpp blocks are programs" % b.where())
            c.check(b.arg not in names, "%s: the name %s is taken" % (b.where(), b.arg))
            names.add(b.arg)
            if kind == "fragment":
                template = os.path.join(HERE, b.arg + ".cpp")
                c.check(os.path.exists(template), "%s: no %s" % (b.where(), template))
                if os.path.exists(template):
                    c.check('#include "%s.inc"' % b.arg in open(template, encoding="utf-8").read(),
                            "%s: %s does not #include \"%s.inc\"" % (b.where(), template, b.arg))
            previous_program = b
        elif kind == "in":
            path = os.path.join(a.source_dir, b.arg)
            if c.check(b.info == "cpp" and os.path.exists(path), "%s: no file %s" % (b.where(), path)):
                with open(path, encoding="utf-8") as f:
                    c.check(squeeze(b.text) in squeeze(f.read()),
                            "%s: %s does not hold this block (white space aside):\n%s"
                            % (b.where(), b.arg, b.text))
        elif kind == "file":
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            c.check(nxt is not None and nxt.file == b.file and nxt.info == "console"
                    and b.arg in nxt.text,
                    "%s: the console block after it does not use %s" % (b.where(), b.arg))
        elif kind == "output":
            if b.arg:
                c.check(b.arg.startswith("messages "), "%s: `output %s`?" % (b.where(), b.arg))
            else:
                prev = blocks[i - 1] if i else None
                c.check(prev is not None and prev is previous_program and prev.file == b.file,
                        "%s: `output` must follow a program or fragment" % b.where())
        elif kind == "ci":
            function = b.arg or "readme_test_command"
            expected = ci_command(a.source_dir, function)
            c.check(expected is not None and b.text.strip() == expected,
                    "%s is not the command of .ci/run's %s:%s"
                    % (b.where(), function, diff((expected or "?") + "\n", b.text)))
        elif kind == "tool":
            parsed = tool_command(b)
            if c.check(parsed, "%s: not `apt-get update && apt-get install -y ... && ...`" % b.where()):
                missing = set(parsed[0]) - ci_packages(a.source_dir)
                c.check(not missing, "%s installs packages .ci/run does not: %s"
                        % (b.where(), " ".join(sorted(missing))))
        elif kind == "packages":
            words = b.text.split()
            missing = set(words[3:]) - ci_packages(a.source_dir)
            c.check(words[:3] == ["apt-get", "install", "-y"] and len(words) > 3 and not missing,
                    "%s: not `apt-get install -y` of packages .ci/run installs (%s)"
                    % (b.where(), " ".join(sorted(missing))))
        elif kind == "test":
            c.check(b.arg != "cmake_readme_fetch_content" or "FetchContent_Declare(llmjson" in b.text,
                    "%s: not the FetchContent block" % b.where())
        elif kind == "none":
            c.check(b.arg, "%s: say why the block is not checked" % b.where())
        elif kind != "console":
            c.check(False, "%s: unknown mechanism %r" % (b.where(), kind))
        if kind == "console":
            c.check(b.info == "console", "%s: only ```console blocks are run" % b.where())
            c.check(b.lines and b.lines[0].startswith("$ "),
                    "%s: a console block starts with a `$ ` command" % b.where())
    c.check(counts.get("tool") == 1, "%d `tool` blocks, not 1" % counts.get("tool", 0))
    print("blocks: %s" % ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())))
    check_figures(c, a)
    return c.finish("blocks")


def corpus_cases(source_dir):
    corpus = os.path.join(source_dir, "tests", "corpus")
    return sum(1 for name in os.listdir(corpus) if name.endswith(".txt")
               and os.path.exists(os.path.join(corpus, name[:-4] + ".expect.json")))


def check_figures(c, a):
    """The figures quoted in prose that a test can count."""
    cases = corpus_cases(a.source_dir)
    quoted = 0
    for readme in a.readme:
        with open(readme, encoding="utf-8") as f:
            for n, line in enumerate(f.read().split("\n"), 1):
                for m in re.finditer(r"\b(\d[\d,]*) corpus cases\b", line):
                    quoted += 1
                    c.check(int(m.group(1).replace(",", "")) == cases,
                            "%s:%d says %s corpus cases; tests/corpus has %d"
                            % (shown(readme), n, m.group(1), cases))
    print("figures: %d quotes of the corpus case count (%d)" % (quoted, cases))
    # The API map names every public header, and only those.
    rows = [row for readme in a.readme for row in table_rows(readme, "| header | what |")]
    if rows:
        mapped = set()
        for row in rows:
            mapped.update(os.path.basename(h) for h in re.findall(r"`(?:llmjson/)?([a-z_]+\.hpp)`", row[0]))
        include = os.path.join(a.source_dir, "include", "llmjson")
        headers = {h for h in os.listdir(include) if h.endswith(".hpp")}
        c.check(mapped == headers, "the API map and include/llmjson differ: only in the map: %s; "
                "only in include/llmjson: %s" % (" ".join(sorted(mapped - headers)) or "-",
                                                  " ".join(sorted(headers - mapped)) or "-"))
        print("api map: %d headers" % len(mapped))
    # The fuzz targets' table names every tests/fuzz/NAME.cpp that is a target (NAME_fuzz).
    rows = [row for readme in a.readme
            for row in table_rows(readme, "| target | what it checks on every input |")]
    if rows:
        tabled = {code_of(row[0]) for row in rows}
        fuzz = os.path.join(a.source_dir, "tests", "fuzz")
        targets = {f[:-4] for f in os.listdir(fuzz) if f.endswith("_fuzz.cpp")}
        c.check(tabled == targets, "the fuzz targets' table names %s; tests/fuzz has %s"
                % (" ".join(sorted(t or "?" for t in tabled)), " ".join(sorted(targets))))
    check_performance_table(c, a)
    check_build_options(c, a)


# A figure with its unit in the README's Performance table: 9.8 µs, 1.12×, 41.6–73.8 ms.
FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?(?:–\d[\d,]*(?:\.\d+)?)?) ?(µs|ms|s|MB/s|MB|×)(?![\w/])")


def check_performance_table(c, a):
    """Every figure of the README's Performance table (`| input | `extract` |`) is written, as
    it is, in the benchmarks' manual it cites: with its unit, or alone in a table cell."""
    readme = os.path.join(a.source_dir, "README.md")
    rows = table_rows(readme, "| input | `extract` |")
    if not rows:
        return
    with open(os.path.join(a.source_dir, "tests", "bench", "README.md"), encoding="utf-8") as f:
        bench = f.read()
    figures = 0
    for row in rows:
        for cell in row[1:]:
            for m in FIGURE.finditer(cell):
                figures += 1
                number, unit = m.group(1), m.group(2)
                alone = r"(?<![\d.,–])" + re.escape(number) + r"(?![\d.,–])"
                found = (re.search(alone + r" ?" + re.escape(unit), bench)
                         or re.search(r"\| " + re.escape(number) + r" \|", bench))
                c.check(found is not None, "README.md, Performance, %s: %s is not in "
                        "tests/bench/README.md" % (row[0][:40], m.group(0)))
    print("performance: %d figures, each in tests/bench/README.md" % figures)


def check_build_options(c, a):
    """The Build options table (`| option | default |`) names every option() of the project's
    CMake files, and only those."""
    readme = os.path.join(a.source_dir, "README.md")
    rows = table_rows(readme, "| option | default |")
    if not rows:
        return
    tabled = {code_of(row[0]) for row in rows}
    declared = set()
    for folder, dirs, files in os.walk(a.source_dir):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for name in files:
            if name == "CMakeLists.txt" or name.endswith(".cmake"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    declared.update(re.findall(r"^\s*option\((LLMJSON_\w+)", f.read(), re.M))
    c.check(tabled == declared, "the Build options table and the CMake option()s differ: only in "
            "the table: %s; only in CMake: %s" % (" ".join(sorted(tabled - declared)) or "-",
                                                  " ".join(sorted(declared - tabled)) or "-"))
    print("build options: %d, each in the table" % len(declared))


# ---------------------------------------------------------------------------------------------
# run: a program or fragment

def mode_run(a):
    c = Checker()
    blocks = all_blocks(a.readme)
    found = [i for i, b in enumerate(blocks) if b.kind in ("program", "fragment") and b.arg == a.name]
    if not c.check(len(found) == 1, "%d blocks are named %s, not 1" % (len(found), a.name)):
        return c.finish(a.name)
    i = found[0]
    p = subprocess.run([a.exe] + a.exe_args, capture_output=True, timeout=300)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    c.check(p.returncode == 0, "%s exited %d; stdout:\n%s\nstderr:\n%s" % (a.name, p.returncode, out, err))
    nxt = blocks[i + 1] if i + 1 < len(blocks) else None
    if nxt is not None and nxt.file == blocks[i].file and nxt.kind == "output" and not nxt.arg:
        c.check(out == nxt.text, "%s: its output%s" % (nxt.where(), diff(nxt.text, out)))
    return c.finish(a.name)


# ---------------------------------------------------------------------------------------------
# console: every ```console block, against the built tool

def sessions(block):
    """[(command, expected output)] of a console block."""
    out = []
    for line in block.lines:
        if line.startswith("$ "):
            out.append([line[2:], ""])
        elif out:
            out[-1][1] += line + "\n"
    return [(cmd, expected) for cmd, expected in out]


def sandbox(source_dir, files):
    """A folder that reads like the repository root: links to its entries, plus `files`."""
    d = tempfile.mkdtemp(prefix="llmjson_readme_")
    for entry in os.listdir(source_dir):
        if entry not in (".git", "build") and not entry.startswith("build"):
            os.symlink(os.path.join(source_dir, entry), os.path.join(d, entry))
    for name, text in files.items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return d


def compiler_has_nlohmann(cxx):
    p = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-x", "c++", "-"],
                       input=b"#include <nlohmann/json.hpp>\n", capture_output=True)
    return p.returncode == 0


def mode_console(a):
    c = Checker()
    blocks = all_blocks(a.readme)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.dirname(os.path.abspath(a.tool)),
                                   os.path.join(HERE, "bin"), env.get("PATH", "")])
    env["LC_ALL"] = "C.UTF-8"
    files = {}
    for i, b in enumerate(blocks):
        if i and blocks[i - 1].file != b.file:
            files = {}
        if b.kind == "file":
            files[b.arg] = b.text
        if b.info != "console" or b.kind is not None:
            continue
        builds = any(cmd.startswith("g++ ") for cmd, _ in sessions(b))
        if builds != a.builds:  # the sessions that compile a program: readme/console_build
            continue
        if builds and not compiler_has_nlohmann("g++"):
            print("SKIPPED %s: g++ does not find <nlohmann/json.hpp> (nlohmann-json3-dev)" % b.where())
            continue
        d = sandbox(a.source_dir, files)
        try:
            status = None
            for cmd, expected in sessions(b):
                if cmd == "echo $?":
                    c.check(status is not None and expected == "%d\n" % status,
                            "%s: `%s` then `echo $?`: the README shows %r, the status is %s"
                            % (b.where(), last, expected, status))
                    continue
                try:
                    p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env, capture_output=True,
                                       timeout=HANG_SECONDS)
                except subprocess.TimeoutExpired:
                    c.check(False, "%s: `%s` hung (%d s)" % (b.where(), cmd, HANG_SECONDS))
                    status = None
                    continue
                if "model-cli" in cmd:
                    finished = os.path.join(d, ".model-cli-finished")
                    c.check(not os.path.exists(finished),
                            "%s: `%s` read model-cli's output to its end: it did not stop early"
                            % (b.where(), cmd))
                last, status = cmd, p.returncode
                got = (p.stdout + p.stderr).decode("utf-8", "replace")
                c.check(got == expected, "%s: `%s` (exit %d)%s" % (b.where(), cmd, status,
                                                                    diff(expected, got)))
                print("ran `%s`: exit %d, %d bytes" % (cmd, status, len(got)))
        finally:
            shutil.rmtree(d)
    if a.builds:
        return c.finish("console --builds")
    check_flags(c, a)
    return c.finish("console")


def check_flags(c, a):
    """The tool's flag table names exactly the flags of `llmjson --help`, with its values."""
    rows = [row for readme in a.readme for row in table_rows(readme, "| Flag | Meaning |")]
    if not rows:
        return
    p = subprocess.run([a.tool, "--help"], capture_output=True, timeout=60)
    help_text = p.stdout.decode("utf-8", "replace")
    if not c.check(p.returncode == 0 and help_text, "`llmjson --help` exited %d" % p.returncode):
        return
    listed = set()
    for line in help_text.split("\n"):
        m = re.match(r"^  (--[a-z][a-z-]*)(?:, (--[a-z][a-z-]*))?", line)
        if m:
            listed.update(f for f in m.groups() if f)
    synopsis = help_text.split("\n\n")[0]
    tabled = set()
    for row in rows:
        for cell in re.findall(r"`([^`]*)`", row[0]):
            words = cell.split()
            if not words or not words[0].startswith("--"):
                continue
            tabled.add(words[0])
            values = words[1].split("|") if len(words) > 1 and "|" in words[1] else None
            given = re.search(r"\[" + re.escape(words[0]) + r" ([^\]]*)\]", synopsis)
            if values and given and "|" in given.group(1):
                c.check(values == given.group(1).split("|"),
                        "the flag table gives %s the values %s; --help: %s"
                        % (words[0], "|".join(values), given.group(1)))
    c.check(tabled == listed, "the flag table and `llmjson --help` differ: only in the table: %s;"
            " only in --help: %s" % (" ".join(sorted(tabled - listed)) or "-",
                                      " ".join(sorted(listed - tabled)) or "-"))
    print("flags: %d in the table, %d in --help" % (len(tabled), len(listed)))


# ---------------------------------------------------------------------------------------------
# messages: output blocks and tables against the library's own messages

def table_rows(readme, header):
    """The rows of the Markdown table whose header row starts with `header`, as lists of cells."""
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    rows = []
    for i, line in enumerate(lines):
        if line.startswith(header):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]
                rows.append([cell.replace("\\|", "|") for cell in cells])
    return rows


def code_of(cell):
    m = re.fullmatch(r"`([^`]*)`", cell)
    return m.group(1) if m else None


def helper(path, *args, stdin=b""):
    p = subprocess.run([path] + list(args), input=stdin, capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# The figures the READMEs quote that the code defines: (pattern, figures of its groups). Each
# pattern must be found at least once, so a reworded quote fails here rather than going unchecked.
QUOTED_FIGURES = [
    (r"\| `max_depth` \| (\S+) \|", ["max_depth"]),
    (r"never more than `max_depth_limit`, (\S+?)\)", ["max_depth_limit"]),
    (r"\| `max_candidates`, `max_open_frames` \| (\S+); (\S+) \|", ["max_candidates", "max_open_frames"]),
    (r"\| `max_input_bytes` \(`--max-bytes`\) \| (\S+) MiB \|", ["max_input_mib"]),
    (r"longer than `options::max_input_bytes` \((\S+) MiB\)", ["max_input_mib"]),
    (r"Messages name at most (\S+) candidates", ["max_named_candidates"]),
    (r"names up to (\S+) \*\*near misses\*\*", ["max_near_misses"]),
    (r"programs capped\s+at (\S+) instructions", ["regex_max_program"]),
    (r"`(?:retry_options::)?max_attempts` \(default (\S+?):", ["max_attempts"]),
    (r"typical [\d.]+ KB reply \((\S+) bytes", ["typical_reply_bytes"]),
]
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
         "nine": 9, "ten": 10}


def check_quoted_figures(c, a):
    rc, out, err = helper(a.helper, "figures")
    if not c.check(rc == 0, "llmjson_readme_messages figures: exit %d, %s" % (rc, err.strip())):
        return
    figures = dict((name, int(value)) for name, value in (line.split() for line in out.splitlines()))
    texts = {}
    for readme in a.readme:
        with open(readme, encoding="utf-8") as f:
            texts[readme] = re.sub(r"\s*\n\s*", " ", f.read())  # a quote may wrap
    for pattern, names in QUOTED_FIGURES:
        found = 0
        for readme, text in texts.items():
            for m in re.finditer(pattern, text):
                found += 1
                for name, quoted in zip(names, m.groups()):
                    if quoted in WORDS:
                        value = WORDS[quoted]
                    elif re.fullmatch(r"\d[\d,]*", quoted):
                        value = int(quoted.replace(",", ""))
                    else:
                        value = None
                    c.check(value == figures[name], "%s says %s for %s, the code %d"
                            % (shown(readme), quoted, name, figures[name]))
        c.check(found > 0, "no README quotes %s any more (pattern %r): reword the pattern with the quote"
                % (", ".join(names), pattern))
    print("figures: %d quoted figures checked" % len(QUOTED_FIGURES))


def mode_messages(a):
    c = Checker()
    for b in all_blocks(a.readme):
        if b.kind == "output" and b.arg.startswith("messages "):
            rc, out, err = helper(a.helper, *b.arg.split()[1:])
            c.check(rc == 0 and out == b.text, "%s: `llmjson_readme_messages %s` (exit %d, %s)%s"
                    % (b.where(), b.arg[9:], rc, err.strip(), diff(b.text, out)))
    kinds = [row for readme in a.readme for row in table_rows(readme, "| kind | when | example |")]
    c.check(len(kinds) == 6, "the error kinds table has %d rows, not 6" % len(kinds))
    for row in kinds:
        kind, message = code_of(row[0]), code_of(row[-1])
        rc, out, err = helper(a.helper, "error", kind or "?")
        c.check(rc == 0 and out == (message or "") + "\n", "error kinds table, %s (exit %d, %s)%s"
                % (row[0], rc, err.strip(), diff((message or "") + "\n", out)))
    check_quoted_figures(c, a)
    schemas = [row for readme in a.readme
               for row in table_rows(readme, "| schema | compile error |")]
    c.check(len(schemas) >= 5, "the compile error table has %d rows" % len(schemas))
    for row in schemas:
        source, message = code_of(row[0]), code_of(row[1])
        rc, out, err = helper(a.helper, "schema", stdin=(source or "").encode())
        shown = (message or "") + "\n"
        c.check(rc == 0 and out == shown, "compile error table, %s (exit %d, %s)%s"
                % (row[0], rc, err.strip(), diff(shown, out)))
    return c.finish("messages")


# ---------------------------------------------------------------------------------------------
# quick-start: the first command, without its apt-get

def mode_quick_start(a):
    c = Checker()
    tool = [b for b in all_blocks(a.readme) if b.kind == "tool"]
    if not c.check(len(tool) == 1, "%d `tool` blocks, not 1" % len(tool)):
        return c.finish("quick_start")
    parsed = tool_command(tool[0])
    if not c.check(parsed, "%s: not `apt-get update && apt-get install -y ... && ...`" % tool[0].where()):
        return c.finish("quick_start")
    steps = parsed[1]
    # The build, as printed, in a copy of the sources (its build folder would be the user's),
    # with everything only the tests use out of reach: what the packages do not bring must not
    # be needed.
    shutil.rmtree(a.work, ignore_errors=True)
    src = os.path.join(a.work, "src")
    os.makedirs(src)
    for entry in ("CMakeLists.txt", "include", "examples", "tests", "LICENSE"):
        path = os.path.join(a.source_dir, entry)
        (shutil.copytree if os.path.isdir(path) else shutil.copy)(path, os.path.join(src, entry))
    hidden = ["-DCMAKE_DISABLE_FIND_PACKAGE_%s=ON" % p
              for p in ("Catch2", "Python3", "CURL", "Git", "benchmark", "PkgConfig")]
    extra = hidden + ["-G", a.generator] if a.generator else hidden
    if a.make_program:
        extra.append("-DCMAKE_MAKE_PROGRAM=" + a.make_program)
    env = dict(os.environ)
    if a.cxx:
        env["CXX"] = a.cxx
    for step in steps:
        argv = shlex.split(step)
        if argv[0] == "cmake":
            argv[0] = a.cmake
            if "-S" in argv:
                argv += extra
        p = subprocess.run(argv, cwd=src, env=env, capture_output=True, timeout=1200)
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        print("ran `%s`: exit %d" % (step, p.returncode))
        if not c.check(p.returncode == 0, "%s: `%s` failed:\n%s" % (tool[0].where(), step, out[-3000:])):
            break
        if os.path.basename(argv[0]) == a.tool_name:
            try:
                value = json.loads(p.stdout)
            except ValueError:
                value = None
            c.check(isinstance(value, dict) and isinstance(value.get("steps"), list),
                    "%s: `%s` did not print the plan: %r" % (tool[0].where(), step, p.stdout[:300]))
            c.check(p.stdout.startswith(b"{\n  "), "%s: `%s` is not --pretty" % (tool[0].where(), step))
    else:
        c.check(any(os.path.basename(shlex.split(s)[0]) == a.tool_name for s in steps),
                "%s: the command never runs %s" % (tool[0].where(), a.tool_name))
    shutil.rmtree(a.work, ignore_errors=True)
    return c.finish("quick_start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", required=True, action="append")
    sub = ap.add_subparsers(dest="mode", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    b = sub.add_parser("blocks")
    b.add_argument("--source-dir", required=True)
    r = sub.add_parser("run")
    r.add_argument("name")
    r.add_argument("--exe", required=True)
    r.add_argument("--exe-arg", dest="exe_args", action="append", default=[],
                   help="an argument of the program (the unity build's: the program's name)")
    k = sub.add_parser("console")
    k.add_argument("--tool", required=True)
    k.add_argument("--source-dir", required=True)
    k.add_argument("--builds", action="store_true",
                   help="only the sessions that compile a program with g++ (else all but those)")
    m = sub.add_parser("messages")
    m.add_argument("--helper", required=True)
    q = sub.add_parser("quick-start")
    q.add_argument("--source-dir", required=True)
    q.add_argument("--work", required=True)
    q.add_argument("--cmake", required=True)
    q.add_argument("--tool-name", default="llmjson")
    q.add_argument("--generator")
    q.add_argument("--make-program")
    q.add_argument("--cxx")
    a = ap.parse_args()
    a.readme = [os.path.abspath(r) for r in a.readme]
    ROOT.append(os.path.dirname(a.readme[0]))
    return {"generate": lambda: generate(a.readme, a.out), "blocks": lambda: mode_blocks(a),
            "run": lambda: mode_run(a), "console": lambda: mode_console(a),
            "messages": lambda: mode_messages(a), "quick-start": lambda: mode_quick_start(a)}[a.mode]()


if __name__ == "__main__":
    sys.exit(main())
