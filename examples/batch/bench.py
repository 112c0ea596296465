#!/usr/bin/env python3
# llmjson: the batch recipes' figures: the tool alone, the Dask recipe, GNU parallel, same dataset
# SPDX-License-Identifier: MIT
"""Times, on one JSON Lines dataset, `llmjson --jsonl --jobs 1` and `--jobs 2`, the Dask recipe on
a LocalCluster of 2 worker processes (started once, then timed per partition size) and the
README's GNU parallel command (n = 10000); checks that every output is the single run's bytes.

    bench.py --tool PATH/TO/llmjson (a Release build) [--runs 3] DATASET

make_dataset.py --lines 100000 --pad 2000 DATASET makes the README's dataset (100k lines of about
2 KB). Each figure is the best of --runs runs (wall-clock seconds).
"""

import argparse
import io
import logging
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_common  # noqa: E402
import llmjson_dask  # noqa: E402


def best(runs, fn):
    times, out = [], None
    for _ in range(runs):
        began = time.monotonic()
        out = fn()
        times.append(time.monotonic() - began)
    return min(times), out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dataset")
    p.add_argument("--tool", required=True)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    size = os.path.getsize(a.dataset)
    with open(a.dataset, "rb") as f:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    print("dataset: %d lines, %.0f MB; load average %.1f" % (lines, size / 1e6, os.getloadavg()[0]))

    def report(name, seconds, got, want):
        same = "same bytes" if got == want else "DIFFERENT OUTPUT"
        print("%-36s %6.2f s  %7.0f lines/s  %s" % (name, seconds, lines / seconds, same))

    want = None
    for jobs in (1, 2):
        t, got = best(a.runs, lambda: batch_common.single_run(a.tool, a.dataset,
                                                              ["--jobs", str(jobs)]))
        want = want or got
        report("llmjson --jsonl --jobs %d" % jobs, t, got, want)

    from distributed import Client
    began = time.monotonic()
    cluster = llmjson_dask.local_cluster(2, silence_logs=logging.ERROR)
    client = Client(cluster)
    client.wait_for_workers(2)
    print("%-36s %6.2f s" % ("LocalCluster start (2 processes)", time.monotonic() - began))
    for partition in ("64MiB", "32MiB", "8MiB"):
        def dask_run():
            out = io.BytesIO()
            status = llmjson_dask.run(client, a.dataset, out, a.tool, (), partition)
            return status, out.getvalue()
        t, got = best(a.runs, dask_run)
        report("dask, 2 workers, %s partitions" % partition, t, got, want)
    client.close()
    cluster.close()

    command = batch_common.readme_block("batch_parallel")
    with tempfile.TemporaryDirectory() as work:
        os.symlink(os.path.abspath(a.dataset), os.path.join(work, "outputs.jsonl"))
        os.mkdir(os.path.join(work, "bin"))
        os.symlink(os.path.abspath(a.tool), os.path.join(work, "bin", "llmjson"))
        env = dict(os.environ, PATH=os.path.join(work, "bin") + os.pathsep + os.environ["PATH"])

        def parallel_run():
            p = subprocess.run(["bash", "-c", command], cwd=work, env=env)
            with open(os.path.join(work, "answers.jsonl"), "rb") as f:
                return p.returncode, f.read()
        t, got = best(a.runs, parallel_run)
        report("GNU parallel, n = 10000", t, got, want)


if __name__ == "__main__":
    main()
