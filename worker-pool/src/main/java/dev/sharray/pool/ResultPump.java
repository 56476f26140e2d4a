package dev.sharray.pool;

import org.agrona.DirectBuffer;

import java.io.PrintStream;
import java.nio.ByteOrder;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Reads a pool's answers: polls every worker's result ring under the pump lock, matches each answer to the task in
 * its worker's in-flight slot, fails tasks past their deadline and stops those their callers cancelled with
 * {@code cancel(true)} (killing their worker), and completes what it found
 * once the lock is let go. Whichever thread gets the lock pumps: the result thread, or a caller waiting for its own
 * task. Also keeps the list of tasks answered or settled off the pumps (a worker's exit, the stop), which the next
 * pump completes.
 */
final class ResultPump {
    private final PoolWorkers workers;
    private final ReentrantLock pumpLock;
    private final TaskQueue queue;
    private final TaskDispatcher dispatcher;
    private final TaskFinisher finisher;
    private final ResultThread results;
    /** Decodes answers (pump lock held). */
    private final ResultDecoder decoder;
    private final PoolState state;
    private final PrintStream err;
    private final String poolName;
    /** Binds each new worker's answers to {@link #onResult}. */
    private final Function<Worker, Frames.Sink> sinks = ResultSink::new;
    /** Test hook (null in use): runs when a task has timed out, before its worker is killed (pump lock held). */
    private volatile Runnable beforeTimeoutKill;
    /**
     * Answered tasks found by the current pump, completed after the pump lock is released; and tasks settled by a
     * worker's exit, completed by the next pump (pump lock held).
     */
    private Task doneHead;
    /**
     * Whether the last pump read every worker's result ring to its end (written under the pump lock): a pump reads
     * at most 16 answers a worker, and the answer it left may be the one that would have rung the doorbell.
     */
    private volatile boolean lastPumpDrained;

    ResultPump(PoolWorkers workers, TaskQueue queue, TaskDispatcher dispatcher, TaskFinisher finisher,
               ResultThread results, ResultDecoder decoder, PoolState state, PrintStream err, String poolName) {
        this.workers = workers;
        this.pumpLock = workers.pumpLock();
        this.queue = queue;
        this.dispatcher = dispatcher;
        this.finisher = finisher;
        this.results = results;
        this.decoder = decoder;
        this.state = state;
        this.err = err;
        this.poolName = poolName;
    }

    /** @return what binds a new worker's answers to this pump (one sink per worker: polling allocates nothing) */
    Function<Worker, Frames.Sink> sinks() {
        return sinks;
    }

    /** Polls every worker's result ring once if no other thread is; completes what arrived. */
    int tryPump() {
        return tryPump(false);
    }

    /** @return whether the last pump read every worker's result ring to its end */
    boolean lastPumpDrained() {
        return lastPumpDrained;
    }

    /**
     * @param beforeSleep first raise every worker's parent-sleeping flag (under the pump lock: their rings stay
     *                    mapped), so this look at the rings is the result thread's last before it sleeps
     * @return the results found; when another thread holds the pump lock, 0, or -1 with {@code beforeSleep}
     */
    int tryPump(boolean beforeSleep) {
        if (!pumpLock.tryLock()) {
            return beforeSleep ? -1 : 0;
        }
        final int work;
        final Task done;
        try {
            if (beforeSleep) {
                for (Worker w : workers.all()) {
                    w.rings.markParentSleeping();
                }
            }
            work = pumpLocked();
            done = takeDone();
        } finally {
            pumpLock.unlock();
        }
        afterPump(done);
        return work;
    }

    /**
     * Test hook: holds the pump lock on this thread while {@code during} runs, then lets go of it as a pump
     * does, with nothing read.
     */
    void holdLockWhile(Runnable during) {
        pumpLock.lock();
        try {
            during.run();
        } finally {
            pumpLock.unlock();
        }
        afterPump(null);
    }

    /**
     * A pump has let go of the lock: completes the tasks it found, and dispatches for a dispatcher that found
     * the lock held ({@link TaskDispatcher#takeQueueBehindMissed}).
     */
    private void afterPump(Task done) {
        if (done != null) {
            finishAll(done); // dispatches, which serves a missed queue-behind too
            if (state.closed() && !queue.isEmpty()) {
                dispatcher.cancelPending(); // a timed-out task's group was requeued after shutdownNow() drained the queue
            }
        } else if (dispatcher.takeQueueBehindMissed()) {
            dispatcher.dispatch();
        }
    }

    /**
     * How long an answer part way through may go without a new record before its task's deadline counts again: a
     * worker that started answering and then stopped must not escape its timeout.
     */
    static final long ANSWERING_GRACE_NANOS = 1_000_000_000L;

    private int pumpLocked() {
        int work = 0;
        boolean toStop = false;
        boolean drained = true;
        for (Worker w : workers.all()) {
            final int read = pollWorker(w, 16);
            drained &= read < 16;
            work += read;
            final Task t = w.inFlight.get();
            toStop |= t != null && (t.deadline != 0 || t.stopWanted);
        }
        if (toStop) {
            stopOverdueAndCancelled();
        }
        lastPumpDrained = drained;
        return work;
    }

    /**
     * Reads up to {@code limit} messages from a worker's result ring (pump lock held). A garbled frame (Frames
     * refuses it) means the worker cannot be trusted any more: it is killed, which fails its task as a crash
     * and starts a replacement, and its ring is not read further.
     */
    int pollWorker(Worker w, int limit) {
        try {
            final int read = w.reader.poll(w.resultSink, limit);
            if (read > 0 && w.reader.inMessage()) { // only a long answer's progress is timed: no clock read per result
                w.lastReadNanos = System.nanoTime();
            }
            return read;
        } catch (RuntimeException e) {
            err.println("sharray pool: worker " + w.id + " sent a malformed message (" + e.getMessage()
                + "); killing it");
            w.state.compareAndSet(Worker.IDLE, Worker.KILLED);
            w.state.compareAndSet(Worker.BUSY, Worker.KILLED);
            w.process.destroyForcibly();
            return 0;
        }
    }

    /**
     * Fails each running task past its deadline, and ends each one its caller cancelled with {@code cancel(true)},
     * killing its worker. The task after it stays with the worker until its exit: the stopped task may still answer
     * before the kill lands and the worker go on to the next one, which then must not run again elsewhere
     * ({@link WorkerExits} decides). A task cancelled before it started is stopped once it runs.
     */
    private void stopOverdueAndCancelled() {
        final long now = System.nanoTime();
        for (Worker w : workers.all()) {
            final Task t = w.inFlight.get();
            if (t == null || w.reader.inMessage() && now - w.lastReadNanos < ANSWERING_GRACE_NANOS) {
                // none, or the task ran to its end and its answer is still arriving (larger than the ring, read while
                // the parent was paused or busy): what a timeout bounds is the running, not this JVM's reading
                continue;
            }
            final Task next = t.nextInGroup;
            final boolean overdue = t.deadline != 0 && now - t.deadline > 0;
            if ((overdue || t.stopWanted) && w.inFlight.compareAndSet(t, next)) {
                w.state.set(Worker.KILLED);
                w.stopped = t;
                w.afterStopped = next;
                // a cancelled task's future is done already: its error only routes its finishing
                t.error = overdue ? new TaskTimeoutException(t.timeout, w.id)
                    : new CancellationException("cancelled while running on worker " + w.id + ", which was killed");
                t.nextInGroup = null;
                t.pinnedUntilWorkerExit = true;
                w.pinnedUntilExit.set(t);
                pushDone(t);
                final Runnable hook = beforeTimeoutKill;
                if (hook != null) {
                    hook.run();
                }
                w.process.destroyForcibly();
            }
        }
    }

    /** Test hook: {@code hook} runs when a task has timed out, under the pump lock, before its worker is killed. */
    void beforeTimeoutKill(Runnable hook) {
        beforeTimeoutKill = hook;
    }

    /** A worker's answers, for {@link #onResult}. */
    private final class ResultSink implements Frames.Sink {
        private final Worker worker;

        ResultSink(Worker worker) {
            this.worker = worker;
        }

        @Override
        public void onMessage(DirectBuffer buffer, int offset, int length) {
            onResult(worker, buffer, offset, length, null, length);
        }

        @Override
        public void onUnassembled(DirectBuffer head, int offset, int length, long messageLength, OutOfMemoryError error) {
            onResult(worker, head, offset, length, error, messageLength);
        }
    }

    /**
     * Decodes one message from a worker's result ring (pump lock held).
     *
     * @param tooLarge      null, or why this JVM could not hold the message: then {@code buffer} has only its first
     *                      bytes, and the task fails
     * @param messageLength the whole message's length
     */
    private void onResult(Worker w, DirectBuffer buffer, int offset, int length, OutOfMemoryError tooLarge, long messageLength) {
        if (length < Protocol.RESULT_HEADER || buffer.getByte(offset) != Protocol.RESULT) {
            err.println("[" + poolName + "] protocol error from " + w + ": unexpected message; killing it");
            w.state.set(Worker.KILLED);
            w.process.destroyForcibly();
            return;
        }
        final long taskId = buffer.getLong(offset + 1, ByteOrder.LITTLE_ENDIAN);
        final Task t = w.inFlight.get();
        if (t == null || t.id != taskId) {
            // the answer to a task that already timed out: the worker may have gone on to the next one
            w.stoppedAnswered |= w.stopped != null && w.stopped.id == taskId;
            return;
        }
        // a worker whose task ran it out of heap exits after this answer (see WorkerLoop.exhaustedHeap): the tasks
        // sent to it after this one never start, and run elsewhere; its exit then starts a replacement
        final boolean retiring = (buffer.getByte(offset + 10) & Protocol.RETIRING) != 0;
        // the next task of its group, or one queued behind it, starts now: its deadline counts from here
        final Task next = retiring ? null : t.nextInGroup;
        if (next != null && (next.timeout != null || next.groupIndex == 1)) {
            final long now = System.nanoTime();
            if (next.timeout != null) {
                next.deadline = now + Math.max(1, next.timeout.toNanos());
            }
            if (next.groupIndex == 1) {
                next.messageTail.sentAt = now; // a message sent while this one ran: its time counts from its start
            }
        }
        if (!w.inFlight.compareAndSet(t, next)) {
            return;
        }
        if (retiring) {
            w.state.set(Worker.KILLED); // no task is given to it any more
            queue.requeueUnstarted(t.nextInGroup);
            t.nextInGroup = null;
        }
        if (next != null && next.timeout != null) {
            results.deadlineStarted();
        }
        t.nextInGroup = null;
        if (t == t.messageTail && t.batch.grouping != null) {
            // a whole message answered: its time per task, the parent's own delays spread over the group
            t.batch.grouping.answered((System.nanoTime() - t.sentAt) / t.groupIndex);
        }
        if (tooLarge == null) {
            decoder.decode(t, buffer, offset, length);
        } else {
            decoder.fail(t, buffer, offset, messageLength, tooLarge);
        }
        if (next == null) {
            w.state.compareAndSet(Worker.BUSY, Worker.IDLE);
        }
        pushDone(t);
    }

    /** Adds a settled task to the list the next pump completes (pump lock held). */
    void pushDone(Task t) {
        t.nextDone = doneHead;
        doneHead = t;
    }

    private Task takeDone() {
        final Task head = doneHead;
        doneHead = null;
        return head;
    }

    /** Completes answered tasks (outside the pump lock: callbacks may run here) and feeds idle workers. */
    private void finishAll(Task head) {
        // the list is newest first; reverse so callers see completions in arrival order
        Task reversed = null;
        while (head != null) {
            final Task next = head.nextDone;
            head.nextDone = reversed;
            reversed = head;
            head = next;
        }
        dispatcher.dispatch();
        finisher.finishInOrder(reversed);
    }

    /**
     * The pool has stopped: completes its answered and queued tasks, taking them one at a time from the shared
     * lists, so that a callback run here which waits for another of them (a {@code handle} stage joining a queued
     * task) finishes it itself ({@link WaitingCallers#helpUntilDone}) instead of waiting for this loop, which waits
     * for it.
     */
    void settleStopped() {
        for (Task t = takeOneDone(); t != null; t = takeOneDone()) {
            finisher.finish(t);
        }
        dispatcher.cancelPending();
    }

    private Task takeOneDone() {
        pumpLock.lock();
        try {
            final Task t = doneHead;
            if (t != null) {
                doneHead = t.nextDone;
                t.nextDone = null;
            }
            return t;
        } finally {
            pumpLock.unlock();
        }
    }
}
