#!/usr/bin/env python3
# llmjson: the batch (`llmjson --jsonl --jobs 1`) counted by callgrind, instructions and the
# branches its simple predictor misses, for one build of the tool or two side by side, against
# the baseline (nlohmann parsing the answers alone).
# SPDX-License-Identifier: MIT
"""usage: batch_instructions.py --new TOOL [--old TOOL] --baseline PATH --writer PATH
                              [--lines N] [--modes keys,normalize,schema,schema-normalize]
                              [--branch-sim] [--dir DIR]

Generates N model outputs (default 20,000; `llmjson_write_jsonl`, the same lines as
jsonl_bench.py's) and their answers in a temporary folder (--dir chooses where), then counts
under callgrind the instructions of the baseline (`llmjson_jsonl_baseline answers`: nlohmann
parsing each answer alone) and, for each mode, of each tool (`--jsonl --jobs 1`):

  keys              --keys result
  normalize         --keys result --normalize
  schema            --schema S (S: an object requiring `result`, `confidence` and `id`, with
                    the five properties the generator writes typed)
  schema-normalize  --schema S --normalize

Prints a Markdown table: instructions (billions), the ratio to the baseline, and, with
--branch-sim, the conditional and indirect branches callgrind's predictor misses, per line.
That predictor is a table of two-bit counters, without the history a modern CPU's keeps, so
its misses are an upper bound: a branch whose outcome follows from the ones before it (a
grammar's next token) is predicted by the CPU and missed by callgrind; a branch on the data
(a run's length, the next special byte) is missed by both. Read the misses as where to look,
and the time (jsonl_bench.py, or rounds interleaved by hand) as what a change is worth.

Checked: both tools write the same bytes in every mode (a difference: exit 2). Takes about
20 seconds of valgrind per run for 20,000 lines, 40 with --branch-sim.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SCHEMA = {
    "type": "object",
    "required": ["result", "confidence", "id"],
    "properties": {
        "result": {"type": "string"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "id": {"type": "string"},
        "reasons": {"type": "array", "items": {"type": "string"}},
        "evidence": {"type": "array", "items": {"type": "object"}},
    },
}

MODES = {
    "keys": ["--keys", "result"],
    "normalize": ["--keys", "result", "--normalize"],
    "schema": ["--schema", "{schema}"],
    "schema-normalize": ["--schema", "{schema}", "--normalize"],
}


def count(command, branch_sim, stdout):
    args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if branch_sim:
        args.append("--branch-sim=yes")
    p = subprocess.run(args + command, stdout=stdout, stderr=subprocess.PIPE, text=True)
    # The tool exits 1 when a line has no answer: the batch has such lines.
    if p.returncode not in (0, 1):
        raise SystemExit("%s: exit %d: %s" % (" ".join(command), p.returncode, p.stderr[-2000:]))
    refs = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    result = {"instructions": int(refs.group(1).replace(",", ""))}
    miss = re.search(r"Mispredicts:\s+([\d,]+)\s+\(\s*([\d,]+) cond \+\s*([\d,]+) ind\)", p.stderr)
    if miss:
        result["cond"] = int(miss.group(2).replace(",", ""))
        result["ind"] = int(miss.group(3).replace(",", ""))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--new", required=True)
    ap.add_argument("--old")
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--modes", default="keys,normalize,schema")
    ap.add_argument("--branch-sim", action="store_true")
    ap.add_argument("--dir")
    a = ap.parse_args()
    modes = a.modes.split(",")
    for m in modes:
        if m not in MODES:
            raise SystemExit("unknown mode %r (known: %s)" % (m, ", ".join(MODES)))
    builds = [("old", a.old)] if a.old else []
    builds.append(("new", a.new))

    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        outputs, answers = os.path.join(d, "outputs.jsonl"), os.path.join(d, "answers.jsonl")
        schema = os.path.join(d, "schema.json")
        with open(schema, "w") as f:
            json.dump(SCHEMA, f)
        subprocess.run([a.writer, str(a.lines), outputs, answers], check=True,
                       stdout=subprocess.DEVNULL)
        base = count([a.baseline, "answers", answers], a.branch_sim, subprocess.DEVNULL)

        head = "| mode |"
        rule = "|---|"
        for tag, _ in builds:
            head += " %s: billions | ×baseline |" % tag
            rule += "---:|---:|"
            if a.branch_sim:
                head += " %s: missed a line (cond + ind) |" % tag
                rule += "---:|"
        print(head)
        print(rule)

        def misses(r):
            return "%d + %d" % (round(r["cond"] / a.lines), round(r["ind"] / a.lines))

        row = "| baseline (nlohmann, answers alone) |"
        for _ in builds:
            row += " %.3f | 1.00 |" % (base["instructions"] / 1e9)
            if a.branch_sim:
                row += " %s |" % misses(base)
        print(row)
        for m in modes:
            row = "| `%s` |" % " ".join(MODES[m]).replace("{schema}", "S")
            written = []
            for tag, tool in builds:
                out = os.path.join(d, "out-%s.jsonl" % tag)
                command = [tool, "--jsonl", "--jobs", "1"]
                command += [x.replace("{schema}", schema) for x in MODES[m]] + [outputs]
                with open(out, "w") as f:
                    r = count(command, a.branch_sim, f)
                with open(out, "rb") as f:
                    written.append(f.read())
                row += " %.3f | %.2f |" % (r["instructions"] / 1e9,
                                           r["instructions"] / base["instructions"])
                if a.branch_sim:
                    row += " %s |" % misses(r)
            if len(written) == 2 and written[0] != written[1]:
                print(row)
                print("mode %s: the two tools wrote different bytes" % m, file=sys.stderr)
                sys.exit(2)
            print(row)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
