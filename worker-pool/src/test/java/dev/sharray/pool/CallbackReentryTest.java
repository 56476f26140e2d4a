package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.SharedArray;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Callbacks attached to task futures run on the pool's own threads: one that calls the pool and waits for it
 * (a follow-up map, a retry after a crash) gets its answer instead of waiting for a thread it is blocking.
 */
class CallbackReentryTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    private static void assertNoChildren() throws InterruptedException {
        for (int i = 0; i < 100 && ProcessHandle.current().children().anyMatch(ProcessHandle::isAlive); i++) {
            Thread.sleep(20);
        }
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
            .collect(Collectors.toList()));
    }

    /** The messages of {@code t} and its causes: JDK 25's {@code join()} wraps a cancellation in one saying "join". */
    private static String messages(Throwable t) {
        final StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" / ");
        }
        return b.toString();
    }

    private ProcessPool pool;

    @BeforeEach
    void startPool() {
        pool = ProcessPool.create(1);
    }

    /** Each test ends with its pool stopped and no worker left, whatever it did to the pool. */
    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertNoChildren();
    }

    /** x + 1, answered only once {@code go} is set. */
    private static RemoteFunction<Integer, Integer> plusOneOnceGo(SharedArray go) {
        return x -> {
            while (go.getLong(0) == 0) {
                Thread.sleep(1);
            }
            return x + 1;
        };
    }

    /**
     * Submits {@code x + 1} and attaches {@code callback} before the task may answer, so the pool's result thread
     * completes the task and runs the callback; asserts that it did and returns the callback's value.
     */
    private <R> R onTheResultThread(int x, Function<Integer, R> callback) throws Exception {
        try (SharedArray go = SharedArray.copyOf(new long[1])) {
            final AtomicReference<String> callbackThread = new AtomicReference<>();
            final CompletableFuture<R> f = pool.submit(plusOneOnceGo(go), x).thenApply(r -> {
                callbackThread.set(Thread.currentThread().getName());
                return callback.apply(r);
            });
            // waited for through a plain future: waiting on f itself would help read the answer, and might run
            // the callback on this thread
            final CompletableFuture<R> done = new CompletableFuture<>();
            f.whenComplete((v, e) -> {
                if (e != null) {
                    done.completeExceptionally(e);
                } else {
                    done.complete(v);
                }
            });
            go.setLong(1, 0);
            final R value = assertTimeoutPreemptively(GUARD, () -> done.get());
            assertTrue(callbackThread.get().endsWith("-results"), callbackThread.get());
            return value;
        }
    }

    @Test
    void aCallbackRunOnAWaitingCallersThreadMaySubmitAndJoin() {
        // the caller's join polls the rings itself and completes the first task there, running this callback; its
        // join of a task that outlasts the caller's spin blocked for ever: the result thread left the rings to a
        // polling caller (3 hangs in 3 runs of 2,000 rounds, within the first ~100)
        assertTimeoutPreemptively(GUARD, () -> {
            for (int i = 0; i < 300; i++) {
                final int round = i;
                final int answer = pool.submit((Integer x) -> x, round)
                    .thenApply(x -> pool.submit((Integer y) -> {
                        Thread.sleep(2);
                        return y + 1;
                    }, x).join())
                    .join();
                assertEquals(round + 1, answer);
            }
        }, "a callback on a caller's thread waited for ever for a task");
    }

    @Test
    void aCallbackOnTheResultThreadMayMapAndJoin() throws Exception {
        assertEquals(List.of(4, 6, 102), onTheResultThread(1, x -> {
            final List<Integer> doubled = pool.map((Integer y) -> y * 2, List.of(x, x + 1));
            final int more = pool.submit((Integer y) -> y + 100, x).join();
            return List.of(doubled.get(0), doubled.get(1), more);
        }));
    }

    /** Before, a dependent stage was a plain CompletableFuture: waiting on it blocked the result thread for good. */
    @Test
    void aCallbackOnTheResultThreadMayWaitOnStagesThatDependOnTasks() throws Exception {
        assertEquals(List.of(30, 4), onTheResultThread(1, x -> List.of(
            pool.submit((Integer y) -> y + 1, x).thenApply(y -> y * 10).join(),
            pool.submit((Integer y) -> y + 1, x).thenCompose(y -> pool.submit((Integer z) -> z + 1, y)).join())));
    }

    @Test
    void aCallbackOfACrashedTaskMaySubmitAgainToAOneWorkerPool() throws Exception {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        // a retry: the only worker died, its replacement runs the task again
        final CompletableFuture<Integer> retried = pool.submit((Integer x) -> {
            System.exit(3);
            return x;
        }, 41).exceptionally(e -> {
            failure.set(e);
            return pool.submit((Integer x) -> x + 1, 41).join();
        });
        assertEquals(42, assertTimeoutPreemptively(GUARD, () -> retried.get()));
        final Throwable cause = failure.get() instanceof CompletionException ? failure.get().getCause() : failure.get();
        assertEquals(3, assertInstanceOf(WorkerCrashedException.class, cause).exitCode());
    }

    @Test
    void aCallbackOnTheResultThreadMayCloseThePool() throws Exception {
        assertEquals(Integer.valueOf(2), onTheResultThread(1, (Integer x) -> {
            pool.close();
            return x;
        }));
        assertTrue(pool.isClosed());
        assertEquals(0, pool.size());
    }

    /**
     * Another thread's {@code close()} stops the pool while a callback on the result thread closes it too. The
     * callback's call waited for that stop, which waits for the result thread: the stop stalled for its whole grace (5 s)
     * before it went on. The callback's call now returns at once, while the pool is still stopping (its worker alive).
     */
    @Test
    void aCallbackOnTheResultThreadClosingAPoolAnotherThreadClosesDoesNotWaitForThatClose() throws Exception {
        final List<Long> pids = pool.workerPids();
        final CountDownLatch inCallback = new CountDownLatch(1);
        final AtomicReference<String> callbackThread = new AtomicReference<>();
        final AtomicReference<List<Long>> aliveAfterItsClose = new AtomicReference<>();
        try (SharedArray go = SharedArray.copyOf(new long[1])) {
            pool.submit(plusOneOnceGo(go), 1).thenRun(() -> {
                callbackThread.set(Thread.currentThread().getName());
                inCallback.countDown();
                final long deadline = System.nanoTime() + GUARD.toNanos();
                while (!pool.isClosed() && System.nanoTime() < deadline) {
                    Thread.onSpinWait(); // until the other thread's close() has begun
                }
                pool.close();
                aliveAfterItsClose.set(pids.stream()
                    .filter(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)).toList());
            });
            go.setLong(1, 0);
            assertTrue(inCallback.await(GUARD.toSeconds(), TimeUnit.SECONDS));
        }
        assertTimeoutPreemptively(GUARD, pool::close);
        assertTrue(callbackThread.get().endsWith("-results"), callbackThread.get());
        assertEquals(pids, aliveAfterItsClose.get(), "the callback's close() waited for the stop that waits for it");
        assertEquals(0, pool.size());
    }

    /**
     * shutdownNow() fails the running task on its own thread, and so runs the task's callbacks there: one that closed
     * the pool waited for the stop it was called from, and hung the thread for good.
     */
    @Test
    void aCallbackRunByShutdownNowMayCloseThePool() throws Exception {
        final AtomicReference<String> callbackThread = new AtomicReference<>();
        pool.submit((Integer x) -> {
            Thread.sleep(60_000);
            return x;
        }, 1).whenComplete((r, e) -> {
            callbackThread.set(Thread.currentThread().getName());
            pool.close();
        });
        final String stopper = assertTimeoutPreemptively(GUARD, () -> {
            pool.shutdownNow();
            return Thread.currentThread().getName();
        });
        assertEquals(stopper, callbackThread.get(), "the callback ran on the thread in shutdownNow()");
        assertEquals(0, pool.size());
        assertNoChildren();
    }

    /**
     * close() reads the last answers itself while it drains, and so may run their callbacks: one that closed the pool
     * waited for the stop, which comes only after the drain it was called from, and hung the thread for good (4 times
     * in 4 runs of a probe; the result thread, which may read the answer first, never hung).
     */
    @Test
    void aCallbackRunByCloseWhileItDrainsMayCloseThePool() throws Exception {
        final CountDownLatch closed = new CountDownLatch(1);
        pool.submit((Integer x) -> {
            Thread.sleep(300);
            return x;
        }, 1).whenComplete((r, e) -> {
            pool.close();
            closed.countDown();
        });
        assertTimeoutPreemptively(GUARD, pool::close);
        assertTrue(closed.await(GUARD.toSeconds(), TimeUnit.SECONDS), "the callback's close() returned");
        assertEquals(0, pool.size());
        assertNoChildren();
    }

    /**
     * shutdownNow() while a callback on the result thread waits for a running task: the stop waits for the result
     * thread before it kills the workers, and the running task failed only after the kill, so the stop waited out its
     * whole grace (5 s) for a thread waiting on it. The waiting thread now fails the task as the stop will.
     */
    @Test
    void shutdownNowDoesNotWaitOutItsGraceForAResultThreadCallbackWaitingOnARunningTask() throws Exception {
        final java.nio.file.Path started = java.nio.file.Files.createTempFile("sharray-running", ".mark");
        java.nio.file.Files.delete(started);
        final String marker = started.toString();
        final AtomicReference<Throwable> joined = new AtomicReference<>();
        final CountDownLatch callbackEnded = new CountDownLatch(1);
        pool.submit((Integer x) -> x, 1).thenRun(() -> {
            try {
                pool.submit((Integer x) -> {
                    java.nio.file.Files.createFile(java.nio.file.Path.of(marker));
                    Thread.sleep(60_000);
                    return x;
                }, 2).join();
            } catch (RuntimeException e) {
                joined.set(e);
            } finally {
                callbackEnded.countDown();
            }
        });
        for (int i = 0; i < 3000 && !java.nio.file.Files.exists(started); i++) {
            Thread.sleep(10);
        }
        assertTrue(java.nio.file.Files.exists(started), "the task the callback waits for runs");
        java.nio.file.Files.delete(started);
        assertTimeoutPreemptively(GUARD, pool::shutdownNow);
        assertEquals(0, pool.resultThreadGracesWaitedOut(), "the stop waited its whole grace for the result thread");
        assertTrue(callbackEnded.await(GUARD.toSeconds(), TimeUnit.SECONDS));
        assertTrue(messages(joined.get()).contains("shut down"), messages(joined.get()));
    }

    @Test
    void shutdownNowEndsWhenACallbackItRunsWaitsForAnotherTaskItFails() throws Exception {
        final CompletableFuture<Integer> running = pool.submit((Integer x) -> {
            Thread.sleep(60_000);
            return x;
        }, 1);
        final CompletableFuture<Integer> queued = pool.submit((Integer x) -> x, 2);
        // run by shutdownNow() as it fails the running task: waits for the queued one, which shutdownNow() fails too
        final CompletableFuture<String> both = running.handle((r, e) -> {
            try {
                return "joined " + queued.join();
            } catch (CancellationException | CompletionException ex) {
                return "queued failed: " + messages(ex);
            }
        });
        assertTimeoutPreemptively(GUARD, pool::shutdownNow);
        assertTrue(both.getNow("not done").contains("shut down"), both.getNow("not done"));
        assertTrue(queued.isCompletedExceptionally());
    }
}
