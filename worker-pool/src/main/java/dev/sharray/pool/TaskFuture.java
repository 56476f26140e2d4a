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

    TaskFuture(ProcessPool pool, Task.Batch batch) {
        this.pool = pool;
        this.batch = batch;
    }

    /** @return whether the task's call is measured to run tasks too long for polling to pay off */
    boolean expectsLongWait() {
        return batch.grouping != null && batch.grouping.tasksOutlastTarget();
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
