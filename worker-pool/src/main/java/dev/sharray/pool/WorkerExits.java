package dev.sharray.pool;

import dev.sharray.SharedArrays;

import java.io.PrintStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Handles the end of a pool's worker process, on the pool's supervisor thread: reads its last answers, settles
 * the task it was running (a crash, or requeued when it never started), frees what the process left, and starts a
 * replacement; when none can be started and no worker is left, fails the queued tasks and every later one.
 */
final class WorkerExits {
    private final PoolWorkers workers;
    private final ReentrantLock pumpLock;
    private final TaskQueue queue;
    private final TaskDispatcher dispatcher;
    private final ResultPump pump;
    private final ResultThread results;
    private final WorkerStarter starter;
    /** Runs the exit handling and replacements, one at a time. */
    private final ExecutorService supervisor;
    private final PoolState state;
    /** Tasks submitted and not yet completed (queued, running, or being finished). */
    private final AtomicInteger inFlight;
    private final PrintStream err;
    private final String poolName;
    /** Test hook (null in use): runs in a worker's exit handling once it has taken the worker's task. */
    private volatile Runnable afterExitTookTask;

    WorkerExits(PoolWorkers workers, TaskQueue queue, TaskDispatcher dispatcher, ResultPump pump, ResultThread results,
                WorkerStarter starter, ExecutorService supervisor, PoolState state, AtomicInteger inFlight,
                PrintStream err, String poolName) {
        this.workers = workers;
        this.pumpLock = workers.pumpLock();
        this.queue = queue;
        this.dispatcher = dispatcher;
        this.pump = pump;
        this.results = results;
        this.starter = starter;
        this.supervisor = supervisor;
        this.state = state;
        this.inFlight = inFlight;
        this.err = err;
        this.poolName = poolName;
    }

    /** Handles {@code w}'s exit once its process ends (unless the pool is stopping: the stop handles every worker). */
    void watch(Worker w) {
        w.process.onExit().thenRun(() -> {
            try {
                supervisor.execute(() -> onWorkerExit(w));
            } catch (RejectedExecutionException closing) {
                // the pool is stopping: stop() handles every worker itself
            }
        });
    }

    /** Test hook: {@code hook} runs in the exit handling of workers, under the pump lock, once it has taken the task. */
    void afterExitTookTask(Runnable hook) {
        afterExitTookTask = hook;
    }

    /**
     * A worker process ended: settle its task, unmap its rings, start a replacement if needed. The tasks it settles
     * are completed by the next pump (the result thread, or a caller polling), not here: their callbacks may wait
     * for new tasks, which on a pool whose last worker this was need the replacement this thread starts after.
     */
    private void onWorkerExit(Worker w) {
        Task lost;
        pumpLock.lock();
        try {
            if (w.state.get() == Worker.DEAD || state.closed()) {
                return; // settled already, or stop() settles it and may be unmapping its rings right now
            }
            // answers that made it out before the worker died still count (up to a garbled frame); a read stops at
            // the ring's end, so a second one takes what lies past its wrap
            pump.pollWorker(w, Integer.MAX_VALUE);
            pump.pollWorker(w, Integer.MAX_VALUE);
            workers.remove(w);
            // sends are refused before the task is taken: a dispatcher that claimed this worker and publishes its
            // task after the take finds the send refused and requeues the task, which would otherwise wait for
            // an answer from a worker nobody polls any more
            w.refuseSends();
            lost = w.inFlight.getAndSet(null);
            if (lost != null) {
                // the tasks grouped behind the one it was running never started: they run elsewhere
                final Task unstarted = lost.nextInGroup;
                lost.nextInGroup = null;
                queue.requeueUnstarted(unstarted);
                if (neverStarted(w, lost)) {
                    queue.requeueUnstarted(lost); // ahead of the group's others, as before
                    lost = null;
                }
            }
            final Runnable hook = afterExitTookTask;
            if (hook != null) {
                hook.run();
            }
        } finally {
            pumpLock.unlock();
        }
        w.unmap();
        reapEnded(w);
        releaseTimedOutPins(w);
        if (state.closed()) {
            dispatcher.cancelPending();
        }
        dispatcher.dispatch();
        starter.exited(w);
        if (lost != null) {
            w.stderr.awaitEnd(1000);
            w.stdout.awaitEnd(1000); // a JVM prints its fatal error banner there
            lost.error = crashOf(w);
            pumpLock.lock();
            try {
                pump.pushDone(lost); // after the answers read above: completed in arrival order
            } finally {
                pumpLock.unlock();
            }
        }
        if (state.closed()) {
            // stop() may have settled its tasks already, and the result thread ended: settle these as stop() does,
            // one at a time, so a callback waiting for another of them finishes it itself
            pump.settleStopped();
        } else {
            results.tasksSettled();
        }
        final int s = state.get();
        if (s == PoolState.RUNNING || (s == PoolState.CLOSING && inFlight.get() > 0)) {
            replace();
        }
    }

    /** @return the failure of the task a dead worker was running, with what its JVM said if it aborted */
    private static WorkerCrashedException crashOf(Worker w) {
        JvmFatalError fatal = w.stdout.fatalError();
        if (!fatal.mayBeFrom(w.pid)) {
            fatal = w.stderr.fatalError(); // -XX:+DisplayVMOutputToStderr
        }
        if (!fatal.mayBeFrom(w.pid)) {
            return new WorkerCrashedException(w.id, w.pid, w.exitCode(), w.stderr.tail(), null, null);
        }
        return new WorkerCrashedException(w.id, w.pid, w.exitCode(), w.stderr.tail(), fatal.summary(), fatal.reportFile());
    }

    /**
     * A worker process has ended: frees the arrays it created that no live process holds, and its folder. Its
     * exit hook does that on a normal exit; after a crash, a kill or a timeout nothing else would before the next
     * sharray process's first-use pass, possibly hours later.
     */
    void reapEnded(Worker w) {
        try {
            SharedArrays.reapProcess(w.pid);
        } catch (RuntimeException | InternalError e) { // InternalError: a refcount file truncated under its mapping
            err.println("[" + poolName + "] could not free what worker " + w.id + " (pid " + w.pid + ") left: " + e);
        }
    }

    /**
     * A worker process has ended (its pid is gone): releases the arrays of the task that timed out on it (or was
     * cancelled with {@code cancel(true)}). Released
     * when the task completed, a last release ran while the killed worker still looked alive and still counted its
     * references, so the files stayed until this process exited: one array per timeout.
     */
    void releaseTimedOutPins(Worker w) {
        final Task t = w.pinnedUntilExit.getAndSet(null);
        if (t == null) {
            return;
        }
        try {
            t.batch.taskDone();
        } catch (RuntimeException e) { // its future has failed with the timeout already: say it here
            err.println("[" + poolName + "] cannot release the arrays of a task stopped (timed out or cancelled) on"
                + " worker " + w.id + ": " + e);
        }
    }

    /**
     * Whether a dead worker's task never started, so it may run elsewhere (pump lock held, rings still mapped,
     * sends refused). A task whose message the worker had not read past is requeued once only
     * ({@link Task#requeuedUnread}).
     */
    private static boolean neverStarted(Worker w, Task lost) {
        if (lost == w.afterStopped && !w.stoppedAnswered) {
            return true; // the task before it was stopped and never answered: the worker never went on to this one
        }
        if (lost.messageStart == Task.NOT_WRITTEN) {
            return true; // its send was refused: it never reached the ring
        }
        if (w.readPastMessageOf(lost) || lost.requeuedUnread) {
            return false;
        }
        lost.requeuedUnread = true; // the worker died before reading its message (e.g. while idle)
        return true;
    }

    private void replace() {
        for (int attempt = 1; ; attempt++) {
            Worker w = null;
            try {
                w = starter.awaitHello(starter.launch(pump.sinks()), pump.sinks());
            } catch (RuntimeException e) {
                if (state.closed()) {
                    return; // stop() settles every queued task (CancellationException) and every worker
                }
                if (attempt >= 3) {
                    err.println("[" + poolName + "] cannot replace a dead worker: " + e.getMessage());
                    if (workers.count() == 0) {
                        // terminal: with no worker left nothing would ever take a task again
                        dispatcher.noWorkersLeft(new IllegalStateException("no worker could be started: " + e.getMessage(), e));
                    }
                    return;
                }
                continue;
            }
            pumpLock.lock();
            try {
                if (state.closed()) {
                    w.closeStdin();
                    w.process.destroyForcibly();
                    w.awaitExit();
                    w.unmap();
                    return;
                }
                w.state.set(Worker.IDLE);
                workers.add(w);
            } finally {
                pumpLock.unlock();
            }
            results.workerJoined();
            watch(w);
            dispatcher.dispatch();
            return;
        }
    }
}
