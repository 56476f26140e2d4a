package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An idle worker sleeps instead of polling, and the parent's doorbell wakes it for a task and for a task
 * too long for one ring record (the parent waits for room while the worker sleeps).
 */
class IdleWorkerTest {

    /** Waits until the pool's only worker has raised its sleeping flag: what follows must wake it. */
    private static void awaitAsleep(ProcessPool pool) throws InterruptedException {
        for (int i = 0; i < 3000 && pool.sleepingWorkers() == 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(1, pool.sleepingWorkers(), "the idle worker went to sleep");
    }

    @Test
    @Timeout(60)
    void anIdleWorkerSleepsInsteadOfPolling() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            assertEquals(List.of(2), pool.map((Integer x) -> x + 1, List.of(1)));
            final long pid = pool.workerPids().get(0);
            awaitAsleep(pool);
            final long before = ContextSwitches.voluntary(pid);
            Thread.sleep(2000);
            final long woke = ContextSwitches.voluntary(pid) - before;
            // polling with parks of up to 1 ms woke the task loop alone ~1000 times a second; asleep, the
            // worker wakes ~20 times a second (the sleep's upper bound) plus its parent-pid check
            assertTrue(woke < 300, "an idle worker woke " + woke + " times in 2 s");
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a worker never woken would hang close()
    void theDoorbellWakesASleepingWorkerForEveryMessage() throws Exception {
        // without a doorbell these workers would sleep 10 minutes before looking at their ring
        final ProcessPool pool = ProcessPool.builder().workers(1).jvmOptions("-Dsharray.pool.idleSleepMillis=600000")
            .build();
        final long pid;
        try {
            pid = pool.workerPids().get(0);
            for (int i = 0; i < 3; i++) {
                awaitAsleep(pool);
                assertEquals(i + 1, pool.submit((Integer x) -> x + 1, i).get(30, TimeUnit.SECONDS));
            }
            // a message longer than the 1 MiB ring: the parent waits for room, which a sleeping worker never makes
            awaitAsleep(pool);
            final String big = "x".repeat(3 << 20);
            assertEquals(big.length(), pool.submit(String::length, big).get(30, TimeUnit.SECONDS));
        } finally {
            pool.close();
        }
        assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    }
}
