#!/usr/bin/env python3
# llmjson: the benchmark's table in the README's format, with the targets of issue 12 checked.
# SPDX-License-Identifier: MIT
#
#   build/tests/bench/llmjson_bench --benchmark_format=json --benchmark_repetitions=5 \
#       --benchmark_report_aggregates_only=false > bench.json
#   python3 tests/bench/table.py bench.json
#
# Times are the minimum over repetitions (the least disturbed run on a shared machine); every
# ratio compares two measurements of the same run.
import json
import re
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    best = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = re.sub(r"(/repeats:\d+)?(_mean|_median|_stddev|_cv)?$", "", b["name"])
        t = b["real_time"]
        unit = b.get("time_unit", "ns")
        t *= {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
        if name not in best or t < best[name]["time"]:
            best[name] = {"time": t, "bench": b}
    return data.get("context", {}), best


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: table.py bench.json")
    context, best = load(sys.argv[1])
    # The main inputs first, then the hostile families (2 MB before 8 MB), whatever order the
    # run had (--benchmark_enable_random_interleaving shuffles it).
    main_order = ["mixed 1 MB", "mixed, no markers 1 MB", "clean 1 MB", "mixed 10 MB",
                  "mixed, no markers 10 MB", "clean 10 MB", "whole value 10 MB", "typical 2 KB",
                  "prose 64 MB"]
    inputs = [n[len("extract/"):] for n in best if n.startswith("extract/")]
    inputs.sort(key=lambda n: (0, main_order.index(n), "", 0) if n in main_order else
                (1, 0, n.rsplit(" ", 2)[0], float(n.rsplit(" ", 2)[1])))

    def t(kind, name):
        e = best.get(kind + "/" + name)
        return e["time"] if e else None

    print("machine: %s, %s CPUs at %s MHz" % (context.get("host_name", "?"), context.get("num_cpus", "?"),
                                              context.get("mhz_per_cpu", "?")))
    print()
    print("| input | llmjson | MB/s | ×memchr | ×nlohmann | peak memory | peak/byte |")
    print("|---|---|---|---|---|---|---|")
    for name in inputs:
        b = best["extract/" + name]["bench"]
        size = b.get("input_MB", 0) * (1 << 20)
        te = t("extract", name)
        tm = t("memchr", name)
        tn = t("nlohmann", name)
        mbs = size / te / 1e6 if te else 0
        shown = "%.2f ms" % (te * 1e3) if te >= 1e-3 else "%.1f µs" % (te * 1e6)
        print("| %s | %s | %.0f | %s | %s | %.1f MB | %.1f B |" % (
            name, shown, mbs, "%.1f" % (te / tm) if tm else "—", "%.2f" % (te / tn) if tn else "—",
            b.get("peak_MB", 0), b.get("peak_per_byte", 0)))

    # The stream (issue 11): any chunking within 3x of one extract() call.
    streams = [n for n in best if n.startswith("stream/")]
    if streams:
        print()
        print("| stream, mixed 1 MB | time | × one extract() |")
        print("|---|---|---|")
        one = t("extract", "mixed 1 MB")
        for n in sorted(streams, key=lambda n: int(n.split("/")[1].split("-")[0])):
            ts = best[n]["time"]
            print("| %s | %.2f ms | %s |" % (n.split("/")[1], ts * 1e3, "%.2f" % (ts / one) if one else "—"))

    # Issue 12's targets, each a ratio of this run.
    print()
    checks = []

    def target(what, value, limit, fmt="%.2f"):
        checks.append((what, fmt % value if value is not None else "—", limit,
                       value is not None and value <= limit))

    def ratio(a, b):
        return a / b if a and b else None

    target("mixed 10 MB ≤ 15× memchr", ratio(t("extract", "mixed 10 MB"), t("memchr", "mixed 10 MB")), 15)
    target("clean 10 MB ≤ 8× memchr", ratio(t("extract", "clean 10 MB"), t("memchr", "clean 10 MB")), 8)
    target("prose ≤ 4× memchr", ratio(t("extract", "prose 64 MB"), t("memchr", "prose 64 MB")), 4)
    target("whole 10 MB ≤ 1.2× nlohmann", ratio(t("extract", "whole value 10 MB"),
                                               t("nlohmann", "whole value 10 MB")), 1.2)
    target("2 KB reply ≤ 1.3× nlohmann (answer alone)", ratio(t("extract", "typical 2 KB"),
                                                             t("nlohmann", "typical 2 KB")), 1.3)
    for chunk in (1, 16, 4096):
        n = "stream/%d-byte chunks/mixed 1 MB" % chunk
        if n in best:
            target("stream in %d-byte chunks ≤ 3× extract (issue 11)" % chunk,
                   ratio(best[n]["time"], t("extract", "mixed 1 MB")), 3)
    for name in inputs:
        if not name.endswith(" 8 MB"):
            continue
        family = name[:-len(" 8 MB")]
        t8, t2 = t("extract", name), t("extract", family + " 2 MB")
        if t2 is None:
            continue
        b = best["extract/" + name]["bench"]
        size = b.get("input_MB", 0) * (1 << 20)
        target("%s: 8 MB/2 MB time ≤ 4.6" % family, ratio(t8, t2), 4.6)
        target("%s: ≥ 100 MB/s" % family, -size / t8 / 1e6 if t8 else None, -100, "%.0f")
        limit = 8 * size / (1 << 20) + 64
        checks.append(("%s: peak ≤ 8× size + 64 MB" % family,
                       "%.1f MB (limit %.0f MB)" % (b.get("peak_MB", 0), limit), limit,
                       b.get("peak_MB", 0) <= limit))
    failed = 0
    for what, value, limit, ok in checks:
        failed += not ok
        print("%s %-60s %s" % ("ok  " if ok else "FAIL", what, value.lstrip("-")))
    print()
    print("%d of %d targets met" % (len(checks) - failed, len(checks)))


if __name__ == "__main__":
    main()
