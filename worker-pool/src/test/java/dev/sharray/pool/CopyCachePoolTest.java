package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.SharedArray;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Heap arguments above maxBytes: the pool-owned copy of one call is reused by the next, never while held. */
class CopyCachePoolTest {
    private static final int N = 1 << 18; // 2 MiB of doubles: above the 1 MiB default maxBytes

    /** What the worker received: the copy's file and the sum of its data. */
    private static final RemoteFunction<Object, String> WHERE_AND_SUM =
        a -> ((SharedArray) a).path() + "|" + ((SharedArray) a).sum();

    private static double[] filled(double v) {
        double[] a = new double[N];
        Arrays.fill(a, v);
        return a;
    }

    private static Path pathOf(String answer) {
        return Path.of(answer.substring(0, answer.indexOf('|')));
    }

    private static double sumOf(String answer) {
        return Double.parseDouble(answer.substring(answer.indexOf('|') + 1));
    }

    @Test
    @Timeout(120)
    void consecutiveCallsCopyIntoTheSameFileAndEachSeesItsOwnData() {
        Path kept;
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("256m").build()) {
            String first = pool.submit(WHERE_AND_SUM, filled(1.0)).join();
            assertEquals(N, sumOf(first));
            kept = pathOf(first);
            assertTrue(Files.exists(kept), "kept for the next call");
            for (int call = 2; call <= 5; call++) {
                double[] arg = filled(call);
                List<String> answers = pool.map(WHERE_AND_SUM, List.of(arg, arg)); // one copy per call
                for (String answer : answers) {
                    assertEquals(kept, pathOf(answer), "call " + call + " reuses the kept copy");
                    assertEquals((double) call * N, sumOf(answer), "call " + call + " sees its own data");
                }
            }
        }
        assertFalse(Files.exists(kept), "close() frees the kept copy");
    }

    @Test
    @Timeout(120)
    void aCopyReturnedToTheCallerIsNotOverwrittenByTheNextCall() {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("256m").build()) {
            // typed on Object, the function receives the pool's shared copy itself and returns it
            RemoteFunction<Object, SharedArray> identity = a -> (SharedArray) a;
            try (SharedArray returned = pool.submit(identity, filled(1.0)).join()) {
                String next = pool.submit(WHERE_AND_SUM, filled(2.0)).join();
                assertNotEquals(returned.path(), pathOf(next), "a held copy is not reused");
                assertEquals(2.0 * N, sumOf(next));
                assertEquals((double) N, returned.sum(), "the caller's result keeps its data");
            }
        }
    }

    /** Worker side: references a function kept past its task. */
    static final List<SharedArray> KEPT_BY_WORKER = new java.util.ArrayList<>();

    @Test
    @Timeout(120)
    void aCopyAWorkerStillHoldsIsNotOverwrittenByTheNextCall() {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("256m").build()) {
            RemoteFunction<Object, String> keep = a -> {
                KEPT_BY_WORKER.add(((SharedArray) a).retain()); // another process's reference on the copy
                return WHERE_AND_SUM.apply(a);
            };
            RemoteFunction<Integer, Double> keptSum = i -> KEPT_BY_WORKER.get(i).sum();
            Path held = pathOf(pool.submit(keep, filled(1.0)).join());
            String next = pool.submit(WHERE_AND_SUM, filled(3.0)).join();
            assertNotEquals(held, pathOf(next), "held by the worker: not reused");
            assertEquals(3.0 * N, sumOf(next));
            assertEquals((double) N, pool.submit(keptSum, 0).join(), "the worker's reference keeps its data");
        }
    }

    @Test
    @Timeout(120)
    void aZeroBudgetFreesEveryCopyWhenItsCallCompletes() {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("256m").copyCacheBytes(0).build()) {
            Path first = pathOf(pool.submit(WHERE_AND_SUM, filled(1.0)).join());
            assertFalse(Files.exists(first));
            assertNotEquals(first, pathOf(pool.submit(WHERE_AND_SUM, filled(1.0)).join()));
        }
    }
}
