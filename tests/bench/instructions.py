#!/usr/bin/env python3
# llmjson: instructions per byte of extract(), memchr and nlohmann on the benchmark's inputs, counted
# by callgrind (which the load of a shared machine does not change), for one build or two side by
# side.
# SPDX-License-Identifier: MIT
"""usage: instructions.py --new PATH [--old PATH] [--size BYTES] [--inputs a,b,...]
                       [--measure extract|extract-text|index|index-lean]
       instructions.py --partials --new PATH [--old PATH]

PATH is an `llmjson_instructions` binary (tests/bench/instructions.cpp, a Release build). For
each input: the instructions of one `extract` (`extract-text`: with `options::answer_value` off,
no value built; `index`: issue 31's stage 1 alone, every block classified and its strings found,
tests/bench/stage_one.hpp), of `memchr` counting `{` over the same bytes and,
where there is an answer to parse, of `nlohmann::json::parse` of it alone; each is the run with 3
repetitions less the run with 1, halved (building the input cancels out). Prints a Markdown
table: instructions per byte and the ratios to memchr and nlohmann, for `--old` and `--new`.
Needs valgrind. Takes about a second of valgrind per MB per run.

--partials (issue 33): the partial answer of the 64 KB plan (`plan`) and of 50 KB of reasoning then
a 2 KB plan in a fence (`reasoning-plan`), fed in 16-byte chunks and read at every change, without
and with sync() after each chunk, against one `extract` of the same text: a Markdown table of
instructions and the ratio to `extract`. The measures that cost billions are one run less a run of
`memchr` (the same input built), not 3 runs less 1: a few minutes of valgrind for the two builds.
"""

import argparse
import re
import subprocess
import sys

DEFAULT_INPUTS = ["mixed", "nomark", "prompt", "clean", "whole", "typical", "prose", "fences",
                  "{ repeated", "<|channel|>analysis repeated", "prose braces"]


def refs(binary, measure, name, size, repeats):
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                        binary, measure, name, str(size), str(repeats)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("%s %s %s: exit %d: %s" % (binary, measure, name, p.returncode,
                                                     p.stderr[-2000:]))
    m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    return int(m.group(1).replace(",", "")), int(p.stdout.split()[0])


def one(binary, measure, name, size):
    a, n = refs(binary, measure, name, size, 1)
    b, _ = refs(binary, measure, name, size, 3)
    return (b - a) / 2, n


PARTIAL_INPUTS = [("plan", 64 * 1024, "64 KB plan"),
                  ("reasoning-plan", 52 * 1024, "50 KB reasoning, 2 KB plan")]


def partials(builds):
    head = "| input | measure |"
    rule = "|---|---|"
    for tag, _ in builds:
        head += " %s: instructions | ×`extract` |" % tag
        rule += "---:|---:|"
    print(head)
    print(rule)
    for name, size, label in PARTIAL_INPUTS:
        rows = {}
        for tag, binary in builds:
            base, _ = refs(binary, "memchr", name, size, 1)
            ex, _ = one(binary, "extract-plan", name, size)
            rows.setdefault("one `extract`", []).append((ex, 1.0))
            for measure, what in (("partial", "16-byte chunks, read at every change"),
                                  ("partial-sync", "16-byte chunks, `sync()` after each, read "
                                   "at every change")):
                total, _ = refs(binary, measure, name, size, 1)
                rows.setdefault(what, []).append((total - base, (total - base) / ex))
        for what, cells in rows.items():
            row = "| %s | %s |" % (label, what)
            for count, ratio in cells:
                row += " %.2f M | %.1f |" % (count / 1e6, ratio)
            print(row)
            sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--new", required=True)
    ap.add_argument("--old")
    ap.add_argument("--partials", action="store_true")
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--inputs", default=",".join(DEFAULT_INPUTS))
    ap.add_argument("--measure", default="extract", choices=["extract", "extract-text", "index", "index-lean"],
                    help="extract-text: with options::answer_value off (no value built); "
                    "index: issue 31's stage 1 alone (stage_one.hpp); index-lean: its "
                    "six structural classes alone (AVX2)")
    args = ap.parse_args()
    builds = [("old", args.old)] if args.old else []
    builds.append(("new", args.new))
    if args.partials:
        partials(builds)
        return
    head = "| input | bytes |"
    rule = "|---|---:|"
    for tag, _ in builds:
        head += " %s: instructions/byte | ×memchr | ×nlohmann |" % tag
        rule += "---:|---:|---:|"
    print(head)
    print(rule)
    for name in args.inputs.split(","):
        memchr, n = one(args.new, "memchr", name, args.size)
        try:
            nl, _ = one(args.new, "nlohmann", name, args.size)
        except SystemExit:
            nl = None
        row = "| %s | %d |" % (name.replace("|", "\\|"), n)
        for _, binary in builds:
            ex, _ = one(binary, args.measure, name, args.size)
            row += " %.1f | %.1f | %s |" % (ex / n, ex / memchr if memchr else 0,
                                            "%.2f" % (ex / nl) if nl else "")
        print(row)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
