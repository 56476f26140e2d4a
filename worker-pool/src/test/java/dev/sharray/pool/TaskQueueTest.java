package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which queued tasks a worker gets together: groups of short tasks, a long task behind a running one, requeues; and
 * who owns a queued task its caller drops while a dispatcher takes it.
 */
class TaskQueueTest {
    private static final FunctionCodec.Encoded FN = new FunctionCodec.Encoded(7, new byte[16]);
    private static long ids;

    /** @return a map call's grouping, measured at {@code taskNanos} per task */
    private static TaskGrouping measured(long taskNanos) {
        final TaskGrouping grouping = new TaskGrouping(0);
        grouping.answered(taskNanos);
        return grouping;
    }

    /** @return the queued tasks of one map call of {@code n} tasks with arguments of {@code argBytes} bytes */
    private static List<Task> call(TaskQueue queue, int n, int argBytes, TaskGrouping grouping) {
        final Task.Batch batch = new Task.Batch(n, null, grouping);
        final List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final Task t = new Task(++ids, new TaskFuture<>(null, batch), FN, new byte[argBytes], null, batch, i);
            tasks.add(t);
            queue.offer(t);
        }
        return tasks;
    }

    private static List<Task> chain(Task head) {
        final List<Task> tasks = new ArrayList<>();
        for (Task t = head; t != null; t = t.nextInGroup) {
            tasks.add(t);
        }
        return tasks;
    }

    @Test
    void aGroupTakesAsManyShortTasksAsTheGroupingSaysAndStopsAtAnotherCall() {
        final TaskQueue queue = new TaskQueue();
        // 10 us per task, 40 tasks, 1 worker: an eighth of the worker's share, 5 tasks
        final List<Task> first = call(queue, 40, 8, measured(10_000));
        final List<Task> second = call(queue, 4, 8, measured(10_000));
        final Task head = queue.poll();
        queue.groupBehind(head, 1, t -> { throw new AssertionError("nothing was cancelled"); });
        assertEquals(first.subList(0, 5), chain(head));
        assertSame(first.get(5), queue.peek());

        // a group never reaches into the next call's tasks
        for (int i = 0; i < 34; i++) {
            queue.poll();
        }
        final Task last = queue.poll();
        assertSame(first.get(39), last);
        queue.groupBehind(last, 1, t -> { throw new AssertionError("nothing was cancelled"); });
        assertNull(last.nextInGroup);
        assertSame(second.get(0), queue.peek());
    }

    @Test
    void aGroupStaysWithinItsByteLimitAndLeavesALargeArgumentForAMessageOfItsOwn() {
        final TaskQueue queue = new TaskQueue();
        final int arg = TaskGrouping.MAX_ARG_BYTES; // 16 of them fill a group's 64 KiB
        final List<Task> tasks = call(queue, 4000, arg, measured(1_000));
        final Task head = queue.poll();
        queue.groupBehind(head, 1, t -> { throw new AssertionError("nothing was cancelled"); });
        assertEquals(TaskGrouping.MAX_GROUP_BYTES / arg, chain(head).size());
        assertSame(tasks.get(TaskGrouping.MAX_GROUP_BYTES / arg), queue.peek());

        // an argument over MAX_ARG_BYTES ends the group, and is left at the queue's head
        final TaskQueue big = new TaskQueue();
        final Task.Batch batch = new Task.Batch(400, null, measured(1_000));
        final Task smallHead = new Task(++ids, new TaskFuture<>(null, batch), FN, new byte[8], null, batch, 0);
        final Task small = new Task(++ids, new TaskFuture<>(null, batch), FN, new byte[8], null, batch, 1);
        final Task large = new Task(++ids, new TaskFuture<>(null, batch), FN, new byte[arg + 1], null, batch, 2);
        big.offer(small);
        big.offer(large);
        big.offer(new Task(++ids, new TaskFuture<>(null, batch), FN, new byte[8], null, batch, 3));
        big.groupBehind(smallHead, 1, t -> { throw new AssertionError("nothing was cancelled"); });
        assertEquals(List.of(smallHead, small), chain(smallHead));
        assertSame(large, big.peek());
    }

    @Test
    void aTaskCancelledWhileQueuedIsHandedOverNotGrouped() {
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, 40, 8, measured(10_000));
        tasks.get(2).future.cancel(false);
        final List<Task> cancelled = new ArrayList<>();
        final Task head = queue.poll();
        queue.groupBehind(head, 1, cancelled::add);
        assertEquals(List.of(tasks.get(2)), cancelled);
        assertEquals(List.of(tasks.get(0), tasks.get(1), tasks.get(3), tasks.get(4), tasks.get(5)), chain(head));
    }

    @Test
    void aLongTaskGoesBehindARunningOneOnlyWhileEachWorkerHasOneOfItsCallQueued() {
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, 3, 8, measured(5_000_000));
        final Task next = queue.poll();
        assertSame(tasks.get(0), next);
        assertTrue(queue.worthQueueingBehind(next, 2), "it and two more of its call are queued for 2 workers");
        assertTrue(queue.worthQueueingBehind(next, 3));
        assertFalse(queue.worthQueueingBehind(next, 4), "4 workers, 3 tasks: the call's last go to whoever is free");

        final TaskQueue shortTasks = new TaskQueue();
        call(shortTasks, 3, 8, measured(10_000));
        assertFalse(shortTasks.worthQueueingBehind(shortTasks.poll(), 2), "short tasks travel in groups instead");

        final TaskQueue twoCalls = new TaskQueue();
        final List<Task> first = call(twoCalls, 2, 8, measured(5_000_000));
        call(twoCalls, 2, 8, measured(5_000_000));
        twoCalls.poll();
        twoCalls.poll();
        assertFalse(twoCalls.worthQueueingBehind(first.get(0), 2), "the queued task after it belongs to another call");

        final TaskQueue largeArgument = new TaskQueue();
        call(largeArgument, 3, TaskGrouping.MAX_ARG_BYTES + 1, measured(5_000_000));
        assertFalse(largeArgument.worthQueueingBehind(largeArgument.poll(), 2),
            "sent under the pump lock: only a message that never waits for room in the ring");
    }

    @Test
    void unstartedTasksGoBackAheadOfTheQueueInTheirOrderAsUnsent() {
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, 40, 8, measured(10_000));
        final Task head = queue.poll();
        queue.groupBehind(head, 1, t -> { throw new AssertionError("nothing was cancelled"); });
        for (Task t = head; t != null; t = t.nextInGroup) {
            t.sent = true;
            t.deadline = 42;
            t.messageStart = 128;
        }
        queue.requeueUnstarted(head);
        for (int i = 0; i < 6; i++) {
            final Task t = queue.poll();
            assertSame(tasks.get(i), t);
            assertNull(t.nextInGroup);
            assertFalse(t.sent);
            assertEquals(0, t.deadline);
            assertEquals(Task.NOT_WRITTEN, t.messageStart);
            assertNull(t.worker);
        }
    }

    @Test
    void aDroppedTaskStaysQueuedButNoTakerGetsIt() {
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, 5, 8, null);
        assertTrue(queue.drop(tasks.get(0)));
        assertTrue(queue.drop(tasks.get(2)));
        assertFalse(queue.drop(tasks.get(2)), "dropped once: its caller finished it once");
        assertSame(tasks.get(1), queue.take(1, id -> true), "a dropped head is skipped");
        assertSame(tasks.get(3), queue.poll(), "a dropped task further on is skipped");
        assertFalse(queue.drop(tasks.get(3)), "a taken task is its taker's");
        queue.offerFirst(tasks.get(3));
        assertTrue(queue.drop(tasks.get(3)), "a task put back may be dropped again");
        assertSame(tasks.get(4), queue.poll());
        assertNull(queue.poll());
        assertTrue(queue.isEmpty());
    }

    @Test
    void aGroupSkipsDroppedTasksWithoutFinishingThem() {
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, 40, 8, measured(10_000));
        final Task head = queue.poll();
        for (int i = 1; i < 40; i += 2) {
            assertTrue(queue.drop(tasks.get(i)));
        }
        queue.groupBehind(head, 1, t -> { throw new AssertionError("its caller finished it: " + t.id); });
        for (Task t = head; t != null; t = t.nextInGroup) {
            assertEquals(0, tasks.indexOf(t) % 2, "only tasks nobody dropped are sent");
        }
        assertTrue(chain(head).size() > 1);
    }

    /**
     * A caller drops every queued task while two dispatchers take them (one by placement, one in order) and put some
     * back: each task has exactly one owner. A task both sent and finished by its caller would run on released
     * arrays and be counted done twice.
     */
    @Test
    void eachQueuedTaskIsEitherTakenOrDroppedNeverBoth() throws Exception {
        final int n = 100_000;
        final TaskQueue queue = new TaskQueue();
        final List<Task> tasks = call(queue, n, 8, null);
        final long firstId = tasks.get(0).id;
        final AtomicIntegerArray owners = new AtomicIntegerArray(n);
        final AtomicIntegerArray putBack = new AtomicIntegerArray(n);
        final ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            final CountDownLatch go = new CountDownLatch(1);
            final List<Future<?>> running = new ArrayList<>();
            running.add(threads.submit(() -> {
                go.await();
                for (int i = n - 1; i >= 0; i--) { // from the back: the dispatchers reach them last
                    if (queue.drop(tasks.get(i))) {
                        owners.incrementAndGet(i);
                    }
                }
                return null;
            }));
            for (int d = 0; d < 2; d++) {
                final boolean placed = d == 0;
                running.add(threads.submit(() -> {
                    go.await();
                    for (Task t = next(queue, placed); t != null; t = next(queue, placed)) {
                        final int i = (int) (t.id - firstId);
                        if (i % 7 == 0 && putBack.compareAndSet(i, 0, 1)) {
                            queue.offerFirst(t); // as a dispatcher does: taken or dropped again
                        } else {
                            owners.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        for (int i = 0; i < n; i++) {
            assertEquals(1, owners.get(i), "task " + i + " had " + owners.get(i) + " owners");
        }
    }

    private static Task next(TaskQueue queue, boolean placed) {
        return placed ? queue.take(1, id -> true) : queue.poll();
    }
}
