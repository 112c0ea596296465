# llmjson: what the batch recipes' tests share: datasets, the reference run, README blocks
# SPDX-License-Identifier: MIT
"""Helpers for dask_test.py and parallel_test.py (ctest batch_dask, batch_parallel)."""

import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77  # ctest's SKIP_RETURN_CODE for both tests
# A run or a wait this long is a hang, not a slow machine: the tests wait for what they check,
# and this only ends a wait that would never end.
HANG_SECONDS = 600

sys.path.insert(0, HERE)
import make_dataset  # noqa: E402  (beside this file)


def missing(what, package):
    """Skips the test (exit 77) where `what` is not installed, but fails it under CI=true: .ci/run
    installs `package`, so a CI run cannot skip the test silently."""
    message = "%s is not installed (Debian: apt-get install %s)" % (what, package)
    if os.environ.get("CI") == "true":
        print("FAILED: %s, and CI=true: .ci/run installs it, so the test must run" % message)
        sys.exit(1)
    print("SKIPPED: %s" % message)
    sys.exit(SKIP)


class Checks:
    def __init__(self):
        self.failures = 0
        self.began = time.monotonic()

    def check(self, ok, name, detail=""):
        print("%s %s (%.1f s)" % ("ok  " if ok else "FAIL", name, time.monotonic() - self.began))
        if not ok:
            self.failures += 1
            if detail:
                print("     " + detail.rstrip("\n").replace("\n", "\n     "))
        return ok

    def same_run(self, name, got, want):
        """got, want: (exit status, stdout bytes). Identical bytes, hence lines, and status."""
        (gs, go), (ws, wo) = got, want
        if gs == ws and go == wo:
            return self.check(True, "%s: %d lines, status %d, same bytes as the single run"
                              % (name, wo.count(b"\n"), ws))
        gl, wl = go.split(b"\n"), wo.split(b"\n")
        first = next((i for i in range(min(len(gl), len(wl))) if gl[i] != wl[i]),
                     min(len(gl), len(wl)))
        show = lambda lines: (lines[first][:300] if first < len(lines) else b"(none)")  # noqa: E731
        return self.check(False, name,
                          "status %r, single run's %r; %d output lines, single run's %d; first "
                          "difference at output line %d:\n  got:  %r\n  want: %r"
                          % (gs, ws, len(gl) - 1, len(wl) - 1, first + 1, show(gl), show(wl)))

    def finish(self):
        print("%s: %d failed" % ("FAILED" if self.failures else "passed", self.failures))
        return 1 if self.failures else 0


def single_run(tool, path, flags=()):
    """The reference: `llmjson --jsonl FLAGS FILE`, one process, its default jobs."""
    p = subprocess.run([tool, "--jsonl"] + list(flags) + [path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=HANG_SECONDS)
    return p.returncode, p.stdout


def datasets(folder, tool):
    """The generated datasets, by name: plain (3,000 JSON-string lines, some failing, some not
    valid input, a few longer than a partition), batch (2,000 Batch API lines, the last one without
    LF), clean (the plain lines that have an answer: the exit status is 0) and empty."""
    paths = {name: os.path.join(folder, name + ".jsonl") for name in ("plain", "batch", "clean",
                                                                      "empty")}
    make_dataset.generate(paths["plain"], 3000, "plain", seed=20)
    make_dataset.generate(paths["batch"], 2000, "batch", seed=21, final_lf=False)
    status, out = single_run(tool, paths["plain"])
    with open(paths["plain"], "rb") as f:
        lines = f.read().splitlines(keepends=True)
    results = out.splitlines()
    if status != 1 or len(results) != len(lines):
        sys.exit("the single run on the plain dataset gave status %d and %d lines for %d: is %s "
                 "`llmjson --jsonl`?" % (status, len(results), len(lines), tool))
    with open(paths["clean"], "wb") as f:
        f.writelines(line for line, r in zip(lines, results) if b'"ok":true' in r)
    open(paths["empty"], "wb").close()
    return paths


BATCH_FLAGS = ["--at", "/response/body/choices/0/message/content", "--id-at", "/custom_id",
               "--reasoning-at", "/response/body/choices/0/message/reasoning_content"]


def readme_block(name):
    """The fenced block of examples/batch/README.md after `<!-- check: test NAME -->`."""
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- check: test %s -->\n```[a-z]*\n(.*?)\n```" % re.escape(name), text,
                  re.S)
    if not m:
        sys.exit("examples/batch/README.md has no block marked <!-- check: test %s -->" % name)
    return m.group(1)


def failing_tool(folder, tool, from_line):
    """A wrapper of the tool that exits 2 with a message on the pieces whose first line is
    from_line or later (the tool's exit on an unwritable output, say), as a worker's tool could."""
    path = os.path.join(folder, "llmjson")
    with open(path, "w") as f:
        f.write('#!/bin/sh\n'
                'first=1 prev=\n'
                'for a in "$@"; do [ "$prev" = --first-line ] && first=$a; prev=$a; done\n'
                'if [ "$first" -ge %d ]; then\n'
                '  echo "llmjson: injected failure at line $first" >&2; exit 2\n'
                'fi\n'
                'exec %s "$@"\n' % (from_line, shlex.quote(tool)))
    os.chmod(path, 0o755)
    return path
