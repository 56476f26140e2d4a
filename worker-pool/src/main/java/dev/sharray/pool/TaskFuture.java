package dev.sharray.pool;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of a pool task, and of every stage that depends on one ({@code thenApply}, {@code thenCompose},
 * {@code handle}...). Waiting on it first helps: the waiting thread polls the result rings itself for a few
 * tens of microseconds (tiny tasks come back in a few microseconds, and a thread hand-off would cost more
 * than the task), then blocks as usual. A task of a map call measured to run longer than that is waited for
 * by blocking at once. The pool's result thread, waiting in a callback it runs, polls until the future is
 * done instead: it is the thread that reads the answers, so a dependent stage waited for there must help as
 * the task's own future does (a plain {@link CompletableFuture} would block the thread its source needs).
 *
 * @param <R> result type
 */
final class TaskFuture<R> extends CompletableFuture<R> {
    private final ProcessPool pool;
    /** The call the task belongs to. */
    private final Task.Batch batch;
    /** The task whose own future this is; {@code null} for a dependent stage. */
    private volatile Task task;

    TaskFuture(ProcessPool pool, Task.Batch batch) {
        this.pool = pool;
        this.batch = batch;
    }

    /** @return whether the task's call is measured to run tasks too long for polling to pay off */
    boolean expectsLongWait() {
        return batch.grouping != null && batch.grouping.tasksOutlastTarget();
    }

    /** Makes this the future of {@code t}, before {@code t} is queued. */
    void bind(Task t) {
        this.task = t;
    }

    /** Completes the task's future with its result, as the pool does (no look at the queue). */
    boolean settle(R value) {
        task = null; // a future kept by its caller must not keep the task's argument bytes
        return super.complete(value);
    }

    /** Fails the task's future, as the pool does (no look at the queue). */
    boolean settleExceptionally(Throwable error) {
        task = null;
        return super.completeExceptionally(error);
    }

    /**
     * Cancelled by its caller: a task still queued leaves the queue and releases the arrays pinned for it first, rather
     * than when a worker would have taken it (after the running tasks: hours, with long ones); then the future
     * completes, so whoever it wakes finds them released. With {@code mayInterruptIfRunning} a task that is running
     * (or being sent) is stopped: its worker is killed, as at a timeout, and replaced. Without, it runs to its end and
     * its result is dropped.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        dropIfQueued();
        final Task running = task; // null once dropped from the queue, or settled
        final boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled && mayInterruptIfRunning && running != null) {
            pool.stopRunning(running);
        }
        return cancelled;
    }

    /** Completed by its caller (or {@code completeOnTimeout}): as {@link #cancel}. */
    @Override
    public boolean complete(R value) {
        dropIfQueued();
        return super.complete(value);
    }

    /** Failed by its caller (or {@code orTimeout}): as {@link #cancel}. */
    @Override
    public boolean completeExceptionally(Throwable error) {
        dropIfQueued();
        return super.completeExceptionally(error);
    }

    private void dropIfQueued() {
        final Task t = task;
        if (t != null && !isDone() && pool.dropQueued(t)) {
            task = null;
        }
    }

    @Override
    public R get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            pool.helpUntilDone(this);
        }
        return super.get();
    }

    @Override
    public R get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            pool.helpUntilDone(this, unit.toNanos(timeout));
        }
        return super.get(timeout, unit);
    }

    @Override
    public R join() {
        if (!isDone()) {
            pool.helpUntilDone(this);
        }
        return super.join();
    }

    /** @return a dependent stage's future: one that helps like this one, expecting the same waits */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new TaskFuture<>(pool, batch);
    }
}
