package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Groups of a map call's short tasks, when a group runs long enough, are sent to a busy worker behind the
 * group it runs, so it starts the next the moment its group ends. A group queued behind another must not be
 * lost, failed or run twice through what happens to the group ahead of it, and the call's last groups still go
 * to whichever worker is free first.
 */
class GroupsQueuedBehindTest {
    /** Tasks per message in these tests: 8 tasks of {@link #TASK_MICROS} run past the minimum for a group behind. */
    private static final int GROUP = 8;
    private static final int TASK_MICROS = 150;

    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /** Keeps its core busy for about {@code micros}, as a short compute task does (a sleep would yield it). */
    static void spin(long micros) {
        final long end = System.nanoTime() + micros * 1000;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** @return a 2-worker pool whose map calls send {@link #GROUP} tasks per message */
    private static ProcessPool groupingPool(Duration taskTimeout) {
        final ProcessPool.Builder b = ProcessPool.builder().workers(2);
        final ProcessPool pool = (taskTimeout == null ? b : b.taskTimeout(taskTimeout)).build();
        pool.tasksPerMessage(GROUP);
        return pool;
    }

    @Test
    void groupsAreQueuedBehindRunningGroupsAndResultsStayInOrder() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = groupingPool(null)) {
                for (int call = 0; call < 3; call++) {
                    final int c = call;
                    final List<Integer> out = pool.map((Integer x) -> {
                        spin(TASK_MICROS);
                        return x * 3 + c;
                    }, range(400));
                    for (int i = 0; i < 400; i++) {
                        assertEquals(3 * i + c, out.get(i), "call " + c + ", result " + i);
                    }
                }
                assertTrue(pool.groupsQueuedBehind() > 0, "no group was queued behind a running one");
                assertEquals(0, pool.tasksRequeued(), "a task was sent and never started");
            }
        });
    }

    /** A task's deadline counts from its start, which only the answer of the task ahead of it tells the parent. */
    @Test
    void groupsWithDeadlinesAreNotQueuedBehind() {
        try (ProcessPool pool = groupingPool(Duration.ofSeconds(30))) {
            assertEquals(range(400), pool.map((Integer x) -> {
                spin(TASK_MICROS);
                return x;
            }, range(400)));
            assertTrue(pool.groupsSent() > 0, "no task group was sent");
            assertEquals(0, pool.groupsQueuedBehind());
        }
    }

    @Test
    void aWorkerKilledWithAGroupQueuedBehindItsOwnFailsOnlyItsRunningTask() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = groupingPool(null)) {
                final WorkerCrashedException e = assertThrows(WorkerCrashedException.class, () -> pool.map((Integer x) -> {
                    if (x == 100) {
                        Thread.sleep(300); // meanwhile the other worker's answers queue a group behind this one's
                        Signals.kill9(ProcessHandle.current().pid());
                        Thread.sleep(10_000);
                    }
                    spin(TASK_MICROS);
                    return x;
                }, range(600)));
                // every other task completed: the rest of the killed worker's group and the group behind it elsewhere
                assertEquals(0, e.getSuppressed().length, () -> "other tasks failed: " + e.getSuppressed()[0]);
                assertTrue(pool.groupsQueuedBehind() > 0, "no group was queued behind a running one");
                assertTrue(pool.tasksRequeued() >= GROUP, "the group behind the killed task was not run elsewhere: "
                    + pool.tasksRequeued() + " tasks requeued");
                assertEquals(List.of(1, 2, 3), pool.map((Integer x) -> x + 1, List.of(0, 1, 2)));
            }
        });
    }
}
