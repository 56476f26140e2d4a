package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code close()} on an interrupted thread stops the pool as it does otherwise, and keeps the interrupt. Before, its
 * waits returned at once: it killed the workers it had just asked to stop, before their exit hooks ran, and freed
 * what they left while they still lived (so nothing), leaving their arrays in the shared-memory folder until another
 * sharray process's reaper pass; and a second {@code close()} returned while the first still drained, the workers
 * running.
 */
class InterruptedCloseTest {
    /** What a task keeps in its worker, as a worker-side cache would (each worker JVM has its own). */
    static final List<SharedArray> KEPT = new ArrayList<>();

    @Test
    void closeOnAnInterruptedThreadLeavesNoArrayOfItsWorkers() throws Exception {
        final List<String> kept;
        final List<Long> pids;
        final ProcessPool pool = ProcessPool.create(2);
        try {
            pids = pool.workerPids();
            kept = pool.map((Integer n) -> {
                final SharedArray a = SharedArray.create(DType.FLOAT64, n);
                synchronized (KEPT) {
                    KEPT.add(a);
                }
                return a.path().toString();
            }, List.of(1000, 1000, 1000, 1000));
        } finally {
            Thread.currentThread().interrupt();
            pool.close();
            assertTrue(Thread.interrupted(), "close() keeps the caller's interrupt");
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "worker " + pid);
        }
        for (String p : kept) {
            assertFalse(Files.exists(Path.of(p)), p + " outlived its worker");
        }
    }

    /**
     * close() on an interrupted thread drains with the interrupt put aside: kept set, every park of its drain loop
     * returned at once, a busy loop for as long as the last tasks ran (~0.6 s of CPU over a 2 s task in a scratch run,
     * 0.13 s without the interrupt). Seen here by a callback that the draining thread runs: the result thread waits in
     * another callback meanwhile, so the closing thread reads the answer.
     */
    @Test
    void closeOnAnInterruptedThreadDrainsWithTheInterruptPutAside() throws Exception {
        final ProcessPool pool = ProcessPool.create(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<String> thread = new AtomicReference<>();
        final AtomicReference<Boolean> interruptedInCallback = new AtomicReference<>();
        try {
            pool.submit((Integer x) -> x, 1).thenRun(() -> {
                blocked.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(blocked.await(30, TimeUnit.SECONDS));
            pool.submit((Integer x) -> {
                Thread.sleep(200);
                return x;
            }, 2).thenRun(() -> {
                thread.set(Thread.currentThread().getName());
                interruptedInCallback.set(Thread.currentThread().isInterrupted());
                release.countDown();
            });
            Thread.currentThread().interrupt();
            pool.close();
            assertTrue(Thread.interrupted(), "close() keeps the caller's interrupt");
        } finally {
            Thread.interrupted();
            release.countDown();
            pool.shutdownNow();
        }
        assertEquals(Thread.currentThread().getName(), thread.get(), "the closing thread read the answer");
        assertEquals(false, interruptedInCallback.get(), "the closing thread drained with its interrupt set");
    }

    @Test
    void aSecondCloseOnAnInterruptedThreadReturnsOnceThePoolHasStopped() throws Exception {
        final ProcessPool pool = ProcessPool.create(1);
        final List<Long> pids = pool.workerPids();
        final CompletableFuture<Integer> running = pool.submit((Integer x) -> {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return x;
        }, 1);
        final Thread first = new Thread(pool::close, "first close");
        first.start();
        try {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!pool.isClosed()) {
                assertTrue(System.nanoTime() < deadline, "the first close() did not begin");
                Thread.onSpinWait();
            }
            Thread.currentThread().interrupt();
            pool.close();
            assertTrue(Thread.interrupted(), "close() keeps the caller's interrupt");
            assertTrue(running.isDone(), "returned while the first close() still drained");
            assertEquals(1, running.getNow(null));
            for (long pid : pids) {
                assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "worker " + pid);
            }
        } finally {
            Thread.interrupted();
            first.join(60_000);
        }
    }
}
