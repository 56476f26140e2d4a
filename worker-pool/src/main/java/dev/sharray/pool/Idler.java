package dev.sharray.pool;

import java.util.concurrent.locks.LockSupport;

/**
 * Waits for work without a fixed cost: busy-spins first (a message usually arrives within
 * microseconds while tasks flow), then yields, then parks for growing periods so an idle process
 * costs no CPU. Time-based rather than count-based so behaviour does not depend on CPU speed.
 */
final class Idler {
    private final long spinNanos;
    private final long yieldNanos;
    private final long maxParkNanos;
    private long idleSince;
    private long parkNanos;

    private Idler(long spinNanos, long yieldNanos, long maxParkNanos) {
        this.spinNanos = spinNanos;
        this.yieldNanos = yieldNanos;
        this.maxParkNanos = maxParkNanos;
    }

    /** @return the strategy of a worker's task loop and the parent's result loop */
    static Idler forPolling() {
        return new Idler(50_000, 1_000_000, 1_000_000);
    }

    /**
     * @return the strategy of the parent's result loop while tasks are in flight: the same spin as
     *         {@link #forPolling()}, then a short yield phase (on a small machine yielding takes CPU from the
     *         workers) and parks of at most 100 us, so the result of a long task is seen, and the worker's
     *         next task sent, within ~0.1 ms rather than ~1 ms
     */
    static Idler forResults() {
        return new Idler(50_000, 100_000, 100_000);
    }

    /** @return the strategy of a writer waiting for room in a full ring */
    static Idler forWaiting() {
        return new Idler(20_000, 200_000, 200_000);
    }

    /** @return how long the current idle period has lasted, 0 when work was found since the last idle */
    long idleNanos() {
        return idleSince == 0 ? 0 : System.nanoTime() - idleSince;
    }

    /** Work was found: the next idle period starts with spinning again. */
    void reset() {
        idleSince = 0;
    }

    /**
     * Idles once, or resets when {@code workCount > 0}.
     *
     * @param workCount work done by the last poll
     */
    void idle(int workCount) {
        if (workCount > 0) {
            idleSince = 0;
        } else {
            idle();
        }
    }

    /** Idles once. */
    void idle() {
        final long now = System.nanoTime();
        if (idleSince == 0) {
            idleSince = now;
            parkNanos = 1_000;
        }
        final long idle = now - idleSince;
        if (idle < spinNanos) {
            Thread.onSpinWait();
        } else if (idle < spinNanos + yieldNanos) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        }
    }
}
