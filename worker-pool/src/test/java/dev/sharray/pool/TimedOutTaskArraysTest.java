package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An array that a timed-out task held is deleted once its caller has released it and the killed worker has ended.
 * The caller's release comes right after the timeout, while the worker is being killed and still counts its
 * reference; the pool frees what that worker created itself ({@code reapProcess}), but not an array of the
 * parent's own folder, which stayed until the parent exited: one array per timeout, in a server for days.
 */
class TimedOutTaskArraysTest {
    private static final int ROUNDS = 3;
    /** What a task keeps in its worker (each worker JVM has its own). */
    static final List<SharedArray> KEPT = new ArrayList<>();

    @Test
    void anArrayReleasedAsItsTaskTimesOutIsDeletedOnceTheWorkerHasEnded() throws Exception {
        final List<Path> files = new ArrayList<>();
        try (ProcessPool pool = ProcessPool.create(1)) {
            for (int round = 0; round < ROUNDS; round++) {
                // an array the worker keeps: releasing our handle on it checks that the worker is alive, as a
                // busy parent does all the time, and a process seen alive is trusted for a moment while its pid
                // exists (a killed worker's pid exists until its exit has been reaped)
                pool.submit((Integer n) -> {
                    final SharedArray k = SharedArray.create(DType.INT8, n);
                    KEPT.add(k);
                    return k;
                }, 4096, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS).release();
                final SharedArray a = SharedArray.create(DType.FLOAT64, 1 << 16);
                files.add(a.path());
                final CompletableFuture<Integer> f = pool.submit((SharedArray x) -> {
                    x.setDouble(1.0, 0);
                    Thread.sleep(60_000);
                    return 0;
                }, a, Duration.ofMillis(200));
                // the caller lets go the moment the timeout is reported, as a try-with-resources would
                f.whenComplete((r, e) -> a.release());
                final ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(TaskTimeoutException.class, e.getCause());
                // runs on the replacement, which the pool starts once it has handled the killed worker's end
                assertEquals(round, pool.submit((Integer x) -> x, round, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS));
                assertTrue(a.isReleased());
            }
            final List<Path> left = files.stream().filter(Files::exists).toList();
            assertEquals(List.of(), left, "arrays whose only holders were the caller and a killed worker");
        }
    }
}
