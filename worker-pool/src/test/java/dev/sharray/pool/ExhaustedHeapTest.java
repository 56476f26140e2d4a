package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /** The positions of {@link #theTasksAfterOneThatRanOutOfHeapInTheSameMessageRunOnTheReplacement}'s tasks that run out of heap. */
    private static final List<Integer> OUT_OF_HEAP_AT = List.of(110, 150, 190);

    /**
     * Appends "argument pid" to {@code runs} (so the test sees which worker ran each task, and that none ran twice),
     * then returns its argument, or runs out of heap for 110, 150 and 190.
     */
    private static RemoteFunction<Integer, Integer> loggedOutOfHeapAt110To190(String runs) {
        return x -> {
            Files.writeString(Path.of(runs), x + " " + ProcessHandle.current().pid() + "\n", StandardOpenOption.APPEND);
            if (x == 110 || x == 150 || x == 190) {
                final long[] tooLarge = new long[1 << 30];
                return tooLarge.length;
            }
            return x;
        };
    }

    @Test
    void theTasksAfterOneThatRanOutOfHeapInTheSameMessageRunOnTheReplacement(@TempDir Path tmp) throws Exception {
        final int n = 200;
        final String runs = Files.createTempFile(tmp, "runs", ".txt").toString();
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            // Every message carries every task queued, so each task after one that runs out of heap is in that one's
            // message (the pool is idle when the call queues its tasks, and a worker gets its next message only when
            // it has answered the last, so every message is formed with all of them queued). Not left to the measured
            // task time: on a busy machine the parent's delays in seeing answers
            // can measure these tiny tasks at over TaskGrouping.TARGET_NANOS for a whole call, and then each goes alone.
            assertTrue(n <= TaskGrouping.MAX_TASKS);
            pool.tasksPerMessage(TaskGrouping.MAX_TASKS);
            final long workerPid = pool.workerPids().get(0);
            final List<Integer> args = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                args.add(i);
            }
            final RemoteTaskException e = assertThrows(RemoteTaskException.class,
                () -> pool.map(loggedOutOfHeapAt110To190(runs), args));
            // one message up to each task that ran out of heap, and one with the tasks after the last
            assertEquals(OUT_OF_HEAP_AT.size() + 1L, pool.messagesSent(), "messages of tasks");
            assertEquals(OUT_OF_HEAP_AT.size() + 1L, pool.groupsSent(), "tasks went several per message");
            // the worker stopped in the middle of its message: the tasks after the one that ran out of heap never
            // started there and were queued again, and must not fail as crashes (each would be a suppressed failure
            // of the call)
            long after = 0;
            for (int p : OUT_OF_HEAP_AT) {
                after += n - 1 - p;
            }
            assertEquals(after, pool.tasksRequeued(), "tasks sent behind one that ran out of heap, queued again");
            assertEquals(OutOfMemoryError.class.getName(), e.remoteClassName(), e.getMessage());
            // the other two ran out of heap alike: counted, not attached (a crash would be attached: another type)
            assertEquals(1, e.getSuppressed().length, () -> "other failures: " + List.of(e.getSuppressed()));
            assertTrue(assertInstanceOf(CallFailures.OmittedTaskFailures.class, e.getSuppressed()[0]).getMessage()
                .startsWith("2 more tasks of this call failed: each alike a failure above"), e.getSuppressed()[0]::getMessage);
            // each task ran once, in order, on one worker until a task ran it out of heap and on its replacement after
            final List<String> lines = Files.readAllLines(Path.of(runs));
            assertEquals(n, lines.size(), "task runs");
            long pid = workerPid;
            final List<Long> pids = new ArrayList<>(List.of(pid));
            for (int i = 0; i < n; i++) {
                final String[] run = lines.get(i).split(" ");
                assertEquals(i, Integer.parseInt(run[0]), "task run " + i);
                if (i > 0 && OUT_OF_HEAP_AT.contains(i - 1)) {
                    assertFalse(pids.contains(Long.parseLong(run[1])), "task " + i + " ran on a worker that ran out of heap");
                    pid = Long.parseLong(run[1]);
                    pids.add(pid);
                }
                assertEquals(pid, Long.parseLong(run[1]), "the worker of task " + i);
            }
            assertEquals(List.of(pid), pool.workerPids());
            assertEquals(List.of(2, 3), pool.map((Integer x) -> x + 1, List.of(1, 2)));
        }
    }
}
