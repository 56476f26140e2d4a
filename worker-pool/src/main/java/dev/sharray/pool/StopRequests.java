package dev.sharray.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Running tasks whose callers asked for them to be stopped ({@code cancel(true)} of a submitted task's future): the
 * pump kills the worker running such a task, as it does at a timeout. Counts the requests whose task has not finished,
 * so a pump looks for them only while one is pending: one volatile read per pump otherwise.
 */
final class StopRequests {
    /** Requests whose task has not finished; briefly -1 when a task finishes between its request and the count. */
    private final AtomicInteger pending = new AtomicInteger();

    /** @return whether some task asked to be stopped has not finished yet */
    boolean pending() {
        return pending.get() != 0;
    }

    /** @return whether the request is new: the task had not finished, nor been asked to stop before */
    boolean request(Task t) {
        if (!t.requestStop()) {
            return false;
        }
        pending.incrementAndGet();
        return true;
    }

    /** A task finished, however it ended: a request to stop it is no longer pending. */
    void finished(Task t) {
        if (t.finishStop()) {
            pending.decrementAndGet();
        }
    }
}
