package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tasks handed to a worker that has died, or is dying, before it read them: they never started, so they run on
 * the replacement, neither failing as crashed nor waiting forever for an answer from a worker nobody polls.
 */
class DyingWorkerTest {

    /**
     * The exit handling has already taken the worker's task slot (empty) when the dispatcher publishes the task
     * and sends it, before the worker's rings are unmapped.
     */
    @Test
    void aTaskPublishedAfterTheExitHandlingTookTheWorkersTaskRunsOnTheReplacement() throws Exception {
        final ProcessPool pool = ProcessPool.create(1);
        try {
            final long victim = pool.workerPids().get(0);
            final CountDownLatch exitTookTask = new CountDownLatch(1);
            final AtomicBoolean killed = new AtomicBoolean();
            final AtomicBoolean exitSeenInTime = new AtomicBoolean();
            pool.afterExitTookTask(() -> {
                pool.afterExitTookTask(null);
                exitTookTask.countDown();
                sleep(500); // the rings stay mapped meanwhile: a send that is not refused goes through
            });
            pool.beforeTaskPublished(() -> {
                pool.beforeTaskPublished(null);
                try {
                    killed.set(Signals.kill9(victim) == 0);
                    exitSeenInTime.set(exitTookTask.await(30, TimeUnit.SECONDS));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            final CompletableFuture<Integer> task = pool.submit((Integer x) -> x + 1, 41);
            assertTrue(killed.get(), "kill -9 of the idle worker");
            assertTrue(exitSeenInTime.get(), "the exit handling took the worker's task before the task was published");
            assertEquals(42, task.get(60, TimeUnit.SECONDS));
            assertFalse(pool.workerPids().contains(victim));
            pool.close(); // returns: no task is left in flight
        } finally {
            pool.shutdownNow(); // a no-op after close(), which would wait forever for a stranded task
        }
    }

    /**
     * The worker is already dead (its exit not yet handled: the pump lock is held) when an idle-looking worker
     * is sent the task, so the send succeeds into a ring nobody will read.
     */
    @Test
    void aTaskSentToAWorkerThatHadAlreadyDiedRunsOnTheReplacement() throws Exception {
        final ProcessPool pool = ProcessPool.create(1);
        final CountDownLatch lockHeld = new CountDownLatch(1);
        final CountDownLatch releaseLock = new CountDownLatch(1);
        final Thread holder = new Thread(() -> pool.holdPumpLockWhile(() -> {
            lockHeld.countDown();
            await(releaseLock);
        }));
        try {
            final long victim = pool.workerPids().get(0);
            holder.start();
            assertTrue(lockHeld.await(30, TimeUnit.SECONDS));
            final AtomicBoolean deadBeforeSend = new AtomicBoolean();
            pool.beforeTaskPublished(() -> {
                pool.beforeTaskPublished(null);
                try {
                    final ProcessHandle worker = ProcessHandle.of(victim).orElseThrow();
                    Signals.kill9(victim);
                    worker.onExit().get(30, TimeUnit.SECONDS);
                    deadBeforeSend.set(!worker.isAlive());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            final CompletableFuture<Integer> task = pool.submit((Integer x) -> x + 1, 41);
            assertTrue(deadBeforeSend.get(), "the worker was dead before the task was sent to it");
            releaseLock.countDown(); // the exit handling runs now and finds the task unread
            assertEquals(42, task.get(60, TimeUnit.SECONDS));
            holder.join(30_000);
            pool.close();
        } finally {
            releaseLock.countDown();
            holder.join(30_000);
            pool.shutdownNow();
        }
    }

    /** Unread messages are sent again once: one whose reading kills every worker fails after two deaths. */
    @Test
    void aTaskWhoseMessageKillsEveryWorkerThatReadsItFailsAsACrash() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final long first = pool.workerPids().get(0);
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> pool.submit(new HaltsWhereRead(), 1).get(60, TimeUnit.SECONDS));
            final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
            assertEquals(HaltsWhereRead.EXIT_CODE, crash.exitCode());
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(60, TimeUnit.SECONDS));
            assertFalse(pool.workerPids().contains(first));
        }
    }

    /**
     * A task times out but answers before the kill lands, and the worker goes on to the task queued behind it:
     * that task started, so it must not run again on another worker.
     */
    @Test
    void aTaskStartedAfterATimedOutOneAnsweredDoesNotRunAgain(@TempDir Path tmp) throws Exception {
        final String starts = Files.createTempFile(tmp, "starts", ".txt").toString();
        final int slow = 5;
        final AtomicBoolean nextStartedBeforeKill = new AtomicBoolean();
        try (ProcessPool pool = ProcessPool.builder().workers(1).taskTimeout(Duration.ofSeconds(1)).build()) {
            pool.beforeTimeoutKill(() -> {
                pool.beforeTimeoutKill(null);
                // the slow task answers at 1.5 s; the worker then starts the one queued behind it
                for (int i = 0; i < 1000 && !nextStartedBeforeKill.get(); i++) {
                    nextStartedBeforeKill.set(lines(starts).contains(Integer.toString(slow + 1)));
                    sleep(10);
                }
            });
            final TaskTimeoutException e = assertThrows(TaskTimeoutException.class, () -> pool.map((Integer x) -> {
                Files.writeString(Path.of(starts), x + "\n", StandardOpenOption.APPEND);
                Thread.sleep(x == slow ? 1_500 : 100);
                return x;
            }, IntStream.range(0, 12).boxed().collect(Collectors.toList())));
            assertTrue(nextStartedBeforeKill.get(), "the task queued behind the slow one started before the kill");
            // the one running when the worker was killed, and only it: the slow task's late answer is not taken for
            // its result (it would then look answered, and the task behind it be killed unreported)
            assertEquals(1, e.getSuppressed().length, java.util.Arrays.toString(e.getSuppressed()));
            assertInstanceOf(WorkerCrashedException.class, e.getSuppressed()[0]);
        }
        final List<String> started = lines(starts);
        assertEquals(started.stream().distinct().count(), started.size(), "a task ran twice: " + started);
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A function whose deserialization ends any process but the one that made it. */
    private static final class HaltsWhereRead implements RemoteFunction<Integer, Integer> {
        private static final long serialVersionUID = 1L;
        static final int EXIT_CODE = 3;
        private final long maker = ProcessHandle.current().pid();

        @Override
        public Integer apply(Integer x) {
            return x;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (ProcessHandle.current().pid() != maker) {
                Runtime.getRuntime().halt(EXIT_CODE);
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
