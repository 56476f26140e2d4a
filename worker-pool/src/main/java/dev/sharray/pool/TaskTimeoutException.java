package dev.sharray.pool;

import java.time.Duration;

/** A task ran longer than its timeout; its worker was killed and replaced. */
public final class TaskTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param timeout  the timeout that expired
     * @param workerId the worker that was running the task
     */
    public TaskTimeoutException(Duration timeout, int workerId) {
        super("task timed out after " + (timeout.toMillis() > 0 ? timeout.toMillis() + " ms" : timeout.toNanos() + " ns")
            + " on worker " + workerId + "; the worker was killed and replaced");
    }
}
