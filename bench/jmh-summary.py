#!/usr/bin/python3
"""Summarises JMH JSON results of the shared-array benchmarks as a markdown table with the bar ratios.

    bench/jmh-summary.py bench/target/jmh-result-jdk17.json bench/target/jmh-result-jdk25.json
"""
import json
import sys


def load(path):
    scores = {}
    for r in json.load(open(path)):
        name = r["benchmark"].rsplit(".", 2)
        key = name[-2] + "." + name[-1]
        params = r.get("params") or {}
        if "bytes" in params:
            key += "[%s]" % params["bytes"]
        pm = r["primaryMetric"]
        if r["mode"] == "sample":
            score = pm["scorePercentiles"]["50.0"]
        else:
            score = pm["score"]
        scores[key] = (score, pm["scoreUnit"], r.get("jdkVersion", "?"))
    return scores


def fmt(v):
    return "%.3g" % v


def main(paths):
    runs = [(p, load(p)) for p in paths]
    header = "| figure | " + " | ".join("JDK %s" % next(iter(s.values()))[2] for _, s in runs) + " | bar |"
    print(header)
    print("|---" * (len(runs) + 2) + "|")

    def row(label, fn, bar):
        cells = []
        for _, s in runs:
            try:
                cells.append(fn(s))
            except KeyError:
                cells.append("n/a")
        print("| %s | %s | %s |" % (label, " | ".join(cells), bar))

    def v(s, k):
        return s[k][0]

    row("heapGet / sharedGet, µs per 64 K elements",
        lambda s: "%s / %s (%s×)" % (fmt(v(s, "ElementAccessBench.heapGet")), fmt(v(s, "ElementAccessBench.sharedGet")),
                                     fmt(v(s, "ElementAccessBench.sharedGet") / v(s, "ElementAccessBench.heapGet"))),
        "shared ≤ 3× heap")
    row("heapSet / sharedSet, µs per 64 K elements",
        lambda s: "%s / %s (%s×)" % (fmt(v(s, "ElementAccessBench.heapSet")), fmt(v(s, "ElementAccessBench.sharedSet")),
                                     fmt(v(s, "ElementAccessBench.sharedSet") / v(s, "ElementAccessBench.heapSet"))),
        "shared ≤ 3× heap")
    for size, label in (("1048576", "1 MiB"), ("67108864", "64 MiB")):
        def pct(s, a, b, size=size):
            return "%s%%" % fmt(100 * v(s, "BulkCopyBench.%s[%s]" % (b, size)) / v(s, "BulkCopyBench.%s[%s]" % (a, size)))
        row("copyTo (caller's array) speed vs memcpyOut (preallocated), %s" % label,
            lambda s: pct(s, "copyTo", "memcpyOut"), "≥ 50%")
        row("toDoubleArray speed vs memcpyOut (preallocated), %s" % label, lambda s: pct(s, "toDoubleArray", "memcpyOut"),
            "≥ 50%")
        row("toDoubleArray speed vs memcpyOutAlloc (allocate + memcpy), %s" % label,
            lambda s: pct(s, "toDoubleArray", "memcpyOutAlloc"), "≥ 50%")
        row("copyFrom speed vs memcpyIn, %s" % label, lambda s: pct(s, "copyFrom", "memcpyIn"), "≥ 50%")
    for bench in ("openRelease", "openReadRelease", "openReleaseHeld"):
        row("%s p50, µs: 1 MiB / 1 GiB (ratio)" % bench,
            lambda s, b=bench: "%s / %s (%s×)" % (
                fmt(v(s, "OpenReleaseBench.%s[1048576]" % b)), fmt(v(s, "OpenReleaseBench.%s[1073741824]" % b)),
                fmt(v(s, "OpenReleaseBench.%s[1073741824]" % b) / v(s, "OpenReleaseBench.%s[1048576]" % b))),
            "1 GiB ≤ 2× 1 MiB; < 50 µs" if bench != "openReleaseHeld" else "—")
    row("Descriptor toBytes / fromBytes, ns",
        lambda s: "%s / %s" % (fmt(v(s, "DescriptorBench.toBytes")), fmt(v(s, "DescriptorBench.fromBytes"))), "—")


if __name__ == "__main__":
    main(sys.argv[1:])
