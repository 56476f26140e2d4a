package dev.sharray.pool;

import dev.sharray.SharedArray;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One submitted call, parent side: what to send (function and encoded argument, ready before the
 * task is queued so every array it refers to is pinned at submit time) and, once answered, the
 * outcome. Whoever takes a task out of its worker's in-flight slot owns its completion.
 */
final class Task {
    /** {@link #queueState} of a task in the queue, or being put back: its dispatcher's to take, its caller's to drop. */
    private static final int QUEUED = 0;
    /** Taken off the queue by a dispatcher or a drain, which owns it: sends it, finishes it, or puts it back. */
    private static final int TAKEN = 1;
    /** Dropped by its caller while queued, who finished it: whoever meets it in the queue skips it. */
    private static final int DROPPED = 2;
    private static final VarHandle QUEUE_STATE;

    static {
        try {
            QUEUE_STATE = MethodHandles.lookup().findVarHandle(Task.class, "queueState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long id;
    final TaskFuture<Object> future;
    final FunctionCodec.Encoded fn;
    final byte[] arg;
    final Duration timeout;
    final Batch batch;
    /** Its argument's index in its map call, -1 for a submitted task (see {@link TaskPlacement}). */
    final int position;

    /** System.nanoTime() deadline once started, 0 for none. */
    long deadline;
    /**
     * System.nanoTime() when its message was sent, or started if it was sent behind another; read on the message's
     * last task only, whose answer ends the message (see {@link TaskGrouping#answered}).
     */
    long sentAt;
    /** Set once its message is in the worker's ring: only then may a task be queued behind it. */
    volatile boolean sent;
    /** {@link #messageStart} of a task not (yet) written to a worker's ring. */
    static final long NOT_WRITTEN = -1;
    /** Where its message starts in its worker's ring, once being written (under the worker's send lock). */
    long messageStart = NOT_WRITTEN;
    /**
     * Requeued once already because its worker died before reading its message: the next such death fails it,
     * so a message whose reading kills the worker kills two at most.
     */
    boolean requeuedUnread;
    /** Its place in its message, from 1 (a task sent alone is 1). */
    int groupIndex;
    /** The last task of its message (itself when sent alone), set when the message is sent. */
    Task messageTail;
    /**
     * The task the worker runs after this one: the next of the same TASKS message (see {@link TaskGrouping}),
     * or a task sent in a message of its own while this one ran ({@code groupIndex} 1).
     */
    Task nextInGroup;
    Worker worker;
    Object result;
    Throwable error;
    boolean resultHoldsArrays;
    /** Timed out: its arrays are released when its worker's process has ended, not when it completes. */
    boolean pinnedUntilWorkerExit;
    /** The handles opened for the result's arrays: the caller's, unless the result is never delivered. */
    List<SharedArray> resultArrays = List.of();
    /** Link in the pump's list of answered tasks. */
    Task nextDone;
    /**
     * Who owns the task while it is queued (see {@link TaskQueue}): {@link #QUEUED}, {@link #TAKEN} or
     * {@link #DROPPED}. Its caller drops it in O(1) rather than unlinking it from the queue (a scan of the queue:
     * cancelling n queued tasks cost O(n^2)); this decides who owns it when a dispatcher takes it meanwhile.
     */
    @SuppressWarnings("unused") // through QUEUE_STATE
    private volatile int queueState;
    /**
     * Its caller cancelled it with {@code cancel(true)} after it left the queue: while it is its worker's running
     * task, a pump kills that worker ({@link ResultPump}). Harmless once the task is done: no pump looks at it then.
     */
    volatile boolean stopWanted;

    Task(long id, TaskFuture<Object> future, FunctionCodec.Encoded fn, byte[] arg, Duration timeout, Batch batch,
         int position) {
        this.id = id;
        this.future = future;
        this.fn = fn;
        this.arg = arg;
        this.timeout = timeout;
        this.batch = batch;
        this.position = position;
    }

    /** @return whether this call took the queued task, and owns it; false when its caller dropped it */
    boolean claim() {
        return QUEUE_STATE.compareAndSet(this, QUEUED, TAKEN);
    }

    /** @return whether this call dropped the queued task (its caller must finish it); false when it was taken */
    boolean drop() {
        return QUEUE_STATE.compareAndSet(this, QUEUED, DROPPED);
    }

    /** Its owner puts the task back in the queue (called before it is queued again): it may be taken or dropped again. */
    void unclaim() {
        queueState = QUEUED;
    }

    /** @return whether its caller dropped the task: it stays in the queue until a taker skips it */
    boolean dropped() {
        return queueState == DROPPED;
    }

    /**
     * The arrays pinned for a group of tasks (one submit, or one map call): released once, when the
     * last task of the group is done.
     */
    static final class Batch {
        private final AtomicInteger remaining;
        private final Runnable release;
        /** How the call's queued tasks may share messages, or {@code null} when each goes alone. */
        final TaskGrouping grouping;

        Batch(int tasks, Runnable release) {
            this(tasks, release, null);
        }

        Batch(int tasks, Runnable release, TaskGrouping grouping) {
            this.remaining = new AtomicInteger(tasks);
            this.release = release;
            this.grouping = grouping;
        }

        /** @return tasks of the group not yet done */
        int remaining() {
            return remaining.get();
        }

        void taskDone() {
            if (remaining.decrementAndGet() == 0 && release != null) {
                release.run();
            }
        }
    }
}
