package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task handed to a worker in the instant its death is being handled: the exit handling has already taken the
 * worker's task slot (empty) when the dispatcher publishes the task and sends it, before the worker's rings are
 * unmapped. The task must run on the replacement, not wait forever for an answer from a worker nobody polls.
 */
class DyingWorkerRaceTest {

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
                    killed.set(new ProcessBuilder("kill", "-9", Long.toString(victim)).start().waitFor() == 0);
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
        } finally {
            pool.shutdownNow(); // close() would wait forever for a stranded task
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
