package dev.sharray.bench.codec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.SharedStripes;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RS(10,4) encode of a ~1 GiB stripe set held in one shared UINT8 array of shape
 * {@code (stripes, 14, shardLength)}, in place, through the process pool with 1 and with 2 workers
 * ({@code mapChunks}: each task encodes a run of whole stripes straight on the mapped memory). The two
 * pools run alternately in the same JVM, round after round, so both see the same load on a shared
 * machine; one and two threads encoding in this JVM (no pool) run in the same rotation as the
 * reference for what two cores and this memory allow, the two threads once on halves and once taking
 * the pool's chunks from a shared queue (what the chunking itself allows). Prints
 * GB/s of data per round, the medians, and the median of the per-round 2-worker/1-worker ratios (bar:
 * at least 1.7).
 *
 * <p>Usage: {@code java @target/jvm.args -cp <bench classpath> dev.sharray.bench.codec.CodecPoolBench
 * [rounds=9] [stripes=128] [shardLength=838848] [tasksPerCall=8] [pinned|cold]}; {@code cold} lets
 * every task map the file afresh (see {@link #ENCODE_CHUNK_PINNED}). {@code -DwarmupCalls=N} (default 300)
 * sets the no-op calls that warm the parent's JIT first (see {@link #WARMUP_CALLS}); {@code -Dwarmup=N} (default 2) sets
 * the unmeasured rounds: tasks go to whichever worker is free, so a worker may still meet pages it has not
 * mapped yet (a page fault each) in the first measured rounds.
 */
public final class CodecPoolBench {
    private static final int K = 10;
    private static final int M = 4;
    private static final int WARMUP_ROUNDS = Integer.getInteger("warmup", 2);
    /**
     * Calls of a no-op chunk function through each pool before the rounds ({@code -DwarmupCalls}), so the
     * parent's own per-task path (views, encoding, dispatch, answers) is JIT-compiled as in a long-running
     * service: a probe of 2-worker calls measured the parent's threads at ~15 ms of CPU per ~80 ms call after
     * 40 calls (C1 and C2 still compiling) and ~3.5 ms per ~66 ms call after 150, on the cores the workers
     * need. The no-op calls cost ~1 ms each.
     */
    private static final int WARMUP_CALLS = Integer.getInteger("warmupCalls", 300);

    /** Warm-up of the parent's per-task path: a chunk function that touches nothing. */
    private static final RemoteFunction<SharedArray, Long> COUNT_ROWS = chunk -> chunk.shape()[0];

    /** Worker side: one retained handle per array file, released when the worker exits. */
    private static final ConcurrentHashMap<Path, SharedArray> PINNED = new ConcurrentHashMap<>();

    /** Encodes every stripe of a chunk {@code (rows, k + m, shardLength)} in place; returns the stripe count. */
    private static final RemoteFunction<SharedArray, Long> ENCODE_CHUNK = CodecPoolBench::encodeChunk;

    /**
     * Same, after pinning the array's mapping in the worker for the worker's lifetime. A worker maps a
     * file while it holds a reference and unmaps it when its last one goes, so without a pin every task
     * maps the whole 1.4 GiB file afresh and takes a page fault per 4 KiB page it touches: that cost,
     * not the codec, dominated the first measurements. A storage worker that keeps coding the same
     * arrays holds them the same way.
     */
    private static final RemoteFunction<SharedArray, Long> ENCODE_CHUNK_PINNED = chunk -> {
        PINNED.computeIfAbsent(chunk.path(), p -> chunk.retain());
        return encodeChunk(chunk);
    };


    /**
     * Warm-up, worker side: pins the array as {@link #ENCODE_CHUNK_PINNED} does and touches every 4 KiB page
     * of it once; returns the worker's pid. Tasks go to whichever worker is free, so without this a worker of
     * the 2-worker pool meets chunks it has never touched well into the measured rounds, and on a virtual
     * machine where a process's first access to a page costs ~5-13 us (see docs/benchmarks.md) such a round
     * took ~10 times as long: the first measurements' "collapsed rounds". The 1-worker pool touches every
     * chunk in its first round, so only the 2-worker pool was penalized.
     */
    private static final RemoteFunction<SharedArray, Long> TOUCH_WHOLE_SET = set -> {
        PINNED.computeIfAbsent(set.path(), p -> set.retain());
        set.prefault();
        long sum = 0;
        try (SharedArray bytes = set.reshape(set.size())) {
            for (long i = 0; i < bytes.size(); i += 4096) {
                sum += bytes.getLong(i);
            }
        }
        return sum == Long.MIN_VALUE ? -1 : ProcessHandle.current().pid();
    };

    /** Tells which backend and SIMD level a worker runs. */
    private static final RemoteFunction<Integer, String> BACKEND = ignored -> describe(codec());

    private CodecPoolBench() {
    }

    static ErasureCodec codec() {
        return SharedStripes.codec(K, M, Matrix.VANDERMONDE);
    }

    static long encodeChunk(SharedArray chunk) {
        final ErasureCodec codec = codec();
        final long n = chunk.shape()[0];
        for (long i = 0; i < n; i++) {
            try (SharedArray stripe = chunk.select(0, i)) {
                codec.encode(stripe);
            }
        }
        return n;
    }

    static String describe(ErasureCodec c) {
        return c.backend() + "/" + c.simdLevel();
    }

    /**
     * @param args optional rounds, stripes, shard length, tasks per call
     */
    public static void main(String[] args) {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        final long stripes = args.length > 1 ? Long.parseLong(args[1]) : 128;
        final int shard = args.length > 2 ? Integer.parseInt(args[2]) : 838_848; // 128 x 10 x 838848 B ~ 1 GiB
        final int tasks = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        final boolean pinned = args.length <= 4 || !"cold".equals(args[4]);
        final RemoteFunction<SharedArray, Long> fn = pinned ? ENCODE_CHUNK_PINNED : ENCODE_CHUNK;
        final long rowsPerChunk = Math.max(1, (stripes + tasks - 1) / tasks);
        final double dataBytes = (double) stripes * K * shard;

        try (SharedArray set = SharedArray.create(DType.UINT8, stripes, K + M, shard)) {
            fill(set, shard);
            System.out.printf(Locale.ROOT, "RS(%d,%d) encode, %d stripes x %d B shards: %.3f GiB of data (%.3f GiB"
                    + " shared array %s, %s), %d tasks of %d stripes per call, workers keep the mapping: %s%n", K, M, stripes, shard,
                dataBytes / (1L << 30), set.byteSize() / (double) (1L << 30), Arrays.toString(set.shape()),
                set.backing(), (stripes + rowsPerChunk - 1) / rowsPerChunk, rowsPerChunk, pinned);
            System.out.println("local codec: " + describe(codec()) + "; JDK " + Runtime.version());

            // workers whose hot loops are native run with C1 alone, as the CLI's ec commands start them
            // (Workload.NATIVE_LOOPS): otherwise each worker JVM keeps compiling the per-stripe Java glue at
            // tiers 3 and 4 for hundreds of tasks, on the two cores the coding needs; -Dtiered=full keeps it
            final String[] workerOptions = "full".equals(System.getProperty("tiered"))
                ? new String[0] : new String[] {"-XX:TieredStopAtLevel=1"};
            try (ProcessPool one = ProcessPool.builder().workers(1).heapSize("256m").jvmOptions(workerOptions).build();
                 ProcessPool two = ProcessPool.builder().workers(2).heapSize("256m").jvmOptions(workerOptions).build()) {
                System.out.println("worker codec: " + one.map(BACKEND, List.of(0)).get(0)
                    + (workerOptions.length == 0 ? "; full tiered JIT" : "; C1 only"));
                if (pinned) {
                    touchOnEveryWorker(one, 1, set);
                    touchOnEveryWorker(two, 2, set);
                }
                for (int i = 0; i < WARMUP_CALLS; i++) {
                    one.mapChunks(set, rowsPerChunk, COUNT_ROWS);
                    two.mapChunks(set, rowsPerChunk, COUNT_ROWS);
                }
                // [config][round] GB/s; configs: pool of 1, pool of 2, then in this JVM (no pool) one
                // thread and two threads: the machine's own ceiling for two cores on this memory
                final String[] names = {"pool, 1 worker", "pool, 2 workers", "1 thread, no pool", "2 threads, no pool",
                    "2 threads, pool's chunks"};
                final double[][] gbs = new double[names.length][rounds];
                final ExecutorService threads = Executors.newFixedThreadPool(2);
                for (int r = -WARMUP_ROUNDS; r < rounds; r++) {
                    for (int c = 0; c < names.length; c++) {
                        long t0 = System.nanoTime();
                        long done = c == 0 ? sum(one.mapChunks(set, rowsPerChunk, fn))
                            : c == 1 ? sum(two.mapChunks(set, rowsPerChunk, fn))
                            : c == 2 ? encodeChunk(set) : c == 3 ? twoThreads(threads, set)
                            : twoThreadsOverChunks(threads, set, rowsPerChunk);
                        long t1 = System.nanoTime();
                        if (done != stripes) {
                            throw new IllegalStateException("encoded " + done + " of " + stripes + " stripes");
                        }
                        if (r >= 0) {
                            gbs[c][r] = dataBytes / (t1 - t0);
                        }
                    }
                    if (r >= 0) {
                        System.out.printf(Locale.ROOT, "round %d: %s%n", r, line(names, gbs, r));
                    }
                }
                threads.shutdown();
                verify(set);
                final double[] ratio = new double[rounds];
                final double[] ratioPool1 = new double[rounds];
                final double[] ratioChunks = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratio[r] = gbs[1][r] / gbs[0][r];
                    ratioPool1[r] = gbs[3][r] / gbs[2][r];
                    ratioChunks[r] = gbs[4][r] / gbs[2][r];
                }
                for (int c = 0; c < names.length; c++) {
                    System.out.printf(Locale.ROOT, "median %-18s %6.2f GB/s  (best %.2f)%n", names[c] + ":",
                        median(gbs[c]), Arrays.stream(gbs[c]).max().orElse(0));
                }
                System.out.printf(Locale.ROOT, "median ratio 2 workers / 1 worker: %.2f  (per round: %s; bar >= 1.70)%n",
                    median(ratio), fmt(ratio));
                System.out.printf(Locale.ROOT, "median ratio 2 threads / 1 thread (no pool, machine ceiling): %.2f%n", median(ratioPool1));
                System.out.printf(Locale.ROOT, "median ratio 2 threads over the pool's %d chunks / 1 thread (the chunks' own ceiling): %.2f%n",
                    (stripes + rowsPerChunk - 1) / rowsPerChunk, median(ratioChunks));
            }
        }
    }

    /** Runs {@link #TOUCH_WHOLE_SET} until each of the pool's {@code workers} workers has run it. */
    private static void touchOnEveryWorker(ProcessPool pool, int workers, SharedArray set) {
        final Set<Long> pids = new HashSet<>();
        for (int attempt = 0; pids.size() < workers; attempt++) {
            if (attempt == 20) {
                throw new IllegalStateException("only " + pids.size() + " of " + workers + " workers took the warm-up task");
            }
            pids.addAll(pool.map(TOUCH_WHOLE_SET, Collections.nCopies(workers, set)));
        }
    }

    /** Random data rows (a 16 MiB random block reused at shifting offsets); parity rows zero. */
    private static void fill(SharedArray set, int shard) {
        final Random rnd = new Random(42);
        final byte[] block = new byte[16 << 20];
        rnd.nextBytes(block);
        final byte[] row = new byte[shard];
        final long stripes = set.shape()[0];
        int pos = 0;
        for (long s = 0; s < stripes; s++) {
            for (int i = 0; i < K; i++) {
                for (int off = 0; off < shard; ) {
                    int n = Math.min(shard - off, block.length - pos);
                    System.arraycopy(block, pos, row, off, n);
                    off += n;
                    pos = (pos + n) % block.length;
                }
                pos = (pos + 4099) % block.length;
                try (SharedArray stripe = set.select(0, s); SharedArray r = stripe.select(0, i)) {
                    r.copyFrom(row);
                }
            }
        }
    }

    /** Every stripe's parity must be right after the runs (all three configurations write the same bytes). */
    private static void verify(SharedArray set) {
        final ErasureCodec check = codec();
        for (long s = 0; s < set.shape()[0]; s++) {
            try (SharedArray stripe = set.select(0, s)) {
                if (!check.verify(stripe)) {
                    throw new IllegalStateException("stripe " + s + " has wrong parity");
                }
            }
        }
        System.out.println("parity verified on all " + set.shape()[0] + " stripes");
    }

    /**
     * Two threads of this JVM taking the pool's chunks one at a time, each from a shared queue as a free worker
     * does: what the chunking alone allows, since two workers of unequal speed end a call unevenly when
     * the last chunk is a large share of the work.
     */
    private static long twoThreadsOverChunks(ExecutorService threads, SharedArray set, long rowsPerChunk) {
        final long stripes = set.shape()[0];
        final AtomicLong next = new AtomicLong();
        final Callable<Long> take = () -> {
            long done = 0;
            for (long start; (start = next.getAndAdd(rowsPerChunk)) < stripes; ) {
                try (SharedArray chunk = set.slice(0, start, Math.min(stripes, start + rowsPerChunk), 1)) {
                    done += encodeChunk(chunk);
                }
            }
            return done;
        };
        try {
            final Future<Long> a = threads.submit(take);
            final Future<Long> b = threads.submit(take);
            return a.get() + b.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Two threads of this JVM, each encoding half of the stripes. */
    private static long twoThreads(ExecutorService threads, SharedArray set) {
        final long half = set.shape()[0] / 2;
        try (SharedArray a = set.slice(0, 0, half, 1); SharedArray b = set.slice(0, half, set.shape()[0], 1)) {
            Future<Long> fa = threads.submit(() -> encodeChunk(a));
            Future<Long> fb = threads.submit(() -> encodeChunk(b));
            return fa.get() + fb.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long sum(List<Long> parts) {
        long s = 0;
        for (long p : parts) {
            s += p;
        }
        return s;
    }

    private static String line(String[] names, double[][] gbs, int r) {
        List<String> parts = new ArrayList<>();
        for (int c = 0; c < names.length; c++) {
            parts.add(String.format(Locale.ROOT, "%s %.2f GB/s", names[c], gbs[c][r]));
        }
        return String.join(" | ", parts) + String.format(Locale.ROOT, " | ratio %.2f", gbs[1][r] / gbs[0][r]);
    }

    private static String fmt(double[] v) {
        List<String> parts = new ArrayList<>();
        for (double x : v) {
            parts.add(String.format(Locale.ROOT, "%.2f", x));
        }
        return String.join(" ", parts);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
