package dev.sharray.pool;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pool's live workers, and the pump lock that guards reading their result rings and changing who they are. The
 * array is copied on write: membership changes rarely (a start, an exit, a replacement, the stop) and under the
 * lock, while dispatchers claiming a worker and the result thread choosing its sleep read it without one, each
 * through one volatile read and a snapshot.
 */
final class PoolWorkers {
    /** Guards reading the result rings, the array's membership and the pump's list of answered tasks. */
    private final ReentrantLock pumpLock = new ReentrantLock();
    private volatile Worker[] workers = new Worker[0];

    /** @return the pump lock (see the class comment) */
    ReentrantLock pumpLock() {
        return pumpLock;
    }

    /** @return the live workers: a snapshot, never changed in place */
    Worker[] all() {
        return workers;
    }

    /** @return the number of live workers */
    int count() {
        return workers.length;
    }

    /** Makes {@code all} the live workers: the started ones, or none once the pool has stopped. */
    void replaceAll(Worker[] all) {
        workers = all;
    }

    /** Adds a worker (pump lock held). */
    void add(Worker w) {
        final Worker[] now = workers;
        final Worker[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = w;
        workers = next;
    }

    /** Removes a worker (pump lock held). */
    void remove(Worker w) {
        final Worker[] now = workers;
        final List<Worker> kept = new ArrayList<>(now.length);
        for (Worker x : now) {
            if (x != w) {
                kept.add(x);
            }
        }
        workers = kept.toArray(new Worker[0]);
    }

    /** @return an idle worker now reserved for the caller's task, or {@code null} when none is idle */
    Worker claimIdle() {
        for (Worker w : workers) {
            if (w.claim()) {
                return w;
            }
        }
        return null;
    }

    /** @return whether {@code id} is a live worker's */
    boolean isCurrent(int id) {
        for (Worker w : workers) {
            if (w.id == id) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a worker is idle */
    boolean hasIdle() {
        for (Worker w : workers) {
            if (w.state.get() == Worker.IDLE) {
                return true;
            }
        }
        return false;
    }

    /** The last {@link #smallestMaxHeap()} found among live workers, for when none is live. */
    private volatile long lastSmallestMaxHeap;

    /**
     * @return the smallest maximum heap the current workers said they have; while none is live (the last one's
     *     replacement still starting) the last one found, as its replacement runs with the same options; 0 before any
     *     worker said it
     */
    long smallestMaxHeap() {
        long smallest = 0;
        for (Worker w : workers) {
            final long bytes = w.maxHeapBytes;
            if (bytes > 0 && (smallest == 0 || bytes < smallest)) {
                smallest = bytes;
            }
        }
        if (smallest == 0) {
            // 0 made every copy too big: a map call made then decoded its copies per task (diff review 51)
            return lastSmallestMaxHeap;
        }
        lastSmallestMaxHeap = smallest;
        return smallest;
    }

    /** @return the process ids of the live workers */
    List<Long> pids() {
        final List<Long> pids = new ArrayList<>();
        for (Worker w : workers) {
            pids.add(w.pid);
        }
        return pids;
    }

    /** @return how many workers have raised their sleeping flag (see {@link RingFile}) */
    int sleeping() {
        int n = 0;
        for (Worker w : workers) {
            if (w.asleep()) {
                n++;
            }
        }
        return n;
    }

    /** A map call is over: workers that cache its function drop it (a dead worker's cache died with it). */
    void forgetMapFunction(int mapId) {
        for (Worker w : workers) {
            w.forget(mapId);
        }
    }

    /** @return whether tasks are running and every one belongs to a call measured to run long tasks */
    boolean onlyLongTasksRunning() {
        boolean any = false;
        for (Worker w : workers) {
            final Task t = w.inFlight.get();
            if (t != null) {
                if (!t.future.expectsLongWait()) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    /**
     * @return whether a worker runs a task, and every running message is a group of a map call without deadlines
     *         with another group queued behind it, still expected (from the call's measured time per task) to run
     *         {@link TaskGrouping#BEHIND_MIN_NANOS}: no worker needs the parent before its running group ends, and
     *         the parent woken then has that long to queue the next group before the worker runs out of tasks
     */
    boolean onlyGroupsWithGroupsBehind() {
        boolean any = false;
        for (Worker w : workers) {
            final Task t = w.inFlight.get();
            if (t == null) {
                continue;
            }
            final Task tail = t.messageTail;
            final Task behind = tail == null ? null : tail.nextInGroup;
            final Task behindTail = behind == null ? null : behind.messageTail;
            if (behindTail == null || t.timeout != null || tail.groupIndex < 2 || t.batch.grouping == null
                || !t.batch.grouping.outlastBehindMinimum(behindTail.groupIndex)) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** @return {@code nanos}, or less when a running task's deadline comes sooner (never negative) */
    long untilNextDeadline(long nanos) {
        final long now = System.nanoTime();
        for (Worker w : workers) {
            final Task t = w.inFlight.get();
            if (t != null && t.deadline != 0) {
                nanos = Math.max(0, Math.min(nanos, t.deadline - now));
            }
        }
        return nanos;
    }
}
