#!/usr/bin/env python3
# llmjson: the batch benchmark of issue 20, `llmjson --jsonl` on generated model outputs against
# nlohmann parsing the answers alone; throughput, scaling over jobs, peak memory.
# SPDX-License-Identifier: MIT
"""Times `llmjson --jsonl --keys result` on 10k, 100k and 1M generated model outputs (about 2 KB
each: reasoning with drafts, fences, prose, harmony, about 2% that fail; see write_jsonl.cpp)
against the baseline, `llmjson_jsonl_baseline answers` (nlohmann::json::parse on each answer
alone, read line by line the same way), with --jobs 1 and --jobs 2.

Each size is generated into a temporary folder (1M lines: about 2.2 GB, plus 0.45 GB of answers
and 2 x 0.5 GB of results; --dir chooses where). Then, for each of --repeats rounds, for each
size: the baseline, --jobs 1 and --jobs 2 one after the other (interleaved, so that a busy
moment of the machine touches all three); each run's wall time (best of the rounds) and peak
RSS (wait4's ru_maxrss, the largest of the rounds; `llmjson_jsonl_baseline run` starts each
run and measures it: a process started from Python would inherit Python's peak). The tool's results go to a file in the
folder (the same for every run; the baseline writes nothing); the inputs are read once before
the first round so that every round reads them from the page cache.

Checked on every size, first round: --jobs 1 and --jobs 2 give the same bytes, one result line
per input line in order (`line` = the input's line number, `id` = it too, or `req-N` with
--openai), every answer equal (as JSON) to the one the generator wrote, every other line an
error (kind `input` exactly where the line is not a JSON string, or the request failed).
A failed check: exit 2.

Targets (not with --quick), on the largest size: one job's time at most 1.5x the baseline's;
--jobs 2 at least 1.8x one job's throughput; peak RSS at the largest size at most 10% or 4 MB
(whichever is larger) above the smallest size's, for each job count. A missed target: exit 1.

With --stages, then, on the largest size: where one job's time goes, each stage of a batch
run alone by llmjson_jsonl_baseline (one thread, best of --repeats interleaved rounds): reading
the lines, decoding each line's JSON string with nlohmann (and with a hand-written reader),
extract, the result line written, and nlohmann parsing again the valid candidates inside and
outside reasoning (their values, which extract builds).

usage: jsonl_bench.py --tool PATH --writer PATH --baseline PATH [--quick] [--openai] [--stages]
                      [--sizes N,N,...] [--repeats R] [--dir DIR] [--keep]
  --quick    10k lines, one round, the checks and the table but no targets (seconds)
  --openai   the same outputs as OpenAI Batch API lines: --at .../content --id-at /custom_id
  --stages   the stages' table (not with --openai: the stages read the plain lines)
Exit 0: every check passed and every target met (or --quick); 1: a target missed; 2: a check
failed, or a run failed.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

KEYS = "result"
CONTENT = "/response/body/choices/0/message/content"
MB = 1e6


class Failed(Exception):
    """A run that did not do what it must, or a wrong result: the benchmark stops."""


def run(launcher, args, out_path):
    """Runs `args` with stdout to `out_path` (or /dev/null) through `llmjson_jsonl_baseline run`,
    which measures it; returns (exit status, seconds, CPU seconds, peak RSS in MB, its stderr)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.run([launcher, "run", out_path or os.devnull] + args,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    if p.returncode != 0:
        raise Failed("%s run: exit %d: %s" % (launcher, p.returncode, text.strip()[:2000]))
    m = json.loads(p.stdout)
    return m["exit"], m["seconds"], m["cpu_seconds"], m["peak_rss_kb"] * 1024 / MB, text


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def warm(path):
    """Reads the file once: the rounds then read it from the page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 22):
            pass


def check_results(outputs, answers, results, openai):
    """Checks the tool's results line by line against the generator's answers. Returns the
    count of each error kind."""
    kinds = {}
    with open(outputs, "rb") as fi, open(answers, "rb") as fa, open(results, "rb") as fr:
        n = 0
        for n, (line, answer, result) in enumerate(zip(fi, fa, fr), start=1):
            try:
                r = json.loads(result)
            except ValueError as e:
                raise Failed("result line %d is not JSON (%s): %.200r" % (n, e, result))
            try:
                doc = json.loads(line)
                not_json = False
                broken = doc.get("response") is None if openai else not isinstance(doc, str)
            except ValueError:
                not_json = broken = True
            want_id = "req-%d" % n if openai else n
            if openai and not_json:  # no id to read on a line that is not JSON
                want_id = None
            if r.get("line") != n or r.get("id") != want_id:
                raise Failed("result line %d has line %r, id %r: expected %r and %r"
                             % (n, r.get("line"), r.get("id"), n, want_id))
            answer = answer.rstrip(b"\n")
            if answer:
                if r.get("ok") is not True:
                    raise Failed("line %d has an answer, the tool says %.300r" % (n, result))
                if r.get("value") != json.loads(answer):
                    raise Failed("line %d: the tool's answer %.200r is not %.200r" % (n, result, answer))
                continue
            if r.get("ok") is not False or not isinstance(r.get("error"), dict):
                raise Failed("line %d has no answer, the tool says %.300r" % (n, result))
            kind = r["error"].get("kind")
            message = r["error"].get("message")
            if not isinstance(message, str) or not message or "\n" in message:
                raise Failed("line %d: the error's message is not one line: %.300r" % (n, result))
            if (kind == "input") != broken:
                raise Failed("line %d: error kind %r, but the line %s" % (
                    n, kind, "is not a model output" if broken else "is a model output"))
            kinds[kind] = kinds.get(kind, 0) + 1
        extra = [f.readline() for f in (fi, fa, fr)]
        if any(extra):
            raise Failed("after line %d: the outputs, answers and results differ in length "
                         "(%s left over)" % (n, ", ".join(
                             name for name, e in zip(("outputs", "answers", "results"), extra) if e)))
    return kinds


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %s, %d CPUs" % (platform.platform(), cpu, os.cpu_count() or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--openai", action="store_true")
    ap.add_argument("--stages", action="store_true")
    ap.add_argument("--sizes")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--dir")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    sizes = [10000] if a.quick else [10000, 100000, 1000000]
    if a.sizes:
        try:
            sizes = sorted({int(s) for s in a.sizes.split(",")})
        except ValueError:
            ap.error("--sizes: whole numbers separated by commas")
        if sizes[0] < 1:
            ap.error("--sizes: at least one line each")
    if a.stages and a.openai:
        ap.error("--stages reads the plain lines: not with --openai")
    repeats = a.repeats if a.repeats is not None else (1 if a.quick else 3)
    if repeats < 1:
        ap.error("--repeats: at least 1")
    for name in ("tool", "writer", "baseline"):
        path = getattr(a, name)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error("--%s %s: not an executable file" % (name, path))

    work = tempfile.mkdtemp(prefix="llmjson-jsonl-bench-", dir=a.dir)
    try:
        return bench(a, sizes, repeats, work)
    except Failed as e:
        print("jsonl_bench: FAILED: %s" % e, file=sys.stderr)
        return 2
    finally:
        if a.keep:
            print("jsonl_bench: files kept in %s" % work, file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def bench(a, sizes, repeats, work):
    tool = [a.tool, "--jsonl", "--keys", KEYS]
    if a.openai:
        tool += ["--at", CONTENT, "--id-at", "/custom_id"]
    files = {}
    for n in sizes:
        outputs = os.path.join(work, "outputs-%d.jsonl" % n)
        answers = os.path.join(work, "answers-%d.txt" % n)
        start = time.perf_counter()
        p = subprocess.run([a.writer] + (["--openai"] if a.openai else []) + [str(n), outputs, answers],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise Failed("%s %d: exit %d: %s" % (a.writer, n, p.returncode, p.stderr.decode()))
        summary = json.loads(p.stdout)
        print("generated %d lines in %.1f s: %.1f MB of input, %.1f MB of answers, mean output "
              "%.0f bytes" % (n, time.perf_counter() - start, summary["outputs_file_bytes"] / MB,
                              summary["answers_file_bytes"] / MB, summary["output_bytes"] / n),
              file=sys.stderr)
        files[n] = (outputs, answers, summary)

    version = subprocess.run([a.tool, "--version"], stdout=subprocess.PIPE).stdout.decode().strip()
    print("machine: %s; load average before: %s" % (machine(), "%.2f %.2f %.2f" % os.getloadavg()))
    print("tool: %s (%s), %s" % (version, a.tool, " ".join(tool[1:]) + " --jobs N FILE > FILE"))

    best = {}  # (n, what) -> seconds
    best_cpu = {}  # (n, what) -> CPU seconds (user and system)
    peak = {}  # (n, what) -> MB
    for n in sizes:
        warm(files[n][0])
        warm(files[n][1])
    for rnd in range(repeats):
        for n in sizes:
            outputs, answers, summary = files[n]
            runs = [("baseline", [a.baseline, "answers", answers], None)]
            for jobs in (1, 2):
                runs.append(("jobs%d" % jobs, tool + ["--jobs", str(jobs), outputs],
                             os.path.join(work, "results-%d-jobs%d.jsonl" % (n, jobs))))
            for what, args, out in runs:
                rc, seconds, cpu, rss, err = run(a.baseline, args, out)
                expected = 0 if what == "baseline" or summary["failing_lines"] == 0 else 1
                if rc != expected:
                    raise Failed("%s: exit %d, expected %d: %s" % (" ".join(args), rc, expected, err.strip()[:2000]))
                if what != "baseline" and err:
                    raise Failed("%s wrote on stderr (not a terminal): %.500r" % (" ".join(args), err))
                best[n, what] = min(best.get((n, what), seconds), seconds)
                best_cpu[n, what] = min(best_cpu.get((n, what), cpu), cpu)
                peak[n, what] = max(peak.get((n, what), rss), rss)
            if rnd == 0:
                r1, r2 = runs[1][2], runs[2][2]
                if sha256(r1) != sha256(r2):
                    raise Failed("%d lines: --jobs 1 and --jobs 2 give different results" % n)
                kinds = check_results(outputs, answers, r1, a.openai)
                print("checked %d lines: --jobs 1 and 2 identical, every answer right, errors: %s"
                      % (n, ", ".join("%s %d" % kv for kv in sorted(kinds.items()))), file=sys.stderr)
    print("load average after: %.2f %.2f %.2f; best of %d interleaved rounds: wall times, and "
          "the ratio of CPU times (user and system, each the least of the rounds)"
          % (os.getloadavg() + (repeats,)))
    print()
    print("| lines | input MB | answers MB | baseline | 1 job | MB/s | ×baseline | CPU ×baseline "
          "| 2 jobs | MB/s | 1 job ÷ 2 jobs | CPU 2 jobs ÷ 1 job | peak RSS: baseline, 1 job, 2 jobs |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in sizes:
        size = files[n][2]["outputs_file_bytes"] / MB
        b, j1, j2 = best[n, "baseline"], best[n, "jobs1"], best[n, "jobs2"]
        print("| %s | %.0f | %.0f | %.2f s | %.2f s | %.0f | %.2f | %.2f | %.2f s | %.0f | %.2f | %.2f "
              "| %.1f, %.1f, %.1f MB |" % (
                  "{:,}".format(n), size, files[n][2]["answers_file_bytes"] / MB, b, j1, size / j1,
                  j1 / b, best_cpu[n, "jobs1"] / best_cpu[n, "baseline"], j2, size / j2, j1 / j2,
                  best_cpu[n, "jobs2"] / best_cpu[n, "jobs1"],
                  peak[n, "baseline"], peak[n, "jobs1"], peak[n, "jobs2"]))
    print()
    if a.stages:
        stages(a, files[sizes[-1]], repeats, best[sizes[-1], "jobs1"], best_cpu[sizes[-1], "jobs1"])
    if a.quick:
        print("--quick: no targets checked")
        return 0
    big, small = sizes[-1], sizes[0]
    targets = [
        ("1 job within 1.5x the baseline at %d lines" % big,
         best[big, "jobs1"] / best[big, "baseline"], "<=", 1.5),
        ("2 jobs at least 1.8x one job's throughput at %d lines" % big,
         best[big, "jobs1"] / best[big, "jobs2"], ">=", 1.8),
    ]
    for jobs in (1, 2):
        lo = peak[small, "jobs%d" % jobs]
        limit = max(lo * 1.10, lo + 4)
        targets.append(("peak RSS of %d job%s at %d lines within max(+10%%, +4 MB) of %d lines "
                        "(%.1f MB)" % (jobs, "s" if jobs > 1 else "", big, small, limit),
                        peak[big, "jobs%d" % jobs], "<=", limit))
    missed = 0
    for what, value, op, limit in targets:
        ok = value <= limit if op == "<=" else value >= limit
        missed += not ok
        print("- %s: %s (%.2f %s %.2f)" % (what, "met" if ok else "MISSED", value, op, limit))
    return 1 if missed else 0


STAGES = [
    ("read", "reading the lines (1 MiB freads, split at LF)"),
    ("answers", "the baseline: nlohmann parsing each answer alone"),
    ("decode", "each line's JSON string decoded by nlohmann::json::parse"),
    ("unescape", "the same decoded by a hand-written string reader"),
    ("extract", "nlohmann's decoding, then extract(output, any_key({\"result\"}))"),
    ("format", "that, then each result line built (minify) and written to a file"),
    ("drafts", "nlohmann's decoding, then candidates(), then each valid candidate parsed again"),
]


def stages(a, files, repeats, one_job, one_job_cpu):
    """Prints where one job's time goes, each stage run alone."""
    outputs, answers, summary = files
    best, best_cpu, last = {}, {}, {}
    for _ in range(repeats):
        for name, _what in STAGES:
            out = os.path.join(os.path.dirname(outputs), "stage-%s.out" % name)
            rc, seconds, cpu, _rss, err = run(a.baseline, [a.baseline, name,
                                                      answers if name == "answers" else outputs], out)
            if rc != 0:
                raise Failed("llmjson_jsonl_baseline %s: exit %d: %s" % (name, rc, err.strip()))
            m = json.loads(err.strip().splitlines()[-1])
            best[name] = min(best.get(name, seconds), seconds)
            best_cpu[name] = min(best_cpu.get(name, cpu), cpu)
            last[name] = m
    base, base_cpu = best["answers"], best_cpu["answers"]
    print("Where the time goes, %s lines (one thread, best of %d; the tool's --jobs 1: %.2f s, "
          "%.2fx the baseline; CPU time %.2f s, %.2fx):" % (
              "{:,}".format(summary["lines"]), repeats, one_job, one_job / base, one_job_cpu,
              one_job_cpu / base_cpu))
    print()
    print("| stage | s | ×baseline | CPU s | CPU ×baseline |")
    print("|---|---:|---:|---:|---:|")
    for name, what in STAGES:
        print("| `%s`: %s | %.2f | %.2f | %.2f | %.2f |" % (
            name, what, best[name], best[name] / base, best_cpu[name], best_cpu[name] / base_cpu))
    d = last["drafts"]
    print()
    print("Valid candidates: %s in reasoning (nlohmann parses their texts in %.2f s), %s outside "
          "(%.2f s), for %s lines." % ("{:,}".format(d["valid_in_reasoning"]), d["parse_in_reasoning_s"],
                                        "{:,}".format(d["valid_outside"]), d["parse_outside_s"],
                                        "{:,}".format(d["lines"])))
    print()


if __name__ == "__main__":
    sys.exit(main())
