package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stop cut short by an Error (out of memory; a class that cannot load once the process is at its open-file limit,
 * seen with {@code ulimit -n}) left the pool marked closed but never stopped: every later {@code close()} or
 * {@code shutdownNow()} waited for ever, and the workers ran on. Now the failing call throws, the workers are killed,
 * and later calls return.
 */
class StopFailureTest {
    private static final Duration GUARD = Duration.ofSeconds(60);

    @Test
    void aStopCutShortByAnErrorKillsTheWorkersAndLaterCallsReturn() throws Exception {
        final ProcessPool pool = ProcessPool.create(2);
        final List<Long> pids = pool.workerPids();
        assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
        // a heap argument above maxBytes: the pool keeps its shared copy for the next call
        final java.nio.file.Path kept = java.nio.file.Path.of(pool.submit(
            (Object copy) -> ((dev.sharray.SharedArray) copy).path().toString(), new double[1 << 18]).get(30, TimeUnit.SECONDS));
        assertTrue(java.nio.file.Files.exists(kept));
        pool.duringStop(() -> {
            throw new OutOfMemoryError("injected while stopping");
        });
        assertEquals("injected while stopping", assertThrows(OutOfMemoryError.class, pool::close).getMessage());
        assertTimeoutPreemptively(GUARD, pool::close, "a later close() waited for a stop that had failed");
        assertTimeoutPreemptively(GUARD, pool::shutdownNow);
        assertTrue(pool.isClosed());
        assertFalse(java.nio.file.Files.exists(kept), "the failed stop left the pool's kept copy");
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(p -> assertTimeoutPreemptively(GUARD, () -> p.onExit().get()));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "worker " + pid + " outlived the pool");
        }
    }
}
