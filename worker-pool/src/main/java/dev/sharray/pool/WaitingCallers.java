package dev.sharray.pool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads waiting for a pool's task: such a thread polls the result rings itself for a short while before it blocks
 * (a tiny task answers sooner than a hand-off from the result thread would wake it), and the result thread leaves
 * the rings to it meanwhile. On the result thread itself (a callback waiting for another task) the wait polls until
 * the task is done: nothing else would read its answer.
 */
final class WaitingCallers {
    /** How long a waiting thread polls for its own result before blocking. */
    private static final long HELP_SPIN_NANOS = 30_000;
    private static final long HELP_YIELD_NANOS = 200_000;
    /**
     * A counted caller that has not polled for this long is running callbacks, which may block or wait for another
     * task: the result thread reads the rings meanwhile.
     */
    private static final long CALLER_POLL_STALE_NANOS = 5_000_000;
    private static final VarHandle CALLER_POLLED_AT;

    static {
        try {
            CALLER_POLLED_AT = MethodHandles.lookup().findVarHandle(WaitingCallers.class, "callerPolledAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ResultPump pump;
    private final ResultThread results;
    private final PoolState state;
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight;
    private final AtomicInteger spinningWaiters = new AtomicInteger();
    /**
     * When a caller counted in {@link #spinningWaiters} last began a poll ({@link System#nanoTime()}); written with
     * release semantics, not volatile: it is read every ~0.2 ms by the result thread, and written at every turn of a
     * caller's poll loop.
     */
    @SuppressWarnings("unused") // through CALLER_POLLED_AT
    private long callerPolledAt;

    WaitingCallers(ResultPump pump, ResultThread results, PoolState state, AtomicInteger inFlight) {
        this.pump = pump;
        this.results = results;
        this.state = state;
        this.inFlight = inFlight;
    }

    /**
     * Called by a waiting thread: polls results itself for a short while before the caller blocks; not for a task of
     * a call whose tasks are measured long (the polling would only take a core from the workers). On the result thread
     * (a callback attached to a task's future waits for another task: a follow-up map, a retry), polls until the task
     * is done or {@code timeoutNanos} have passed. That thread reads the answers: were it to block, nothing would
     * complete the task it waits for.
     */
    void helpUntilDone(TaskFuture<?> f, long timeoutNanos) {
        if (state.closed()) {
            pump.settleStopped(); // nothing but stop() would complete it, and this thread may be running stop()'s callbacks
        }
        if (results.isCurrentThread()) {
            final long start = System.nanoTime();
            while (!f.isDone() && System.nanoTime() - start < timeoutNanos) {
                if (state.closed()) {
                    // closed while we wait: stop() would settle a queued task only after its wait for this thread
                    pump.settleStopped();
                    if (state.shutdownNowCalled()) {
                        // and a running one, which shutdownNow() fails once it has killed the workers: after that
                        // wait, its whole grace (5 s). It fails here as it would there; the stop still finishes it
                        f.settleExceptionally(TaskFinisher.shutDown());
                    }
                }
                if (pump.tryPump() == 0) {
                    LockSupport.parkNanos(200_000); // as close() drains: no doorbell to sleep on here
                }
            }
            return;
        }
        if (f.expectsLongWait()) {
            return;
        }
        spinningWaiters.incrementAndGet();
        try {
            final long start = System.nanoTime();
            while (!f.isDone()) {
                final long now = System.nanoTime();
                CALLER_POLLED_AT.setRelease(this, now);
                if (pump.tryPump() > 0) {
                    continue;
                }
                final long waited = now - start;
                if (waited < HELP_SPIN_NANOS) {
                    Thread.onSpinWait();
                } else if (waited < HELP_SPIN_NANOS + HELP_YIELD_NANOS) {
                    Thread.yield();
                } else {
                    break;
                }
            }
        } finally {
            if (spinningWaiters.decrementAndGet() == 0 && inFlight.get() > 0) {
                results.callerStoppedPolling();
            }
        }
    }

    /**
     * A counted caller polls until it has run the callbacks of what it found; one that has not polled for
     * {@link #CALLER_POLL_STALE_NANOS} is in such a callback, which may block or join another task whose
     * answer only the result thread would then read (it waited for ever).
     *
     * @return whether a caller is polling for its own result (the result thread then need not)
     */
    boolean callerPolling() {
        return spinningWaiters.get() != 0
            && System.nanoTime() - (long) CALLER_POLLED_AT.getAcquire(this) < CALLER_POLL_STALE_NANOS;
    }
}
