#!/usr/bin/python3
"""The joblib/loky + numpy side of bench/run-peers.sh.

A small line server driven by dev.sharray.bench.peers.PeerHarness over stdin/stdout, so peer and sharray
runs can alternate pair by pair in one session:

    info                   -> one JSON line: python, numpy, joblib versions
    setup <name> <k=v,...> -> "ok"    (allocates what the workload needs, once)
    run <name>             -> "<seconds>"   (one measured repetition; per task for round trips)
    close <name>           -> "ok"    (frees it)
    quit

Workloads (params: bytes, workers):
    pool_warmup   fresh loky pool of `workers` until every worker has run a task on a memmapped array
    roundtrip     10,000 no-op tasks through Parallel(n_jobs=workers) (batched), seconds per task
    sumsq         sum of squares over a `bytes` float64 np.memmap in /dev/shm, `chunks` tasks
    scale         in-place x *= 1.0000001 over the same memmap (workers write through r+ memmaps)
    arg           a `bytes` in-RAM ndarray passed as a task argument: joblib auto-memmaps it (max_nbytes=1M); one
                  element changes before each run, so every run passes new content (no dump-cache hit)
"""
import json
import os
import sys
import tempfile
import time

import numpy as np
import joblib
from joblib import Parallel, delayed
from joblib.externals.loky import get_reusable_executor


def _noop(i):
    return i


def _touch(chunk):
    return os.getpid(), float(chunk[0])


def _sumsq(chunk):
    return float(np.dot(chunk, chunk))


def _scale(chunk):
    chunk *= 1.0000001
    return None


def _first_last(a):
    return float(a[0]) + float(a[-1])


_MEMMAPS = {}


def shared_memmap(nbytes):
    """One float64 .npy memmap of nbytes in /dev/shm, shared by the memmap workloads, filled with ones."""
    mm = _MEMMAPS.get(nbytes)
    if mm is None:
        folder = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        path = os.path.join(folder, "sharray-peer-%d-%d.npy" % (os.getpid(), nbytes))
        mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(nbytes // 8,))
        step = 1 << 24
        for i in range(0, mm.shape[0], step):
            mm[i:i + step] = 1.0
        mm.flush()
        del mm
        mm = np.load(path, mmap_mode="r+")
        _MEMMAPS[nbytes] = (mm, path)
        return mm
    return mm[0]


def chunks_of(a, n):
    step = -(-a.shape[0] // n)
    return [a[i:i + step] for i in range(0, a.shape[0], step)]


class Workload:
    def __init__(self, params):
        self.bytes = int(params.get("bytes", 1 << 30))
        self.workers = int(params.get("workers", 2))
        self.chunks = int(params.get("chunks", 8))
        self.tasks = int(params.get("tasks", 10000))

    def parallel(self, **kw):
        return Parallel(n_jobs=self.workers, backend="loky", **kw)

    def close(self):
        pass


class PoolWarmup(Workload):
    def __init__(self, params):
        super().__init__(params)
        self.mm = shared_memmap(self.bytes)

    def run(self):
        get_reusable_executor().shutdown(wait=True, kill_workers=True)
        parts = chunks_of(self.mm, self.workers)
        t0 = time.perf_counter()
        seen = set()
        while len(seen) < self.workers:
            for pid, _ in self.parallel()(delayed(_touch)(c) for c in parts):
                seen.add(pid)
        return time.perf_counter() - t0


class RoundTrip(Workload):
    def __init__(self, params):
        super().__init__(params)
        self.parallel()(delayed(_noop)(i) for i in range(self.workers))

    def run(self):
        t0 = time.perf_counter()
        self.parallel()(delayed(_noop)(i) for i in range(self.tasks))
        return (time.perf_counter() - t0) / self.tasks


class SumSq(Workload):
    def __init__(self, params):
        super().__init__(params)
        self.mm = shared_memmap(self.bytes)
        self.parts = chunks_of(self.mm, self.chunks)
        self.parallel()(delayed(_noop)(i) for i in range(self.workers))

    def run(self):
        t0 = time.perf_counter()
        total = sum(self.parallel()(delayed(_sumsq)(c) for c in self.parts))
        dt = time.perf_counter() - t0
        if not total > 0:
            raise RuntimeError("bad sum %r" % total)
        return dt


class Scale(SumSq):
    def run(self):
        t0 = time.perf_counter()
        self.parallel()(delayed(_scale)(c) for c in self.parts)
        return time.perf_counter() - t0


class Arg(Workload):
    def __init__(self, params):
        super().__init__(params)
        self.array = np.ones(self.bytes // 8)
        self.runs = 0
        self.parallel()(delayed(_noop)(i) for i in range(self.workers))

    def run(self):
        # new content every run, as real new data: no dump of an earlier run may be reused (joblib 1.2
        # keys dumps by array identity within one Parallel call and dumps again on every call; releases
        # that name the dump by a content hash could otherwise reuse an earlier file)
        self.runs += 1
        self.array[self.array.size // 2] = self.runs
        t0 = time.perf_counter()
        self.parallel(max_nbytes="1M")(delayed(_first_last)(self.array) for _ in range(1))
        return time.perf_counter() - t0

    def close(self):
        self.array = None


KINDS = {"pool_warmup": PoolWarmup, "roundtrip": RoundTrip, "sumsq": SumSq, "scale": Scale, "arg": Arg}


def parse_params(text):
    params = {}
    for kv in filter(None, (text or "").split(",")):
        k, v = kv.split("=", 1)
        params[k] = v
    return params


def main():
    live = {}
    out = sys.stdout
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        cmd = parts[0]
        try:
            if cmd == "info":
                reply = json.dumps({"python": sys.version.split()[0], "numpy": np.__version__,
                                    "joblib": joblib.__version__, "cpus": os.cpu_count()})
            elif cmd == "setup":
                key, kind = parts[1], parts[1].split("@")[0]
                live[key] = KINDS[kind](parse_params(parts[2] if len(parts) > 2 else ""))
                reply = "ok"
            elif cmd == "run":
                reply = repr(live[parts[1]].run())
            elif cmd == "close":
                w = live.pop(parts[1], None)
                if w:
                    w.close()
                reply = "ok"
            elif cmd == "quit":
                break
            else:
                reply = "error unknown command " + cmd
        except Exception as e:  # report, keep serving
            reply = "error %s: %s" % (type(e).__name__, str(e).replace("\n", " "))
        out.write(reply + "\n")
        out.flush()
    get_reusable_executor().shutdown(wait=True, kill_workers=True)
    for _, path in _MEMMAPS.values():
        try:
            os.unlink(path)
        except OSError:
            pass


if __name__ == "__main__":
    main()
