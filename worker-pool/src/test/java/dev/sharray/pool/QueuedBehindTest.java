package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Long tasks of a map call are sent to a busy worker behind the task it runs, so it starts the next one
 * without waiting for the round trip through the parent. A task queued behind another must not be lost,
 * failed or timed out by what happens to the one ahead of it.
 */
class QueuedBehindTest {
    /** A long function: its first task takes 300 ms, the others 20 ms. */
    private static final RemoteFunction<Integer, Integer> FIRST_SLOW = x -> {
        Thread.sleep(x == 0 ? 300 : 20);
        return x;
    };

    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /** @return a 2-worker pool whose first call has measured {@link #FIRST_SLOW}'s tasks as long */
    private static ProcessPool poolThatMeasuredFirstSlow() {
        final ProcessPool pool = ProcessPool.create(2);
        try {
            pool.map(FIRST_SLOW, range(8));
            return pool;
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
    }

    @Test
    void longTasksAreQueuedBehindRunningOnesAndKeepTheirResultsInOrder() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.create(2)) {
                final List<Integer> out = pool.map((Integer x) -> {
                    Thread.sleep(20);
                    return x * 3;
                }, range(24));
                for (int i = 0; i < 24; i++) {
                    assertEquals(3 * i, out.get(i), "result " + i);
                }
                assertTrue(pool.tasksQueuedBehind() > 0, "no task was queued behind a running one");
                assertEquals(0, pool.groupsSent(), "long tasks must not travel in groups");
            }
        });
    }

    /** A loop of calls queues tasks behind running ones from a call's first dispatch, on the previous call's measure. */
    @Test
    void aFunctionsNextCallQueuesBehindFromItsStart() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = poolThatMeasuredFirstSlow()) {
                final long before = pool.tasksQueuedBehind();
                // 4 tasks on 2 workers: only with the prior is anything queued behind (before the first answer)
                assertEquals(range(4), pool.map(FIRST_SLOW, range(4)));
                assertTrue(pool.tasksQueuedBehind() > before, "nothing was queued behind on the first dispatch");
            }
        });
    }

    /**
     * A dispatcher that finds the pump lock held (the result thread polling, as it does while tasks run) leaves
     * its queue-behind to the lock's holder, which dispatches once it lets go, before any answer.
     */
    @Test
    void aQueueBehindMissedForThePumpLockIsServedWhenItIsReleased() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = poolThatMeasuredFirstSlow()) {
                final long before = pool.tasksQueuedBehind();
                final CompletableFuture<List<Integer>> call = new CompletableFuture<>();
                pool.holdPumpLockWhile(() -> {
                    final Thread caller = new Thread(() -> {
                        try {
                            call.complete(pool.map(FIRST_SLOW, range(4)));
                        } catch (Throwable e) {
                            call.completeExceptionally(e);
                        }
                    });
                    caller.start();
                    // the call's first dispatch sends 2 tasks and cannot queue the other 2 behind them
                    while (!pool.queueBehindMissed() && !call.isDone()) {
                        Thread.onSpinWait();
                    }
                    assertEquals(before, pool.tasksQueuedBehind(), "queued behind while the lock was held");
                });
                // released: queued behind now, before the first answer (20 ms away), not at it (too few left)
                assertEquals(range(4), call.get(30, TimeUnit.SECONDS));
                assertTrue(pool.tasksQueuedBehind() > before, "the missed queue-behind was never served");
            }
        });
    }

    /** A task is queued behind another under the pump lock, so only in a message that fits the ring at once. */
    @Test
    void aCallWhoseFunctionCarriesMuchDataIsNotQueuedBehind() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.create(2)) {
                final byte[] table = new byte[200_000]; // inline (under maxBytes), past a group's 64 KiB
                table[7] = 3;
                final List<Integer> out = pool.map((Integer x) -> {
                    Thread.sleep(20);
                    return x + table[7];
                }, range(12));
                assertEquals(IntStream.range(3, 15).boxed().toList(), out);
                assertEquals(0, pool.tasksQueuedBehind());
            }
        });
    }

    /** The call's last tasks go to whichever worker is free first: none is committed to a busy one. */
    @Test
    void fewerQueuedTasksThanWorkersAreNotQueuedBehind() {
        try (ProcessPool pool = ProcessPool.create(2)) {
            pool.map((Integer x) -> {
                Thread.sleep(x == 0 ? 300 : 20);
                return x;
            }, range(4)); // the last goes to the first worker to answer, not behind the 300 ms task
            assertEquals(0, pool.tasksQueuedBehind());
        }
    }

    /** The deadline of a task queued behind another counts from when it starts, not from when it was sent. */
    @Test
    void aQueuedTasksTimeoutCountsFromItsStart() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            // counted from its start a task has 1 s to spare for a cold worker's start; counted from when it was
            // sent it would time out 0.5 s before its end
            try (ProcessPool pool = ProcessPool.builder().workers(2).taskTimeout(Duration.ofMillis(2500)).build()) {
                final List<Integer> out = pool.map((Integer x) -> {
                    Thread.sleep(1500); // queued behind one of these, a task is sent ~3 s before it ends
                    return x;
                }, range(8));
                assertEquals(range(8), out);
                assertTrue(pool.tasksQueuedBehind() > 0, "no task was queued behind a running one");
            }
        });
    }

    @Test
    void aWorkerKilledWithATaskQueuedBehindItsOwnFailsOnlyThatTask() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.create(2)) {
                final WorkerCrashedException e = assertThrows(WorkerCrashedException.class, () -> pool.map((Integer x) -> {
                    if (x == 5) {
                        Thread.sleep(400); // meanwhile the other worker's answers queue a task behind this one
                        Signals.kill9(ProcessHandle.current().pid());
                        Thread.sleep(10_000);
                    }
                    Thread.sleep(30);
                    return x;
                }, range(20)));
                // every other task completed, the one queued behind the killed task elsewhere
                assertEquals(0, e.getSuppressed().length, () -> "other tasks failed: " + e.getSuppressed()[0]);
                assertTrue(pool.tasksQueuedBehind() > 0, "no task was queued behind a running one");
                assertEquals(List.of(1, 2, 3), pool.map((Integer x) -> x + 1, List.of(0, 1, 2)));
            }
        });
    }

    @Test
    void aTimeoutWithATaskQueuedBehindFailsOnlyThatTask() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.builder().workers(2).taskTimeout(Duration.ofSeconds(1)).build()) {
                final TaskTimeoutException e = assertThrows(TaskTimeoutException.class, () -> pool.map((Integer x) -> {
                    Thread.sleep(x == 5 ? 60_000 : 30);
                    return x;
                }, range(40)));
                assertEquals(0, e.getSuppressed().length, () -> "other tasks failed: " + e.getSuppressed()[0]);
                assertTrue(pool.tasksQueuedBehind() > 0, "no task was queued behind a running one");
            }
        });
    }
}
