#!/usr/bin/env python3
# llmjson: tests of the `llmjson` tool, run by ctest on the built binary, one group per ctest entry
# SPDX-License-Identifier: MIT
"""Runs the built `llmjson` binary and checks what it prints and how it exits.

usage: cli_test.py --binary PATH --corpus DIR --examples DIR --version-header FILE
                   [--cases K/N] GROUP

Groups: corpus, stdin_vs_file, report_matches_explain, usage_errors, any_bytes,
large_input, examples, early, response, jsonl, signals. Exit 0: passed; 1: failed (each failure on its own line).
"""

import argparse
import json
import os
import random
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time

KINDS = ("empty", "no_json", "truncated", "no_match", "ambiguous", "too_large")
ERROR_LINE = re.compile(r"llmjson: (%s): [^\n]+\n" % "|".join(KINDS))


class Checker:
    def __init__(self, binary):
        self.binary = binary
        self.failures = []
        self.checks = 0

    def run(self, args, stdin=b"", timeout=300):
        """Runs the tool; returns (exit code, stdout bytes, stderr bytes)."""
        try:
            p = subprocess.run([self.binary] + args, input=stdin, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, b"", b"timed out after %d s" % timeout
        return p.returncode, p.stdout, p.stderr

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures.append(what)
        return ok

    def finish(self, group):
        for f in self.failures:
            print("FAIL:", f)
        print("%s: %d checks, %d failed" % (group, self.checks, len(self.failures)))
        return 1 if self.failures else 0


def same_json(a, b):
    """JSON equality: numbers by value, but true is not 1 (Python's == says it is)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# A JSON text's tokens: strings (escapes and all) and the single bytes between them that are not
# JSON white space. Joined, they are the text minified: written apart from llmjson::minify.
TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[^ \t\r\n"]')


RAW_ESCAPES = {b"\n": b"\\n", b"\r": b"\\r", b"\t": b"\\t"}


def tokens_of(data):
    """The tokens joined, a raw LF, CR or tab inside a string escaped (an answer valid with raw
    controls is printed so, rules v4 section 3)."""
    return b"".join(re.sub(rb"[\n\r\t]", lambda m: RAW_ESCAPES[m.group(0)], t) if t[:1] == b'"' else t
                    for t in TOKEN.findall(data))


def parse_json(data):
    """Parses bytes as strict UTF-8 JSON; returns (ok, value)."""
    try:
        return True, json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False, None


# ---------------------------------------------------------------------------------------------
# The corpus

# --cases K/N: the corpus loops take the cases K, K + N, K + 2N... (main() says which checks)
CASES = (0, 1)


def load_cases(corpus):
    """The corpus cases: (name, path, expectation), those of --cases K/N, and of those, with
    LLMJSON_CLI_CORPUS_STEP=S, every Sth (the sanitizer and libc++ stages of .ci/run: a sanitized
    tool is slow to start, and its paths are the same on a sixth of the texts)."""
    cases = []
    for name in sorted(os.listdir(corpus)):
        if name.endswith(".txt"):
            stem = name[:-4]
            with open(os.path.join(corpus, stem + ".expect.json"), encoding="utf-8") as f:
                cases.append((stem, os.path.join(corpus, name), json.load(f)))
    if not cases:
        raise SystemExit("no cases in " + corpus)
    step = int(os.environ.get("LLMJSON_CLI_CORPUS_STEP", "1") or "1")
    return cases[CASES[0]::CASES[1]][::max(step, 1)]


def utf8_cases(corpus):
    """The corpus cases whose text is UTF-8 (a JSON string or response cannot carry other bytes):
    (name, bytes, text, case)."""
    for name, path, case in load_cases(corpus):
        with open(path, "rb") as f:
            data = f.read()
        try:
            yield name, data, data.decode("utf-8"), case
        except UnicodeDecodeError:
            continue


class Flags:
    """The case's selection as command-line flags; a schema goes to a temporary file."""

    def __init__(self, case):
        self.case = case
        self.tmp = None

    def __enter__(self):
        select = self.case["select"]
        args = ["--policy", self.case["policy"]]
        if "prefill" in self.case:
            args += ["--prefill", self.case["prefill"]]
        if "keys" in select:
            keys = select["keys"]
            if any("," in k for k in keys):
                raise ValueError("a key holds a comma: --keys cannot say it")
            for k in keys:
                args += ["--keys", k]
        elif "schema" in select:
            fd, self.tmp = tempfile.mkstemp(suffix=".schema.json")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(select["schema"], f)
            args += ["--schema", self.tmp]
        return args

    def __exit__(self, *exc):
        if self.tmp:
            os.unlink(self.tmp)


def check_plain(c, name, case, rc, out, err):
    """Checks a plain run's exit code and output against the case's expectation."""
    if case["error"] is None:
        ok, value = parse_json(out)
        c.check(rc == 0, "%s: exit %d, expected 0; stderr: %r" % (name, rc, err[:300]))
        c.check(ok and same_json(value, case["expect"]), "%s: stdout %r is not the expected value" % (name, out[:300]))
        c.check(out.count(b"\n") == 1 and out.endswith(b"\n"), "%s: stdout is not one line" % name)
    else:
        text = err.decode("utf-8", "replace")
        m = ERROR_LINE.fullmatch(text)
        c.check(rc == 1, "%s: exit %d, expected 1" % (name, rc))
        c.check(out == b"", "%s: stdout not empty on failure: %r" % (name, out[:300]))
        c.check(m is not None and m.group(1) == case["error"],
                "%s: stderr %r is not one line 'llmjson: %s: ...'" % (name, text[:300], case["error"]))


def later_note(rep):
    """The start of the note for the qualifying candidates policy first passed over, as the
    report's later_qualifying (indices into candidates) names them."""
    later = [rep["candidates"][k] for k in rep["later_qualifying"]]
    places = ", ".join("%d:%d" % (x["line"], x["column"]) for x in later[:8])
    return ("llmjson: note: %d later candidate%s also qualif%s: %s" % (
        len(later), "" if len(later) == 1 else "s", "ies" if len(later) == 1 else "y", places)).encode()


def group_corpus(c, a):
    for name, path, case in load_cases(a.corpus):
        with open(path, "rb") as f:
            data = f.read()
        with Flags(case) as flags:
            rc, out, err = c.run(flags + [path])
            check_plain(c, name, case, rc, out, err)
            if case["error"] is None:
                # The answer is the chosen span as the model wrote it, minified: byte for byte.
                # Offsets count in the output; the prefill's bytes come before 0.
                read = case.get("prefill", "").encode("utf-8") + data
                base = len(read) - len(data)
                rep = parse_json(c.run(flags + ["--report", path])[1])[1]
                chosen = [x for x in rep["candidates"] if x["verdict"] in ("chosen", "fallback")]
                if c.check(len(chosen) == 1, name + ": the report has no chosen candidate"):
                    at = base + chosen[0]["offset"]
                    span = read[at:at + chosen[0]["length"]]
                    c.check(out == tokens_of(span) + b"\n",
                            "%s: stdout %r is not the answer's tokens %r" % (name, out[:200], tokens_of(span)[:200]))
                    c.check(rep["text"].encode("utf-8") == span, name + ": the report's text is not the span")
                    # Notes: one line for a fallback, one for later qualifying candidates, one for
                    # a cut after the answer, nothing else.
                    lines = err.split(b"\n")[:-1]
                    want = [b"llmjson: note: no candidate "] * rep["fallback"] + \
                           [later_note(rep)] * bool(rep["later_qualifying"]) + \
                           [b"llmjson: note: the output was cut after the answer: "] * (rep["truncated"] is not None) + \
                           [b"llmjson: note: the answer at "] * rep["raw_controls"]
                    c.check(rep["raw_controls"] == chosen[0]["raw_controls"], name + ": raw_controls")
                    c.check(len(lines) == len(want) and all(l.startswith(w) for l, w in zip(lines, want)),
                            "%s: stderr %r, expected notes %r" % (name, err[:300], want))
                rc, pretty, _ = c.run(flags + ["--pretty", path])
                ok, value = parse_json(pretty)
                c.check(rc == 0 and ok and same_json(value, case["expect"]), name + ": --pretty gives another value")
                c.check(tokens_of(pretty) == out[:-1], name + ": --pretty changes a token")


def group_stdin_vs_file(c, a):
    for name, path, case in load_cases(a.corpus):
        with open(path, "rb") as f:
            data = f.read()
        with Flags(case) as flags:
            by_file = c.run(flags + [path])
            c.check(c.run(flags, data) == by_file, name + ": stdin (no FILE) differs from the file")
            c.check(c.run(flags + ["-"], data) == by_file, name + ": stdin ('-') differs from the file")


# ---------------------------------------------------------------------------------------------
# --report against --explain

def parse_table(text):
    """Parses the --explain table (columns start where the header's do); returns (rows, rest)."""
    lines = text.split("\n")
    header = lines[0]
    names = header.split()
    if names != ["#", "line:col", "source", "bytes", "verdict", "reason"]:
        raise ValueError("unexpected header %r" % header)
    starts = [header.index(n) for n in names]  # distinct names, each once
    rows, rest = [], []
    for line in lines[1:]:
        if not line:
            continue
        if not re.match(r"\d+ ", line):
            rest.append(line)
            continue
        cells = [line[s:e].rstrip() for s, e in zip(starts, starts[1:])] + [line[starts[-1]:]]
        for s in starts[1:]:
            if line[s - 1] != " ":
                raise ValueError("row not aligned with the header: %r" % line)
        rows.append(cells)
    return rows, rest


def expected_source(cand):
    if cand["source"] == "part":
        return "whole part"
    if cand["source"] == "whole":
        return "whole output"
    if cand["source"] == "fence":
        return 'fence "%s"' % cand["info"]
    label = 'in fence "%s"' % cand["info"] if cand["in_fence"] else "prose"
    # A scan candidate a frame encloses: a piece of something bigger, never the fallback.
    return label + " (enclosed)" if cand["enclosed"] else label


def printable(s):
    return all(0x20 <= ord(ch) < 0x7F for ch in s)


def check_report_against_explain(c, name, args, stdin=b""):
    prefill = args[args.index("--prefill") + 1] if "--prefill" in args else ""
    plain_rc, plain_out, plain_err = c.run(args, stdin)
    rc, out, err = c.run(["--report", "--explain"] + args, stdin)
    ok, rep = parse_json(out)
    if not c.check(ok and isinstance(rep, dict), "%s: --report is not one JSON object: %r" % (name, out[:300])):
        return
    c.check(rc == plain_rc, "%s: --report exits %d, plain %d" % (name, rc, plain_rc))
    issue = ["ok", "error", "value", "truncated", "candidates"]  # the issue's members, in its order
    c.check([k for k in rep if k in issue] == issue, name + ": report members " + str(list(rep)))
    c.check(rep["ok"] == (rc == 0), name + ": ok does not match the exit code")
    if rc == 0:
        _, value = parse_json(plain_out)
        c.check(rep["error"] is None and same_json(rep["value"], value), name + ": report value differs from the plain output")
    else:
        m = ERROR_LINE.fullmatch(plain_err.decode("utf-8", "replace"))
        c.check(rep["value"] is None and rep["error"] is not None and m is not None and m.group(1) == rep["error"]["kind"],
                name + ": report error differs from the plain stderr line")
    # The notes come first: one for a fallback, one for a cut after the answer, as the report says.
    want = [b"llmjson: note: no candidate "] * bool(rep["fallback"]) + \
           [later_note(rep)] * bool(rep["later_qualifying"]) + \
           [b"llmjson: note: the output was cut after the answer: "] * (rc == 0 and rep["truncated"] is not None) + \
           [b"llmjson: note: the answer at "] * bool(rep["raw_controls"])
    notes = err.split(b"\n")[:len(want)]
    c.check(all(n.startswith(w) for n, w in zip(notes, want)) and len(notes) == len(want),
            "%s: notes %r, expected %r" % (name, notes, want))
    if rc == 0:
        c.check(b'"value":' + plain_out[:-1] + b',"text":' in tokens_of(out),
                name + ": the report's value is not the plain output's tokens")
    try:
        text = err[sum(len(n) + 1 for n in notes):].decode("utf-8")
        rows, rest = parse_table(text)
    except (UnicodeDecodeError, ValueError) as e:
        c.check(False, "%s: --explain table unreadable: %s" % (name, e))
        return
    cands = rep["candidates"]
    if not c.check(len(rows) == len(cands), "%s: %d table rows, %d report candidates" % (name, len(rows), len(cands))):
        return
    chosen = [cand for cand in cands if cand["verdict"] in ("chosen", "fallback")]
    c.check(len(chosen) == (1 if rc == 0 else 0), name + ": chosen/fallback count does not match the outcome")
    # later_qualifying: under first, every qualifying candidate after the chosen one; else none.
    after = [i for i, cand in enumerate(cands) if cand["verdict"] == "qualifies"
             and chosen and chosen[0]["verdict"] == "chosen" and cand["offset"] > chosen[0]["offset"]]
    c.check(rep["later_qualifying"] == (after if rc == 0 and rep["policy"] == "first" else []),
            "%s: later_qualifying %r, expected %r" % (name, rep["later_qualifying"], after))
    for i, (row, cand) in enumerate(zip(rows, cands), 1):
        where = "%s: candidate %d" % (name, i)
        c.check(row[0] == str(i), where + ": numbered " + row[0])
        c.check(row[1] == "%d:%d" % (cand["line"], cand["column"]), where + ": line:col %s vs report" % row[1])
        source = expected_source(cand)
        c.check(row[2] == source if printable(source) else row[2].startswith(source.split('"')[0]),
                where + ": source %r vs report %r" % (row[2], source))
        c.check(row[3] == str(cand["length"]), where + ": bytes %s vs length %d" % (row[3], cand["length"]))
        c.check(row[4] == cand["verdict"], where + ": verdict %s vs %s" % (row[4], cand["verdict"]))
        c.check(cand["qualifies"] == (cand["verdict"] in ("chosen", "qualifies")), where + ": qualifies vs verdict")
        reason = cand["message"]
        if cand["raw_controls"]:  # valid once they are escaped: the table says so
            reason = "raw line breaks or tabs in strings" + ("; " + reason if reason else "")
        reason = reason or "-"
        if printable(reason):
            c.check(row[5] == reason, where + ": reason %r vs %r" % (row[5], reason))
        for k in ("offset", "length", "line", "column"):
            least = (-len(prefill) if k == "offset" else 0) if k in ("offset", "length") else 1
            c.check(isinstance(cand[k], int) and cand[k] >= least, where + ": bad " + k)
        # Only scan candidates are ever enclosed, and an enclosed one is never the fallback.
        c.check(isinstance(cand["enclosed"], bool)
                and not (cand["enclosed"] and (cand["source"] != "prose" or cand["verdict"] == "fallback")),
                where + ": enclosed %r with source %s, verdict %s" % (cand["enclosed"], cand["source"], cand["verdict"]))
    # The error message names the candidates' positions, and why each was rejected.
    err_ = rep["error"]
    named = []
    if err_ and err_["kind"] == "no_match":
        named = [cand for cand in cands if not cand["in_reasoning"]]
        for cand in cands:
            if cand["in_reasoning"]:
                c.check(cand["verdict"] == "reasoning" and cand["marker"], "%s: a reasoning candidate's verdict/marker" % name)
                place = "%d:%d" % (cand["line"], cand["column"])
                c.check(place in err_["message"], "%s: the message does not name the reasoning candidate at %s" % (name, place))
    elif err_ and err_["kind"] == "ambiguous":
        named = [cand for cand in cands if cand["qualifies"]]
    for cand in named[:8]:
        place = "%d:%d" % (cand["line"], cand["column"])
        c.check(place in err_["message"], "%s: the message does not name %s" % (name, place))
        if cand["message"] and printable(cand["message"]):
            c.check(cand["message"] in err_["message"], "%s: the message does not say why %s was rejected" % (name, place))
    cut = rep["truncated"]
    cut_lines = [r for r in rest if r.startswith("cut: ")]
    c.check(len(cut_lines) == (1 if cut else 0), name + ": the table's cut line does not match 'truncated'")
    if cut and cut_lines and printable(cut["message"]):
        c.check(cut_lines[0] == "cut: " + cut["message"], name + ": the cut differs")
    if cut:
        c.check(isinstance(cut["reasoning"], bool) and (cut["marker"] is None or cut["reasoning"]),
                name + ": the cut's reasoning/marker")
    near = rep["near_misses"]
    near_lines = [r for r in rest if r.startswith("near miss: ")]
    c.check(len(near_lines) == len(near), name + ": %d near-miss lines, %d in the report" % (len(near_lines), len(near)))
    c.check(not near or (err_ and err_["kind"] in ("no_json", "no_match")),
            name + ": near misses outside a no_json or no_match error")
    for line, m in zip(near_lines, near):
        place = "%d:%d" % (m["line"], m["column"])
        c.check(line.startswith("near miss: " + place + " "), name + ": near miss line %r vs %s" % (line, place))
        c.check(place in err_["message"], name + ": the message does not name the near miss at " + place)


def report_matches_explain_corpus(c, a):
    for name, path, case in load_cases(a.corpus):
        with Flags(case) as flags:
            check_report_against_explain(c, name, flags + [path])
            check_report_against_explain(c, name + " (no flags)", [path])


def group_report_matches_explain(c, a):
    for args in example_runs(a.examples):
        check_report_against_explain(c, "examples: " + " ".join(args), args)
    for name, data in odd_inputs():
        check_report_against_explain(c, name, [], data)
        check_report_against_explain(c, name + " (--keys a)", ["--keys", "a"], data)
    # A success under policy first still reports the cut that came after the answer.
    cut_later = b'draft {"a": 1}\nfinal {"a": 2, "b": ['
    check_report_against_explain(c, "answer then a cut", [], cut_later)
    # Reasoning: the report says which candidates lie in a region, and which marker opened it.
    rc, out, _ = c.run(["--report", "--keys", "orders", os.path.join(a.examples, "04-think-then-orders.txt")])
    ok, rep = parse_json(out)
    c.check(rc == 0 and ok and [(x["in_reasoning"], x["marker"], x["verdict"]) for x in rep["candidates"]]
            == [(True, "<think>", "reasoning"), (False, None, "chosen")], "reasoning in --report: %r" % out[:400])
    rc, out, _ = c.run(["--report"], b"<think>\nstill {\"a\": 1} thinking")
    ok, rep = parse_json(out)
    c.check(rc == 1 and ok and rep["truncated"]["reasoning"] is True and rep["truncated"]["marker"] == "<think>",
            "a reasoning cut in --report: %r" % out[:400])
    rc, out, _ = c.run(["--report", "--reasoning-tags", "<scratch>,</scratch>"], b"<scratch>{\"a\": 1}</scratch>{\"b\": 2}")
    ok, rep = parse_json(out)
    c.check(rc == 0 and ok and rep["value"] == {"b": 2}, "--reasoning-tags: %r" % out[:400])
    # --reasoning-off: a built-in format's markers are text (options::reasoning_off).
    ollama = b"Thinking...\n{\"a\": 1}\n...done thinking.\n{\"b\": 2}"
    for flags, want in (([], {"b": 2}), (["--reasoning-off", "ollama"], {"a": 1}),
                        (["--reasoning-off=granite,ollama"], {"a": 1}),
                        (["--reasoning-off", "granite", "--reasoning-off", "think"], {"b": 2})):
        rc, out, _ = c.run(flags, ollama)
        c.check(rc == 0 and parse_json(out)[1] == want, "%s: exit %d, %r" % (flags, rc, out[:200]))
    rc, _, err = c.run(["--reasoning-off", "Think"], ollama)
    c.check(rc == 2 and b"'Think' is not one of think, thinking," in err and b"granite, apriel, ollama" in err,
            "--reasoning-off with an unknown name: %r" % err)
    rc, out, err = c.run([], b"Sure:\n{'city': 'Paris'}\n")
    c.check(rc == 1 and err == b"llmjson: no_json: no JSON value in the output; 1 near miss: 2:1 {'city': 'Paris'}: "
            b"single quotes are not JSON strings\n", "a near miss on stderr: %r" % err)
    rc, out, _ = c.run(["--report"], cut_later)
    ok, rep = parse_json(out)
    c.check(rc == 0 and ok and rep["value"] == {"a": 1} and rep["truncated"] is not None
            and rep["truncated"]["line"] == 2 and rep["truncated"]["column"] == 7,
            "answer then a cut: %r" % out[:300])
    # Raw line breaks in a string (rules v4) are read as escaped: the malformed owner names its
    # real defect, the quote before k; and a piece inside a frame is never the fallback.
    rc, out, err = c.run(["--explain"], b'Here:\n{"name": "a.py", "code": "import os\nX = {"k": 1}\n"}\n')
    c.check(rc == 1 and err.startswith(b"llmjson: no_json: no JSON value in the output; 1 malformed candidate: "
                                       b"2:1 prose: malformed: line 3 col 7: invalid literal k, expected ',' or '}'\n"),
            "a raw line break on stderr: %r" % err)
    rc, out, err = c.run(["--explain", "--keys", "user_id"], b"It returned {'h': {\"a\": 1}} twice.")
    c.check(rc == 1 and err.startswith(b"llmjson: no_match: 1 candidate, none qualifies: 1:19 prose: has none of "
                                       b"the keys \"user_id\"; none can be the fallback: every valid one lies "
                                       b"inside a frame (a piece of something bigger); 1 near miss: 1:13 "
                                       b"{'h': {\"a\": 1}}: single quotes are not JSON strings\n")
            and b"prose (enclosed)" in err, "no fallback inside a frame: %r" % err)


# ---------------------------------------------------------------------------------------------
# Usage errors, odd bytes, a large input

def group_usage_errors(c, a):
    sample = os.path.join(a.examples, "02-draft-in-preamble.txt")
    bad = [
        ["--bogus"],
        ["-x", sample],
        ["--keys"],
        ["--keys", ""],
        ["--keys", "a,,b", sample],
        ["--policy", "best", sample],
        ["--policy"],
        ["--max-bytes", "ten", sample],
        ["--max-bytes", "-1", sample],
        ["--max-bytes", "10kB", sample],
        ["--max-bytes", "k", sample],
        ["--max-bytes", "99999999999999999999G", sample],
        ["--max-bytes", "17179869184G", sample],  # 2^64 bytes: one over the largest count
        ["--keys", sample],  # the file taken as a key, stdin as the input
        ["--keys", "category," + sample],
        ["--pretty=yes", sample],
        ["--keys", "a", "--schema", sample, sample],
        [sample, sample],
        [os.path.join(a.examples, "no-such-file.txt")],
        [a.examples],  # a directory
        ["--schema", os.path.join(a.examples, "no-such-schema.json"), sample],
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write('{"type": "no-such-type"}')
        invalid_schema = f.name
    bad += [
        ["--schema", sample, sample],  # not JSON
        ["--schema", invalid_schema, sample],
        ["--schema", "-"],  # the schema and the input cannot both be stdin
        ["--reasoning-tags", "<scratch>", sample],  # no comma
        ["--reasoning-tags", ",</scratch>", sample],
        ["--reasoning-tags", "<a>,</a>,x", sample],
        ["--reasoning-tags"],
        ["--starts-in", "sideways", sample],
        ["--no-reasoning-regions", "--starts-in", "answer", sample],
        ["--no-reasoning-regions", "--reasoning-tags", "<a>,</a>", sample],
        ["--reasoning-off", "nope", sample],
        ["--reasoning-off", "think,", sample],
        ["--reasoning-off"],
        ["--no-reasoning-regions", "--reasoning-off", "think", sample],
        ["--early", "--policy", "last", sample],  # nothing settles under last
        ["--early=yes", sample],
        ["--at", "/x", sample],  # --jsonl flags without --jsonl
        ["--jobs", "2", sample],
        ["--first-line", "3", sample],
        ["--jsonl", "--early", sample],
        ["--jsonl", "--explain", sample],
        ["--jsonl", "--pretty", sample],
        ["--jsonl", "--jobs", "0", sample],
        ["--jsonl", "--jobs", "two", sample],
        ["--jsonl", "--first-line", "0", sample],
        ["--jsonl", "--at", "x", sample],  # a pointer starts with /
        ["--jsonl", "--at", "/a~2", sample],
        ["--jsonl", "--at", "/a", "--at", "/b", sample],
        ["--jsonl", "--first-line", "1", "--first-line", "2", sample],
        ["--jsonl", "--jobs", "1", "--jobs", "2", sample],
        ["--jsonl", "--id-at", "/a", "--id-at", "/b", sample],
        ["--jsonl", "--response", "--reasoning-at", "/r", sample],
        ["--jsonl", os.path.join(a.examples, "no-such-file.jsonl")],
    ]
    for args in bad:
        rc, out, err = c.run(args)
        text = err.decode("utf-8", "replace")
        c.check(rc == 2, "%s: exit %d, expected 2" % (args, rc))
        c.check(out == b"", "%s: stdout not empty" % args)
        c.check(text.startswith("llmjson: ") and len(text) > 12, "%s: stderr %r" % (args, text))
        c.check("internal error" not in text, "%s: internal error" % args)
    os.unlink(invalid_schema)
    # A schema whose pattern is no valid u-mode pattern (ECMA-262 with the u flag), or holds a
    # backreference, is refused when it is loaded: exit 2, naming the construct and the pattern.
    for pattern, construct in (("^(?!.*(.)\\1\\1)", "backreference \\1 is not supported"),
                               ("(?<w>a)\\k<w>", "backreference \\k<w> is not supported"),
                               ("^a{,2}$", "lone '{'"),
                               ("\\p{Greek}", "unknown Unicode property \\p{Greek}")):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"properties": {"a": {"type": "string", "pattern": pattern}}}, f)
        rc, out, err = c.run(["--schema", f.name, sample])
        os.unlink(f.name)
        text = err.decode("utf-8", "replace")
        c.check(rc == 2 and out == b"", "pattern %r: exit %d, stdout %r" % (pattern, rc, out))
        c.check(text.startswith("llmjson: ") and construct in text and json.dumps(pattern) in text,
                "pattern %r: stderr %r" % (pattern, text))
    # Enum-valued flags take exactly the enumerators' names (llmjson::from_string), and an unknown
    # value's message lists them.
    for args, says in (
            (["--policy", "best", sample], "--policy: 'best' is not one of first, unique, last"),
            (["--policy=Unique", sample], "--policy: 'Unique' is not one of first, unique, last"),
            (["--starts-in", "auto", sample],
             "--starts-in: 'auto' is not one of unknown, reasoning, answer"),
            (["--starts-in", "", sample], "--starts-in: '' is not one of unknown, reasoning, answer")):
        rc, out, err = c.run(args)
        c.check(rc == 2 and err.decode("utf-8", "replace") == "llmjson: %s\n(try 'llmjson --help')\n" % says,
                "%s: exit %d, stderr %r" % (args, rc, err))
    # A key that names a file while stdin is the input: said, and how to say either meaning.
    rc, out, err = c.run(["--keys", sample], b'{"a": 1}')
    c.check(rc == 2 and err == ("llmjson: --keys: '%s' is taken as a key, and names a file: to read the file, "
                                "put it after the keys (--keys K1,K2 FILE); to read stdin with that key, add - "
                                "as the input\n(try 'llmjson --help')\n" % sample).encode(),
            "--keys FILE: exit %d, stderr %r" % (rc, err))
    rc, out, err = c.run(["--keys", sample, "-"], b'{"a": 1}')
    c.check(rc == 0 and out == b'{"a":1}\n', "--keys FILE -: exit %d, stderr %r" % (rc, err))
    # --max-bytes takes k, M and G (binary): 1k is 1024 bytes.
    for size, limit in (("1k", 1024), ("1K", 1024), ("1025", 1025), ("2M", 2 << 20)):
        for n, want in ((limit, 0), (limit + 1, 1)):
            rc, out, err = c.run(["--max-bytes", size], b'{"a": 1}' + b" " * (n - 8))
            c.check(rc == want and (want == 0 or err.startswith(b"llmjson: too_large: ")),
                    "--max-bytes %s, %d bytes: exit %d, stderr %r" % (size, n, rc, err[:200]))
    for size in ("1G", "16777216G"):
        rc, out, _ = c.run(["--max-bytes", size], b'{"a": 1}')
        c.check(rc == 0, "--max-bytes %s: exit %d" % (size, rc))
    for start in ("unknown", "reasoning", "answer"):
        rc, out, _ = c.run(["--starts-in", start], b'{"a": 1}')
        c.check(rc == 0 and parse_json(out)[1] == {"a": 1}, "--starts-in %s: exit %d" % (start, rc))
    rc, out, err = c.run(["--help"])
    c.check(rc == 0 and out.startswith(b"usage: llmjson") and err == b"", "--help")
    for flag in (b"--keys", b"--schema", b"--policy", b"--no-fallback", b"--explain", b"--report", b"--pretty",
                 b"--normalize", b"--no-reasoning-regions", b"--reasoning-tags", b"--reasoning-off", b"--starts-in",
                 b"--early"):
        c.check(flag in out, "--help does not mention " + flag.decode())
    with open(a.version_header, encoding="utf-8") as f:
        v = dict(re.findall(r"#define LLMJSON_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))
    rc, out, err = c.run(["--version"])
    c.check(rc == 0 and out == ("llmjson %s.%s.%s\n" % (v["MAJOR"], v["MINOR"], v["PATCH"])).encode(), "--version: %r" % out)
    # Valid but unusual command lines.
    rc, out, _ = c.run(["--", "-"], b'{"a": 1}')
    c.check(rc == 0 and parse_json(out)[1] == {"a": 1}, "'-- -' reads stdin, as cat does")
    rc, out, _ = c.run(["--keys=a", "--policy=last"], b'{"a": 1} {"a": 2}')
    c.check(rc == 0 and parse_json(out)[1] == {"a": 2}, "--name=value form")
    rc, out, _ = c.run(["--keys", "b", "--keys", "a"], b'{"a": 1}')
    c.check(rc == 0 and parse_json(out)[1] == {"a": 1}, "--keys repeated")
    rc, out, err = c.run(["--keys", "b"], b'x\n  {"a": 1}')
    c.check(rc == 0 and parse_json(out)[1] == {"a": 1}, "policy first falls back to the first valid candidate")
    c.check(err == b'llmjson: note: no candidate has key "b"; printed the first valid value (fallback at 2:3); '
                   b'--no-fallback makes this an error\n', "the fallback's note: %r" % err)
    rc, out, err = c.run(["--keys", "b,c"], b'{"a": 1}')
    c.check(rc == 0 and err.startswith(b'llmjson: note: no candidate has any of the keys "b", "c"; '), "%r" % err)
    rc, out, err = c.run([], b'[1] and then {"a": 1')
    c.check(rc == 1 and err.startswith(b"llmjson: truncated: "), "a cut object is never passed over: %r" % err)
    rc, out, err = c.run([], b'{"a": 1}\n{"b": [2')
    c.check(rc == 0 and out == b'{"a":1}\n' and err == b"llmjson: note: the output was cut after the answer: the "
            b"object opened at 2:1 never closes; --policy unique makes this an error\n", "a cut after the answer: %r" % err)
    rc, out, err = c.run(["--policy", "unique"], b'{"a": 1}\n{"b": [2')
    c.check(rc == 1 and err.startswith(b"llmjson: truncated: "), "--policy unique refuses a cut after the answer")
    rc, out, err = c.run([], b'{"a": 1}')
    c.check(rc == 0 and err == b"", "a plain answer has no note: %r" % err)
    c.check(c.run(["--include-reasoning"], b'{"a": 1}')[2] == b"llmjson: --include-reasoning is now --no-reasoning-regions "
            b"(options::reasoning_regions = false), the name of what it does\n(try 'llmjson --help')\n", "the old flag's name")
    # The answer as the model wrote it: key order, number literals (beyond 64 bits too), escapes,
    # CRLF and tabs between tokens; --pretty moves only white space; --normalize is nlohmann's.
    written = (b'Answer:\r\n{ "z": 1.10,\r\n\t"a": 15511210043330985984000000, "n": -15511210043330985984000000,'
               b' "e": 1e5, "m": -0, "s": "caf\\u00e9 \\"q\\"", "t": [ ], "o": {\t} }\r\n')
    minified = (b'{"z":1.10,"a":15511210043330985984000000,"n":-15511210043330985984000000,"e":1e5,"m":-0,'
                b'"s":"caf\\u00e9 \\"q\\"","t":[],"o":{}}\n')
    rc, out, err = c.run([], written)
    c.check(rc == 0 and out == minified and err == b"", "the answer as written: %r" % out)
    rc, out, _ = c.run(["--pretty"], written)
    c.check(out == b'{\n  "z": 1.10,\n  "a": 15511210043330985984000000,\n  "n": -15511210043330985984000000,\n'
            b'  "e": 1e5,\n  "m": -0,\n  "s": "caf\\u00e9 \\"q\\"",\n  "t": [],\n  "o": {}\n}\n', "--pretty: %r" % out)
    rc, out, _ = c.run(["--normalize"], written)
    c.check(rc == 0 and out == b'{"a":1.5511210043330986e+25,"e":100000.0,"m":0,"n":-1.5511210043330986e+25,'
            b'"o":{},"s":"caf\xc3\xa9 \\"q\\"","t":[],"z":1.1}\n', "--normalize: %r" % out)
    for args in (["--report"], ["--report", "--pretty"]):
        rc, out, _ = c.run(args, written)
        ok, rep = parse_json(out)
        c.check(rc == 0 and ok and tokens_of(out).find(b'"value":' + minified[:-1] + b',"text":') > 0
                and rep["text"].encode() == written[9:-2], "%s: the value as written, and the text: %r" % (args, out[:300]))
    rc, out, _ = c.run(["--report", "--normalize"], written)
    c.check(rc == 0 and b'"value":{"a":1.5511210043330986e+25,' in out, "--report --normalize: %r" % out[:200])
    # --normalize writes from the text, but a key with a raw tab and an escape (an answer valid
    # with raw controls) is left to nlohmann: the same form either way; --pretty builds the value.
    for raw, want in ((b'Answer: {"b": 1, "k\t\\u0041": 2, "a": "x\ty\\n"}', b'{"a":"x\\ty\\n","b":1,"k\\tA":2}\n'),
                      (b'Answer: {"b": 1, "k\tz": [2.50, -0.0]}', b'{"b":1,"k\\tz":[2.5,-0.0]}\n')):
        rc, out, _ = c.run(["--normalize"], raw)
        c.check(rc == 0 and out == want, "--normalize, raw controls: %r" % out)
    rc, out, _ = c.run(["--normalize", "--pretty"], b'{"b": [1.0], "a": "\\u00e9"}')
    c.check(rc == 0 and out == b'{\n  "a": "\xc3\xa9",\n  "b": [\n    1.0\n  ]\n}\n', "--normalize --pretty: %r" % out)
    rc, out, err = c.run(["--keys", "b", "--no-fallback"], b'{"a": 1}')
    c.check(rc == 1 and err.startswith(b"llmjson: no_match: ") and b"1:1" in err, "--no-fallback: %r" % err)
    rc, out, _ = c.run(["--pretty"], b'x {"a": [1]}')
    c.check(rc == 0 and out == b'{\n  "a": [\n    1\n  ]\n}\n', "--pretty: %r" % out)
    rc, out, err = c.run([], b" \n\t ")
    c.check(rc == 1 and err.startswith(b"llmjson: empty: "), "white space only: %r" % err)


def odd_inputs():
    rnd = random.Random(20240917)
    yield "NUL bytes", b'\x00\x00{"a":\x00 1}\x00{"a": 2}\x00'
    yield "NUL in a string", b'{"a": "x\x00y"}'
    yield "invalid UTF-8 in prose", b'\xff\xfe\xc3( {"a": 1} \xed\xa0\x80'
    yield "invalid UTF-8 in a candidate", b'{"a": "\xff\xc0\xaf"} and {"b": "\xe2\x82"}'
    yield "invalid UTF-8 in an info string", b'```\xff\xfejs\x00on\n{"a": 1}\n```\n'
    yield "only a BOM", b"\xef\xbb\xbf"
    yield "only NULs", b"\x00" * 100
    yield "unclosed", b'{"a": [1, 2, {"b": "\xff'
    yield "braces galore", b"{" * 5000 + b"}" * 4000
    yield "deep arrays", b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b"}"
    for i in range(20):
        alphabet = b'{}[]":,\\ \n\t0123456789abcdefghijklmnopqrstuvwxyz`~\x00\xff\xc3\xa9'
        yield "random bytes #%d" % i, bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 4000)))


def group_any_bytes(c, a):
    for name, data in odd_inputs():
        for args in ([], ["--keys", "a"], ["--policy", "unique"], ["--policy", "last", "--no-fallback"]):
            where = "%s %s" % (name, args)
            rc, out, err = c.run(args, data)
            c.check(rc in (0, 1), "%s: exit %d; stderr %r" % (where, rc, err[:300]))
            if rc == 0:
                ok, _ = parse_json(out)
                c.check(ok and out.count(b"\n") == 1, where + ": stdout is not one JSON line")
            elif rc == 1:
                c.check(ERROR_LINE.fullmatch(err.decode("utf-8", "replace")) is not None,
                        where + ": stderr is not one error line: %r" % err[:300])
                try:
                    err.decode("utf-8")
                except UnicodeDecodeError:
                    c.check(False, where + ": the error line is not valid UTF-8")
            rc2, out, err = c.run(["--report", "--explain"] + args, data)
            ok, rep = parse_json(out)
            c.check(rc2 == rc and ok and isinstance(rep, dict), where + ": --report is not valid UTF-8 JSON: %r" % out[:300])
            try:
                err.decode("utf-8")
            except UnicodeDecodeError:
                c.check(False, where + ": the --explain table is not valid UTF-8")


def large_output(size):
    """A long reasoning trace full of small objects, then the answer: about `size` bytes."""
    parts, total, i = [], 0, 0
    while total < size:
        line = 'Step %d: checking {"row": %d, "ok": %s} against the ledger, then {note: skip}.\n' % (
            i, i, "true" if i % 3 else "false")
        parts.append(line)
        total += len(line)
        i += 1
    parts.append('\nFinal answer:\n```json\n{"answer": {"rows_checked": %d, "mismatches": []}}\n```\n' % i)
    return "".join(parts).encode(), i


def group_large_input(c, a):
    data, rows = large_output(10 * 1024 * 1024)
    expect = {"answer": {"rows_checked": rows, "mismatches": []}}
    for args in (["--keys", "answer"], ["--keys", "answer", "--policy", "last"], ["--keys", "answer", "--policy", "unique"]):
        start = time.monotonic()
        rc, out, err = c.run(args, data, timeout=600)
        took = time.monotonic() - start
        print("%d bytes, %s: exit %d in %.2f s" % (len(data), " ".join(args), rc, took))
        ok, value = parse_json(out)
        c.check(rc == 0 and ok and same_json(value, expect), "%s: exit %d, %r %r" % (args, rc, out[:200], err[:200]))
    rc, out, err = c.run(["--report", "--keys", "answer"], data, timeout=600)
    ok, rep = parse_json(out)
    c.check(rc == 0 and ok and len(rep["candidates"]) == rows + 1, "--report on the large input")
    rc, out, err = c.run(["--max-bytes", str(len(data) - 1), "--keys", "answer"], data)
    c.check(rc == 1 and err.startswith(b"llmjson: too_large: "), "--max-bytes below the size: %r" % err[:200])
    rc, out, err = c.run(["--max-bytes", str(len(data)), "--keys", "answer"], data, timeout=600)
    c.check(rc == 0, "--max-bytes equal to the size: exit %d" % rc)


# ---------------------------------------------------------------------------------------------
# The bundled examples: what the README shows

def example_runs(examples):
    p = lambda n: os.path.join(examples, n)
    return [
        ["--keys", "steps", p("01-reasoning-plan.txt")],
        [p("01-reasoning-plan.txt")],
        ["--keys", "category", p("02-draft-in-preamble.txt")],
        ["--keys", "category", "--policy", "unique", p("02-draft-in-preamble.txt")],
        ["--keys", "category", "--policy", "last", p("02-draft-in-preamble.txt")],
        ["--schema", p("02-ticket.schema.json"), p("02-draft-in-preamble.txt")],
        ["--schema", p("02-ticket.schema.json"), "--policy", "last", p("02-draft-in-preamble.txt")],
        ["--schema", p("02-ticket.schema.json"), p("01-reasoning-plan.txt")],
        [p("03-truncated-answer.txt")],
        ["--keys", "orders", p("04-think-then-orders.txt")],
        ["--keys", "orders", "--no-reasoning-regions", p("04-think-then-orders.txt")],
        ["--keys", "orders", "--policy", "unique", p("04-think-then-orders.txt")],
        ["--keys", "orders", "--policy", "unique", "--no-reasoning-regions", p("04-think-then-orders.txt")],
        ["--keys", "orders", "--starts-in", "reasoning", p("04-think-then-orders.txt")],
    ]


def group_examples(c, a):
    runs = example_runs(a.examples)
    expect = [
        (0, lambda v: isinstance(v, dict) and "steps" in v and len(v["steps"]) == 4),
        (0, lambda v: isinstance(v, dict) and "analysis" in v),   # policy first, any object
        (0, lambda v: isinstance(v, dict) and v.get("category") == "billing"),  # the draft
        (1, "ambiguous"),
        (0, lambda v: isinstance(v, dict) and v.get("category") == "incident"),
        (1, "ambiguous"),  # the schema cannot tell the draft from the answer: no guess
        (0, lambda v: isinstance(v, dict) and v.get("category") == "incident"),
        (1, "no_match"),
        (1, "truncated"),
        (0, lambda v: isinstance(v, dict) and v.get("orders") == ["come about", "full impulse"]),
        (0, lambda v: isinstance(v, dict) and v.get("orders") == ["hold position"]),  # the draft
        (0, lambda v: isinstance(v, dict) and v.get("orders") == ["come about", "full impulse"]),
        (1, "ambiguous"),
        (0, lambda v: isinstance(v, dict) and v.get("orders") == ["come about", "full impulse"]),
    ]
    assert len(runs) == len(expect)
    for args, (code, what) in zip(runs, expect):
        rc, out, err = c.run(args)
        name = " ".join(args)
        c.check(rc == code, "%s: exit %d, expected %d" % (name, rc, code))
        if code == 0:
            ok, value = parse_json(out)
            c.check(ok and what(value), "%s: unexpected value %r" % (name, out[:300]))
        else:
            m = ERROR_LINE.fullmatch(err.decode("utf-8", "replace"))
            c.check(m is not None and m.group(1) == what, "%s: stderr %r" % (name, err[:300]))


# ---------------------------------------------------------------------------------------------
# --early: the input read as it arrives, and the tool gone as soon as the answer is settled

WRITER = r"""
import os, signal, sys, time
# Writes argv[1] (a file) to stdout in the pieces argv[2:] says ("bytes" or "sleep:SECONDS"),
# then ("end" aside, which exits there) keeps stdout open for an hour (the test kills it), as a model that is still writing would;
# with the step "talk", it keeps writing a line every 50 ms instead, and dies of SIGPIPE as a CLI
# does once nobody reads it. The tests wait for what they check, never for a time: a tool that
# exits "while writing" exits while this process is alive, however loaded the machine.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
data = open(sys.argv[1], "rb").read()
at = 0
for step in sys.argv[2:]:
    if step.startswith("sleep:"):
        time.sleep(float(step[6:]))
        continue
    if step == "end":  # close the pipe: the end of the output
        sys.exit(0)
    if step == "talk":
        for _ in range(72000):
            os.write(1, b"and one more thing about these orders.\n")
            time.sleep(0.05)
        continue
    n = len(data) - at if step == "rest" else int(step)
    os.write(1, data[at:at + n])
    at += n
time.sleep(3600)
"""


# A wait this long is a hang, not a slow machine: it ends the wait and fails the check.
HANG_SECONDS = 600


class Writer:
    """A process that writes `data` in `steps` to a pipe and keeps it open: `model-cli |`."""

    def __init__(self, data, steps=("rest",)):
        fd, self.path = tempfile.mkstemp(suffix=".txt")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self.proc = subprocess.Popen([sys.executable, "-c", WRITER, self.path] + list(steps),
                                     stdout=subprocess.PIPE)

    def pipe_into(self, c, args):
        tool = subprocess.Popen([c.binary] + args, stdin=self.proc.stdout, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        self.proc.stdout.close()  # the tool holds the only read end now
        return tool

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        if self.alive():
            self.proc.kill()
        self.proc.wait()
        os.unlink(self.path)


def check_exits_while_writing(c, name, args, data, expect, steps=("rest",)):
    """The tool prints `expect` and exits 0 while the writer still holds the pipe open."""
    w = Writer(data, steps)
    try:
        tool = w.pipe_into(c, args)
        try:
            out, err = tool.communicate(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            tool.kill()
            tool.communicate()
            c.check(False, "%s: still reading after %d s although the answer was settled" % (name, HANG_SECONDS))
            return
        c.check(w.alive(), "%s: the writer was gone before the tool exited" % name)
        ok, value = parse_json(out)
        c.check(tool.returncode == 0 and ok and same_json(value, expect),
                "%s: exit %s, stdout %r, stderr %r" % (name, tool.returncode, out[:300], err[:300]))
    finally:
        w.close()


def check_waits_for_more(c, name, args, data, expect_at_end):
    """The answer is not settled: the tool is still reading while the writer is alive, and
    gives `expect_at_end` (a value, or the KIND of an error) once the writer closes the pipe."""
    w = Writer(data)
    try:
        tool = w.pipe_into(c, args)
        try:
            tool.wait(timeout=0.75)  # a settled answer is printed within milliseconds
            c.check(False, "%s: exited (%s) before the end of the input, with nothing settled: %r"
                    % (name, tool.returncode, tool.stdout.read()[:300]))
            return
        except subprocess.TimeoutExpired:
            pass
        w.proc.kill()  # the end of the input
        out, err = tool.communicate(timeout=HANG_SECONDS)
        if isinstance(expect_at_end, str):
            m = ERROR_LINE.fullmatch(err.decode("utf-8", "replace"))
            good = tool.returncode == 1 and out == b"" and m is not None and m.group(1) == expect_at_end
        else:
            ok, value = parse_json(out)
            good = tool.returncode == 0 and ok and same_json(value, expect_at_end)
        c.check(good, "%s: at the end, exit %s, stdout %r, stderr %r" % (name, tool.returncode, out[:300], err[:300]))
    finally:
        w.close()


def report_without_early(rep):
    rep = dict(rep)
    rep.pop("early", None)
    return rep


def early_corpus(c, a):
    # The same answer as without --early, on every corpus case (under policy first), from stdin,
    # and from a file (once a case: how the tool reads does not depend on the start); when
    # nothing settled early, the same report too.
    for name, path, case in load_cases(a.corpus):
        with open(path, "rb") as f:
            data = f.read()
        with Flags(case) as flags:
            i = flags.index("--policy")
            flags[i + 1] = "first"
            for start in ([], ["--starts-in", "answer"]):
                check_same_as_without(c, name, flags + start, data, None if start else path)


def group_early(c, a):
    talk = b"\nLet me explain each of these orders in turn, at some length.\n" * 50
    with open(os.path.join(a.examples, "04-think-then-orders.txt"), "rb") as f:
        think_then_orders = f.read()
    orders = {"engineering": "divert power to aft shields", "helm": "heading 270 mark 15",
              "orders": ["come about", "full impulse"]}
    # model-cli | llmjson --early --keys orders: the marker settles it, with the default start.
    check_exits_while_writing(c, "think then orders", ["--early", "--keys", "orders"], think_then_orders + talk, orders)
    # Without --early the tool reads to the end: still reading while the writer is alive.
    check_waits_for_more(c, "think then orders, no --early", ["--keys", "orders"], think_then_orders + talk, orders)
    # A model CLI that keeps talking dies of SIGPIPE once the tool has exited.
    w = Writer(think_then_orders, ("rest", "talk"))
    try:
        tool = w.pipe_into(c, ["--early", "--keys", "orders"])
        out, _ = tool.communicate(timeout=HANG_SECONDS)
        c.check(tool.returncode == 0 and same_json(parse_json(out)[1], orders), "talking writer: %r" % out[:300])
        try:
            w.proc.wait(timeout=HANG_SECONDS)
            c.check(w.proc.returncode == -signal.SIGPIPE, "the writer ended with %s, not SIGPIPE" % w.proc.returncode)
        except subprocess.TimeoutExpired:
            c.check(False, "the writer still writes %d s after the tool exited" % HANG_SECONDS)
    finally:
        w.close()
    # No marker: prose settles with --starts-in answer, and only then.
    plain = b'Plan: {"steps": ["boil", "pour"]} and why, in detail:' + talk
    check_exits_while_writing(c, "prose, --starts-in answer", ["--early", "--starts-in", "answer"], plain,
                              {"steps": ["boil", "pour"]})
    check_waits_for_more(c, "prose, --starts-in unknown", ["--early"], plain, {"steps": ["boil", "pour"]})
    # The input arrives in pieces, the answer split across them.
    check_exits_while_writing(c, "pieces", ["--early", "--starts-in", "answer", "--keys", "steps"], plain,
                              {"steps": ["boil", "pour"]}, ("9", "sleep:0.2", "1", "sleep:0.2", "15", "sleep:0.2", "20", "sleep:0.2", "rest"))
    # The first piece settles it, and the writer then pauses for an hour (the check kills it):
    # the tool must answer from what is there, not wait for a full block (issue 16).
    first = b'<think>\nplan it {"orders": ["draft"]}\n</think>\nFinal: {"orders": ["come about"]} and then'
    check_exits_while_writing(c, "settled by the first piece, then a pause", ["--early", "--keys", "orders"],
                              first + b" more prose", {"orders": ["come about"]},
                              (str(len(first)), "sleep:3600", "rest"))
    # A half-written answer, or one that a later frame could still own: not settled, keep reading.
    check_waits_for_more(c, "half an answer", ["--early", "--starts-in", "answer"], b'Plan: {"steps": ["boil"',
                         "truncated")
    check_waits_for_more(c, "inside an open frame", ["--early", "--starts-in", "answer"],
                         b'x {"k": {"steps": [1]} and', "no_json")
    check_waits_for_more(c, "the whole output so far is one value", ["--early", "--starts-in", "answer"],
                         b'{"steps": [1]}\n', {"steps": [1]})
    # --schema with --policy first, and --max-bytes.
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"type": "object", "required": ["steps"]}, f)
        schema = f.name
    check_exits_while_writing(c, "--schema --policy first", ["--early", "--schema", schema, "--policy", "first",
                                                             "--starts-in", "answer"], plain, {"steps": ["boil", "pour"]})
    rc, out, err = c.run(["--early", "--max-bytes", "10", "--starts-in", "answer"], plain)
    c.check(rc == 1 and err.startswith(b"llmjson: too_large: the output is over the limit of 10 bytes"), "--early --max-bytes: %r" % err)

    # Usage: --early needs policy first.
    for args, says in ((["--early", "--policy", "unique"], b"under --policy unique nothing settles"),
                       (["--early", "--policy", "last"], b"under --policy last nothing settles"),
                       (["--early", "--schema", schema], b"--schema's default is unique: add --policy first")):
        rc, out, err = c.run(args, plain)
        c.check(rc == 2 and out == b"" and err.startswith(b"llmjson: --early needs policy first") and says in err,
                "%s: exit %s, stderr %r" % (args, rc, err))
    os.unlink(schema)
    rc, out, _ = c.run(["--help"])
    c.check(b"--early" in out and b"Needs policy first" in out, "--help does not explain --early")

    # The same as without --early on odd input (early_corpus: on the corpus).
    for name, data in odd_inputs():
        for args in ([], ["--keys", "a"], ["--starts-in", "answer"]):
            check_same_as_without(c, name, args, data, None)
    # Stopped at the settled answer while the next value is open: no cut after the answer,
    # whether the pipe brought the open value with the answer or not (issue 29: it said one
    # when the piece that settled the answer held the next value's first bytes).
    # Likewise the later candidates that also qualify: how many came with the settling piece
    # depends on the pipe, so --early names none.
    for steps in (("rest",), ("12",), ("18",)):
        w = Writer(b'{"a": 1} {"a": 2} {"a": 3} and more', steps)
        try:
            tool = w.pipe_into(c, ["--early", "--report", "--keys", "a", "--starts-in", "answer"])
            out, err = tool.communicate(timeout=HANG_SECONDS)
            ok, rep = parse_json(out)
            c.check(tool.returncode == 0 and ok and rep["value"] == {"a": 1} and rep["later_qualifying"] == []
                    and rep["early"]["settled"] and err == b"",
                    "later candidates, pieces %s: exit %s, %r, %r" % (steps, tool.returncode, out[:300], err[:300]))
        finally:
            w.close()
    cut_later = b'{"b": 1} and then {"c": [1, 2'
    for steps in (("rest",), ("12",), ("19",)):
        w = Writer(cut_later, steps)
        try:
            tool = w.pipe_into(c, ["--early", "--report", "--keys", "b", "--starts-in", "answer"])
            try:
                out, err = tool.communicate(timeout=HANG_SECONDS)
            except subprocess.TimeoutExpired:
                tool.kill()
                out, err = tool.communicate()  # fails the check below
            ok, rep = parse_json(out)
            c.check(tool.returncode == 0 and ok and rep["value"] == {"b": 1} and rep["truncated"] is None
                    and rep["early"]["settled"] and err == b"",
                    "stopped with an open value after the answer, pieces %s: exit %s, %r, %r"
                    % (steps, tool.returncode, out[:300], err[:300]))
        finally:
            w.close()
    # A large input whose answer comes first: --early reads a small part of it.
    data = b'Final answer: {"answer": {"rows_checked": 3}}\n' + large_output(4 * 1024 * 1024)[0]
    rc, out, _ = c.run(["--early", "--report", "--keys", "answer", "--starts-in", "answer"], data)
    ok, rep = parse_json(out)
    c.check(rc == 0 and ok and rep["value"] == {"answer": {"rows_checked": 3}} and rep["early"]["settled"]
            and rep["early"]["bytes_read"] < len(data) // 8,
            "large input: %r" % (rep.get("early") if ok else out[:300]))
    if ok:
        print("large input: --early read %d of %d bytes" % (rep["early"]["bytes_read"], len(data)))


# The notes that describe the text after the answer: gone once --early stopped reading there.
CUT_NOTE = re.compile(rb"llmjson: note: (the output was cut after the answer|\d+ later candidates? also qualif)[^\n]*\n")


def check_same_as_without(c, name, args, data, path):
    """--early prints what the plain run prints; with --report, the same report when nothing
    settled, and the same value when it did. Once the answer settled, the reading stopped
    there: what is open after the answer is not a cut, and no note says one (issue 29)."""
    rc, out, _ = c.run(["--report"] + args, data)
    erc, eout, _ = c.run(["--early", "--report"] + args, data)
    ok, rep = parse_json(out)
    eok, erep = parse_json(eout)
    if not c.check(ok and eok and erc == rc and "early" in erep and "early" not in rep,
                   "%s %s: --early --report %r" % (name, args, eout[:300])):
        return
    plain = c.run(args, data)
    if erep["early"]["settled"]:
        plain = (plain[0], plain[1], CUT_NOTE.sub(b"", plain[2]))
        c.check(erep["truncated"] is None and erep["later_qualifying"] == [],
                "%s %s: --early settled, yet a cut or later candidates: %r %r"
                % (name, args, erep["truncated"], erep["later_qualifying"]))
    early = c.run(["--early"] + args, data)
    c.check(early == plain, "%s %s: --early gives %r, without %r" % (name, args, early[:3], plain[:3]))
    if path:
        c.check(c.run(["--early"] + args + [path]) == plain, "%s %s: --early FILE differs" % (name, args))
    c.check(erep["early"]["bytes_read"] <= len(data), "%s %s: read more than the input" % (name, args))
    if not erep["early"]["settled"]:
        c.check(erep["early"]["bytes_read"] == len(data), "%s %s: stopped early, not settled" % (name, args))
        c.check(report_without_early(erep) == rep, "%s %s: the report differs although nothing settled" % (name, args))
    else:
        c.check(same_json(erep["value"], rep["value"]) and erep["ok"], "%s %s: a settled answer that differs" % (name, args))


# ---------------------------------------------------------------------------------------------
# --partials: a line per change of the partial answer, then the answer

def partial_lines(c, name, out):
    """Splits --partials' stdout into its partial lines (each checked to be one) and the rest."""
    lines = out.split(b"\n")
    partials = []
    while len(lines) > 1 and lines[0].startswith(b'{"partial":'):
        ok, rec = parse_json(lines[0])
        c.check(ok and isinstance(rec, dict) and list(rec.keys()) == ["partial", "provisional"]
                and isinstance(rec["provisional"], bool),
                "%s: a partial line is not {partial, provisional}: %r" % (name, lines[0][:200]))
        partials.append(rec if ok else None)
        lines.pop(0)
    return partials, b"\n".join(lines)


def shows_only_final(c, name, partial, answer):
    """Every element a partial list of steps shows complete is the answer's; the last one may be
    the string still being written, a start of the answer's."""
    steps = partial.get("steps", []) if isinstance(partial, dict) else None
    if not c.check(isinstance(steps, list) and len(steps) <= len(answer),
                   "%s: the partial %r is not a start of %r" % (name, partial, answer)):
        return
    for i, step in enumerate(steps):
        last = i == len(steps) - 1
        c.check(step == answer[i] or (last and answer[i].startswith(step)),
                "%s: the partial %r shows %r where the answer has %r" % (name, partial, step, answer[i]))


def partials_corpus(c, a):
    # Every corpus case, from a file (one read: at most one line): the partial lines, then
    # exactly what the run without --partials prints, with its exit status and stderr.
    for name, path, case in load_cases(a.corpus):
        with Flags(case) as flags:
            plain = c.run(flags + [path])
            rc, out, err = c.run(flags + ["--partials", path])
            partials, rest = partial_lines(c, name, out)
            c.check((rc, rest, err) == plain,
                    "%s: --partials gives %r, without %r" % (name, (rc, out[:300], err[:300]), plain))
            # Under first, the answer is the first qualifying candidate: the last partial, once
            # the whole input is read (when there is one: never the fallback).
            if case["policy"] == "first" and plain[0] == 0 and partials and partials[-1] is not None:
                ok, value = parse_json(plain[1])
                c.check(ok and same_json(partials[-1]["partial"], value),
                        "%s: after the whole input the partial is not the answer: %r" % (name, partials[-1]))


def group_partials(c, a):
    # A reasoning model's output in pieces (the pipe closed at the end): lines as the answer is
    # written, none from the draft in <think>, not provisional once </think> decided the start,
    # each showing what the answer holds; then the answer, as the run without --partials gives it.
    text = (b'<think>Maybe {"steps": ["guess"]}? No.</think>\n'
            b'{"steps": ["boil water", "warm the pot", "steep"]} and that is all.')
    answer = ["boil water", "warm the pot", "steep"]
    pieces = []
    for n in (20, 20, 14, 9, 16, 11, 7, 6):
        pieces += [str(n), "sleep:0.15"]
    w = Writer(text, pieces + ["rest", "end"])
    try:
        tool = w.pipe_into(c, ["--partials", "--keys", "steps"])
        out, err = tool.communicate(timeout=HANG_SECONDS)
    finally:
        w.close()
    partials, rest = partial_lines(c, "pieces", out)
    c.check(tool.returncode == 0 and rest == b'{"steps":["boil water","warm the pot","steep"]}\n'
            and err == b"", "pieces: exit %s, then %r, stderr %r" % (tool.returncode, rest[:300], err[:300]))
    c.check(len(partials) >= 1, "pieces: no partial line: %r" % out[:300])
    c.check(b"guess" not in out, "pieces: the draft was shown: %r" % out[:300])
    for p in partials:
        if p is None:
            continue
        c.check(p["provisional"] is False, "pieces: provisional after </think>: %r" % p)
        shows_only_final(c, "pieces", p["partial"], answer)
    if partials and partials[-1] is not None:
        c.check(partials[-1]["partial"] == {"steps": answer},
                "pieces: the last partial is not the answer: %r" % partials[-1])
    print("pieces: %d partial lines" % len(partials))

    # No marker, and the start unknown: provisional; with --starts-in answer, not.
    for start, provisional in (([], True), (["--starts-in", "answer"], False)):
        rc, out, err = c.run(["--partials", "--keys", "steps"] + start, b'Plan: {"steps": ["a"]}')
        partials, rest = partial_lines(c, "provisional", out)
        c.check(rc == 0 and rest == b'{"steps":["a"]}\n' and len(partials) == 1 and partials[0] is not None
                and partials[0]["provisional"] is provisional,
                "provisional %s: exit %s, %r" % (start, rc, out[:300]))
    # Inside reasoning that never closes: no partial line, and the error as without --partials.
    rc, out, err = c.run(["--partials"], b'<think>{"steps": ["draft"]')
    plain = c.run([], b'<think>{"steps": ["draft"]')
    c.check((rc, out, err) == plain and out == b"", "in reasoning: %r %r %r" % (rc, out, err[:200]))


    # With --early: the partial lines, then the answer once settled, the writer still writing.
    with open(os.path.join(a.examples, "04-think-then-orders.txt"), "rb") as f:
        orders_text = f.read()
    w = Writer(orders_text, ("rest", "talk"))
    try:
        tool = w.pipe_into(c, ["--partials", "--early", "--keys", "orders"])
        out, err = tool.communicate(timeout=HANG_SECONDS)
        partials, rest = partial_lines(c, "--early", out)
        ok, value = parse_json(rest)
        c.check(tool.returncode == 0 and ok and value["orders"] == ["come about", "full impulse"]
                and all(p is not None and isinstance(p["partial"], dict) for p in partials),
                "--partials --early: exit %s, %r" % (tool.returncode, out[:300]))
    finally:
        w.close()

    # Usage: one output as it arrives.
    for args, says in ((["--partials", "--jsonl"], b"--partials reads one output as it arrives, --jsonl many"),
                       (["--partials", "--response"], b"--partials reads the model's text as it arrives")):
        rc, out, err = c.run(args, b"{}")
        c.check(rc == 2 and out == b"" and says in err, "%s: exit %s, stderr %r" % (args, rc, err))
    rc, out, _ = c.run(["--help"])
    c.check(b"--partials" in out and b'{"partial": VALUE' in out, "--help does not explain --partials")


# ---------------------------------------------------------------------------------------------
# --response: the input is a /chat/completions response; the answer is read from its content

def chat_body(content, finish="stop", usage=None):
    body = {"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish}]}
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body).encode("utf-8")


def chat_stream(content, finish="stop", usage=None, piece=7, eol="\n"):
    """The streamed form: a role chunk, `content` in pieces of `piece` characters, the finish
    chunk, the usage chunk (choices empty), [DONE]."""
    def event(obj):
        return "data: " + json.dumps(obj) + eol + eol

    def chunk(delta, fin=None):
        return event({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                      "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]})
    out = ": keep-alive" + eol + eol + chunk({"role": "assistant", "content": ""})
    for at in range(0, len(content), piece):
        out += chunk({"content": content[at:at + piece]})
    out += chunk({}, finish)
    if usage is not None:
        out += event({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": usage})
    return (out + "data: [DONE]" + eol + eol).encode("utf-8")


USAGE = {"prompt_tokens": 52, "completion_tokens": 187, "total_tokens": 239,
         "completion_tokens_details": {"reasoning_tokens": 160}}
USAGE_REPORTED = {"prompt_tokens": 52, "completion_tokens": 187, "reasoning_tokens": 160,
                  "total_tokens": 239}


def response_corpus(c, a):
    # Every corpus case, as a body and as a stream: the same report as the text itself (offsets,
    # lines and columns into the content), then finish_reason and usage.
    for name, data, text, case in utf8_cases(a.corpus):
        with Flags(case) as flags:
            rc, plain, _ = c.run(flags + ["--report"], data)
            expected = json.loads(plain)
            c.check("finish_reason" not in expected and "usage" not in expected,
                    name + ": the report without --response has finish_reason or usage")
            forms = [("body", chat_body(text, "stop", USAGE)),
                     ("stream", chat_stream(text, "stop", USAGE)),
                     ("stream CRLF", chat_stream(text, "stop", USAGE, piece=3, eol="\r\n"))]
            for form, response in forms:
                rrc, out, err = c.run(flags + ["--response", "--report"], stdin=response)
                ok, got = parse_json(out)
                c.check(rrc == rc, "%s (%s): exit %r, expected %d; stderr %r" % (name, form, rrc, rc, err[:200]))
                if not c.check(ok, "%s (%s): the report is not JSON: %r" % (name, form, out[:200])):
                    continue
                c.check(list(got.keys()) == list(expected.keys()) + ["finish_reason", "usage"],
                        "%s (%s): report members %r" % (name, form, list(got.keys())))
                c.check(got["finish_reason"] == "stop" and got["usage"] == USAGE_REPORTED,
                        "%s (%s): finish_reason %r, usage %r" % (name, form, got["finish_reason"], got["usage"]))
                del got["finish_reason"], got["usage"]
                want = json.loads(plain)
                if want["error"] and want["error"]["kind"] in ("empty", "truncated"):
                    want["error"]["message"] += ' (finish_reason "stop")'  # as --jsonl says it
                c.check(got == want, "%s (%s): the report differs from the text's" % (name, form))
            rc2, out2, _ = c.run(flags, data)
            rc3, out3, _ = c.run(flags + ["--response"], stdin=chat_body(text))
            c.check((rc3, out3) == (rc2, out2), name + ": --response prints another answer")


def group_response(c, a):

    def report_of(args, stdin):
        rc, out, err = c.run(["--response", "--report"] + args, stdin=stdin)
        ok, rep = parse_json(out)
        return rc, (rep if ok else None), err

    # Usage: absent, null or malformed is null (never zeros); reasoning_tokens absent is 0.
    usages = [
        (None, None),
        ({"prompt_tokens": 5, "completion_tokens": 2}, {"prompt_tokens": 5, "completion_tokens": 2,
                                                        "reasoning_tokens": 0, "total_tokens": 7}),
        ({"prompt_tokens": "5", "completion_tokens": 2}, None),
        ({"prompt_tokens": -5, "completion_tokens": 2}, None),
        ({"completion_tokens": 2}, None),
        ({"prompt_tokens": 5, "completion_tokens": 2, "completion_tokens_details": {"reasoning_tokens": 1.5}}, None),
        ("many", None),
    ]
    for given, want in usages:
        for form, response in (("body", chat_body('{"a": 1}', "stop", given)),
                               ("stream", chat_stream('{"a": 1}', "stop", given))):
            rc, rep, err = report_of([], response)
            c.check(rc == 0 and rep is not None and rep["usage"] == want,
                    "usage %r (%s): exit %r, report usage %r, expected %r" % (given, form, rc, rep and rep["usage"], want))
    # No content, cut at length: extraction's empty (exit 1), and the report says why.
    rc, rep, err = report_of([], chat_body(None, "length", {"prompt_tokens": 9, "completion_tokens": 4096}))
    c.check(rc == 1 and rep is not None and rep["error"]["kind"] == "empty" and rep["finish_reason"] == "length"
            and rep["usage"]["completion_tokens"] == 4096, "null content at length: %r %r" % (rc, rep))
    # The error itself says it, and the reasoning that came instead, as --jsonl's line does.
    said = chat_body(None, "length")
    said = said.replace(b'"content": null', b'"content": null, "reasoning_content": "hmm, let me think"')
    rc, out, err = c.run(["--response"], stdin=said)
    want = (b"llmjson: empty: the output is empty; the reasoning beside it holds 17 bytes: the answer "
            b'was never written (finish_reason "length")\n')
    c.check(rc == 1 and out == b"" and err == want, "null content at length, plain: %r %r %r" % (rc, out, err))
    rc, out, err = c.run(["--jsonl", "--response"], stdin=json.dumps(json.loads(said)).encode() + b"\n")
    ok, line = parse_json(out)
    c.check(rc == 1 and ok and line["error"]["message"] == want[len(b"llmjson: empty: "):-1].decode(),
            "null content at length, --jsonl: %r %r %r" % (rc, out, err))
    # No finish_reason: null. Content as parts.
    body = json.dumps({"choices": [{"message": {"content": [{"type": "text", "text": '{"a": '},
                                                            {"type": "text", "text": "1}"}]}}]}).encode()
    rc, rep, err = report_of([], body)
    c.check(rc == 0 and rep is not None and rep["value"] == {"a": 1} and rep["finish_reason"] is None
            and rep["usage"] is None, "content parts: %r %r" % (rc, rep))
    # Over --max-bytes: too_large (exit 1), the response unread: finish_reason and usage null.
    rc, rep, err = report_of(["--max-bytes", "20"], chat_body('{"a": 1}', "stop", USAGE))
    c.check(rc == 1 and rep is not None and rep["error"]["kind"] == "too_large"
            and rep["finish_reason"] is None and rep["usage"] is None, "too large: %r %r" % (rc, rep))
    # A stream without [DONE] (cut off), or with another choice: the content of the choice of index 0.
    stream = chat_stream('{"a": 1}', "stop").replace(b"data: [DONE]\n\n", b"")
    stream += b'data: {"choices": [{"index": 1, "delta": {"content": "{\\"b\\": 2}"}}]}\n\n'
    rc, out, err = c.run(["--response"], stdin=stream)
    c.check(rc == 0 and out == b'{"a":1}\n', "stream without [DONE]: %r %r %r" % (rc, out, err))

    # Inputs that are not a chat completion: exit 2, one line that says why.
    bad = [
        (b'{"error": {"message": "Rate limit reached", "type": "requests"}}',
         "the response is an API error, not a completion: Rate limit reached"),
        (b'{"error": "overloaded"}', "the response is an API error, not a completion: overloaded"),
        (b'{"choices": []}', '"choices" is empty: the response holds no message'),
        (b'{"choices": [{"index": 2, "message": {"content": "{}"}}]}',
         'no choice has "index" 0: the response holds no message'),
        (b'{"id": "x", "object": "chat.completion"}', 'the body has no "choices": not a chat completion'),
        (b'{"choices": "none"}', '"choices" is not an array'),
        (b'{"choices": [1]}', '"choices" is not an array of objects'),
        (b'{"choices": [{"message": "hi"}]}', '"message" is not an object'),
        (b'{"choices": [{"message": {"content": 5}}]}', '"content" is not a string, null or an array of parts'),
        (b'[1]', "the body is not a JSON object"),
        (b'{"choices": [', "the body is not valid JSON: parse error at line 1, column 14: syntax error "
                           "while parsing value - unexpected end of input"),
        (b'Here is the plan: {"a": 1}', "the input is neither a JSON body"),
        (b'', "the input is neither a JSON body"),
        (b'data: {"choices": [{"delta": {"content": "{}"}}]}\n\ndata: {"error": {"message": "overloaded"}}\n\n',
         "the response is an API error, not a completion: overloaded"),
        (b'data: {"choices": [{"delta": {"content": "{}"}}]}\n\ndata: not json\n\n',
         "event 2 is not a JSON object: not json"),
        (b'data: {"choices": [{"delta": 3}]}\n\n', 'event 1: "delta" is not an object'),
        (b'data: {"choices": [{"delta": {"content": "{}"}}, 7]}', 'event 1: "choices" is not an array of objects'),
        (b'data: {"choices": [{"delta": {"content": {"a": 1}}}]}\n\n',
         'event 1: "content" is not a string, null or an array of parts'),
        (b': keep-alive\n\nevent: message\n\n', "the input is neither a JSON body"),
        (b'data: [DONE]\n\n', "no event of the stream has a choice: it holds no message"),
        (b'data: {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}\n\ndata: [DONE]\n\n',
         "no event of the stream has a choice: it holds no message"),
    ]
    for data, why in bad:
        rc, out, err = c.run(["--response"], stdin=data)
        text = err.decode("utf-8", "replace")
        c.check(rc == 2 and out == b"" and text.startswith("llmjson: --response: " + why) and text.count("\n") == 1,
                "--response on %r: exit %r, stderr %r, expected 'llmjson: --response: %s'" % (data[:80], rc, text[:300], why))
    # The same inputs as lines of --jsonl --response: each its own line, kind input, the same
    # reason (a stream is no line: only the bodies).
    bodies = [(data, why) for data, why in bad if data[:1] in (b"{", b"[")]
    lines = [json.dumps({"response": {"body": json.loads(data)}}).encode() for data, _ in bodies
             if data != b'{"choices": [']
    rc, got, _ = jsonl_run(c, ["--response", "--at", "/response/body"], lines)
    if c.check(rc == 1 and len(got) == len(lines), "--jsonl --response on bad bodies: exit %r, %r" % (rc, got)):
        for k, ((data, why), line) in enumerate(zip([b for b in bodies if b[0] != b'{"choices": ['], got)):
            error = json.loads(line).get("error") or {}
            c.check(error.get("kind") == "input" and error.get("message") ==
                    "line %d: the value at /response/body is not a chat completion: %s" % (k + 1, why),
                    "--jsonl --response on %r: %r" % (data[:80], line[:300]))

    # A refusal: a completion with no answer, exit 1 (the extraction's empty, the refusal said),
    # alike in plain, --report and --jsonl; the usage kept, the finish_reason not read (null).
    refusal = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                                               "refusal": "I can't help with that."},
                                       "finish_reason": "stop"}],
                          "usage": {"prompt_tokens": 5, "completion_tokens": 6}}).encode()
    refused = "the output is empty; the model refused: I can't help with that."
    streamed = (b'data: {"choices": [{"index": 0, "delta": {"role": "assistant", "refusal": "I can\\u0027t "}}]}\n\n'
                b'data: {"choices": [{"index": 0, "delta": {"refusal": "help with that."}, "finish_reason": "stop"}]}\n\n'
                b'data: [DONE]\n\n')
    for form, data in (("body", refusal), ("stream", streamed)):
        rc, out, err = c.run(["--response"], stdin=data)
        c.check(rc == 1 and out == b"" and err == ("llmjson: empty: " + refused + "\n").encode(),
                "refusal (%s), plain: %r %r %r" % (form, rc, out, err))
    rc, rep, err = report_of([], refusal)
    c.check(rc == 1 and rep is not None and rep["error"]["kind"] == "empty" and rep["error"]["message"] == refused
            and rep["finish_reason"] is None and rep["usage"]["total_tokens"] == 11, "refusal, --report: %r %r" % (rc, rep))
    rc, got, _ = jsonl_run(c, ["--response", "--at", "/response/body"],
                           [json.dumps({"response": {"body": json.loads(refusal)}}).encode()])
    c.check(rc == 1 and got == [('{"id":1,"line":1,"ok":false,"error":{"kind":"empty","message":%s}}'
                                 % json.dumps(refused, separators=(",", ":"))).encode()],
            "refusal, --jsonl: %r %r" % (rc, got))
    # A refusal beside a content: the content is read.
    beside = json.loads(refusal)
    beside["choices"][0]["message"]["content"] = '{"a": 1}'
    rc, out, err = c.run(["--response"], stdin=json.dumps(beside).encode())
    c.check(rc == 0 and out == b'{"a":1}\n', "refusal beside content: %r %r %r" % (rc, out, err))

    rc, out, err = c.run(["--response", "--early"], stdin=chat_body("{}"))
    c.check(rc == 2 and b"--early" in err and b"--response" in err, "--response --early: %r %r" % (rc, err))


def jsonl_run(c, args, lines, **kw):
    """Runs `--jsonl` on `lines` (bytes each, joined with LF); returns (exit, [output lines], stderr)."""
    rc, out, err = c.run(["--jsonl"] + args, b"\n".join(lines) + b"\n", **kw)
    return rc, out.split(b"\n")[:-1] if out.endswith(b"\n") else out.split(b"\n"), err


def single_run_as_line(c, flags, text):
    """The single-output run of `text`, as a --jsonl line would say it (without id and line)."""
    rc, out, err = c.run(flags, text)
    if rc == 0:
        return {"ok": True, "value": out[:-1]}
    m = ERROR_LINE.fullmatch(err.decode("utf-8", "replace"))
    return {"ok": False, "kind": m.group(1) if m else None,
            "message": err.decode("utf-8", "replace").split(": ", 2)[-1].rstrip("\n") if m else None}


def line_as_seen(line):
    """A --jsonl output line, as single_run_as_line says it: the value as written (bytes)."""
    rec = json.loads(line)
    if rec["ok"]:
        at = line.index(b'"value":') + len(b'"value":')
        end = line.rindex(b',"note":') if b'"note":' in line else len(line) - 1
        return {"ok": True, "value": line[at:end]}
    return {"ok": False, "kind": rec["error"]["kind"], "message": rec["error"]["message"]}


def batch_line(custom_id, content, reasoning=None, status=200):
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    body = {"id": "chatcmpl-" + custom_id, "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}}
    return json.dumps({"id": "batch_req_" + custom_id, "custom_id": custom_id,
                       "response": {"status_code": status, "request_id": "r", "body": body},
                       "error": None}).encode("utf-8")


def jsonl_corpus(c, a):
    # 1. Every corpus case that is UTF-8 text, as a line: the same answer (its tokens as written)
    # or the same error as the single-output run, whatever --jobs; one file per selection.
    # A case with a schema has a schema file of its own, alive only in its `with`: its line runs
    # there, alone.
    by_flags = {}
    for name, data, text, case in utf8_cases(a.corpus):
        with Flags(case) as flags:
            expect = single_run_as_line(c, flags, data)
            if "--schema" in flags:
                rc, got, _ = jsonl_run(c, flags, [json.dumps(text).encode("utf-8")])
                c.check(rc == (0 if expect["ok"] else 1) and len(got) == 1 and line_as_seen(got[0]) == expect,
                        "%s %s: --jsonl says %r, the single run %r" % (name, flags, got, expect))
                continue
        by_flags.setdefault(tuple(flags), []).append((name, text, expect))
    for flags, cases in by_flags.items():
        lines = [json.dumps(text).encode("utf-8") for _, text, _ in cases]
        outs = {}
        for jobs in ("1", "3"):
            rc, got, err = jsonl_run(c, list(flags) + ["--jobs", jobs], lines)
            outs[jobs] = got
            failed = any(not e["ok"] for _, _, e in cases)
            c.check(rc == (1 if failed else 0), "%s --jobs %s: exit %s" % (flags, jobs, rc))
            c.check(err == b"", "%s: stderr %r (no terminal: no progress line)" % (flags, err[:200]))
            if not c.check(len(got) == len(cases), "%s: %d lines out for %d in" % (flags, len(got), len(cases))):
                continue
            for k, ((name, _, expect), line) in enumerate(zip(cases, got)):
                rec = json.loads(line)
                c.check(rec["id"] == k + 1 and rec["line"] == k + 1, "%s: id/line %r" % (name, line[:80]))
                seen = line_as_seen(line)
                c.check(seen == expect, "%s %s: --jsonl says %r, the single run %r" % (name, flags, seen, expect))
        c.check(outs["1"] == outs["3"], "%s: --jobs 3 differs from --jobs 1" % (flags,))


def group_jsonl(c, a):

    # 2. What each line holds and where: pointers, ids, reasoning, the Batch API's lines.
    ok_text = 'thinking <think>{"draft": 1}</think> The answer: {"plan": [1, 2.50]}'
    rc, got, err = jsonl_run(c, ["--at", "/response/body/choices/0/message/content", "--id-at", "/custom_id"],
                             [batch_line("req-1", ok_text), batch_line("req-2", "no json"),
                              batch_line("req-3", None), b'{"custom_id": "req-4", "response": null, "error": {"code": "x", "message": "boom"}}',
                              b'{"custom_id": 5, "response": {"body": {"choices": [{"message": {"content": 7}}]}}}'])
    recs = [json.loads(x) for x in got]
    c.check(rc == 1 and len(recs) == 5, "batch lines: exit %s, %d lines" % (rc, len(recs)))
    if len(recs) == 5:
        c.check(got[0] == b'{"id":"req-1","line":1,"ok":true,"value":{"plan":[1,2.50]}}', "batch line 1: %r" % got[0])
        c.check(recs[1]["id"] == "req-2" and recs[1]["error"]["kind"] == "no_json", "batch line 2: %r" % got[1])
        c.check(recs[2]["error"] == {"kind": "input", "message": "line 3: the value at /response/body/choices/0/message/content is null, not a string"},
                "batch line 3: %r" % got[2])
        c.check(recs[3]["error"] == {"kind": "input", "message": "line 4 has no value at /response/body/choices/0/message/content; its \"error\" says: boom"},
                "batch line 4: %r" % got[3])
        c.check(recs[4]["id"] == 5 and "is a number, not a string" in recs[4]["error"]["message"], "batch line 5: %r" % got[4])
    rc, got, _ = jsonl_run(c, ["--at", "/c"], [b'{"error": 1, "c": "{}", "error": 2}'])
    c.check(rc == 0 and got == [b'{"id":1,"line":1,"ok":true,"value":{}}'], "a repeated \"error\" key: %r" % got)
    # --response reads the body there: content, finish_reason, usage, and the reasoning beside it.
    rc, got, _ = jsonl_run(c, ["--response", "--at", "/response/body", "--id-at", "/custom_id", "--report"],
                           [batch_line("a", ok_text, reasoning="let me think"), batch_line("b", "", reasoning="r" * 40)])
    recs = [json.loads(x) for x in got]
    if c.check(rc == 1 and len(recs) == 2, "--response lines: exit %s, %r" % (rc, got)):
        c.check(list(recs[0])[:4] == ["id", "line", "ok", "error"] and recs[0]["value"] == {"plan": [1, 2.5]}
                and recs[0]["finish_reason"] == "stop" and recs[0]["usage"]["total_tokens"] == 30
                and recs[0]["reasoning_bytes"] == 12, "--response --report line 1: %r" % got[0][:300])
        c.check(recs[1]["error"]["kind"] == "empty" and "the reasoning beside it holds 40 bytes" in recs[1]["error"]["message"],
                "--response line 2: %r" % got[1][:300])
    # --reasoning-at: the first non-empty string of those given; never searched.
    lines = [json.dumps({"c": '{"a": 1}', "r1": "", "r2": 'x {"b": 2}'}).encode(),
             json.dumps({"c": "", "r1": None, "r2": "thought"}).encode(),
             json.dumps({"c": "", "r1": 3}).encode()]
    rc, got, _ = jsonl_run(c, ["--at", "/c", "--reasoning-at", "/r1", "--reasoning-at", "/r2", "--report"], lines)
    recs = [json.loads(x) for x in got]
    if c.check(len(recs) == 3, "--reasoning-at: %r" % got):
        c.check(recs[0]["value"] == {"a": 1} and recs[0]["reasoning_bytes"] == 10 and len(recs[0]["candidates"]) == 1,
                "--reasoning-at 1: %r" % got[0][:300])
        c.check(recs[1]["error"]["kind"] == "empty" and "holds 7 bytes" in recs[1]["error"]["message"], "--reasoning-at 2: %r" % got[1])
        c.check(recs[2]["error"] == {"kind": "input", "message": "line 3: the value at /r1 is a number, not a string"},
                "--reasoning-at 3: %r" % got[2])
    # Pointers: ~0 and ~1 in names, array indices, a key repeated on the path, escaped keys.
    lines = [json.dumps({"a/b": {"m~n": ["x", '{"k": 1}']}}).encode(),
             b'{"a\\/b": {"m\\u007en": ["x", "{\\"k\\": 2}"]}}',
             b'{"a/b": {"m~n": ["x", "{}"]}, "a/b": {"m~n": ["x", "{}"]}}',
             b'{"a/b": {"m~n": ["x"]}}', b'{"a/b": {"m~n": {"1": "{}"}}}']
    rc, got, _ = jsonl_run(c, ["--at", "/a~1b/m~0n/1"], lines)
    want = [b'{"id":1,"line":1,"ok":true,"value":{"k":1}}', b'{"id":2,"line":2,"ok":true,"value":{"k":2}}',
            b'{"id":3,"line":3,"ok":false,"error":{"kind":"input","message":"line 3: the pointer /a~1b/m~0n/1 reaches two values (a key repeated on its path) (byte 52)"}}',
            b'{"id":4,"line":4,"ok":false,"error":{"kind":"input","message":"line 4 has no value at /a~1b/m~0n/1"}}',
            b'{"id":5,"line":5,"ok":true,"value":{}}']
    c.check(got == want, "pointers: %r" % got)
    # A trailing comma is named at the comma, whatever white space comes before the bracket.
    rc, got, _ = jsonl_run(c, [], [b'[1, \t]', b'{"a": 1,\t }', b'[1,]'])
    c.check([json.loads(x)["error"]["message"] for x in got] ==
            ["line %d is not JSON: trailing comma (byte %d)" % (n, b) for n, b in ((1, 3), (2, 8), (3, 3))],
            "trailing commas: %r" % got)

    # 3. Lines: not JSON, empty, CRLF, no final line feed, too long, --first-line.
    data = b'"{\\"a\\":1}"\r\n\n{"a":\n"\\ud800 {}"\n"{}" "{}"\n' + b'"' + b"x" * 200 + b'"\n"{\\"b\\":2}"'
    rc, out, err = c.run(["--jsonl", "--max-bytes", "100", "--first-line", "41"], data)
    got = [json.loads(x) for x in out.split(b"\n")[:-1]]
    kinds = [g["error"]["kind"] if not g["ok"] else "ok" for g in got]
    c.check(rc == 1 and kinds == ["ok", "input", "input", "input", "input", "too_large", "ok"],
            "odd lines: exit %s, %r" % (rc, kinds))
    c.check([g["line"] for g in got] == list(range(41, 48)) and [g["id"] for g in got] == list(range(41, 48)),
            "--first-line: %r" % [g["line"] for g in got])
    if len(got) == 7:
        c.check(got[1]["error"]["message"] == "line 42 is empty: each line holds one output", "empty line: %r" % got[1])
        c.check("surrogate" in got[3]["error"]["message"] and "more than one JSON value" in got[4]["error"]["message"],
                "odd lines: %r" % got[3:5])
        c.check("longer than --max-bytes (100 bytes)" in got[5]["error"]["message"], "long line: %r" % got[5])
    # Every kind of line, from a file and from stdin, alike; nothing dropped, all in order.
    rng = random.Random(20)
    texts = ['{"a": %d}' % i if i % 7 else "no json %d" % i for i in range(3000)]
    lines = [json.dumps(t).encode() if i % 11 else b"{bad" for i, t in enumerate(texts)]
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        f.write(b"\n".join(lines) + b"\n")
    try:
        runs = {}
        for jobs in ("1", "2", "5"):
            rc, out, err = c.run(["--jsonl", "--jobs", jobs, f.name])
            runs[jobs] = (rc, out)
        rc, out, err = c.run(["--jsonl", "--jobs", "2", "-"], b"\n".join(lines) + b"\n")
        c.check(runs["1"] == runs["2"] == runs["5"] == (rc, out), "--jobs 1, 2, 5 and stdin differ")
        got = [json.loads(x) for x in out.split(b"\n")[:-1]]
        c.check(rc == 1 and [g["line"] for g in got] == list(range(1, 3001)), "3000 lines: exit %s, %d out" % (rc, len(got)))
        for i, g in enumerate(got):
            want = "input" if i % 11 == 0 else ("ok" if i % 7 else "no_json")
            if not c.check((g["error"]["kind"] if not g["ok"] else "ok") == want, "line %d: %r" % (i + 1, g)):
                break
    finally:
        os.unlink(f.name)

    # A producer that writes a line now and then (`model-batch | llmjson --jsonl`, a terminal):
    # each line is answered as soon as it ends, not once a chunk's worth has come, and a line
    # the input pauses in is held until it ends.
    tool = subprocess.Popen([c.binary, "--jsonl", "--keys", "a"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def answer_within(seconds):
            ready, _, _ = select.select([tool.stdout], [], [], seconds)
            return tool.stdout.readline() if ready else None
        for n in (1, 2):
            tool.stdin.write(json.dumps('x {"a": %d}' % n).encode() + b"\n")
            tool.stdin.flush()
            got = answer_within(60)  # milliseconds, unless the line waits for the input's end
            c.check(got == b'{"id":%d,"line":%d,"ok":true,"value":{"a":%d}}\n' % (n, n, n),
                    "line %d of a pipe that pauses after it: %r" % (n, got))
        tool.stdin.write(b'"y {\\"a\\": ')
        tool.stdin.flush()
        early = answer_within(0.5)
        c.check(early is None, "a line the input pauses in was answered before it ended: %r" % early)
        tool.stdin.write(b'3}"\n')
        tool.stdin.flush()
        got = answer_within(60)
        c.check(got == b'{"id":3,"line":3,"ok":true,"value":{"a":3}}\n', "the line ended after a pause: %r" % got)
        tool.stdin.close()
        rest = tool.stdout.read()
        c.check(tool.wait(timeout=HANG_SECONDS) == 0 and rest == b"", "the pausing pipe's end: exit %s, %r" % (tool.returncode, rest))
    finally:
        if tool.poll() is None:
            tool.kill()
        tool.wait()
        tool.stdout.close()
        tool.stderr.close()

    # Lines across the reader's buffers: each chunk reads 1 MiB (ordered_lines.hpp,
    # default_chunk_bytes, with --jobs 1 or 2) straight into its buffer and only
    # the line its end cuts is carried into the next, so whatever the buffer's end cuts (a \\u
    # escape, a surrogate pair, a UTF-8 sequence, CR LF, an empty line, the last line) reads as
    # it would whole, with any --jobs, from a file or a pipe; a line longer than the buffer grows
    # it, and one longer than --max-bytes is dropped as it comes, over several buffers.
    buffer = 1 << 20
    def ok_line(n, value):
        return b'{"id":%d,"line":%d,"ok":true,"value":%s}' % (n, n, value)
    def no_json_line(n):
        return b'{"id":%d,"line":%d,"ok":false,"error":{"kind":"no_json","message":"no JSON value in the output"}}' % (n, n)
    def padded(line2, at, cut, tail=b'"{\\"z\\": 3}"'):
        """Line 1 (no JSON) as long as puts byte `at` of `line2` (line 2, with its LF) `cut` bytes
        before the buffer's end; then `tail`, a last line without LF."""
        head = buffer - at - cut
        return b'"' + b"z" * (head - 3) + b'"\n' + line2 + tail
    cases = []
    for text, value in ((u'y {"k": "\u00e9"}', u'{"k":"\u00e9"}'), (u'y {"k": "\U0001F600"}', u'{"k":"\U0001F600"}')):
        for ascii_only in (True, False):  # the \\u escapes, or the UTF-8 bytes, across the end
            line2 = json.dumps(text, ensure_ascii=ascii_only).encode("utf-8") + b"\n"
            # The value's escape or UTF-8 sequence: from its first byte to the `\"}` after it.
            at = line2.index(b"\\u") if ascii_only else next(i for i, b in enumerate(line2) if b >= 0x80)
            width = line2.index(b'\\"}', at) - at
            for cut in range(1, width + 1):
                cases.append(("%r %s cut %d" % (text, "escaped" if ascii_only else "UTF-8", cut),
                              (line2, at, cut), [ok_line(2, value.encode("utf-8"))]))
    crlf = b'"{\\"c\\": 1}"\r\n'
    for cut in (-1, 0, 1):  # CR LF both in the next buffer; CR last in this one; both in this one
        cases.append(("CR LF cut %d" % cut, (crlf, len(crlf) - 1, cut), [ok_line(2, b'{"c":1}')]))
    empty = b'\n\n'
    for cut in (0, 1, 2):
        cases.append(("empty line cut %d" % cut, (b'"{}"\n' + empty, 4, cut),
                      [ok_line(2, b"{}"), b'{"id":3,"line":3,"ok":false,"error":{"kind":"input","message":'
                       b'"line 3 is empty: each line holds one output"}}']))
    last = b'"{\\"e\\":5}"'
    for cut in (-1, 0, 1):  # the last line, without LF, ends at the buffer's end or next to it
        cases.append(("last line without LF, end %+d" % cut, (last, len(last) + cut, 0, b""),
                      [ok_line(2, b'{"e":5}')]))
    # Each input made when it runs (1 MiB each): the test process's own peak memory must stay
    # far below the bound of the memory check (section 6). From a file, whose reads fill the
    # buffer, so that its end falls where the case puts it; from a pipe, a chunk goes as soon
    # as the input pauses, so its ends fall where the pipe's reads do: the same output.
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    try:
        for name, padding, want in cases:
            data = padded(*padding)
            with open(path, "wb") as f:
                f.write(data)
            outs = []
            for jobs in ("1", "2"):
                rc, out, err = c.run(["--jsonl", "--jobs", jobs, path])
                lines = out.split(b"\n")
                outs.append(out)
                c.check(lines[0] == no_json_line(1) and lines[1:1 + len(want)] == want and out.endswith(b"\n"),
                        "%s, --jobs %s: exit %s, %r" % (name, jobs, rc, [x[:200] for x in lines[1:]]))
            rc, out, err = c.run(["--jsonl", "--jobs", "2"], data)
            outs.append(out)
            c.check(outs[0] == outs[1] == outs[2], "%s: --jobs 1, 2 and 2 from a pipe differ" % name)
    finally:
        os.unlink(path)
    # Lines longer than the buffer: whole below --max-bytes (at the limit exactly too), too_large
    # above it, and the lines around them untouched.
    limit = 3 * buffer + 17
    def long_line(size, tail):  # a JSON string line of `size` bytes, without its LF
        return b'"' + b"w" * (size - 2 - len(tail)) + tail + b'"'
    tail = b' {\\"big\\": 1}'
    lines = [b'"{\\"n\\": 1}"', (limit, b""), (limit + 1, b""), b'"{\\"n\\": 4}"', (5 * buffer, b"\r"),
             (buffer - 1, b""), (2 * buffer, b"")]  # (size, what follows it) of a long line
    want = [ok_line(1, b'{"n":1}'), ok_line(2, b'{"big":1}'),
            b'{"id":3,"line":3,"ok":false,"error":{"kind":"too_large","message":"line 3 is longer than '
            b'--max-bytes (%d bytes): not read"}}' % limit, ok_line(4, b'{"n":4}'),
            b'{"id":5,"line":5,"ok":false,"error":{"kind":"too_large","message":"line 5 is longer than '
            b'--max-bytes (%d bytes): not read"}}' % limit, ok_line(6, b'{"big":1}'), ok_line(7, b'{"big":1}')]
    # Written a line at a time, and piped through cat: the lines are not all held at once.
    with tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False) as f:
        for k, line in enumerate(lines):
            f.write(line if isinstance(line, bytes) else long_line(line[0], tail) + line[1])
            if k + 1 < len(lines):
                f.write(b"\n")
    try:
        for jobs in ("1", "2"):
            for source in ("pipe", "file"):
                args = ["--jsonl", "--max-bytes", str(limit), "--jobs", jobs]
                if source == "file":
                    rc, out, err = c.run(args + [f.name])
                else:
                    cat = subprocess.Popen(["cat", f.name], stdout=subprocess.PIPE)
                    p = subprocess.run([c.binary] + args, stdin=cat.stdout, capture_output=True, timeout=300)
                    cat.stdout.close()
                    cat.wait()
                    rc, out = p.returncode, p.stdout
                got = out.split(b"\n")[:-1]
                c.check(rc == 1 and got == want, "long lines, --jobs %s, %s: exit %s, %r" % (jobs, source, rc, [x[:160] for x in got]))
    finally:
        os.unlink(f.name)

    # 4. The line reader against Python's strict JSON reader, on mutations of JSON lines: a line is
    # JSON for one exactly when it is for the other.
    def strict(b):
        try:
            s = b.decode("utf-8")
            v = json.loads(s, parse_constant=lambda x: 1 / 0)
            json.dumps(v, ensure_ascii=False).encode("utf-8")  # a lone surrogate fails here
            return True
        except (UnicodeError, ValueError, ZeroDivisionError, RecursionError):
            return False
    seeds = [b'{"a": [1, -0.5e+3, true, false, null, "x\\u00e9\\ud83d\\ude00\\n"], "b": {}}',
             b'["\xc3\xa9", 0, 1E2, {"k": "v"}]', b'"text {\\"a\\": 1}"', b' 12 ', b'{"a":{"b":[[]]}}']
    alphabet = b' {}[]",:\\/0123456789.eE+-tfnulrsaxu\xc3\xa9\xed\xa0\x80\x00\t'
    cases = []
    for _ in range(1500):
        b = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            op, at = rng.randint(0, 2), rng.randint(0, len(b))
            if op == 0 and b:
                del b[min(at, len(b) - 1)]
            elif op == 1:
                b.insert(at, rng.choice(alphabet))
            elif b:
                b[min(at, len(b) - 1)] = rng.choice(alphabet)
        if b"\n" not in b and b"\r" not in b:
            cases.append(bytes(b))
    rc, got, _ = jsonl_run(c, ["--at", ""], cases)
    if c.check(len(got) == len(cases), "mutations: %d lines out for %d" % (len(got), len(cases))):
        for line, out in zip(cases, got):
            rec = json.loads(out)
            says_json = rec["ok"] or rec["error"]["kind"] != "input" or " is not JSON: " not in rec["error"]["message"]
            says_json = says_json and not rec.get("error", {}).get("message", "").endswith("is empty: each line holds one output")
            if not c.check(says_json == strict(line), "line %r: llmjson says JSON=%s, Python %s (%r)" % (line, says_json, strict(line), out[:200])):
                break

    # --normalize: nlohmann's form; a fallback's note; stdout that cannot be written.
    rc, got, _ = jsonl_run(c, ["--normalize"], [json.dumps('{"b": 1.10, "a": "\u00e9"}').encode()])
    c.check(rc == 0 and got == ['{"id":1,"line":1,"ok":true,"value":{"a":"\u00e9","b":1.1}}'.encode()],
            "--normalize: %r" % got)
    rc, got, _ = jsonl_run(c, ["--keys", "zzz"], [json.dumps('x {"a": 1}').encode()])
    c.check(rc == 0 and got == [b'{"id":1,"line":1,"ok":true,"value":{"a":1},"note":"no candidate has key '
                                b'\\"zzz\\"; printed the first valid value (fallback at 1:3); --no-fallback makes '
                                b'this an error"}'], "fallback note: %r" % got)
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([c.binary, "--jsonl"], input=b'"{}"\n' * 100, stdout=full, stderr=subprocess.PIPE)
        c.check(p.returncode == 2 and p.stderr == b"llmjson: cannot write to stdout: No space left on device\n",
                "stdout /dev/full: exit %d, stderr %r" % (p.returncode, p.stderr))
    # Policy first passed over later qualifying candidates: the note says where, as on stderr.
    text = 'Example: {"category": "other"}\nAnswer: {"category": "billing"}\n{"category": "x"}'
    rc, got, _ = jsonl_run(c, ["--keys", "category"], [json.dumps(text).encode()])
    c.check(rc == 0 and got == [b'{"id":1,"line":1,"ok":true,"value":{"category":"other"},"note":"2 later '
                                b'candidates also qualify: 2:9, 3:1; policy first printed the one at 1:10; '
                                b'--policy unique makes this an error"}'], "later qualifying note: %r" % got)
    rc, out, err = c.run(["--keys", "category"], stdin=text.encode())
    c.check(rc == 0 and out == b'{"category":"other"}\n'
            and err == b"llmjson: note: 2 later candidates also qualify: 2:9, 3:1; policy first printed the "
                       b"one at 1:10; --policy unique makes this an error\n", "later qualifying, plain: %r" % err)
    rc, got, _ = jsonl_run(c, ["--keys", "category", "--report"], [json.dumps(text).encode()])
    c.check(rc == 0 and len(got) == 1 and json.loads(got[0])["later_qualifying"] == [1, 2],
            "later qualifying, --report: %r" % got)
    # A chat completion without --response: the error names the flag.
    body = {"choices": [{"index": 0, "message": {"content": '{"a": 1}'}, "finish_reason": "stop"}]}
    rc, got, _ = jsonl_run(c, ["--at", "/response/body"], [json.dumps({"response": {"body": body}}).encode()])
    c.check(rc == 1 and got == [b'{"id":1,"line":1,"ok":false,"error":{"kind":"input","message":"line 1: the value '
                                b'at /response/body is an object, not a string; if it is a chat completion, add '
                                b'--response"}}'], "Batch API line without --response: %r" % got)
    rc, got, _ = jsonl_run(c, [], [json.dumps({"custom_id": "t-1", "response": {"body": body}}).encode()])
    c.check(rc == 1 and len(got) == 1 and got[0].endswith(b'is an object, not a string; a Batch API line needs '
                                                          b'--response --at /response/body"}}'),
            "Batch API line without --at and --response: %r" % got)

    # 5. Progress on stderr only for a terminal: a pipe gets none (above), a terminal one line.
    import pty
    master, slave = pty.openpty()
    p = subprocess.run([c.binary, "--jsonl"], input=b'"{}"\n' * 10, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    tty = os.read(master, 4096)
    os.close(master)
    c.check(p.returncode == 0 and p.stdout.count(b"\n") == 10, "progress run: exit %s" % p.returncode)
    c.check(re.search(rb"llmjson: 10 lines, \d+ lines/s, 0 failed\r?\n$", tty) is not None, "progress line: %r" % tty)

    # 6. Memory: bounded by the jobs and the longest line, not the input's length. 256 MB of 10 KB
    # lines through a pipe: the peak stays far below it. (A child's ru_maxrss also counts this
    # process's memory at the spawn, so that must be below the bound too, or the check says nothing.)
    # AddressSanitizer's quarantine alone holds up to 256 MB of freed memory: under it, the peak
    # says nothing of the tool (the g++ and libc++ builds check it).
    bound_kb = 96 * 1024
    own_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(c.binary, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    if sanitized:
        print("note: the memory check is skipped: the tool is built with AddressSanitizer")
    elif c.check(own_kb < bound_kb // 2, "the test process holds %d KB: the memory check would say nothing" % own_kb):
        line = json.dumps("prose, no braces " * 600 + "the end").encode() + b"\n"
        block = line * ((1 << 20) // len(line) + 1)
        p = subprocess.Popen([c.binary, "--jsonl", "--jobs", "2"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        for _ in range(256):
            p.stdin.write(block)
        p.stdin.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = 0
        c.check(os.waitstatus_to_exitcode(status) == 1 and usage.ru_maxrss < bound_kb,
                "256 MB of lines: exit %d, peak memory %d KB (bound %d KB)"
                % (os.waitstatus_to_exitcode(status), usage.ru_maxrss, bound_kb))


# ---------------------------------------------------------------------------------------------
# A closed or full stdout, and SIGINT or SIGTERM mid-run

def group_signals(c, a):
    # Enough output that no pipe buffer holds it all: 20 MB, one answer of 220 bytes a line.
    lines = [json.dumps('Sure: {"a": %d, "pad": "%s"}' % (i, "x" * 200)) for i in range(90000)]
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        f.write(("\n".join(lines) + "\n").encode())
        big = f.name
    broken = b"llmjson: cannot write to stdout: Broken pipe\n"

    # 1. stdout closed before anything is written (SIGPIPE would kill the tool: exit 2 instead).
    for args, stdin in ((["--keys", "a"], b'{"a": 1}'), (["--report"], b'{"a": 1}'),
                        (["--jsonl", big], b""), (["--jsonl", "--report", "--jobs", "1", big], b"")):
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([c.binary] + args, input=stdin, stdout=w, stderr=subprocess.PIPE, timeout=300)
        os.close(w)
        c.check(p.returncode == 2 and p.stderr == broken,
                "%s, stdout closed: exit %d, stderr %r" % (args, p.returncode, p.stderr[:300]))

    # 2. `llmjson --jsonl big.jsonl | head -1`: the reader takes a line and goes.
    p = subprocess.Popen([c.binary, "--jsonl", big], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    rc = p.wait(timeout=300)
    c.check(json.loads(first)["id"] == 1 and rc == 2 and err == broken,
            "--jsonl | head -1: exit %d, stderr %r" % (rc, err[:300]))

    # 3. A full disk in single mode too: exit 2, as with --jsonl.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([c.binary], input=b'{"a": 1}', stdout=full, stderr=subprocess.PIPE)
        c.check(p.returncode == 2 and p.stderr == b"llmjson: cannot write to stdout: No space left on device\n",
                "single mode, stdout /dev/full: exit %d, stderr %r" % (p.returncode, p.stderr))

    # 4. SIGTERM or SIGINT while a line is being written: the tool finishes the lines it is
    # writing, then ends as the signal does. The reader takes 64 KB of the first chunk's lines
    # (about 256 KB), so the writer is inside them when the signal comes; the input stays open,
    # so the run is not over.
    import threading
    for sig in (signal.SIGTERM, signal.SIGINT):
        for jobs in ("1", "2"):
            # The signals' default actions, whatever this process inherited (the tool keeps an
            # ignored one ignored, as a background job's SIGINT).
            p = subprocess.Popen([c.binary, "--jsonl", "--jobs", jobs], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL)
                                                     for s in (signal.SIGINT, signal.SIGTERM)])

            def feed():
                try:
                    with open(big, "rb") as f:
                        p.stdin.write(f.read())
                    p.stdin.flush()
                except (BrokenPipeError, ValueError):
                    pass  # the tool ended first

            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
            out = p.stdout.read(65536)
            p.send_signal(sig)
            out += p.stdout.read()
            err = p.stderr.read()
            rc = p.wait(timeout=300)
            feeder.join(timeout=300)
            try:
                p.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
            name = "%s with --jobs %s" % (signal.Signals(sig).name, jobs)
            c.check(rc == -sig, "%s: exit %r, expected to end by the signal; stderr %r" % (name, rc, err[:300]))
            c.check(len(out) > 65536 and out.endswith(b"\n"),
                    "%s: %d bytes, the last %r" % (name, len(out), out[-80:]))
            got = out.split(b"\n")[:-1]
            whole = True
            for k, line in enumerate(got, 1):
                ok, rec = parse_json(line)
                whole = whole and ok and rec["line"] == k and rec["value"]["a"] == k - 1
            c.check(whole and len(got) < len(lines), "%s: %d lines, not all whole and in order" % (name, len(got)))
    os.unlink(big)


def group_rules_v4(c, a):
    """What rules v4 adds to the tool: the answer valid with raw controls, printed escaped and
    noted in every mode, and --prefill."""
    raw = b'Result: {"cmd": "make\n\tall"} done\n'
    rc, out, err = c.run(["-"], raw)
    c.check(rc == 0 and out == b'{"cmd":"make\\n\\tall"}\n', "raw controls: stdout %r" % out)
    c.check(err.startswith(b"llmjson: note: the answer at 1:9 holds raw line breaks or tabs")
            and err.count(b"\n") == 1, "raw controls: stderr %r" % err)
    rc, out, _ = c.run(["--pretty", "-"], raw)
    c.check(rc == 0 and out == b'{\n  "cmd": "make\\n\\tall"\n}\n', "raw controls --pretty: %r" % out)
    rc, out, _ = c.run(["--report", "-"], raw)
    ok, rep = parse_json(out)
    c.check(ok and rep["raw_controls"] and rep["value"] == {"cmd": "make\n\tall"}
            and rep["candidates"][0]["raw_controls"], "raw controls --report: %r" % out[:300])
    rc, out, err = c.run(["--explain", "-"], raw)
    c.check(b"raw line breaks or tabs in strings" in err, "raw controls --explain: %r" % err)
    rc, lines, _ = jsonl_run(c, [], [json.dumps(raw.decode()).encode()])
    ok, rec = parse_json(lines[0]) if lines else (False, None)
    c.check(rc == 0 and ok and rec["value"] == {"cmd": "make\n\tall"} and "raw line breaks" in rec["note"]
            and b'"value":{"cmd":"make\\n\\tall"}' in lines[0], "raw controls --jsonl: %r" % lines)
    # A form feed keeps it malformed.
    rc, out, err = c.run(["-"], b'Result: {"cmd": "a\fb"}\n')
    c.check(rc == 1 and b"U+000C" in err, "form feed: %r %r" % (rc, err))
    # --prefill: read before the output; positions stay in the output.
    rc, out, err = c.run(["--prefill", "{", "-"], b'"a": [1, 2]}\nDone.')
    c.check(rc == 0 and out == b'{"a":[1,2]}\n' and err == b"", "--prefill {: %r %r" % (out, err))
    rc, out, _ = c.run(["--prefill", "{", "--report", "-"], b'"a": [1, 2]}\nDone.')
    ok, rep = parse_json(out)
    c.check(ok and rep["candidates"][0]["offset"] == -1 and rep["text"] == '{"a": [1, 2]}', "--prefill --report: %r" % out)
    rc, out, err = c.run(["--prefill=<think>", "-"], b'draft {"a": 0}</think>{"a": 1}')
    c.check(rc == 0 and out == b'{"a":1}\n', "--prefill=<think>: %r %r" % (out, err))
    rc, out, err = c.run(["--prefill", "{", "--early", "-"], b'"a": 1} and more')
    c.check(rc == 0 and out == b'{"a":1}\n', "--prefill --early: %r %r" % (out, err))
    rc, lines, _ = jsonl_run(c, ["--prefill", "{"], [b'"\\"a\\": 1}"'])
    c.check(rc == 0 and lines and b'"value":{"a":1}' in lines[0], "--prefill --jsonl: %r" % lines)
    rc, out, err = c.run(["--prefill", "{", "--prefill", "[", "-"], b"1]")
    c.check(rc == 2 and b"--prefill given twice" in err, "--prefill twice: %r %r" % (rc, err))
    rc, out, err = c.run(["--prefill", "{", "-"], b" \n")
    c.check(rc == 1 and err.startswith(b"llmjson: empty:"), "--prefill, blank output: %r" % err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--version-header", required=True)
    ap.add_argument("--cases", default="0/1", metavar="K/N",
                    help="the corpus loops take cases K, K+N, ...; the group's other checks run "
                         "with K = 0 only")
    ap.add_argument("group")
    a = ap.parse_args()
    m = re.fullmatch(r"(\d+)/(\d+)", a.cases)
    if not m or int(m.group(1)) >= int(m.group(2)):
        ap.error("--cases takes K/N with 0 <= K < N")
    global CASES
    CASES = (int(m.group(1)), int(m.group(2)))
    sys.setrecursionlimit(20000)  # json.loads of the deep values in odd_inputs()
    c = Checker(a.binary)
    # A group's corpus loop, where it has one besides its other checks (corpus and stdin_vs_file
    # are all corpus loop).
    corpus_loops = {
        "corpus": group_corpus, "stdin_vs_file": group_stdin_vs_file,
        "report_matches_explain": report_matches_explain_corpus, "early": early_corpus,
        "partials": partials_corpus, "response": response_corpus, "jsonl": jsonl_corpus,
    }
    groups = {
        "corpus": lambda: None,
        "stdin_vs_file": lambda: None,
        "report_matches_explain": lambda: group_report_matches_explain(c, a),
        "usage_errors": lambda: group_usage_errors(c, a),
        "any_bytes": lambda: group_any_bytes(c, a),
        "large_input": lambda: group_large_input(c, a),
        "examples": lambda: group_examples(c, a),
        "early": lambda: group_early(c, a),
        "response": lambda: group_response(c, a),
        "partials": lambda: group_partials(c, a),
        "jsonl": lambda: group_jsonl(c, a),
        "signals": lambda: group_signals(c, a),
        "rules_v4": lambda: group_rules_v4(c, a),
    }
    if a.group not in groups:
        ap.error("unknown group " + a.group)
    if CASES[0] == 0:
        groups[a.group]()
    elif a.group not in corpus_loops:
        ap.error("--cases %s: group %s has no corpus loop" % (a.cases, a.group))
    if a.group in corpus_loops:
        corpus_loops[a.group](c, a)
    return c.finish(a.group)


if __name__ == "__main__":
    sys.exit(main())
