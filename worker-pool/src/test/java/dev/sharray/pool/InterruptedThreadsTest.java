package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.RefCountFileHooks;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An interrupt of a thread that uses the pool is the caller's, not the pool's. Opening or creating an array maps a
 * file through a channel, which an interrupted thread closes ({@code ClosedByInterruptException}): a waiting caller
 * that had been interrupted, reading the answers of every caller, failed their array results with
 * {@code MalformedDataException}; a callback that left the result thread interrupted failed every later array result
 * of the pool (and the thread spun, every park returning at once); and {@code map} of a large heap array, documented
 * as not interruptible, failed with "cannot create an array in ...: null", as building a pool failed with "cannot start
 * worker 1".
 */
class InterruptedThreadsTest {
    private static ProcessPool pool;

    /** A task long enough that its answer is read by whichever thread is pumping then, not by its spinning caller. */
    private static final RemoteFunction<Integer, SharedArray> SLOW_ARRAY = n -> {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final SharedArray a = SharedArray.create(DType.FLOAT64, n);
        a.setDouble(n, n - 1);
        return a;
    };

    @BeforeAll
    static void startPool() {
        pool = ProcessPool.create(2);
    }

    @AfterAll
    static void stopPool() {
        pool.close();
    }

    private static void assertArrayResult(SharedArray a, int n) {
        try {
            assertEquals(n, a.getDouble(n - 1));
        } finally {
            a.release();
        }
    }

    @Test
    void aCallbackThatLeavesTheResultThreadInterruptedDoesNotFailLaterResults() throws Exception {
        final CountDownLatch ran = new CountDownLatch(1);
        final AtomicReference<String> thread = new AtomicReference<>();
        // nobody waits for it: the result thread reads its answer and runs the callback
        pool.submit(SLOW_ARRAY, 1).thenAccept(a -> {
            a.release();
            thread.set(Thread.currentThread().getName());
            Thread.currentThread().interrupt();
            ran.countDown();
        });
        assertTrue(ran.await(30, TimeUnit.SECONDS));
        assertTrue(thread.get().endsWith("-results"), "ran on " + thread.get());
        for (int i = 0; i < 5; i++) {
            assertArrayResult(pool.submit(SLOW_ARRAY, 10 + i).get(30, TimeUnit.SECONDS), 10 + i);
        }
        // the result thread dropped the interrupt (kept, every park and doorbell wait of its loop returned at once)
        final CountDownLatch later = new CountDownLatch(1);
        final AtomicReference<Boolean> interruptedLater = new AtomicReference<>();
        pool.submit(SLOW_ARRAY, 1).thenAccept(a -> {
            a.release();
            thread.set(Thread.currentThread().getName());
            interruptedLater.set(Thread.currentThread().isInterrupted());
            later.countDown();
        });
        assertTrue(later.await(30, TimeUnit.SECONDS));
        assertTrue(thread.get().endsWith("-results"), "ran on " + thread.get());
        assertEquals(false, interruptedLater.get(), "the result thread kept the interrupt a callback left");
    }

    @Test
    void anInterruptedCallerReadsAnswersIntactAndKeepsItsInterrupt() throws Exception {
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch unblock = new CountDownLatch(1);
        final AtomicReference<String> callbackThread = new AtomicReference<>();
        // the result thread waits in this callback: only the interrupted caller below reads answers meanwhile. The task
        // sleeps so that the callback is attached before its answer is read: attached after, it would run on this
        // thread, at once, and wait out its whole bound here
        pool.submit((Integer x) -> {
            Thread.sleep(300);
            return x;
        }, 1).thenRun(() -> {
            callbackThread.set(Thread.currentThread().getName());
            blocked.countDown();
            if (!Thread.currentThread().getName().endsWith("-results")) {
                return;
            }
            try {
                unblock.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(blocked.await(30, TimeUnit.SECONDS));
            assertTrue(callbackThread.get().endsWith("-results"), "the callback ran on " + callbackThread.get());
            final CompletableFuture<SharedArray> f = pool.submit(SLOW_ARRAY, 7);
            Thread.currentThread().interrupt();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!f.isDone() && System.nanoTime() < deadline) {
                try {
                    f.get(1, TimeUnit.MILLISECONDS); // reads the answers first (TaskFuture), then waits
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the caller keeps its interrupt and waits on
                } catch (TimeoutException e) {
                    // again
                }
            }
            assertTrue(f.isDone(), "the interrupted caller read the answer while the result thread was held");
            assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            assertArrayResult(f.getNow(null), 7);
        } finally {
            Thread.interrupted();
            unblock.countDown();
        }
    }

    /**
     * An interrupt that reaches the reading thread while it opens a result's array (an executor's shutdownNow() on a
     * thread waiting for a task of its own) failed that result, which may be another caller's: it is now read again.
     */
    @Test
    void anInterruptThatComesWhileAnAnswerIsReadDoesNotFailIt() throws Exception {
        final AtomicReference<String> interrupted = new AtomicReference<>();
        RefCountFileHooks.beforeAccess(path -> {
            if (interrupted.compareAndSet(null, Thread.currentThread().getName())) {
                Thread.currentThread().interrupt(); // as if another thread interrupted this one just now
            }
        });
        try {
            assertArrayResult(pool.submit(SLOW_ARRAY, 9).get(30, TimeUnit.SECONDS), 9);
            assertTrue(interrupted.get() != null, "the answer's array was opened without the hook");
        } finally {
            RefCountFileHooks.beforeAccess(null);
            Thread.interrupted(); // when this thread read the answer, it has the interrupt back
        }
    }

    @Test
    void aPoolBuiltOnAnInterruptedThreadStartsAndKeepsTheInterrupt() throws Exception {
        Thread.currentThread().interrupt();
        try (ProcessPool built = ProcessPool.create(1)) {
            assertTrue(Thread.interrupted(), "the build keeps the caller's interrupt");
            assertEquals(3, built.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void mapAndSubmitOfALargeHeapArrayOnAnInterruptedThreadRunAndKeepTheInterrupt() throws Exception {
        final double[] big = new double[1 << 18]; // 2 MiB: shared as a pool-owned copy
        big[big.length - 1] = 3;
        try {
            Thread.currentThread().interrupt();
            assertEquals(List.of(3.0, 3.0), pool.map((double[] w) -> w[w.length - 1], List.of(big, big)));
            assertTrue(Thread.currentThread().isInterrupted(), "map keeps the caller's interrupt");
            final CompletableFuture<Double> f = pool.submit((double[] w) -> w[w.length - 1], big);
            assertTrue(Thread.interrupted(), "submit keeps the caller's interrupt");
            assertEquals(3.0, f.get(30, TimeUnit.SECONDS));
        } finally {
            Thread.interrupted();
        }
    }
}
