package dev.sharray.bench.peers;

import java.util.List;

/**
 * The workloads of the side-by-side harness. A side is a {@link Workload} class ({@code java:}) or a
 * workload of {@code bench/peers/joblib_peer.py} ({@code py:}); a class that does not exist yet shows as
 * "n/a". Pool and codec engineers: implement the named classes in {@code dev.sharray.bench.pool} and
 * {@code dev.sharray.bench.codec} (contract in {@code docs/benchmarks.md}, "Adding a workload").
 */
public final class Rows {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final String POOL = "java:dev.sharray.bench.pool.";
    private static final String CODEC = "java:dev.sharray.bench.codec.";
    private static final String PEERS = "java:dev.sharray.bench.peers.";
    private static final String JOBLIB = "joblib/loky + numpy";
    /**
     * Measured runs per side of the rows that compare sharray with itself: ~25-130 ms or less per run, and
     * their bars are ratios near 1 or 2 that five pairs on a busy 2-core machine cannot settle.
     */
    private static final int CHEAP_RATIO_RUNS = 15;
    /**
     * Measured runs per side of the 1 GiB argument rows: joblib's side took 0.24-1.96 s per run on this
     * project's VM on 2026-12-01 (most runs 0.25-0.42 s, some 1.1-2.0 s), sharray's ~35 ms, so in five pairs one
     * or two slow joblib runs move the row's ratio by 10-20 %. With fifteen, a full JDK 17 run took 5.3 min
     * against 4.7 the day before.
     */
    private static final int HEAVY_TAILED_PEER_RUNS = 15;

    private Rows() {
    }

    /** @return every row, in table order */
    public static List<Row> all() {
        return List.of(
            new Row("pool.warmup", "pool start: 2 workers ready, each has run a task on a mapped 1 GiB array",
                Params.parse("bytes=" + GIB + ",workers=2"), 0, JOBLIB, "py:pool_warmup",
                POOL + "PoolWarmup", "sharray <= 0.75x joblib (speedup >= 1.33)"),
            new Row("pool.roundtrip", "tiny-task round trip, per task (10,000 no-op tasks, 2 workers)",
                Params.parse("workers=2,tasks=10000"), 0, "joblib/loky (auto-batched)", "py:roundtrip",
                POOL + "TinyTaskRoundTrip", "sharray <= 5 us per task"),
            new Row("map.sumsq.1w", "sum of squares, 1 GiB float64 in /dev/shm, one task (1 worker busy)",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=1"), GIB, JOBLIB + " memmap", "py:sumsq",
                POOL + "SumOfSquares", "reference for the 2-worker row"),
            new Row("map.sumsq.2w", "sum of squares, 1 GiB float64 in /dev/shm, 2 workers, 8 chunks",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=8"), GIB, JOBLIB + " memmap", "py:sumsq",
                POOL + "SumOfSquares", "sharray >= joblib, and >= 1.7x its 1-worker row"),
            new Row("map.scale.2w", "in-place scale x *= 1.0000001, 1 GiB float64, 2 workers, 8 chunks",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=8"), GIB, JOBLIB + " memmap (r+)", "py:scale",
                POOL + "Scale", "sharray >= joblib"),
            new Row("arg.1gib", "1 GiB in-RAM float64 array passed as a task argument",
                Params.parse("bytes=" + GIB + ",workers=2"), GIB, "joblib auto-memmapping (max_nbytes=1M)", "py:arg",
                POOL + "LargeHeapArgument", "sharray >= 10x joblib").measuredAtLeast(HEAVY_TAILED_PEER_RUNS),
            new Row("ceiling.sumsq.1w", "sum of squares, 1 GiB float64, one task, against 1 thread in one JVM",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=1,threads=1"), GIB, "the same kernel, no pool (the machine)",
                POOL + "ThreadedSumOfSquares", POOL + "SumOfSquares", "reference: the machine's ceiling"),
            new Row("ceiling.sumsq.2w", "sum of squares, 1 GiB float64, 2 workers, 8 chunks, against 2 threads in one JVM",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=8,threads=2"), GIB, "the same kernel, no pool (the machine)",
                POOL + "ThreadedSumOfSquares", POOL + "SumOfSquares", "reference: the machine's ceiling"),
            new Row("ceiling.arg", "1 GiB in-RAM float64 array passed as a task argument, against one copy of it",
                Params.parse("bytes=" + GIB + ",workers=2"), GIB, "copyFrom into a mapped SharedArray, no pool (the machine)",
                POOL + "HeapCopy", POOL + "LargeHeapArgument", "reference: the machine's ceiling")
                .measuredAtLeast(CHEAP_RATIO_RUNS),
            new Row("scaling.sumsq.pool", "sum of squares, 1 GiB float64: the pool's 2 workers (one chunk each) against 1 (one task), alternated",
                Params.parse("bytes=" + GIB + ",workers=2,chunks=2," + Params.PEER_ONLY + "chunks=1"), GIB,
                "the same pool, one task (1 worker busy)", POOL + "SumOfSquares", POOL + "SumOfSquares",
                "2 workers >= 1.7x 1 worker").measuredAtLeast(CHEAP_RATIO_RUNS),
            new Row("scaling.sumsq.machine", "sum of squares, 1 GiB float64 in one JVM: 2 threads against 1, alternated",
                Params.parse("bytes=" + GIB + ",threads=2," + Params.PEER_ONLY + "threads=1"), GIB,
                "the same kernel on 1 thread", POOL + "ThreadedSumOfSquares", POOL + "ThreadedSumOfSquares",
                "reference: how far the machine scales").measuredAtLeast(CHEAP_RATIO_RUNS),
            new Row("scaling.sumsq.processes", "sum of squares, 1 GiB float64: 2 bare child JVMs (half each) against 1, alternated",
                Params.parse("bytes=" + GIB + ",processes=2," + Params.PEER_ONLY + "processes=1"), GIB,
                "the same kernel in 1 child JVM", POOL + "ProcessSumOfSquares", POOL + "ProcessSumOfSquares",
                "reference: how far two processes scale").measuredAtLeast(CHEAP_RATIO_RUNS),
            new Row("handoff.pool", "a pool task whose argument is a 1 GiB SharedArray, against one with a 1 MiB array, alternated",
                Params.parse("bytes=" + GIB + ",workers=1," + Params.PEER_ONLY + "bytes=" + MIB), 0,
                "the same task on a 1 MiB array", POOL + "SharedArrayTask", POOL + "SharedArrayTask",
                "1 GiB within 2x of 1 MiB").measuredAtLeast(CHEAP_RATIO_RUNS),
            new Row("handoff.1mib", "hand a 1 MiB float64 array to a child JVM (round trip, child reads it)",
                Params.parse("bytes=" + MIB), 0, "Java serialization of double[] through a pipe",
                PEERS + "SerializationHandoff", PEERS + "DescriptorHandoff", "O(1) in size: see 1 GiB row"),
            new Row("handoff.1gib", "hand a 1 GiB float64 array to a child JVM (round trip, child reads it)",
                Params.parse("bytes=" + GIB), 0, "Java serialization of double[] through a pipe",
                PEERS + "SerializationHandoff", PEERS + "DescriptorHandoff", "sharray 1 GiB within 2x of 1 MiB"),
            new Row("rs.encode.native.1t", "RS(10,4) encode, 1 MiB shards, 1 thread, NATIVE backend",
                Params.parse("k=10,m=4,shard=" + MIB + ",threads=1,backend=NATIVE"), 10 * MIB, "ISA-L (libisal2)",
                CODEC + "IsalEncode", CODEC + "CodecEncode", "NATIVE >= 0.8x ISA-L"),
            new Row("rs.encode.native.2t", "RS(10,4) encode, 1 MiB shards, 2 threads (one stripe each), NATIVE",
                Params.parse("k=10,m=4,shard=" + MIB + ",threads=2,backend=NATIVE"), 20 * MIB, "ISA-L (libisal2)",
                CODEC + "IsalEncode", CODEC + "CodecEncode", "NATIVE >= 0.8x ISA-L"),
            new Row("rs.encode.java.1t", "RS(10,4) encode, 1 MiB shards, 1 thread, JAVA (Vector API) backend",
                Params.parse("k=10,m=4,shard=" + MIB + ",threads=1,backend=JAVA"), 10 * MIB, "ISA-L (libisal2)",
                CODEC + "IsalEncode", CODEC + "CodecEncode", "JAVA >= 1 GB/s (JDK 17), >= 3 GB/s (JDK 25)"),
            new Row("rs.reconstruct.native.1t", "RS(10,4) reconstruct 4 lost shards, 1 MiB shards, 1 thread, NATIVE",
                Params.parse("k=10,m=4,shard=" + MIB + ",threads=1,backend=NATIVE,lost=4"), 10 * MIB,
                "ISA-L (libisal2)", CODEC + "IsalReconstruct", CODEC + "CodecReconstruct", "NATIVE >= 0.7x ISA-L"),
            new Row("rs.reconstruct.native.2t", "RS(10,4) reconstruct 4 lost shards, 1 MiB shards, 2 threads, NATIVE",
                Params.parse("k=10,m=4,shard=" + MIB + ",threads=2,backend=NATIVE,lost=4"), 20 * MIB,
                "ISA-L (libisal2)", CODEC + "IsalReconstruct", CODEC + "CodecReconstruct", "NATIVE >= 0.7x ISA-L"));
    }
}
