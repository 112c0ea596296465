#!/usr/bin/env python3
# llmjson: `llmjson --jsonl` on Dask distributed, for a JSON Lines dataset past one machine
# SPDX-License-Identifier: MIT
"""Runs `llmjson --jsonl` over a JSON Lines dataset on a Dask distributed cluster.

The dataset is cut into partitions of about --partition-size bytes at line boundaries. Each
partition is a byte range that a worker reads by itself (seek, then read only that range and at
most one line past its end), piped through

    TOOL --jsonl --first-line K --jobs 1 TOOL-FLAGS... -

where K is the number of the partition's first line in the whole dataset, so line numbers and
default ids are the ones a single `llmjson --jsonl DATASET` gives. The partitions' outputs come back
in input order and are written one after the other: the client holds one partition's output at a
time, never the dataset or the whole result.

Command line:

    llmjson_dask.py [--scheduler ADDRESS | --workers N] [--tool PATH] [--partition-size SIZE]
                    [--first-line N] [-o OUTPUT] DATASET [-- TOOL-FLAGS...]

Everything after `--` goes to the tool (--at, --id-at, --reasoning-at, --keys, --schema,
--policy, --report, ...): each worker runs it, so the paths in it (TOOL, --schema FILE, DATASET)
must be valid on every worker. Exit status, as the tool's: 0 every line has an answer, 1 some
line failed, 2 the run failed (a bad flag, an unreadable dataset, a tool that cannot be started,
a lost worker); the tool's own message is on stderr, with the partition it came from.

As a module: run(client, dataset, out, tool=..., tool_args=..., partition_size=..., first_line=...)
returns that exit status and writes the output to the binary file `out`.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import threading

DEFAULT_PARTITION_SIZE = "32MiB"
READ_CHUNK = 1 << 20  # bytes per read, when counting lines and when feeding the tool


def _open(path):
    """A binary file object for `path`: the built-in open for a local path, fsspec (Dask's file
    layer) for a URL such as s3://... (where its fsspec backend is installed). fsspec's local
    files read about 2.5 times slower than the built-in ones."""
    if "://" not in path:
        return open(path, "rb")
    import fsspec
    return fsspec.open(path, "rb").open()


def _size(path):
    with _open(path) as f:
        return f.seek(0, os.SEEK_END)


def _absolute(path, bare_name=False):
    """A local path made absolute; URLs (scheme://) as they are, and with bare_name, a name
    without a slash (a program looked up on the workers' PATH)."""
    if "://" in path or (bare_name and "/" not in path):
        return path
    return os.path.abspath(path)


def _line_start_at_or_after(f, x, size):
    """The first offset >= x where a line starts (0, or just after an LF), or `size` if none."""
    if x <= 0:
        return 0
    if x >= size:
        return size
    pos = x - 1
    f.seek(pos)
    while True:
        chunk = f.read(READ_CHUNK)
        if not chunk:
            return size
        lf = chunk.find(b"\n")
        if lf >= 0:
            return pos + lf + 1
        pos += len(chunk)


def _read_range(f, start, end):
    """Yields the bytes [start, end) of f in chunks of at most READ_CHUNK."""
    f.seek(start)
    left = end - start
    while left > 0:
        chunk = f.read(min(left, READ_CHUNK))
        if not chunk:
            raise OSError("the dataset ended %d bytes before its expected end: did it change "
                          "during the run?" % left)
        left -= len(chunk)
        yield chunk


def _worker_address():
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return "this process"


def count_lines(path, begin, end, size):
    """(Worker task.) The partition whose nominal byte range is [begin, end): its real range
    [start, stop), moved forward to line starts, and its number of lines (an LF ends a line; a last
    line without LF still counts, as for the tool)."""
    with _open(path) as f:
        start = _line_start_at_or_after(f, begin, size)
        stop = _line_start_at_or_after(f, end, size)
        lines, last = 0, b"\n"
        for chunk in _read_range(f, start, stop):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
        if last != b"\n":
            lines += 1
    return start, stop, lines


def tool_command(tool, tool_args, first_line):
    """The command run on each partition: its lines come on stdin ("-"), numbered from first_line.
    Each partition gets one tool thread (--jobs 1) unless tool_args says otherwise: Dask already
    runs one task per worker thread."""
    given = any(a == "--jobs" or a.startswith("--jobs=") for a in tool_args)
    jobs = [] if given else ["--jobs", "1"]
    return [tool, "--jsonl", "--first-line", str(first_line)] + jobs + list(tool_args) + ["-"]


def run_partition(tool, tool_args, path, start, stop, first_line):
    """(Worker task.) Pipes the bytes [start, stop) of the dataset through the tool.
    Returns (exit status, stdout, stderr, worker address); the exit status is None when the tool
    could not be started (stderr then says why)."""
    where = _worker_address()
    command = tool_command(tool, tool_args, first_line)
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=err)
        except OSError as e:
            return None, b"", ("cannot run %s: %s" % (tool, e.strerror or e)).encode(), where
        failure = []

        def feed():
            try:
                with _open(path) as f:
                    for chunk in _read_range(f, start, stop):
                        proc.stdin.write(chunk)
            except BrokenPipeError:
                pass  # the tool stopped reading: its exit status and stderr say why
            except Exception as e:  # an unreadable dataset: the tool must not see a clean end
                failure.append(e)
                proc.kill()
            finally:
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        out = proc.stdout.read()
        status = proc.wait()
        feeder.join()
        if failure:
            raise OSError("reading %s bytes %d-%d on %s: %s"
                          % (path, start, stop, where, failure[0]))
        err.seek(0)
        return status, out, err.read(), where


def run(client, dataset, out, tool="llmjson", tool_args=(), partition_size=DEFAULT_PARTITION_SIZE,
        first_line=1, stderr=None, stats=None):
    """Runs the tool over `dataset` on the cluster of `client` and writes its output, in input
    order, to the binary file `out`. Returns the exit status (0, 1 or 2, as the tool's); messages go
    to `stderr` (default sys.stderr). `stats`, a dict if given, receives the number of partitions
    and the addresses of the workers that ran them."""
    import cloudpickle
    from dask.utils import parse_bytes

    # The tasks' functions go to the workers by value, so that they need not import this module.
    if __name__ != "__main__":  # __main__'s go by value anyway
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    stderr = stderr or sys.stderr
    # Relative paths are the client's: the workers' working folder is another.
    dataset, tool, tool_args = _absolute(dataset), _absolute(tool, bare_name=True), list(tool_args)
    for i, a in enumerate(tool_args):
        if a == "--schema" and i + 1 < len(tool_args) and tool_args[i + 1] != "-":
            tool_args[i + 1] = _absolute(tool_args[i + 1])
        elif a.startswith("--schema=") and a != "--schema=-":
            tool_args[i] = "--schema=" + _absolute(a[len("--schema="):])
    for a in tool_args:
        if a == "--first-line" or a.startswith("--first-line="):
            stderr.write("llmjson_dask: --first-line is the recipe's own option (the number of the "
                         "dataset's first line), not a tool flag: give it before `--`\n")
            return 2
    size_per_partition = parse_bytes(partition_size) if isinstance(partition_size, str) \
        else int(partition_size)
    if size_per_partition < 1 or first_line < 1:
        stderr.write("llmjson_dask: the partition size and the first line must be positive\n")
        return 2
    counts, runs = [], collections.deque()  # futures, cancelled if the run fails

    def failed(message):
        client.cancel([f for f in counts if f is not None] + [r[0] for r in runs])
        stderr.write("llmjson_dask: %s\n" % message.rstrip("\n"))
        return 2

    def tool_failure(status, err, where, what):
        reason = ("exited with status %d" % status if status is not None and status >= 0
                  else "was killed by signal %d" % -status if status is not None
                  else "could not be started")
        return "%s: %s on %s %s:\n%s" % (what, tool, where, reason,
                                          err.decode("utf-8", "replace") or "(no message)")

    try:
        size = client.submit(_size, dataset, pure=False).result()
    except Exception as e:
        return failed("cannot read the dataset %s: %s" % (dataset, e))
    # The flags and the tool, checked once on a worker with no input: a usage error is one message,
    # not one per partition.
    try:
        status, _, err, where = client.submit(run_partition, tool, tool_args, dataset, 0, 0,
                                              first_line, pure=False).result()
    except Exception as e:
        return failed("checking the tool and its flags: %s: %s" % (type(e).__name__, e))
    if status not in (0, 1):
        return failed(tool_failure(status, err, where, "checking the tool and its flags"))

    ranges = [(b, min(b + size_per_partition, size)) for b in range(0, size, size_per_partition)]
    counts = [client.submit(count_lines, dataset, b, e, size, pure=False) for b, e in ranges]
    # Partition i runs once the lines before it are counted; the runs go before the counts still
    # waiting (priority), and at most `window` of them are submitted ahead of the one being
    # written, so finished outputs do not pile up on the workers either.
    threads = sum(client.nthreads().values()) or 1
    window = max(4, 2 * threads)
    submitted, line, status_all = 0, first_line, 0
    workers = set()
    for i in range(len(ranges)):
        while submitted < len(ranges) and submitted < i + window:
            try:
                start, stop, lines = counts[submitted].result()
            except Exception as e:
                return failed("counting the lines of %s bytes %d-%d: %s"
                              % (dataset, *ranges[submitted], e))
            counts[submitted] = None  # nothing more to keep on the cluster
            future = client.submit(run_partition, tool, tool_args, dataset, start, stop, line,
                                   pure=False, priority=1)
            runs.append((future, start, stop, line))
            line += lines
            submitted += 1
        future, start, stop, k = runs.popleft()
        what = "partition %d of %d (lines from %d, bytes %d-%d of %s)" % (
            i + 1, len(ranges), k, start, stop, dataset)
        try:
            status, output, err, where = future.result()
        except Exception as e:
            return failed("%s: %s: %s" % (what, type(e).__name__, e))
        del future
        if status not in (0, 1):
            return failed(tool_failure(status, err, where, what))
        if err:
            stderr.write(err.decode("utf-8", "replace"))
        try:
            out.write(output)
        except OSError as e:
            return failed("cannot write the output: %s" % e)
        workers.add(where)
        status_all = max(status_all, status)
    try:
        out.flush()
    except OSError as e:
        return failed("cannot write the output: %s" % e)
    if stats is not None:
        stats.update(partitions=len(ranges), workers=sorted(workers))
    return status_all


def local_cluster(workers, **kwargs):
    """A distributed.LocalCluster on 127.0.0.1: `workers` processes of one thread each, no
    dashboard, and its HTTP server (which starts anyway) on a free port rather than on 8787, where
    another cluster may be."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                        **kwargs)


def _parse(argv):
    if "--" in argv:
        cut = argv.index("--")
        argv, tool_args = argv[:cut], argv[cut + 1:]
    else:
        tool_args = []
    p = argparse.ArgumentParser(
        prog="llmjson_dask.py",
        description="Runs `llmjson --jsonl` over a JSON Lines dataset on Dask distributed; the "
        "output is the one `llmjson --jsonl DATASET TOOL-FLAGS` gives, in the same order.",
        epilog="Exit status: 0 every line has an answer, 1 some line failed, 2 the run failed.")
    p.add_argument("dataset", metavar="DATASET",
                   help="the JSON Lines file (a path or URL every worker can read)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="the cluster's scheduler (tcp://host:8786); default: a local one")
    where.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of the local cluster (default: the cores)")
    p.add_argument("--tool", default="llmjson",
                   help="the llmjson binary as the workers see it (default: llmjson on their PATH)")
    p.add_argument("--partition-size", default=DEFAULT_PARTITION_SIZE, metavar="SIZE",
                   help="bytes per partition, such as 64MiB (default %s)" % DEFAULT_PARTITION_SIZE)
    p.add_argument("--first-line", type=int, default=1, metavar="N",
                   help="the number of the dataset's first line (default 1)")
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="where the output goes (default stdout); a failed run leaves no FILE")
    a = p.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        p.error("--workers must be at least 1")
    return a, tool_args


def main(argv=None):
    args, tool_args = _parse(sys.argv[1:] if argv is None else argv)
    from distributed import Client

    if args.scheduler:
        cluster = None
        try:
            client = Client(args.scheduler, timeout=30)
        except (OSError, ValueError) as e:
            sys.stderr.write("llmjson_dask: cannot connect to the scheduler %s: %s\n"
                             % (args.scheduler, e))
            return 2
    else:
        cluster = local_cluster(args.workers or os.cpu_count() or 1)
        client = Client(cluster)
    tmp = None
    try:
        if args.output == "-":
            return run(client, args.dataset, sys.stdout.buffer, args.tool, tool_args,
                       args.partition_size, args.first_line)
        # Written beside the output, renamed over it only when the run did not fail.
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.output)),
                                   prefix=".llmjson_dask.")
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # the mode a plain open() would give, not mkstemp's 0600
        with os.fdopen(fd, "wb") as out:
            status = run(client, args.dataset, out, args.tool, tool_args, args.partition_size,
                         args.first_line)
        if status != 2:
            os.replace(tmp, args.output)
            tmp = None
        return status
    finally:
        if tmp is not None:
            os.unlink(tmp)
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
