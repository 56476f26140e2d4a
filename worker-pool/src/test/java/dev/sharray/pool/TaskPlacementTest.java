package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Consecutive map calls of long tasks send argument position {@code i} to the worker that ran it last, so a
 * job of several steps over the same chunks has each worker touch the same memory; a worker with none of its
 * own positions queued still takes others' tasks.
 */
class TaskPlacementTest {
    private static final int TASKS = 16;

    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /** @return how many positions ran in the same worker process in both lists of pids */
    private static int samePlaces(List<Long> a, List<Long> b) {
        int same = 0;
        for (int i = 0; i < a.size(); i++) {
            same += a.get(i).equals(b.get(i)) ? 1 : 0;
        }
        return same;
    }

    /** @return the tasks of one map call of {@code n} tasks; long unless {@code grouping} says otherwise */
    private static List<Task> call(int n, TaskGrouping grouping) {
        final Task.Batch batch = new Task.Batch(n, null, grouping);
        return IntStream.range(0, n).mapToObj(i -> new Task(i, null, null, new byte[0], null, batch, i)).toList();
    }

    private static final IntPredicate WORKERS_1_AND_2 = id -> id == 1 || id == 2;

    @Test
    void aWorkerTakesTheQueuedPositionsItRanInThePreviousCallFirst() {
        final TaskPlacement placement = new TaskPlacement();
        final List<Task> previous = call(4, null);
        for (Task t : previous) {
            placement.placed(t, t.position % 2 == 0 ? 1 : 2);
        }
        final Deque<Task> pending = new ArrayDeque<>(call(4, null));
        assertEquals(1, placement.take(pending, 2, WORKERS_1_AND_2).position, "worker 2 ran position 1 last");
        assertEquals(3, placement.take(pending, 2, WORKERS_1_AND_2).position);
        assertEquals(0, placement.take(pending, 1, WORKERS_1_AND_2).position);
        // none of its own left: worker 2 takes the head rather than idle
        assertEquals(2, placement.take(pending, 2, WORKERS_1_AND_2).position);
        assertNull(placement.take(pending, 2, WORKERS_1_AND_2));
    }

    @Test
    void withoutOwnPositionsAWorkerTakesOneNoLiveWorkerRanBeforeTheHead() {
        final TaskPlacement placement = new TaskPlacement();
        final List<Task> previous = call(3, null);
        placement.placed(previous.get(0), 1);
        placement.placed(previous.get(1), 7); // a worker that has died since
        final Deque<Task> pending = new ArrayDeque<>(call(4, null));
        assertEquals(1, placement.take(pending, 2, WORKERS_1_AND_2).position, "position 1's worker is gone");
        assertEquals(2, placement.take(pending, 2, WORKERS_1_AND_2).position, "position 2 was never placed");
        assertEquals(3, placement.take(pending, 2, WORKERS_1_AND_2).position);
        assertEquals(0, placement.take(pending, 2, WORKERS_1_AND_2).position, "finally worker 1's, not left waiting");
    }

    @Test
    void onlyTheHeadsCallIsScannedAndShortTasksGoInQueueOrder() {
        final TaskPlacement placement = new TaskPlacement();
        final List<Task> previous = call(4, null);
        for (Task t : previous) {
            placement.placed(t, t.position == 2 ? 2 : 1);
        }
        final Deque<Task> pending = new ArrayDeque<>();
        final List<Task> head = call(1, null);
        final List<Task> next = call(4, null);
        pending.addAll(head);
        pending.addAll(next);
        // position 0 of the head's call is worker 1's; the next call's position 2, worker 2's, is not looked at
        assertSame(head.get(0), placement.take(pending, 2, WORKERS_1_AND_2));
        // tasks of a call measured short travel in queue order, and their places are not recorded
        final TaskPlacement shortOnes = new TaskPlacement();
        final TaskGrouping measuredShort = new TaskGrouping(0);
        measuredShort.answered(1_000);
        final List<Task> tiny = call(4, measuredShort);
        shortOnes.placed(tiny.get(3), 2);
        assertEquals(0, shortOnes.workerFor(3));
        final Deque<Task> queue = new ArrayDeque<>(tiny);
        assertSame(tiny.get(0), shortOnes.take(queue, 2, WORKERS_1_AND_2));
        // a call whose function's previous call measured long tasks is placed from its first dispatch
        final List<Task> slow = call(2, new TaskGrouping(2 * TaskGrouping.TARGET_NANOS));
        shortOnes.placed(slow.get(1), 2);
        assertEquals(2, shortOnes.workerFor(1));
        assertEquals(0, shortOnes.workerFor(TaskPlacement.MAX_POSITIONS), "positions past the bound are not kept");
    }

    @Test
    void chunksOfAnArrayStayOnTheirWorkerFromCallToCall() {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            try (ProcessPool pool = ProcessPool.create(2);
                 SharedArray array = SharedArray.create(DType.FLOAT64, TASKS, 1024)) {
                for (int row = 0; row < TASKS; row++) {
                    array.setDouble(row, row, 0);
                }
                // the functions hold no array, the chunks are the arguments: the mapChunks of a step-after-step job
                final RemoteFunction<SharedArray, Long> fill = chunk -> {
                    chunk.setDouble(chunk.getDouble(0, 0) + 0.5, 0, 1);
                    Thread.sleep(20);
                    return ProcessHandle.current().pid();
                };
                final RemoteFunction<SharedArray, Long> scale = chunk -> {
                    chunk.setDouble(chunk.getDouble(0, 1) * 2, 0, 1);
                    Thread.sleep(chunk.getDouble(0, 0) == 0 ? 40 : 20);
                    return ProcessHandle.current().pid();
                };
                int best = 0;
                List<Long> second = List.of();
                for (int attempt = 0; attempt < 3 && best < TASKS - 2; attempt++) {
                    final List<Long> first = pool.mapChunks(array, 1, fill);
                    second = pool.mapChunks(array, 1, scale);
                    best = Math.max(best, samePlaces(first, second));
                }
                // every chunk's worker is recorded, one worker id per process
                final Map<Long, Integer> idByPid = new HashMap<>();
                for (int i = 0; i < TASKS; i++) {
                    final int id = pool.workerForPosition(i);
                    assertTrue(id != 0, "chunk " + i + " has no recorded worker");
                    assertEquals(id, idByPid.computeIfAbsent(second.get(i), pid -> id), "chunk " + i);
                }
                assertEquals(2 * (TASKS - 1 + 0.5), array.getDouble(TASKS - 1, 1), "the chunks were written in place");
                assertTrue(best >= TASKS - 2, best + " of " + TASKS + " chunks stayed on their worker");
            }
        });
    }

    @Test
    void aWorkerWithNoneOfItsOwnPositionsQueuedTakesOthers() {
        assertTimeoutPreemptively(Duration.ofSeconds(90), () -> {
            try (ProcessPool pool = ProcessPool.create(2);
                 SharedArray go = SharedArray.create(DType.INT32, 1)) {
                final RemoteFunction<Integer, Long> step = x -> {
                    Thread.sleep(20);
                    return ProcessHandle.current().pid();
                };
                // one worker is busy until the first call is over (it waits for a flag in shared memory): the
                // other runs, and is remembered for, every position. submit sends it to an idle worker at once.
                final CompletableFuture<Long> blocker = pool.submit(flag -> {
                    while (flag.getInt(0) == 0) {
                        Thread.sleep(1);
                    }
                    return ProcessHandle.current().pid();
                }, go);
                final List<Long> first = pool.map(step, range(TASKS));
                go.setInt(1, 0);
                final long busy = blocker.get();
                assertEquals(Set.of(first.get(0)), new HashSet<>(first), "the free worker ran the whole first call");
                assertTrue(busy != first.get(0));
                // every position belongs to one live worker now: the other still takes tasks instead of idling
                final List<Long> second = pool.map(step, range(TASKS));
                assertTrue(second.contains(busy), "the worker owning no position took none: " + second);
            }
        });
    }
}
