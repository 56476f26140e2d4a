package dev.sharray.pool;

import dev.sharray.SharedArray;
import dev.sharray.reducers.OpenedArrays;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Completes a pool's tasks: releases what each pinned, uncounts it, and completes its future (outside the pump
 * lock: callbacks run here). Whoever took a task out of the queue or its worker's in-flight slot calls it, once.
 */
final class TaskFinisher {
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight;
    private final PrintStream err;
    private final String poolName;

    TaskFinisher(AtomicInteger inFlight, PrintStream err, String poolName) {
        this.inFlight = inFlight;
        this.err = err;
        this.poolName = poolName;
    }

    /** @return a task's own shutdown failure (callers add suppressed exceptions to it: none may be shared) */
    static CancellationException shutDown() {
        return new CancellationException("ProcessPool was shut down");
    }

    /** Completes the tasks of a list linked by {@link Task#nextDone}, first to last. */
    void finishInOrder(Task first) {
        for (Task t = first; t != null; ) {
            final Task next = t.nextDone;
            t.nextDone = null;
            finish(t);
            t = next;
        }
    }

    /** Completes a task with its result or its {@link Task#error}. */
    void finish(Task t) {
        if (t.resultHoldsArrays) {
            t.worker.sendControl(Protocol.RELEASE, t.id);
        }
        try {
            if (!t.pinnedUntilWorkerExit) {
                t.batch.taskDone();
            }
        } catch (RuntimeException e) {
            // releasing the call's pinned arrays failed: the task still completes, and says so
            if (t.error == null) {
                t.error = e;
            } else {
                t.error.addSuppressed(e);
            }
        }
        // uncount before completing: a caller woken by the completion then sees an idle pool and does
        // not wake the result thread for nothing
        inFlight.decrementAndGet();
        final Object result = t.result;
        t.result = null;
        if (t.error != null) {
            t.future.settleExceptionally(t.error);
            releaseResultArrays(t); // none unless the result was read before a release failure above
        } else if (!t.future.settle(result)) {
            // cancelled or timed out by the caller meanwhile: nobody will release the result's arrays
            releaseResultArrays(t);
        }
    }

    /**
     * Releases the handles of a result that is not handed to anyone. Runs after the task's future completed,
     * inside loops over other tasks: a failure is reported, never thrown.
     */
    void releaseResultArrays(Task t) {
        final List<SharedArray> arrays = t.resultArrays;
        t.resultArrays = List.of();
        try {
            OpenedArrays.releaseAll(arrays);
        } catch (RuntimeException e) {
            err.println("[" + poolName + "] cannot release the arrays of an abandoned result: " + e);
        }
    }

    /**
     * Completes a task that was never sent (its future is done already: cancelled by its caller). Runs inside
     * dispatch loops and the caller's {@code cancel}: a failure to release the call's pinned arrays is reported,
     * never thrown, and the task is uncounted all the same (else {@code close()} would wait for it for good).
     */
    void finishUnsent(Task t) {
        try {
            t.batch.taskDone();
        } catch (RuntimeException e) {
            err.println("[" + poolName + "] cannot release the arrays of a cancelled task's call: " + e);
        } finally {
            inFlight.decrementAndGet();
        }
    }
}
