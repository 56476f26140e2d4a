package dev.sharray.cli;

import java.util.List;
import java.util.function.IntFunction;

/** A {@link Parallel} created on first use, so commands that turn out to need no workers start none. */
final class LazyParallel implements Parallel {
    private final int workers;
    private final IntFunction<Parallel> factory;
    private Parallel delegate;

    LazyParallel(int workers, IntFunction<Parallel> factory) {
        this.workers = workers;
        this.factory = factory;
    }

    private synchronized Parallel delegate() {
        if (delegate == null) {
            delegate = factory.apply(workers);
        }
        return delegate;
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
    public synchronized void close() {
        if (delegate != null) {
            delegate.close();
        }
    }
}
