package dev.sharray.pool;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Functions that misbehave inside their worker JVM in ways that touch the worker itself (its standard streams,
 * its thread, its exit): each task gets what a demanding user expects from the Javadoc, and the pool goes on.
 */
class MisbehavingTaskTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** Bounds a task that, before a fix, never ended: it fails with a TaskTimeoutException instead (close() drains). */
    private static final Duration HANG = Duration.ofSeconds(10);

    private static <T> T get(Future<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void aTaskReadingSystemInSeesAnEmptyStreamNotThePoolsControlPipe() throws Exception {
        final List<Long> workers = pool.workerPids();
        // before: System.in was the worker's stdin, the parent's doorbell pipe: read() blocked until the next
        // doorbell (forever, with nothing else sent), and available() waited behind the watch thread's read
        assertEquals(0, get(pool.submit((Integer x) -> {
            try {
                return System.in.available();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 1, HANG)));
        assertEquals(-1, get(pool.submit((Integer x) -> {
            try {
                return System.in.read();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 1, HANG)));
        assertEquals(List.of(2, 3), pool.map((Integer x) -> x + 1, List.of(1, 2)));
        assertEquals(workers, pool.workerPids(), "no worker died");
    }

    @Test
    void aTaskThatLeavesItsThreadInterruptedDoesNotInterruptTheNextOne() throws Exception {
        final List<Long> workers = pool.workerPids();
        assertEquals(true, get(pool.submit((Integer x) -> {
            Thread.currentThread().interrupt();
            return Thread.currentThread().isInterrupted();
        }, 1)));
        // before: the flag stayed on the worker's thread: the next task found it set (and its first sleep threw),
        // and the idle worker's parks returned at once, a busy spin
        assertEquals(false, get(pool.submit((Integer x) -> Thread.currentThread().isInterrupted(), 1)));
        assertEquals(workers, pool.workerPids(), "no worker died");
    }
}
