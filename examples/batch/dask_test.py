#!/usr/bin/env python3
# llmjson: ctest batch_dask, the Dask recipe on a real LocalCluster against the single-process run
# SPDX-License-Identifier: MIT
"""batch_dask: llmjson_dask.py on a distributed.LocalCluster (a scheduler and 2 worker processes
on 127.0.0.1) gives, byte for byte, what one `llmjson --jsonl FILE` gives, with its exit status.

    dask_test.py --tool PATH/TO/llmjson

The datasets are generated (batch_common.datasets); the partitions are a few KiB, so each run has
dozens of them, and partitions that hold no line start (a line longer than a partition). The
README's command (the block marked `check: test batch_dask`) is run as printed, but for the
scheduler's address, the tool's path and the partition size. Failures must give exit status 2 and
the tool's own message: a bad flag, a missing tool, a worker's tool exiting 2 halfway, a missing
dataset. Skipped (exit 77) where Dask is not installed, failed instead under CI=true.
"""

import argparse
import io
import logging
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

# Not in the worker processes, which run this file again as __mp_main__ without its folder on
# sys.path (see main).
if __name__ == "__main__":
    from batch_common import (BATCH_FLAGS, HANG_SECONDS, HERE, Checks, datasets, failing_tool,
                              missing, readme_block, single_run)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tool", required=True, help="the built llmjson")
    a = p.parse_args()
    try:
        from distributed import Client
    except ImportError as e:
        missing("Dask distributed (%s, for %s)" % (e, sys.executable), "python3-distributed")
    import llmjson_dask

    c = Checks()
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        paths = datasets(folder, a.tool)
        # The workers get this process's sys.path: without this folder on it they cannot import
        # llmjson_dask, as on a real cluster, and the recipe must send its functions by value.
        sys.path[:] = [d for d in sys.path if os.path.abspath(d or ".") != HERE]
        cluster = llmjson_dask.local_cluster(2, silence_logs=logging.ERROR)
        client = Client(cluster)
        try:
            client.wait_for_workers(2, timeout=HANG_SECONDS)
            print("cluster: %s, workers %s (%.1f s)" % (
                cluster.scheduler_address, ", ".join(sorted(client.nthreads())),
                time.monotonic() - began))
            importable = client.run(lambda: __import__("importlib.util").util.find_spec(
                "llmjson_dask") is not None)
            c.check(not any(importable.values()), "the workers cannot import llmjson_dask",
                    str(importable))

            def recipe(path, tool_args=(), size="16KiB", first_line=1, tool=a.tool):
                out, err, stats = io.BytesIO(), io.StringIO(), {}
                status = llmjson_dask.run(client, path, out, tool, tool_args, size, first_line,
                                          stderr=err, stats=stats)
                return status, out.getvalue(), err.getvalue(), stats

            status, out, err, stats = recipe(paths["plain"])
            c.same_run("plain, 16 KiB partitions", (status, out),
                       single_run(a.tool, paths["plain"]))
            c.check(stats.get("partitions", 0) >= 20 and len(stats.get("workers", [])) == 2,
                    "plain: %d partitions, run by %d worker processes" % (
                        stats.get("partitions", 0), len(stats.get("workers", []))),
                    "expected 20 or more partitions, on both workers")
            c.check(err == "", "plain: nothing on stderr", err)

            status, out, err, _ = recipe(paths["plain"], ["--report"], size=23456, first_line=1001)
            c.same_run("plain, 23,456-byte partitions, --first-line 1001, --report", (status, out),
                       single_run(a.tool, paths["plain"], ["--first-line", "1001", "--report"]))

            status, out, _, _ = recipe(paths["batch"], BATCH_FLAGS, size="32KiB")
            c.same_run("batch API lines, --at --id-at --reasoning-at, no final LF", (status, out),
                       single_run(a.tool, paths["batch"], BATCH_FLAGS))

            for name in ("clean", "empty"):
                status, out, _, _ = recipe(paths[name], size="64KiB")
                c.same_run(name, (status, out), single_run(a.tool, paths[name]))

            readme_command(c, a.tool, cluster.scheduler_address, folder, paths)
            failures(c, recipe, a.tool, cluster.scheduler_address, folder, paths)
        finally:
            client.close()
            cluster.close()
    print("the whole test took %.1f s" % (time.monotonic() - began))
    return c.finish()


def readme_command(c, tool, scheduler, folder, paths):
    """The README's command, with the cluster's address, the built tool and small partitions."""
    block = readme_block("batch_dask")
    command = block
    for printed, actual in (("tcp://scheduler:8786", scheduler), ("/opt/llmjson/bin/llmjson", tool),
                            ("--partition-size 64MiB", ["--partition-size", "128KiB"]),
                            ("python3 examples/batch/llmjson_dask.py",
                             [sys.executable, os.path.join(HERE, "llmjson_dask.py")])):
        if command.count(printed) != 1:
            c.check(False, "README block: `%s` once" % printed, block)
            return
        words = actual if isinstance(actual, list) else [actual]
        command = command.replace(printed, " ".join(shlex.quote(w) for w in words))
    work = os.path.join(folder, "readme")
    os.mkdir(work)
    os.symlink(paths["batch"], os.path.join(work, "outputs.jsonl"))
    p = subprocess.run(["bash", "-e", "-c", command], cwd=work, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=HANG_SECONDS)
    words = shlex.split(block.replace("\\\n", " "))
    flags = words[words.index("--") + 1:]
    try:
        with open(os.path.join(work, "answers.jsonl"), "rb") as f:
            got = f.read()
    except OSError as e:
        c.check(False, "README block: answers.jsonl", "%s; exit %d, stderr:\n%s"
                % (e, p.returncode, p.stderr.decode("utf-8", "replace")))
        return
    c.same_run("README block (%s)" % " ".join(flags), (p.returncode, got),
               single_run(tool, paths["batch"], flags))


def failures(c, recipe, tool, scheduler, folder, paths):
    want = single_run(tool, paths["plain"])[1]

    p = subprocess.run([tool, "--jsonl", "--policy", "nonsense", paths["plain"]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    expected = p.stderr.strip().splitlines()[0] if p.stderr.strip() else "?"
    status, out, err, _ = recipe(paths["plain"], ["--policy", "nonsense"])
    c.check(p.returncode == 2 and status == 2 and out == b"" and expected in err,
            "a bad tool flag: status 2, no output, the tool's message once",
            "status %d (tool's alone: %d), %d bytes out, stderr:\n%s\nexpected in it: %s"
            % (status, p.returncode, len(out), err, expected))
    c.check(err.count(expected) == 1, "  ... given once, not once per partition", err)

    status, out, err, _ = recipe(paths["plain"], tool="/nonexistent/llmjson")
    c.check(status == 2 and out == b"" and "cannot run /nonexistent/llmjson" in err,
            "a tool the workers cannot find: status 2 and why", err)

    wrapper = failing_tool(folder, tool, 1500)
    status, out, err, _ = recipe(paths["plain"], tool=wrapper)
    lines = out.count(b"\n")
    m = re.search(r"partition \d+ of \d+ \(lines from (\d+),.*\n.*injected failure at line (\d+)",
                  err)
    c.check(status == 2 and m is not None and m.group(1) == m.group(2) and int(m.group(1)) >= 1500
            and lines == int(m.group(1)) - 1 and want.startswith(out),
            "a worker's tool exiting 2 from line 1500 on: status 2, its stderr under the "
            "partition's first line, the output stops just before that line",
            "status %d, %d lines out, stderr:\n%s" % (status, lines, err))

    status, out, err, _ = recipe(os.path.join(folder, "absent.jsonl"))
    c.check(status == 2 and out == b"" and "absent.jsonl" in err,
            "a missing dataset: status 2, the path in the message", err)

    status, out, err, _ = recipe(paths["plain"], ["--first-line", "7"])
    c.check(status == 2 and out == b"" and "--first-line is the recipe's own option" in err,
            "--first-line among the tool's flags: status 2 and where it goes", err)

    # The command line with a cluster of its own, to stdout.
    p = subprocess.run([sys.executable, os.path.join(HERE, "llmjson_dask.py"), "--workers", "2",
                        "--tool", tool, "--partition-size", "64KiB", paths["clean"]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_SECONDS)
    c.same_run("command line, --workers 2 (a LocalCluster of its own), to stdout",
               (p.returncode, p.stdout), single_run(tool, paths["clean"]))
    # Dask's own log lines (a loaded machine gets "Worker process still alive after 4 seconds,
    # killing" as the cluster closes) are Dask's business: what is checked is that neither the
    # recipe nor the tool said anything.
    ours = [line for line in p.stderr.decode("utf-8", "replace").splitlines()
            if line.startswith("llmjson")]
    c.check(not ours, "  ... nothing of the recipe's or the tool's on stderr", "\n".join(ours))

    # The command line (the README block runs a good one): a failed run leaves no output file.
    answers = os.path.join(folder, "answers.jsonl")
    p = subprocess.run([sys.executable, os.path.join(HERE, "llmjson_dask.py"), "--scheduler",
                        scheduler, "--tool", "/nonexistent/llmjson", "-o", answers,
                        paths["plain"]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=HANG_SECONDS)
    c.check(p.returncode == 2 and not os.path.exists(answers) and "cannot run" in p.stderr
            and not [n for n in os.listdir(folder) if n.startswith(".llmjson_dask.")],
            "command line, failed run: exit 2, why, no output file left",
            "exit %d, stderr:\n%s" % (p.returncode, p.stderr))


if __name__ == "__main__":
    sys.exit(main())
