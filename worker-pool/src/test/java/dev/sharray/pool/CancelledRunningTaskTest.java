package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code cancel(true)} of a submitted task that is running stops it: its worker is killed, as at a timeout, and
 * replaced. Before, the task ran to its end whatever the caller asked, and {@code close()} waited for it: an endless
 * task, cancelled, still held the pool's close for good. {@code cancel(false)} lets it run to its end, as before.
 */
class CancelledRunningTaskTest {
    /** Where a test task marks that it started, and that it ran to its end. */
    private static final int STARTED = 0;
    private static final int ENDED = 1;
    /** Created to let the test's running tasks end. */
    @TempDir
    Path dir;

    /** A task that marks its start, runs until {@code go} exists (60 s at most), then marks its end. */
    private static RemoteFunction<SharedArray, Integer> runUntil(Path go) {
        final String file = go.toString();
        return marks -> {
            marks.setDouble(1.0, STARTED);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(Path.of(file)) && System.nanoTime() - end < 0) {
                Thread.sleep(2);
            }
            marks.setDouble(1.0, ENDED);
            return 1;
        };
    }

    /** @return the future of {@link #runUntil} on {@code marks}, once the task has started */
    private CompletableFuture<Integer> startRunning(ProcessPool pool, SharedArray marks) throws InterruptedException {
        final CompletableFuture<Integer> f = pool.submit(runUntil(dir.resolve("go")), marks);
        awaitStart(marks);
        return f;
    }

    private static void awaitStart(SharedArray marks) throws InterruptedException {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (marks.getDouble(STARTED) == 0 && System.nanoTime() - end < 0) {
            Thread.sleep(2);
        }
        assertEquals(1.0, marks.getDouble(STARTED), "the task never started");
    }

    @ParameterizedTest(name = "cancel({0})")
    @ValueSource(booleans = {true, false})
    void aRunningTaskIsStoppedByCancelTrueOnly(boolean mayInterrupt) throws Exception {
        try (ProcessPool pool = ProcessPool.create(1);
             SharedArray marks = SharedArray.create(DType.FLOAT64, 2)) {
            final CompletableFuture<Integer> f = startRunning(pool, marks);
            final long pid = pool.workerPids().get(0);
            assertTrue(f.cancel(mayInterrupt));
            final Optional<ProcessHandle> worker = ProcessHandle.of(pid);
            if (mayInterrupt && worker.isPresent()) {
                // a liveness bound, not a timing: the task itself would have run for 60 s
                worker.get().onExit().get(30, TimeUnit.SECONDS);
            } else {
                Files.createFile(dir.resolve("go"));
            }
            // runs on the killed worker's replacement, or after the cancelled task on the same worker
            assertEquals(4.0, pool.submit((Integer x) -> x * 2.0, 2).get(60, TimeUnit.SECONDS));
            assertThrows(CancellationException.class, f::join);
            assertEquals(mayInterrupt ? 0.0 : 1.0, marks.getDouble(ENDED), "whether the task ran to its end");
            assertEquals(!mayInterrupt, pool.workerPids().contains(pid), "whether its worker still runs");
        }
    }

    @Test
    void cancelTrueOfAQueuedOrFinishedTaskKillsNoWorker() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1);
             SharedArray first = SharedArray.create(DType.FLOAT64, 2);
             SharedArray queued = SharedArray.create(DType.FLOAT64, 2)) {
            final CompletableFuture<Integer> running = startRunning(pool, first);
            final long pid = pool.workerPids().get(0);
            final CompletableFuture<Integer> behind = pool.submit(runUntil(dir.resolve("go")), queued);
            assertTrue(behind.cancel(true));
            Files.createFile(dir.resolve("go"));
            assertEquals(1, running.get(60, TimeUnit.SECONDS));
            assertFalse(running.cancel(true), "a finished task's future is done");
            assertEquals(4.0, pool.submit((Integer x) -> x * 2.0, 2).get(60, TimeUnit.SECONDS));
            assertEquals(List.of(pid), pool.workerPids(), "no worker was killed");
            assertEquals(0.0, queued.getDouble(STARTED), "the cancelled queued task ran");
        }
    }

    /**
     * Cancels tasks at random moments: before they start, while they run, as they answer. Every other task still
     * gets its own result, nothing cancelled delivers one, and no array outlives its last holder.
     */
    @Test
    void cancelsAtRandomMomentsLeaveEveryOtherResultRightAndNoFile() throws Exception {
        final List<Path> files = new ArrayList<>();
        try (ProcessPool pool = ProcessPool.create(2)) {
            for (int round = 0; round < 12; round++) {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                final SharedArray a = SharedArray.create(DType.FLOAT64, 1 << 12);
                files.add(a.path());
                a.setDouble(round, 0);
                final int millis = random.nextInt(20);
                final CompletableFuture<Double> cancelled = pool.submit((SharedArray x) -> {
                    Thread.sleep(millis);
                    return x.getDouble(0);
                }, a);
                final CompletableFuture<Double> kept = pool.submit((SharedArray x) -> x.getDouble(0) + 0.5, a);
                a.release(); // the tasks' references keep the file
                Thread.sleep(random.nextInt(20));
                final boolean wasCancelled = cancelled.cancel(true);
                assertEquals(round + 0.5, kept.get(60, TimeUnit.SECONDS));
                if (wasCancelled) {
                    assertThrows(CancellationException.class, cancelled::join);
                } else {
                    assertEquals(round, cancelled.join());
                }
            }
            final List<Integer> args = List.of(1, 2, 3, 4, 5, 6, 7, 8);
            assertEquals(List.of(2, 4, 6, 8, 10, 12, 14, 16), pool.map((Integer x) -> 2 * x, args));
        }
        final List<Path> left = files.stream().filter(Files::exists).toList();
        assertEquals(List.of(), left, "arrays whose holders were all done with them");
    }
}
