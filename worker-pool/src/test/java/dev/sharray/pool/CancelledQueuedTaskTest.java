package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queued task whose future its caller completes (cancel, {@code completeExceptionally}, {@code orTimeout},
 * {@code complete}) leaves the queue at once and releases the arrays pinned for it. Before, it stayed queued, holding
 * a shared array the caller had released (and a pool-owned copy of a large heap argument), until a worker was free to
 * take it: behind long running tasks, that was hours of /dev/shm.
 */
class CancelledQueuedTaskTest {

    /** Runs until the file {@code path} exists: the test's tasks then run one after the other. */
    private static final RemoteFunction<String, Integer> BUSY_UNTIL_FILE = path -> {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(Path.of(path)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return 1;
    };

    @Test
    void aCancelledQueuedTaskReleasesItsArraysAtOnce() throws Exception {
        final Path go = Files.createTempFile("sharray-cancel", ".go");
        Files.delete(go);
        try (ProcessPool pool = ProcessPool.create(1)) {
            final CompletableFuture<Integer> busy = pool.submit(BUSY_UNTIL_FILE, go.toString());
            final SharedArray[] arrays = new SharedArray[4];
            final Path[] files = new Path[arrays.length];
            final CompletableFuture<?>[] queued = new CompletableFuture<?>[arrays.length];
            for (int i = 0; i < arrays.length; i++) {
                arrays[i] = SharedArray.create(DType.FLOAT64, 100);
                files[i] = arrays[i].path();
                queued[i] = pool.submit((SharedArray a) -> a.getDouble(0), arrays[i]);
                arrays[i].release(); // the queued task's reference keeps the file
                assertTrue(Files.exists(files[i]));
            }
            assertTrue(queued[0].cancel(true));
            assertTrue(queued[1].completeExceptionally(new IllegalStateException("given up")));
            assertTrue(queued[2].complete(null));
            queued[3].orTimeout(1, TimeUnit.MILLISECONDS);
            assertInstanceOf(java.util.concurrent.TimeoutException.class,
                assertThrows(ExecutionException.class, () -> queued[3].get(30, TimeUnit.SECONDS)).getCause());
            for (Path f : files) {
                assertFalse(Files.exists(f), f + " stayed while the task it was pinned for waited behind a running one");
            }
            assertFalse(busy.isDone(), "checked while the worker was still busy");
            Files.createFile(go);
            assertEquals(1, busy.get(60, TimeUnit.SECONDS));
            assertThrows(CancellationException.class, () -> queued[0].join());
            // the pool goes on, and counts the dropped tasks done: close() below does not wait for them
            assertEquals(2.0, pool.submit((Integer x) -> x * 2.0, 1).get(30, TimeUnit.SECONDS));
        } finally {
            Files.deleteIfExists(go);
        }
    }

    /**
     * Cancelling a queued task used to unlink it from the queue, a scan of the queue: cancelling n queued tasks cost
     * O(n^2). It is now only marked, and skipped by the next dispatch; its arrays are still released at once, it is
     * counted done once, and the pool goes on.
     */
    @Test
    void manyCancelledQueuedTasksAreAllReleasedAndThePoolGoesOn() throws Exception {
        final int n = 20_000;
        final Path go = Files.createTempFile("sharray-cancel", ".go");
        Files.delete(go);
        try (ProcessPool pool = ProcessPool.create(1)) {
            final CompletableFuture<Integer> busy = pool.submit(BUSY_UNTIL_FILE, go.toString());
            final SharedArray array = SharedArray.create(DType.FLOAT64, 100);
            final Path file = array.path();
            final List<CompletableFuture<Double>> queued = new ArrayList<>(n);
            try {
                for (int i = 0; i < n; i++) {
                    queued.add(pool.submit((SharedArray a) -> a.getDouble(0), array));
                }
            } finally {
                array.release(); // the queued tasks' references keep the file
            }
            assertTrue(Files.exists(file));
            assertEquals(n + 1, pool.tasksInFlight());
            for (int i = n - 1; i >= 0; i--) { // from the back: the farthest from the queue's head
                assertTrue(queued.get(i).cancel(true));
            }
            assertFalse(Files.exists(file), "the cancelled tasks' references were released at once");
            assertEquals(1, pool.tasksInFlight(), "only the running task is counted");
            assertFalse(busy.isDone(), "checked while the worker was still busy");
            Files.createFile(go);
            assertEquals(1, busy.get(60, TimeUnit.SECONDS));
            assertEquals(2.0, pool.submit((Integer x) -> x * 2.0, 1).get(30, TimeUnit.SECONDS));
            assertEquals(0, pool.tasksInFlight(), "no cancelled task was counted done twice, or left counted");
            for (CompletableFuture<Double> f : queued) {
                assertThrows(CancellationException.class, f::join);
            }
        } finally {
            Files.deleteIfExists(go);
        }
    }
}
