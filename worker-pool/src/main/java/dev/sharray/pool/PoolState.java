package dev.sharray.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a pool is in its life: running, closing ({@code close()} drains its tasks) or closed (its stop has begun),
 * and whether {@code shutdownNow()} was called. One instance is shared by the pool's parts, each of which checks it
 * before it acts, so none of them needs the pool itself.
 */
final class PoolState {
    static final int RUNNING = 0;
    static final int CLOSING = 1;
    static final int CLOSED = 2;

    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private volatile boolean shutdownNow;

    /** @return {@link #RUNNING}, {@link #CLOSING} or {@link #CLOSED}, read once */
    int get() {
        return state.get();
    }

    /** @return whether the pool accepts tasks: neither {@code close()} nor {@code shutdownNow()} has been called */
    boolean running() {
        return state.get() == RUNNING;
    }

    /** @return whether the stop has begun: no worker starts, and nothing but the stop settles the workers */
    boolean closed() {
        return state.get() == CLOSED;
    }

    /** @return whether this call moved a running pool to closing (the first {@code close()} or {@code shutdownNow()}) */
    boolean beginClosing() {
        return state.compareAndSet(RUNNING, CLOSING);
    }

    /** The stop begins. */
    void markClosed() {
        state.set(CLOSED);
    }

    /** {@code shutdownNow()} was called: a draining {@code close()} stops waiting, and no worker starts. */
    void markShutdownNow() {
        shutdownNow = true;
    }

    /** @return whether {@code shutdownNow()} was called */
    boolean shutdownNowCalled() {
        return shutdownNow;
    }
}
