package dev.sharray.pool;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * Queues a pool's tasks and hands them to idle workers: claims a worker, takes its task (with the tasks grouped
 * behind it) off the {@link TaskQueue}, publishes it in the worker's in-flight slot and sends it; and, with every
 * worker busy, sends a long task behind a running one. Runs on whichever thread has just made progress possible
 * (a submitter, a pump, a worker's exit), so it allocates nothing per task.
 */
final class TaskDispatcher {
    /** Tasks not yet sent, and which of them a worker gets. */
    private final TaskQueue queue;
    private final PoolWorkers workers;
    private final ReentrantLock pumpLock;
    private final TaskFinisher finisher;
    private final ResultThread results;
    private final PoolState state;
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight;
    /** Completes a task cancelled by its caller while queued (one instance: dispatching allocates nothing). */
    private final Consumer<Task> finishCancelled;
    private final IntPredicate currentWorker;
    private final AtomicLong groupsSent = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong tasksQueuedBehind = new AtomicLong();
    private final AtomicLong groupsQueuedBehind = new AtomicLong();
    /** Set once every worker has died and no replacement could be started: tasks then fail at once. */
    private volatile IllegalStateException noWorkers;
    /** Set by a dispatcher that could not queue tasks behind running ones because a pump held the lock. */
    private volatile boolean queueBehindMissed;
    /** Test hook (null in use): runs in a dispatcher between claiming a worker and publishing its task. */
    private volatile Runnable beforeTaskPublished;

    TaskDispatcher(TaskQueue queue, PoolWorkers workers, TaskFinisher finisher, ResultThread results, PoolState state,
                   AtomicInteger inFlight) {
        this.queue = queue;
        this.workers = workers;
        this.pumpLock = workers.pumpLock();
        this.finisher = finisher;
        this.results = results;
        this.state = state;
        this.inFlight = inFlight;
        this.finishCancelled = finisher::finishUnsent;
        this.currentWorker = workers::isCurrent;
    }

    /**
     * Queues a task, counted in flight; hands queued tasks to idle workers when {@code dispatchNow}.
     *
     * @throws IllegalStateException when the pool is closed (the task is counted done)
     */
    void enqueue(Task t, boolean dispatchNow) {
        // count first, check state second: close() sets the state first and then waits for the count,
        // so a task either is refused here or is drained by close()
        final int before = inFlight.getAndIncrement();
        if (!state.running()) {
            inFlight.decrementAndGet();
            t.batch.taskDone();
            throw closedPool();
        }
        queue.offer(t);
        if (noWorkers != null) {
            // every worker died and none could be started: fail now instead of waiting forever (whichever
            // of this check and noWorkersLeft's failPendingNoWorkers sees the task first fails it)
            failPendingNoWorkers();
            return;
        }
        if (state.closed()) {
            // shutdownNow() does not wait for the count: it may have drained the queue before this offer
            cancelPending();
            return;
        }
        if (before == 0) {
            results.taskQueuedOnIdlePool();
        }
        if (dispatchNow) {
            dispatch();
        }
    }

    /** @return what a call on a closed pool throws */
    static IllegalStateException closedPool() {
        return new IllegalStateException("ProcessPool is closed: no new tasks are accepted");
    }

    /** Fails every queued task: the pool is closed and no worker will take them. */
    void cancelPending() {
        for (Task t = queue.poll(); t != null; t = queue.poll()) {
            t.error = TaskFinisher.shutDown();
            finisher.finish(t);
        }
    }

    /**
     * Every worker has died and no replacement could be started: fails the queued tasks, and every later one at once,
     * with {@code reason}.
     */
    void noWorkersLeft(IllegalStateException reason) {
        noWorkers = reason;
        failPendingNoWorkers();
    }

    /** Fails every queued task, each with an exception of its own (callers add suppressed ones to it). */
    private void failPendingNoWorkers() {
        for (Task t = queue.poll(); t != null; t = queue.poll()) {
            t.error = new IllegalStateException(noWorkers.getMessage(), noWorkers.getCause());
            finisher.finish(t);
        }
    }

    /**
     * A task's future is being completed by its caller (cancelled, timed out by {@code orTimeout}): if the task is
     * still queued, it is dropped (in O(1): it stays in the queue, skipped by the next dispatch) and is done now, its
     * arrays released. Whoever claims it first owns it: a dispatcher that took it first finds its future done and
     * finishes it as unsent, or has sent it already (it runs, its result dropped).
     *
     * @return whether the task was queued, and is now done
     */
    boolean dropQueued(Task t) {
        if (queue.drop(t)) {
            finisher.finishUnsent(t);
            return true;
        }
        return false;
    }

    /** Hands queued tasks to idle workers, from whichever thread has just made progress possible. */
    void dispatch() {
        while (!queue.isEmpty()) {
            final Worker w = workers.claimIdle();
            if (w == null) {
                if (queueBehindRunningTasks()) {
                    continue; // a worker went idle meanwhile, or another dispatcher missed the lock: look again
                }
                return;
            }
            Task t = queue.take(w.id, currentWorker);
            while (t != null && t.future.isDone()) {
                // cancelled by the caller while queued: never runs
                finisher.finishUnsent(t);
                t = queue.take(w.id, currentWorker);
            }
            if (t == null) {
                w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
                continue;
            }
            queue.groupBehind(t, workers.count(), finishCancelled);
            // the clock only for a deadline or for the call's time per task (TaskGrouping)
            final long now = t.timeout != null || t.batch.grouping != null ? System.nanoTime() : 0;
            markMessage(t, w, now);
            t.deadline = t.timeout == null ? 0 : now + Math.max(1, t.timeout.toNanos());
            queue.placed(t, w.id);
            runHook(beforeTaskPublished);
            w.inFlight.set(t);
            if (t.deadline != 0) {
                results.deadlineStarted();
            }
            if (t.stopWanted) {
                results.stopRequested(); // cancelled with cancel(true) while being sent: it must not run to its end
            }
            final boolean group = t.nextInGroup != null; // read now: once sent, a task may be queued behind it
            boolean sent;
            try {
                sent = w.send(t);
            } catch (RuntimeException | Error e) {
                // the message could not be encoded (e.g. out of memory for a huge one): fail its tasks only
                if (w.inFlight.compareAndSet(t, null)) {
                    w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
                    for (Task g = t; g != null; ) {
                        final Task next = g.nextInGroup;
                        g.nextInGroup = null;
                        g.error = e;
                        finisher.finish(g);
                        g = next;
                    }
                }
                continue;
            }
            if (!sent && w.inFlight.compareAndSet(t, null)) {
                // the worker died before taking them: the tasks never ran, so they may run elsewhere
                queue.requeueUnstarted(t);
                if (state.closed()) {
                    cancelPending();
                }
            } else if (sent) {
                messagesSent.incrementAndGet();
                if (group) {
                    groupsSent.incrementAndGet();
                }
            }
        }
    }

    /**
     * With every worker busy, sends a worker the next message of the map call it runs, behind its running one,
     * so the worker starts it the moment the running one ends instead of idling through the round trip of the
     * last answer and the next message. On a busy small machine that round trip waits for the parent to be
     * scheduled: ~1 ms between tasks of ~10 ms on 2 cores with 2 workers.
     * <ul>
     * <li>For calls whose tasks outlast {@link TaskGrouping#TARGET_NANOS}, a task behind a worker's lone running
     * task, while at least as many of the call's tasks wait as there are workers.</li>
     * <li>For shorter tasks, which travel in groups, a group behind a worker's running group, while a group per
     * worker of the call stays queued after it, and only groups expected to run
     * {@link TaskGrouping#BEHIND_MIN_NANOS}: the result thread sleeps while such groups run, and for tiny tasks
     * the extra message and the lock would cost more than the wait they save. Never for tasks with deadlines.</li>
     * </ul>
     * Either way the call's last messages still go to whichever worker is free first. Under the pump lock, as
     * every change to a running task's chain is (see {@link #lockForQueueBehind}); its send never waits for room
     * in the ring: small messages only (a group carries at most {@link TaskGrouping#MAX_GROUP_BYTES} of
     * arguments, one record of the ring), and the worker copied its running message out of the ring.
     *
     * @return whether the caller should look for work to dispatch again: a dispatcher left the flag meanwhile,
     *         or a worker went idle while a task was off the queue here
     */
    private boolean queueBehindRunningTasks() {
        final Task head = queue.peek();
        if (head == null || head.batch.grouping == null) {
            return false;
        }
        final Task.Batch call = head.batch;
        final boolean groups = !call.grouping.tasksOutlastTarget();
        if (groups && (!call.grouping.outlastBehindMinimum(call.grouping.size(call.remaining(), workers.count()))
            || !anyRunningGroupAlone(call))) {
            return false; // the common case of tiny tasks: no lock, no queue traffic on their hot path
        }
        if (!lockForQueueBehind()) {
            return false;
        }
        Task failed = null;
        boolean offeredBack = false;
        try {
            for (Worker w : workers.all()) {
                final Task running = w.inFlight.get();
                if (!(groups ? runsGroupAlone(running, call) : runsTaskAlone(running)) || w.state.get() != Worker.BUSY) {
                    continue;
                }
                final Task next = queue.take(w.id, currentWorker);
                if (next == null) {
                    break;
                }
                if (!(groups ? groupBehind(next, running) : worthTaskBehind(next, running))) {
                    offeredBack = true; // back in the queue
                    if (groups) {
                        break; // the call's end or another call's tasks: the same for every worker
                    }
                    continue; // placement may give the next worker another task
                }
                // the next message's deadlines and times count from when the worker starts it (ResultPump)
                switch (sendBehind(w, groups ? running.messageTail : running, next)) {
                    case SENT -> (groups ? groupsQueuedBehind : tasksQueuedBehind).incrementAndGet();
                    case FAILED -> failed = chainDone(next, failed);
                    case REFUSED -> offeredBack = true;
                }
            }
        } finally {
            pumpLock.unlock();
        }
        finisher.finishInOrder(failed);
        // another dispatcher left the flag while this one held the lock (or this one did, before its second try);
        // a worker that went idle while a task was off the queue here found the queue empty
        return takeQueueBehindMissed() || offeredBack && workers.hasIdle();
    }

    /**
     * @param next    a long task just taken off the queue
     * @param running the lone task its worker runs
     * @return whether {@code next} may go behind {@code running}; if not, it is back in the queue
     */
    private boolean worthTaskBehind(Task next, Task running) {
        if (next.batch == running.batch && queue.worthQueueingBehind(next, workers.count())) {
            return true;
        }
        queue.offerFirst(next);
        return false;
    }

    /**
     * Chains the group that {@code next}, just taken off the queue, heads, to go behind {@code running}'s group.
     *
     * @return whether the group may go; if not, its tasks are back in the queue
     */
    private boolean groupBehind(Task next, Task running) {
        if (next.batch != running.batch || next.timeout != null || next.future.isDone()) {
            queue.offerFirst(next);
            return false;
        }
        queue.groupBehind(next, workers.count(), finishCancelled);
        final int size = chainLength(next);
        if (size == 1 || !next.batch.grouping.outlastBehindMinimum(size)
            || !queue.holdsGroupsOf(next.batch, size, workers.count())) {
            queue.putBack(next); // a lone task, or the call's end: for whichever worker is free first
            return false;
        }
        return true;
    }

    /**
     * Takes the pump lock for a queue-behind; when another thread holds it, leaves {@link #queueBehindMissed} for
     * it first, so either the second try succeeds or the holder unlocks after the flag is up and dispatches again.
     *
     * @return whether this thread now holds the lock
     */
    private boolean lockForQueueBehind() {
        if (pumpLock.tryLock()) {
            return true;
        }
        queueBehindMissed = true;
        return pumpLock.tryLock();
    }

    /** What became of a message sent behind a running one ({@link #sendBehind}). */
    private enum SentBehind {
        /** It is in the worker's ring. */
        SENT,
        /** The worker is dying: the message's tasks are back at the queue's head, unsent. */
        REFUSED,
        /** It could not be encoded: each of its tasks holds the error, to be finished. */
        FAILED
    }

    /**
     * Sends the message headed by {@code next} (taken off the queue, chained as its group) to {@code w}, behind
     * {@code tail}, the last task of the message the worker runs (pump lock held: every change to a running
     * task's chain is made under it).
     *
     * @return what became of it
     */
    private SentBehind sendBehind(Worker w, Task tail, Task next) {
        markMessage(next, w, System.nanoTime());
        tail.nextInGroup = next;
        try {
            if (w.send(next)) {
                queue.placed(next, w.id);
                return SentBehind.SENT;
            }
        } catch (RuntimeException | Error e) {
            tail.nextInGroup = null;
            for (Task g = next; g != null; g = g.nextInGroup) {
                g.error = e;
            }
            return SentBehind.FAILED;
        }
        tail.nextInGroup = null; // the worker is dying: its exit requeues nothing of this message
        queue.putBack(next);
        return SentBehind.REFUSED;
    }

    /** @return whether some worker runs a group of {@code call}'s with no message behind it (no lock: a hint) */
    private boolean anyRunningGroupAlone(Task.Batch call) {
        for (Worker w : workers.all()) {
            if (runsGroupAlone(w.inFlight.get(), call)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether {@code running} is in its worker's ring with no task behind it */
    private static boolean runsTaskAlone(Task running) {
        return running != null && running.sent && running.nextInGroup == null;
    }

    /** @return whether {@code running} is in a group of {@code call}'s, without deadline, with nothing behind it */
    private static boolean runsGroupAlone(Task running, Task.Batch call) {
        if (running == null || running.batch != call || !running.sent || running.timeout != null) {
            return false;
        }
        final Task tail = running.messageTail;
        return tail != null && tail.groupIndex > 1 && tail.nextInGroup == null;
    }

    /** @return the number of tasks chained from {@code head} */
    private static int chainLength(Task head) {
        int n = 0;
        for (Task g = head; g != null; g = g.nextInGroup) {
            n++;
        }
        return n;
    }

    /** Unlinks the tasks chained from {@code head} and adds them to the list {@code done}. */
    private static Task chainDone(Task head, Task done) {
        Task g = head;
        while (g != null) {
            final Task next = g.nextInGroup;
            g.nextInGroup = null;
            g.nextDone = done;
            done = g;
            g = next;
        }
        return done;
    }

    /** Gives the tasks of the message headed by {@code head} their worker, places and tail, and the tail the time. */
    private static void markMessage(Task head, Worker w, long now) {
        int index = 0;
        Task tail = head;
        for (Task g = head; g != null; g = g.nextInGroup) {
            g.worker = w;
            g.groupIndex = ++index;
            tail = g;
        }
        tail.sentAt = now;
        for (Task g = head; g != null; g = g.nextInGroup) {
            g.messageTail = tail;
        }
    }

    /** @return how many groups were sent to a worker behind the group it was running (for tests) */
    long groupsQueuedBehind() {
        return groupsQueuedBehind.get();
    }

    /** @return whether a dispatcher left a queue-behind for the pump lock's holder; lowers the flag */
    boolean takeQueueBehindMissed() {
        if (!queueBehindMissed) {
            return false; // the common case only reads it
        }
        queueBehindMissed = false;
        return true;
    }

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    /** Test hook: {@code hook} runs in the next dispatches between claiming a worker and publishing its task. */
    void beforeTaskPublished(Runnable hook) {
        beforeTaskPublished = hook;
    }

    /** @return whether a dispatcher left a queue-behind for the pump lock's holder (for tests) */
    boolean queueBehindMissed() {
        return queueBehindMissed;
    }

    /** @return how many tasks were sent to a worker behind the one it was running (for tests) */
    long tasksQueuedBehind() {
        return tasksQueuedBehind.get();
    }

    /** @return how many messages carried more than one task (for tests) */
    long groupsSent() {
        return groupsSent.get();
    }

    /** @return how many messages of tasks were sent, of one task or several, queued-behind ones aside (for probes) */
    long messagesSent() {
        return messagesSent.get();
    }

    /** @return how many tasks were sent but never started and were queued again (for tests) */
    long tasksRequeued() {
        return queue.requeued();
    }

    /** @return the worker that last ran argument position {@code position} of a placed map call, 0 if none (for tests) */
    int workerForPosition(int position) {
        return queue.workerFor(position);
    }
}
