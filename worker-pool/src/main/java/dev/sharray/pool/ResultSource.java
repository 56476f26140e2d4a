package dev.sharray.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pool as its {@link ResultThread} sees it: the pump it runs, and what decides when it runs and how long it
 * sleeps. Only forwards to the pool's parts, so that the thread depends on none of them.
 */
final class ResultSource implements ResultThread.Pool {
    private final ResultPump pump;
    private final WaitingCallers callers;
    private final PoolWorkers workers;
    private final PoolState state;
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight;

    ResultSource(ResultPump pump, WaitingCallers callers, PoolWorkers workers, PoolState state, AtomicInteger inFlight) {
        this.pump = pump;
        this.callers = callers;
        this.workers = workers;
        this.state = state;
        this.inFlight = inFlight;
    }

    @Override
    public int tryPump(boolean beforeSleep) {
        return pump.tryPump(beforeSleep);
    }

    @Override
    public int tasksInFlight() {
        return inFlight.get();
    }

    @Override
    public boolean callerPolling() {
        return callers.callerPolling();
    }

    @Override
    public boolean closed() {
        return state.closed();
    }

    @Override
    public boolean onlyLongTasksRunning() {
        return workers.onlyLongTasksRunning();
    }

    @Override
    public boolean onlyGroupsWithGroupsBehind() {
        return workers.onlyGroupsWithGroupsBehind() && pump.lastPumpDrained();
    }

    @Override
    public long untilNextDeadline(long nanos) {
        return workers.untilNextDeadline(nanos);
    }

    @Override
    public int workerCount() {
        return workers.count();
    }
}
