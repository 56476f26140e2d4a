package dev.sharray.pool;

import dev.sharray.SharedArrays;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The pool's result thread, and how it waits. It polls the workers' result rings while tasks are in flight
 * and no caller polls for its own result. Once the answers stop coming for a while, or every running task is
 * one measured long, it sleeps on its {@link ResultDoorbell} until a worker answers (see {@link RingFile}),
 * never past a running task's deadline. With no task in flight it parks until a task is queued.
 *
 * <p>The doorbell is bound only after ~0.2 s of polling in all: binding costs ~11-16 ms of CPU in a fresh JVM
 * (the socket and selector classes), which that much polling costs too, so a pool that only starts and runs
 * short tasks never pays it.
 */
final class ResultThread {
    /** With results awaited and none for this long (the idler's spin and yield), the thread sleeps. */
    private static final long SLEEP_AFTER_NANOS = 150_000;
    private static final long DOORBELL_AFTER_POLLING_NANOS = 200_000_000;
    /**
     * The longest sleep once every worker is connected to the doorbell, so that each answer rings it: a guard
     * only, where {@link #maxSleepNanos} is what still finds the answers of a worker that could not connect.
     */
    private static final long CONNECTED_SLEEP_NANOS = 100_000_000;
    /** With nothing in flight for this long, the thread parks until a task is queued. */
    private static final long DEEP_PARK_AFTER_NANOS = 10_000_000;

    /** What the result thread needs of its pool. */
    interface Pool {
        /**
         * Polls every worker's result ring once if no other thread is, and completes what arrived.
         *
         * @param beforeSleep first raise every worker's parent-sleeping flag, so this look is the last before a sleep
         * @return the results found; when another thread holds the pump, 0, or -1 with {@code beforeSleep}
         */
        int tryPump(boolean beforeSleep);

        /** @return the number of tasks submitted and not yet completed */
        int tasksInFlight();

        /** @return whether a caller is polling for its own result (the result thread then need not) */
        boolean callerPolling();

        /** @return whether the pool has closed: the thread ends */
        boolean closed();

        /** @return whether tasks are running and every one belongs to a call measured to run long tasks */
        boolean onlyLongTasksRunning();

        /**
         * @return whether every running message is a group with another queued behind it, expected to run at
         *         least {@link TaskGrouping#BEHIND_MIN_NANOS}, and the last look read every result ring to its end:
         *         the next answer the parent needs rings the doorbell (a worker rings only at a message's end)
         */
        boolean onlyGroupsWithGroupsBehind();

        /** @return {@code nanos}, or less when a running task's deadline comes sooner (never negative) */
        long untilNextDeadline(long nanos);

        /** @return the number of live workers */
        int workerCount();
    }

    /** Set by {@link #start} before the thread runs, and read only by it. */
    private Pool pool;
    private final Thread thread;
    /** Runs the doorbell's binding, off the result thread. */
    private final Executor binder;
    private final Path doorbellPath;
    private final long maxSleepNanos;
    private final PrintStream err;
    private final String poolName;
    private volatile boolean deepParked;
    private volatile ResultDoorbell doorbell;
    private final AtomicBoolean doorbellRequested = new AtomicBoolean();
    /** Not before then ({@link System#nanoTime}) is a doorbell that failed to bind tried again. */
    private volatile long doorbellRetryAt;
    /** The wait before the next try, doubling up to {@link #DOORBELL_RETRY_MAX_NANOS} (the binder's only). */
    private long doorbellBackoffNanos = DOORBELL_RETRY_MIN_NANOS;
    private static final long DOORBELL_RETRY_MIN_NANOS = 1_000_000_000L;
    private static final long DOORBELL_RETRY_MAX_NANOS = 60_000_000_000L;
    /**
     * Up while the thread chooses its sleep from the running tasks' deadlines and sleeps: a thread that starts a
     * deadline meanwhile rings the doorbell ({@link #deadlineStarted}), or the sleep could outlast it.
     */
    private volatile boolean sleeping;
    /** Sleeps taken while groups ran with groups queued behind them (written by the thread only; for tests). */
    private volatile long groupSleeps;
    /** The longest sleep the thread chose last, before a deadline shortened it (for tests). */
    private volatile long lastGuardNanos;

    /**
     * @param binder        runs the doorbell's binding; it is shut down before {@link #stop}
     * @param doorbellPath  where the doorbell is bound
     * @param maxSleepNanos the longest sleep on the doorbell, a guard against a lost ring
     */
    ResultThread(String poolName, Executor binder, Path doorbellPath, long maxSleepNanos, PrintStream err) {
        this.poolName = poolName;
        this.binder = binder;
        this.doorbellPath = doorbellPath;
        this.maxSleepNanos = maxSleepNanos;
        this.err = err;
        this.thread = new Thread(this::run, poolName + "-results");
        this.thread.setDaemon(true);
    }

    /**
     * Starts the thread. The pool is given here rather than at construction: its parts that wake this thread are
     * made before the pump this thread runs.
     */
    void start(Pool pool) {
        this.pool = pool;
        thread.start();
    }

    /** @return whether the caller is this thread (running a callback of a future it completed) */
    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /** A task was queued on a pool that had none in flight: a parked thread starts polling again. */
    void taskQueuedOnIdlePool() {
        if (deepParked) {
            LockSupport.unpark(thread);
        }
    }

    /** The last caller polling for its own result stopped, with tasks in flight: the thread takes over. */
    void callerStoppedPolling() {
        LockSupport.unpark(thread);
    }

    /**
     * A running task's deadline has just been published (through its worker's {@code inFlight}): a thread that
     * chose its sleep without it must wake and choose again. A wake-up before the sleep makes the sleep return
     * at once, so none is lost.
     */
    void deadlineStarted() {
        if (sleeping) {
            final ResultDoorbell bell = doorbell;
            if (bell != null) {
                bell.wakeup();
            }
        }
    }

    /** Tasks were settled off the pumps (a worker's exit) and wait for the next one: a sleeping thread wakes. */
    void tasksSettled() {
        wake();
    }

    /**
     * A caller asked for a task to be stopped, or a task so asked has just been published in its worker's in-flight
     * slot: a sleeping thread wakes, and its next pump kills the task's worker.
     */
    void stopRequested() {
        wake();
    }

    /** Wakes the thread from a park or a doorbell sleep; one that is about to sleep does not (both are sticky). */
    private void wake() {
        LockSupport.unpark(thread);
        final ResultDoorbell bell = doorbell;
        if (bell != null) {
            bell.wakeup();
        }
    }

    /** A worker joined the pool: a thread asleep raised the flags of the workers it knew, and must raise this one's. */
    void workerJoined() {
        final ResultDoorbell bell = doorbell;
        if (bell != null) {
            bell.wakeup();
        }
    }

    private volatile int gracesWaitedOut;

    /** Ends the thread (the pool has closed, its binder has ended) and closes the doorbell. */
    void stop(long graceMillis) {
        LockSupport.unpark(thread);
        final ResultDoorbell bell = doorbell;
        if (bell != null) {
            bell.wakeup();
        }
        // not when a callback on this thread closes the pool: it would wait out the grace for itself (it ends once
        // the callback returns and it sees the pool closed)
        if (thread.isAlive() && !isCurrentThread()) {
            Uninterruptibly.join(thread, graceMillis);
            if (thread.isAlive()) {
                gracesWaitedOut++;
            }
        }
        if (bell != null) {
            bell.close(); // the binder has ended: nobody sets it again
        }
    }

    /** @return how many stops waited their whole grace for this thread to end (for tests) */
    int gracesWaitedOut() {
        return gracesWaitedOut;
    }

    /** @return whether the thread sleeps on its doorbell, or is about to (for tests) */
    boolean sleeping() {
        return sleeping;
    }

    /** @return how many times the thread slept while groups ran, each with a group queued behind it (for tests) */
    long groupSleeps() {
        return groupSleeps;
    }

    /** @return the longest sleep the thread chose for its last sleep on the doorbell, 0 before one (for tests) */
    long lastGuardNanos() {
        return lastGuardNanos;
    }

    /** @return whether the thread has a doorbell to sleep on (for tests) */
    boolean doorbellBound() {
        return doorbell != null;
    }

    /**
     * Runs {@link #serve()} until the pool closes. Whatever escapes it (a failure completing a task) is reported
     * and the thread goes on: without it, every later call of the pool would wait forever.
     */
    private void run() {
        while (!pool.closed()) {
            try {
                serve();
            } catch (Throwable t) {
                err.println("[" + poolName + "] result thread: " + t + " (going on)");
                LockSupport.parkNanos(this, 1_000_000); // never a busy loop of failures
            }
        }
    }

    private void serve() {
        final Idler idler = Idler.forResults();
        long idleSince = System.nanoTime();
        long polledNanos = 0;
        while (!pool.closed()) {
            // a callback run on this thread may leave it interrupted (e.g. one that restores an interrupt it caught):
            // not meant for this thread, and kept, it would make every park and doorbell wait below return at once
            Thread.interrupted();
            if (pool.tasksInFlight() > 0 && !pool.callerPolling()) {
                final int work = pool.tryPump(false);
                // with only long tasks running, the next answer is milliseconds away: sleep at once; with only
                // groups running, each with a long one queued behind it, no worker needs us before a group ends
                if (doorbell != null && (work == 0 && (idler.idleNanos() > SLEEP_AFTER_NANOS || pool.onlyLongTasksRunning())
                        || groupsOutlastWakeUp())) {
                    if (sleepUntilRung() > 0) {
                        idler.reset();
                    }
                } else {
                    final long before = System.nanoTime();
                    idler.idle(work);
                    if (work == 0 && doorbell == null) {
                        polledNanos += System.nanoTime() - before;
                        if (polledNanos > DOORBELL_AFTER_POLLING_NANOS) {
                            requestDoorbell();
                        }
                    }
                }
                idleSince = System.nanoTime();
            } else if (pool.tasksInFlight() == 0 && System.nanoTime() - idleSince > DEEP_PARK_AFTER_NANOS) {
                deepParked = true;
                if (pool.tasksInFlight() == 0 && !pool.closed()) {
                    LockSupport.park(this);
                }
                deepParked = false;
                idleSince = System.nanoTime();
            } else {
                // a caller is polling, or we just went idle: check back soon without spinning
                LockSupport.parkNanos(this, 200_000);
            }
        }
    }

    /** Has the doorbell bound, off this thread; again after a back-off when it failed. */
    private void requestDoorbell() {
        if (System.nanoTime() - doorbellRetryAt >= 0 && doorbellRequested.compareAndSet(false, true)) {
            try {
                binder.execute(this::openDoorbell);
            } catch (RejectedExecutionException closing) {
                // the pool is stopping
            }
        }
    }

    /** Binds the doorbell (on the binder: the socket classes load off the result thread). */
    private void openDoorbell() {
        try {
            final ResultDoorbell bell = ResultDoorbell.open(doorbellPath);
            doorbell = bell;
            if (pool.closed()) {
                bell.close(); // stop() gave up waiting for the binder and may not see it: close it here
            }
        } catch (IOException | RuntimeException e) {
            // a temp folder path past the socket path limit fails for good, but "Too many open files" or a folder out of
            // inodes only for a while: tried again later, or long tasks would be polled for (~25x the parent's CPU)
            // as long as the pool lives
            // while the JVM exits the refusal is the exit's doing, and the pool is about to go: nothing to tell
            if (doorbellBackoffNanos == DOORBELL_RETRY_MIN_NANOS && !SharedArrays.jvmExiting()) {
                err.println("[" + poolName + "] no result doorbell at " + doorbellPath + " (" + e
                    + "): results of long tasks are polled for until it can be bound");
            }
            doorbellRetryAt = System.nanoTime() + doorbellBackoffNanos;
            doorbellBackoffNanos = Math.min(2 * doorbellBackoffNanos, DOORBELL_RETRY_MAX_NANOS);
            doorbellRequested.set(false);
        }
    }

    /**
     * @return whether the thread may sleep while groups of tasks run, each with a group behind it long enough that
     *         the thread, woken when a group ends, sends the next before the worker runs out (on a small machine
     *         whose cores the workers keep busy, a woken thread may wait about that long for a core). A worker
     *         connects to the doorbell on its first ring; one that cannot is read after the sleep's guard, as for
     *         long tasks.
     */
    private boolean groupsOutlastWakeUp() {
        return pool.onlyGroupsWithGroupsBehind(); // its callers hold a doorbell
    }

    /**
     * Sleeps on the doorbell until a worker answers, never past a task's deadline, and at most
     * {@link #maxSleepNanos}, or {@link #CONNECTED_SLEEP_NANOS} once every worker is connected to the doorbell
     * (a worker that could not connect is then still read every few milliseconds): raises every worker's flag,
     * looks at the rings one last time, and sleeps if they were empty.
     *
     * @return the results found by the last look (0 when it slept)
     */
    private int sleepUntilRung() {
        final int work = pool.tryPump(true);
        final boolean forGroups = work >= 0 && groupsOutlastWakeUp();
        if (work < 0 || work > 0 && !forGroups) {
            return Math.max(0, work); // results came, or another thread is polling right now
        }
        // raised before the deadlines are read: a task whose deadline starts after this read sees the flag and
        // rings (both volatile, so at least one side sees the other)
        sleeping = true;
        try {
            final ResultDoorbell bell = doorbell;
            final long guard = bell.connectedWorkers() >= pool.workerCount()
                ? Math.max(maxSleepNanos, CONNECTED_SLEEP_NANOS) : maxSleepNanos;
            lastGuardNanos = guard;
            final long sleepNanos = pool.untilNextDeadline(guard);
            if (sleepNanos > 0 && pool.tasksInFlight() > 0 && !pool.callerPolling() && !pool.closed()) {
                if (forGroups) {
                    groupSleeps++; // this thread is the only writer
                }
                try {
                    bell.await(sleepNanos);
                } catch (IOException | RuntimeException e) {
                    err.println("[" + poolName + "] the result doorbell failed (" + e + "): results of long tasks"
                        + " are polled for");
                    doorbell = null;
                    bell.close();
                    doorbellRetryAt = System.nanoTime() + DOORBELL_RETRY_MIN_NANOS; // bound again after a while
                    doorbellRequested.set(false);
                }
            }
        } finally {
            sleeping = false;
        }
        return 0;
    }
}
