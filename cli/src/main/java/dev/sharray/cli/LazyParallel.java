package dev.sharray.cli;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * A {@link Parallel} created on first use, so commands that turn out to need no workers start none; or
 * started early in the background ({@link #startEarly}) so worker start-up overlaps the caller's own set-up.
 */
final class LazyParallel implements Parallel {
    private final int workers;
    private final IntFunction<Parallel> factory;
    private CompletableFuture<Parallel> delegate;

    LazyParallel(int workers, IntFunction<Parallel> factory) {
        this.workers = workers;
        this.factory = factory;
    }

    private synchronized CompletableFuture<Parallel> delegateFuture() {
        if (delegate == null) {
            delegate = CompletableFuture.completedFuture(factory.apply(workers));
        }
        return delegate;
    }

    private Parallel delegate() {
        try {
            return delegateFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /**
     * Starts the workers on a background thread and runs {@code warmUp} once per worker (as many tasks as
     * workers; a pool hands each to whichever worker is idle, so a fast one may take two), so the first
     * {@link #map} finds them ready. A start failure is thrown by the first {@link #map}; a warm-up failure
     * is ignored (the real tasks will report it).
     */
    @Override
    public synchronized void startEarly(ParallelTask<Integer, ?> warmUp) {
        if (delegate != null) {
            return;
        }
        CompletableFuture<Parallel> started = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            Parallel p;
            try {
                p = factory.apply(workers);
            } catch (Throwable t) {
                started.completeExceptionally(t);
                return;
            }
            try {
                // one task per idle worker: each worker loads the classes and native code the tasks need
                p.map(warmUp, IntStream.range(0, workers).boxed().toList());
            } catch (Throwable ignored) {
                // the real tasks fail with the reason; an Error here must not leave map() and close() waiting
            }
            started.complete(p);
        }, "sharray-pool-start");
        starter.setDaemon(true);
        starter.start();
        delegate = started;
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public String describe() {
        return delegate().describe();
    }

    @Override
    public <T, R> List<R> map(ParallelTask<T, R> task, List<? extends T> args) {
        return delegate().map(task, args);
    }

    @Override
    public void close() {
        CompletableFuture<Parallel> d;
        synchronized (this) {
            d = delegate;
        }
        if (d == null) {
            return;
        }
        Parallel p;
        try {
            p = d.join(); // a start in progress finishes first, so no worker outlives close()
        } catch (CompletionException e) {
            return; // never started: nothing to stop
        }
        p.close();
    }
}
