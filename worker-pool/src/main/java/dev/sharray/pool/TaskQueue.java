package dev.sharray.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * The pool's tasks not yet sent, and which of them a worker gets: by argument position ({@link TaskPlacement}),
 * several short tasks of one map call in one message ({@link #groupBehind}), a long task sent behind the one a
 * worker is running ({@link #worthQueueingBehind}). Safe for concurrent use, as its deque is; a chain built
 * here is its caller's until it is sent.
 *
 * <p>A task leaves the queue by being taken ({@link #poll}, {@link #take}, {@link #groupBehind}), which
 * {@linkplain Task#claim claims} it, or by being {@linkplain #drop dropped} by its caller, which only marks it: a
 * dropped task stays in the deque until a taker meets it and skips it. Exactly one of the two owns it.
 */
final class TaskQueue {
    private final ConcurrentLinkedDeque<Task> tasks = new ConcurrentLinkedDeque<>();
    /** Which worker ran each argument position of recent map calls. */
    private final TaskPlacement placement = new TaskPlacement();
    /** Tasks put back by {@link #requeueUnstarted} (for tests). */
    private final AtomicLong requeued = new AtomicLong();

    void offer(Task t) {
        tasks.offer(t);
    }

    /** Puts back a task just taken, ahead of the others. */
    void offerFirst(Task t) {
        t.unclaim();
        tasks.offerFirst(t);
    }

    /**
     * Drops a queued task, in O(1): it is marked, and skipped by whoever meets it in the queue later.
     *
     * @return whether {@code t} was queued and is now dropped (its caller finishes it); false when it was taken
     */
    boolean drop(Task t) {
        return t.drop();
    }

    /** @return the first queued task, now the caller's; {@code null} when none is left */
    Task poll() {
        for (Task t = tasks.poll(); t != null; t = tasks.poll()) {
            if (t.claim()) {
                return t;
            }
        }
        return null;
    }

    Task peek() {
        return tasks.peek();
    }

    boolean isEmpty() {
        return tasks.isEmpty();
    }

    /**
     * Takes the task to send to worker {@code worker} (see {@link TaskPlacement#take}).
     *
     * @param live whether a worker id belongs to a current worker
     * @return the task, now the caller's, or {@code null} when the queue is empty
     */
    Task take(int worker, IntPredicate live) {
        for (Task t = placement.take(tasks, worker, live); t != null; t = placement.take(tasks, worker, live)) {
            if (t.claim()) {
                return t;
            }
        }
        return null;
    }

    /** Records that {@code worker} runs {@code t}, for the placement of the next call. */
    void placed(Task t, int worker) {
        placement.placed(t, worker);
    }

    /** @return the worker that last ran argument position {@code position} of a placed call, 0 if none */
    int workerFor(int position) {
        return placement.workerFor(position);
    }

    /**
     * @param workers the number of workers
     * @return whether {@code t} (just taken off the queue) is a long task of a map call, in a small message, with,
     *         counting it, at least as many of its tasks queued as there are workers (dropped ones count until they
     *         are skipped: skipping them here could scan the whole queue)
     */
    boolean worthQueueingBehind(Task t, int workers) {
        // small messages only: this one is sent under the pump lock and must never wait for room in the ring
        if (t.future.isDone() || t.batch.grouping == null || !t.batch.grouping.tasksOutlastTarget()
            || t.arg.length > TaskGrouping.MAX_ARG_BYTES || t.fn.bytes.length > TaskGrouping.MAX_GROUP_BYTES) {
            return false;
        }
        return headHolds(t.batch, workers - 1L); // t counts as one
    }

    /**
     * Chains queued tasks of {@code head}'s map call behind it, as many as its {@link TaskGrouping} says, so
     * they go to the worker in one message. Stops at a task of another call, which goes back to the queue.
     *
     * @param workers   the number of workers
     * @param cancelled gets each task found cancelled by its caller while queued: it never runs
     */
    void groupBehind(Task head, int workers, Consumer<Task> cancelled) {
        final Task.Batch call = head.batch;
        if (call.grouping == null || head.arg.length > TaskGrouping.MAX_ARG_BYTES) {
            return;
        }
        final int size = call.grouping.size(call.remaining(), workers);
        Task tail = head;
        long bytes = head.arg.length;
        for (int n = 1; n < size; ) {
            final Task t = tasks.poll();
            if (t == null) {
                break;
            }
            if (!t.claim()) {
                continue; // dropped by its caller, who finished it
            }
            if (t.future.isDone()) {
                cancelled.accept(t);
                continue;
            }
            if (t.batch != call || t.arg.length > TaskGrouping.MAX_ARG_BYTES
                || bytes + t.arg.length > TaskGrouping.MAX_GROUP_BYTES) {
                offerFirst(t);
                break;
            }
            tail.nextInGroup = t;
            tail = t;
            bytes += t.arg.length;
            n++;
        }
    }

    /**
     * Puts tasks that were sent but never started (a group's tasks behind the one running when its worker
     * died, timed out or never took the message) back at the head of the queue, in their order, as unsent.
     */
    void requeueUnstarted(Task first) {
        requeued.addAndGet(putBack(first));
    }

    /**
     * Puts a chain of tasks back at the head of the queue, in their order, as unsent: a group just formed that
     * is not sent after all, or (through {@link #requeueUnstarted}) tasks that never started.
     *
     * @return how many tasks went back
     */
    int putBack(Task first) {
        final List<Task> unstarted = new ArrayList<>();
        for (Task t = first; t != null; ) {
            final Task next = t.nextInGroup;
            t.nextInGroup = null;
            t.messageTail = null;
            t.worker = null;
            t.deadline = 0;
            t.sent = false;
            t.messageStart = Task.NOT_WRITTEN;
            t.unclaim();
            unstarted.add(t);
            t = next;
        }
        for (int i = unstarted.size() - 1; i >= 0; i--) {
            tasks.offerFirst(unstarted.get(i));
        }
        return unstarted.size();
    }

    /**
     * @param call    a map call
     * @param size    tasks per group
     * @param workers the number of workers
     * @return whether the queue's head holds at least a group of {@code size} of {@code call}'s tasks per worker
     *         (dropped ones count until they are skipped, as in {@link #worthQueueingBehind})
     */
    boolean holdsGroupsOf(Task.Batch call, int size, int workers) {
        return headHolds(call, (long) size * Math.max(1, workers));
    }

    /**
     * @return whether the queue's first {@code wanted} tasks (dropped ones included) all belong to {@code call};
     *         reads no further than that, so a long queue costs nothing
     */
    private boolean headHolds(Task.Batch call, long wanted) {
        long queued = 0;
        for (Task q : tasks) {
            if (queued >= wanted) {
                break;
            }
            if (q.batch != call) {
                return false;
            }
            queued++;
        }
        return queued >= wanted;
    }

    /** @return how many tasks were sent but never started and put back (see {@link #requeueUnstarted}) */
    long requeued() {
        return requeued.get();
    }
}
