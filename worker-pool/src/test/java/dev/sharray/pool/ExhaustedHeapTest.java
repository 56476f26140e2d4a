package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task that runs its worker out of heap fails with the remote OutOfMemoryError, and the worker then retires: a JVM
 * after an OutOfMemoryError may be broken for later tasks (here a class whose static initializer ran out of heap,
 * which stays unusable in that JVM). Before, the worker lived on, and every later task using that class failed on it
 * with {@code NoClassDefFoundError: Could not initialize class}, for as long as the pool ran.
 */
class ExhaustedHeapTest {

    /** Built on first use: 32 MiB, which a 64 MiB worker holds unless a task already holds most of its heap. */
    static final class Table {
        static final long[] DATA = new long[4 << 20];

        private Table() {
        }
    }

    private static <T> T get(Future<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void aWorkerATaskRanOutOfHeapIsReplacedAndLaterTasksDoNotInheritItsState() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            final List<Long> before = pool.workerPids();
            final ExecutionException e = assertThrows(ExecutionException.class, () -> get(pool.submit((Integer mib) -> {
                final long[] hold = new long[mib << 17]; // most of the heap, while the table is built
                return Table.DATA.length + hold.length;
            }, 32)));
            final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, e.getCause());
            assertEquals(OutOfMemoryError.class.getName(), remote.remoteClassName(), remote.getMessage());
            assertTrue(remote.getStackTrace().length > 0, "the caller sees where the heap ran out");

            assertEquals(4 << 20, get(pool.submit((Integer x) -> Table.DATA.length, 1)));
            assertNotEquals(before, pool.workerPids(), "the worker was replaced");
        }
    }

    /**
     * Returns its argument, and runs out of heap for 110, 150 and 190 (one class for both calls: the second is
     * grouped; three of them, so that one at least is unlikely to be the last of its message).
     */
    private static RemoteFunction<Integer, Integer> outOfHeapAt110To190() {
        return x -> {
            if (x == 110 || x == 150 || x == 190) {
                final long[] tooLarge = new long[1 << 30];
                return tooLarge.length;
            }
            return x;
        };
    }

    @Test
    void theTasksAfterOneThatRanOutOfHeapInTheSameMessageRunOnTheReplacement() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            final List<Integer> warm = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                warm.add(i);
            }
            assertEquals(warm, pool.map(outOfHeapAt110To190(), warm)); // measures the function's tasks as short
            final long groupsBefore = pool.groupsSent();
            final List<Integer> args = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                args.add(i);
            }
            final RemoteTaskException e = assertThrows(RemoteTaskException.class, () -> pool.map(outOfHeapAt110To190(), args));
            assertTrue(pool.groupsSent() > groupsBefore, "tasks went several per message");
            assertEquals(OutOfMemoryError.class.getName(), e.remoteClassName(), e.getMessage());
            // the worker stopped in the middle of its message: the tasks after the one that ran out of heap never
            // started there, and must not fail as crashes (each would be a suppressed failure of the call)
            assertEquals(2, e.getSuppressed().length, () -> "other failures: " + List.of(e.getSuppressed()));
            for (Throwable other : e.getSuppressed()) {
                assertEquals(OutOfMemoryError.class.getName(), assertInstanceOf(RemoteTaskException.class, other).remoteClassName());
            }
            assertEquals(List.of(2, 3), pool.map((Integer x) -> x + 1, List.of(1, 2)));
        }
    }
}
