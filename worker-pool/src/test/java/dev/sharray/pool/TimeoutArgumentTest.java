package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A task's timeout: a zero or negative one is refused at once, one too long for a deadline counts as none. */
class TimeoutArgumentTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    @Test
    void aZeroOrNegativeTimeoutIsRefusedWithoutKillingAWorker() {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final List<Long> pids = pool.workerPids();
            for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-5))) {
                final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pool.submit((Integer x) -> x, 1, bad));
                assertTrue(e.getMessage().contains("timeout must be positive"), e.getMessage());
            }
            assertEquals(3, assertTimeoutPreemptively(GUARD, () -> pool.submit((Integer x) -> x, 3).get()));
            assertEquals(pids, pool.workerPids(), "no worker was killed for the refused tasks");
        }
    }

    @Test
    void aTimeoutTooLongForADeadlineIsNone() {
        final Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
        // shutdownNow: close() would wait for a task that never ends
        final ProcessPool pool = ProcessPool.create(1);
        try {
            assertEquals(5, assertTimeoutPreemptively(GUARD, () -> pool.submit((Integer x) -> x, 5, forever).get()));
            assertEquals(6, assertTimeoutPreemptively(GUARD, () -> pool.submit((Integer x) -> x, 6).get()));
        } finally {
            pool.shutdownNow();
        }
        final ProcessPool byDefault = ProcessPool.builder().workers(1).taskTimeout(forever).build();
        try {
            assertEquals(List.of(1, 2), assertTimeoutPreemptively(GUARD, () -> byDefault.map((Integer x) -> x, List.of(1, 2))));
        } finally {
            byDefault.shutdownNow();
        }
    }

    /** A timeout under a millisecond said "timed out after 0 ms". */
    @Test
    void aTimeoutUnderAMillisecondIsReportedInNanoseconds() {
        final String sub = new TaskTimeoutException(Duration.ofNanos(1500), 2).getMessage();
        assertTrue(sub.startsWith("task timed out after 1500 ns on worker 2"), sub);
        final String ms = new TaskTimeoutException(Duration.ofMillis(250), 2).getMessage();
        assertTrue(ms.startsWith("task timed out after 250 ms on worker 2"), ms);
    }
}
