#!/usr/bin/env python3
# llmjson: ctest batch_parallel, the README's GNU parallel command against the single-process run
# SPDX-License-Identifier: MIT
"""batch_parallel: the README's `parallel --pipe` command (the block marked `check: test
batch_parallel`), run as printed but for its piece size (250 lines, so 3,000 lines are 12 pieces),
gives, byte for byte, what one `llmjson --jsonl FILE` gives, and its last line the same exit status.

    parallel_test.py --tool PATH/TO/llmjson

Also: a last line without LF, an empty input, and a piece whose tool exits 2 (status 2, the tool's
message on stderr). Skipped (exit 77) where GNU parallel is not installed, failed under CI=true.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from batch_common import (HANG_SECONDS, Checks, datasets, failing_tool, missing, readme_block,
                          single_run)

PIECE = 250


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tool", required=True, help="the built llmjson")
    a = p.parse_args()
    parallel = shutil.which("parallel")
    if not parallel:
        missing("GNU parallel", "parallel")
    version = subprocess.run([parallel, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
    if not version.startswith("GNU parallel"):
        missing("GNU parallel (%s is another program: moreutils' parallel?)" % parallel, "parallel")
    print(version.splitlines()[0])

    block = readme_block("batch_parallel")
    c = Checks()
    if not c.check(block.count("export n=10000") == 1, "README block: `export n=10000` once",
                   block):
        return c.finish()
    command = block.replace("export n=10000", "export n=%d" % PIECE)

    with tempfile.TemporaryDirectory() as folder:
        paths = datasets(folder, a.tool)
        with open(paths["plain"], "rb") as f:
            data = f.read()
        paths["no final LF"] = os.path.join(folder, "nolf.jsonl")
        with open(paths["no final LF"], "wb") as f:
            f.write(data.rstrip(b"\r\n"))
        bin_dir = os.path.join(folder, "bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(a.tool), os.path.join(bin_dir, "llmjson"))

        def readme_run(path, bin_dir=bin_dir):
            """The block in a fresh folder, outputs.jsonl being `path`, llmjson from bin_dir."""
            work = tempfile.mkdtemp(dir=folder)
            os.symlink(path, os.path.join(work, "outputs.jsonl"))
            env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
            p = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=HANG_SECONDS)
            with open(os.path.join(work, "answers.jsonl"), "rb") as f:
                out = f.read()
            with open(os.path.join(work, "jobs.log")) as f:
                pieces = len(f.read().splitlines()) - 1
            return p.returncode, out, p.stderr.decode("utf-8", "replace"), pieces

        for name in ("plain", "no final LF", "clean", "empty"):
            status, out, err, pieces = readme_run(paths[name])
            c.same_run("%s, %d pieces" % (name, pieces), (status, out),
                       single_run(a.tool, paths[name]))
            c.check(err == "", "  ... nothing on stderr", err)
        c.check(pieces == 0, "empty: no piece run")

        wrapper_dir = os.path.join(folder, "failing")
        os.mkdir(wrapper_dir)
        failing_tool(wrapper_dir, a.tool, 1500)
        status, out, err, pieces = readme_run(paths["plain"], wrapper_dir)
        first = 1500 // PIECE * PIECE + 1  # the first piece starting at line 1500 or later
        c.check(status == 2 and "llmjson: injected failure at line %d" % first in err,
                "a piece's tool exiting 2: status 2, the tool's message on stderr",
                "status %d, stderr:\n%s" % (status, err))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
