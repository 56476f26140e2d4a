package dev.sharray.cli.ec;

import dev.sharray.cli.TaskFailedException;
import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Writes window N on one thread while the caller codes window N+1. {@link #close()} waits for the write in
 * flight, so declare it after the shared memory it reads in try-with-resources: it then closes first and
 * no write can read memory that has been released.
 */
final class WriteBehind implements AutoCloseable {
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sharray-writer");
        t.setDaemon(true);
        return t;
    });
    private Future<?> pending;

    /** Waits for the previous write, then starts {@code write}. */
    void submit(Callable<?> write) throws IOException {
        await();
        pending = writer.submit(write);
    }

    /** Rethrows the failure of the write in flight if it has already failed; never waits. */
    void failIfDone() throws IOException {
        Future<?> f = pending;
        if (f != null && f.isDone()) {
            await();
        }
    }

    /** Waits for the write in flight, rethrowing its failure. */
    void await() throws IOException {
        Future<?> f = pending;
        pending = null;
        if (f == null) {
            return;
        }
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof TaskFailedException t && t.getCause() instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new TaskFailedException(c);
        }
    }

    /**
     * Lets the write in flight finish and stops the writer (its failure, if any, was already lost). No
     * interrupt: the write reads shared memory that the caller releases right after this returns.
     */
    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("a shard write did not stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
