package dev.sharray.pool;

import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A map call's function is decoded once per worker, not once per task: the captured value's reducer and a
 * named function's readObject count their runs in the worker JVM, and the functions return that count.
 * A worker killed mid-map is replaced by one with an empty cache, which is sent the function again.
 */
class MapFunctionCacheTest {

    /** A captured value whose reducer counts how often a worker rebuilt it. */
    public record Factor(int value) {
    }

    /** Rebuilds {@link Factor}s, counting them in the JVM it runs in (each worker has its own count). */
    public static final class FactorReducer implements Reducer<Factor> {
        static final AtomicInteger DECODED = new AtomicInteger();

        public FactorReducer() {
        }

        @Override
        public Class<Factor> type() {
            return Factor.class;
        }

        @Override
        public void write(Factor value, ValueWriter out) {
            out.writeInt(value.value());
        }

        @Override
        public Factor read(ValueReader in) {
            DECODED.incrementAndGet();
            return new Factor(in.readInt());
        }
    }

    /** A named function with state, counting its Java deserializations in the worker JVM. */
    static final class CountingScale implements RemoteFunction<Integer, String> {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger DESERIALIZED = new AtomicInteger();
        private final int factor;

        CountingScale(int factor) {
            this.factor = factor;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            DESERIALIZED.incrementAndGet();
        }

        @Override
        public String apply(Integer x) {
            return ProcessHandle.current().pid() + ":" + DESERIALIZED.get() + ":" + (x * factor);
        }
    }

    private static ProcessPool newPool(int workers) {
        return ProcessPool.builder().workers(workers).heapSize("128m")
            .reducers(Reducers.defaults().with(new FactorReducer())).build();
    }

    /** Results "pid:count:value": checks the values and returns the counts seen per worker pid. */
    private static Map<Long, Set<Integer>> countsByPid(List<String> results, int factor) {
        final Map<Long, Set<Integer>> counts = new HashMap<>();
        for (int i = 0; i < results.size(); i++) {
            final String[] p = results.get(i).split(":");
            assertEquals(String.valueOf(i * factor), p[2], "result " + i);
            counts.computeIfAbsent(Long.parseLong(p[0]), k -> new HashSet<>()).add(Integer.parseInt(p[1]));
        }
        return counts;
    }

    private static List<Integer> range(int n) {
        final List<Integer> args = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            args.add(i);
        }
        return args;
    }

    @Test
    @Timeout(120)
    void aMapCallsFunctionIsDecodedOncePerWorker() {
        try (ProcessPool pool = newPool(2)) {
            final Factor factor = new Factor(Integer.parseInt("3"));
            final RemoteFunction<Integer, String> capturing = x ->
                ProcessHandle.current().pid() + ":" + FactorReducer.DECODED.get() + ":" + (x * factor.value());
            // fresh workers: each one that ran tasks of the first call rebuilt the captured value exactly once
            final Map<Long, Set<Integer>> first = countsByPid(pool.map(capturing, range(300)), 3);
            for (Map.Entry<Long, Set<Integer>> e : first.entrySet()) {
                assertEquals(Set.of(1), e.getValue(), "captured value rebuilds on worker " + e.getKey());
            }
            // a second call with the same lambda is a new call: at most once more per worker, then cached again
            final Map<Long, Set<Integer>> second = countsByPid(pool.map(capturing, range(300)), 3);
            for (Map.Entry<Long, Set<Integer>> e : second.entrySet()) {
                assertEquals(1, e.getValue().size(), "one count per worker within a call: " + e);
                assertTrue(e.getValue().iterator().next() <= 2, "captured value rebuilds on worker " + e);
            }
            // a named function with state: Java-deserialized once per worker per call
            final Map<Long, Set<Integer>> named = countsByPid(pool.map(new CountingScale(5), range(300)), 5);
            for (Map.Entry<Long, Set<Integer>> e : named.entrySet()) {
                assertEquals(Set.of(1), e.getValue(), "deserializations on worker " + e.getKey());
            }
            // single submits still work beside it (inline), and so do more map calls than the cache holds
            assertEquals(21, pool.submit((Integer x) -> x * factor.value(), 7).join());
            for (int call = 0; call < FunctionCache.CAPACITY + 3; call++) {
                final int k = call;
                final List<Integer> out = pool.map((Integer x) -> x * factor.value() + k, range(20));
                for (int i = 0; i < 20; i++) {
                    assertEquals(i * 3 + k, out.get(i));
                }
            }
        }
    }

    /**
     * A captured heap array above maxBytes crosses as the pool's shared copy, which a worker rebuilds on its heap:
     * once per worker and call now, as any captured value. Each task made a heap copy of its own before (0.14-0.29 s
     * a task for 200 MB, new-user review 50), although the function then held no mapping to release.
     */
    @Test
    @Timeout(120)
    void aCapturedLargeHeapArrayIsRebuiltOncePerWorkerAndCall() {
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m").maxBytes(1024).build()) {
            final double[] big = new double[64 * 1024]; // 512 KiB, shared: above maxBytes
            for (int i = 0; i < big.length; i++) {
                big[i] = i * 0.5;
            }
            final RemoteFunction<Integer, String> reading = x ->
                ProcessHandle.current().pid() + ":" + System.identityHashCode(big) + ":" + big[x * 1000];
            for (int call = 0; call < 2; call++) {
                final List<String> results = pool.map(reading, range(60));
                final Map<Long, Set<String>> copiesByPid = new HashMap<>();
                for (int i = 0; i < results.size(); i++) {
                    final String[] p = results.get(i).split(":");
                    assertEquals(String.valueOf(i * 1000 * 0.5), p[2], "task " + i + " read the captured array");
                    copiesByPid.computeIfAbsent(Long.parseLong(p[0]), k -> new HashSet<>()).add(p[1]);
                }
                for (Map.Entry<Long, Set<String>> e : copiesByPid.entrySet()) {
                    assertEquals(1, e.getValue().size(), "heap copies of the captured array on worker " + e.getKey()
                        + " in call " + call + ": " + e.getValue());
                }
            }
        }
    }

    /**
     * Of calls running at once whose functions captured large heap arrays, one is decoded once per worker, the others
     * per task: a worker keeps a cached function's arrays until its call ends, and with every overlapping call cached
     * a worker held one copy per call (diff review 50: out of heap where one copy at a time fitted before). Call A
     * holds the cache (a task waits at a gate), call B runs meanwhile, call C after A ends is cached again.
     */
    @Test
    @Timeout(120)
    void ofOverlappingCallsCapturingLargeHeapArraysOneIsDecodedOncePerWorker(@TempDir Path dir) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m").maxBytes(1024).build()) {
            final double[] first = new double[64 * 1024];
            final double[] second = new double[64 * 1024];
            java.util.Arrays.fill(second, 2.0);
            final String gate = dir.resolve("gate").toString();
            final String started = dir.resolve("started").toString();
            final RemoteFunction<Integer, Double> waiting = x -> {
                if (x == 0) {
                    Files.createFile(Path.of(started));
                    while (!Files.exists(Path.of(gate))) {
                        Thread.sleep(10);
                    }
                }
                return first[x];
            };
            final Thread a = new Thread(() -> pool.map(waiting, range(2)));
            a.start();
            while (!Files.exists(Path.of(started))) {
                Thread.sleep(10);
            }
            // the gate opens by itself after 10 s, should one of B's tasks be queued behind A's waiting task
            final Thread opener = new Thread(() -> {
                try {
                    Thread.sleep(10_000);
                    Files.createFile(Path.of(gate));
                } catch (Exception ignored) {
                    // opened by the test
                }
            });
            opener.setDaemon(true);
            opener.start();
            final RemoteFunction<Integer, String> reading = x -> System.identityHashCode(second) + ":" + second[x];
            final Set<String> duringA = new HashSet<>(pool.map(reading, range(20)));
            assertTrue(duringA.size() > 2, "B's function was decoded per task while A held the cache: " + duringA);
            if (!Files.exists(Path.of(gate))) {
                Files.createFile(Path.of(gate));
            }
            a.join();
            final Set<String> afterA = new HashSet<>(pool.map(reading, range(20)));
            assertTrue(afterA.size() <= 2, "C's function was decoded once per worker: " + afterA);
            for (String r : afterA) {
                assertTrue(r.endsWith(":2.0"), r);
            }
        }
    }

    /**
     * Captured heap arrays above an eighth of a worker's heap keep their function decoded per task: a worker that kept
     * them for the call could lack the room a task of another call needs (diff review 50: out of heap where one copy
     * at a time fitted before).
     */
    @Test
    @Timeout(120)
    void aCapturedHeapArrayTooBigBesideAWorkersHeapIsRebuiltPerTask() {
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("64m").maxBytes(1024).build()) {
            assertA10MbCaptureIsDecodedPerTask(pool, 3.0);
        }
    }

    /** Maps 20 tasks capturing a 10 MB array of {@code value} (above 64m / 8) on 64 MB workers: decoded per task. */
    private static void assertA10MbCaptureIsDecodedPerTask(ProcessPool pool, double value) {
        final double[] big = new double[1_250_000];
        java.util.Arrays.fill(big, value);
        final Set<String> seen = new HashSet<>(pool.map(x -> System.identityHashCode(big) + ":" + big[x], range(20)));
        assertTrue(seen.size() > 2, "decoded per task: " + seen);
        for (String r : seen) {
            assertTrue(r.endsWith(":" + value), r);
        }
    }

    /**
     * The bound is the heap the workers say they have, however it was set: {@code -XX:MaxHeapSize} here, which an
     * estimate from the pool's options (heapSize, {@code -Xmx}) missed, taking a quarter of the host's memory and
     * caching 10 MB copies on 64 MB workers. A 4 MB copy still is cached.
     */
    @Test
    @Timeout(120)
    void theBoundIsTheHeapTheWorkersReportNotOneReadFromTheirOptions() {
        try (ProcessPool pool = ProcessPool.builder().workers(2).jvmOptions("-XX:MaxHeapSize=64m").maxBytes(1024).build()) {
            assertA10MbCaptureIsDecodedPerTask(pool, 5.0);
            final double[] fits = new double[500_000]; // 4 MB: below 64m / 8
            java.util.Arrays.fill(fits, 7.0);
            final Set<String> cached = new HashSet<>(pool.map(x -> System.identityHashCode(fits) + ":" + fits[x], range(20)));
            assertTrue(cached.size() <= 2, "decoded once per worker: " + cached);
        }
    }

    /**
     * A map call made while the pool's only worker is being replaced still caches copies that fit: with no live worker
     * to say its heap, the bound was 0 and all 20 tasks decoded the copy (diff review 51).
     */
    @Test
    @Timeout(120)
    void copiesAreCachedWhileTheOnlyWorkerIsReplaced() {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("256m").maxBytes(1024).build()) {
            final double[] fits = new double[250_000]; // 2 MB: far below 256m / 8
            java.util.Arrays.fill(fits, 9.0);
            assertEquals(1, new HashSet<>(pool.map(x -> System.identityHashCode(fits), range(20))).size());
            final java.util.concurrent.CompletableFuture<Integer> dies = pool.submit((Integer x) -> {
                Runtime.getRuntime().halt(3);
                return x;
            }, 1);
            assertThrows(java.util.concurrent.ExecutionException.class, dies::get);
            final Set<Integer> whileReplaced = new HashSet<>(pool.map(x -> System.identityHashCode(fits), range(20)));
            assertEquals(1, whileReplaced.size(), "decoded once by the replacement: " + whileReplaced);
        }
    }

    @Test
    @Timeout(120)
    void moreMapCallsAtOnceThanTheCacheHoldsEachRunTheirOwnFunction() throws Exception {
        // 3x the cache's capacity of calls interleave on 2 workers: the workers evict functions while tasks of
        // the evicted calls are still coming, and the parent's mirror must send those tasks the bytes again
        final int calls = 3 * FunctionCache.CAPACITY;
        try (ProcessPool pool = newPool(2)) {
            final List<Thread> threads = new ArrayList<>();
            final Map<Integer, Throwable> failures = new java.util.concurrent.ConcurrentHashMap<>();
            final java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int c = 0; c < calls; c++) {
                final int call = c;
                final Thread t = new Thread(() -> {
                    try {
                        final Factor factor = new Factor(call + 2);
                        go.await();
                        for (int round = 0; round < 3; round++) {
                            final List<Integer> out = pool.map((Integer x) -> x * factor.value() + call, range(200));
                            for (int i = 0; i < out.size(); i++) {
                                assertEquals(i * (call + 2) + call, out.get(i), "call " + call + " task " + i);
                            }
                        }
                    } catch (Throwable e) {
                        failures.put(call, e);
                    }
                });
                t.start();
                threads.add(t);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(Map.of(), failures);
            assertEquals(2, pool.size(), "no worker was lost to a protocol error");
        }
    }

    @Test
    @Timeout(120)
    void aWorkerKilledMidMapIsReplacedAndTheReplacementGetsTheFunction(@TempDir Path dir) throws Exception {
        try (ProcessPool pool = newPool(1)) {
            final long firstPid = pool.workerPids().get(0);
            final Factor factor = new Factor(Integer.parseInt("4"));
            final String out = dir.toString();
            final int victim = 7;
            // each task records "pid:count:value" in a file of its own: the map call itself ends with the
            // crash of the victim's task, the others' results are read from the files
            final RemoteFunction<Integer, Integer> fn = x -> {
                if (x == victim) {
                    Signals.kill9(ProcessHandle.current().pid());
                    Thread.sleep(60_000); // not reached: SIGKILL
                }
                final String line = ProcessHandle.current().pid() + ":" + FactorReducer.DECODED.get() + ":" + (x * factor.value());
                Files.writeString(Path.of(out, Integer.toString(x)), line);
                return x * factor.value();
            };
            final WorkerCrashedException crash = assertThrows(WorkerCrashedException.class, () -> pool.map(fn, range(20)));
            assertEquals(9, crash.signal());
            assertEquals(0, crash.getSuppressed().length, "only the killed task failed");

            long replacementPid = -1;
            for (int i = 0; i < 20; i++) {
                final Path file = dir.resolve(Integer.toString(i));
                if (i == victim) {
                    assertTrue(Files.notExists(file));
                    continue;
                }
                final String[] p = Files.readString(file).split(":");
                assertEquals(String.valueOf(i * 4), p[2], "result " + i);
                final long pid = Long.parseLong(p[0]);
                if (i < victim) {
                    assertEquals(firstPid, pid, "before the kill: the first worker");
                } else {
                    assertNotEquals(firstPid, pid, "after the kill: the replacement");
                    if (replacementPid == -1) {
                        replacementPid = pid;
                    }
                    assertEquals(replacementPid, pid);
                }
                // each worker rebuilt the captured value once for the call, the replacement included
                assertEquals("1", p[1], "rebuilds on worker " + pid + " at task " + i);
            }
            // the pool goes on with the replacement
            assertEquals(List.of(0, 4, 8), pool.map((Integer x) -> x * factor.value(), List.of(0, 1, 2)));
        }
    }
}
