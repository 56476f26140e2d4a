package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
