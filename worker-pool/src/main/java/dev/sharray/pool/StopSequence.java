package dev.sharray.pool;

import dev.sharray.SharedArrays;
import dev.sharray.reducers.CopyCache;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Stops a pool, once: no replacement starts any more, the result thread ends, the workers are asked to stop (or
 * killed), what they left is freed, their tasks are settled and their rings unmapped, and the shared copies kept for
 * later calls are freed. Every later call waits until that is done (except on the result thread, which the stop
 * waits for).
 */
final class StopSequence {
    /** How long stopping waits for a replacement being started, and for the result thread. */
    private static final long STOP_GRACE_MILLIS = 5_000;

    private final PoolState state;
    private final PoolWorkers workers;
    private final ReentrantLock pumpLock;
    private final ResultPump pump;
    private final ResultThread results;
    private final WorkerExits exits;
    private final WorkerStarter starter;
    /** Runs the exit handling and replacements: shut down first, so that no worker starts during the stop. */
    private final ExecutorService supervisor;
    /** Shared copies of heap arguments kept for the next call. */
    private final CopyCache copies;
    private final Object stopLock = new Object();
    private boolean stopped;
    /** Test hook (null in use): runs in the stop, once the result thread has ended, before the workers are stopped. */
    private volatile Runnable duringStop;

    StopSequence(PoolState state, PoolWorkers workers, ResultPump pump, ResultThread results, WorkerExits exits,
                 WorkerStarter starter, ExecutorService supervisor, CopyCache copies) {
        this.state = state;
        this.workers = workers;
        this.pumpLock = workers.pumpLock();
        this.pump = pump;
        this.results = results;
        this.exits = exits;
        this.starter = starter;
        this.supervisor = supervisor;
        this.copies = copies;
    }

    /** What the JVM's exit runs while the pool is open ({@link #endFrozenWorkersAtExit}): forgotten once stopped. */
    private final Runnable exitAction = this::endFrozenWorkersAtExit;

    /** Set on a thread while it runs the pool's close() or shutdownNow() ({@link #closeOnThisThread}). */
    private final ThreadLocal<Boolean> closingHere = new ThreadLocal<>();

    /** Test hook: {@code hook} runs in the stop, before the workers are stopped (null: none). */
    void duringStop(Runnable hook) {
        duringStop = hook;
    }

    /**
     * Stops the pool unless it has stopped already.
     *
     * @param kill kill the workers ({@code shutdownNow()}) rather than ask them to stop ({@code close()})
     */
    void stop(boolean kill) {
        synchronized (stopLock) {
            if (stopped) {
                return;
            }
            boolean done = false;
            try {
                stopOnce(kill);
                done = true;
            } finally {
                if (!done) {
                    // cut short (an Error: out of memory, a class that cannot load at the open-file limit): no worker
                    // may outlive the pool, and a later close() must not wait for a stop that never ends (it did)
                    for (Worker w : workers.all()) {
                        w.process.destroyForcibly();
                    }
                    // nor may its kept copies: they would stay registered, taking room, for the JVM's life
                    try {
                        copies.close();
                    } catch (RuntimeException | Error again) {
                        // the stop's own failure is the one the caller gets
                    }
                }
                stopped = true;
                stopLock.notifyAll();
                SharedArrays.forgetAtExit(exitAction); // a stopped pool is not kept reachable by the hook
            }
        }
    }

    /** Has the JVM's exit run {@link #endFrozenWorkersAtExit} until the pool stops: called as the pool starts. */
    void endFrozenWorkersAtExitFromNow() {
        SharedArrays.runAtExit(exitAction);
    }

    /**
     * At the JVM's exit, with the pool still open, before sharray's exit hook releases this process's arrays: kills the workers that are
     * stopped (SIGSTOP, a debugger), which would never see their parent go and would hold its arrays for ever, and
     * reaps what they made. The others are left to end on their own once the parent is gone, as they always did: a
     * program's own shutdown hook may still be closing the pool, and its running tasks must finish (killing every
     * worker here cancelled them). Runs no user code and waits for no thread of the pool: the exit may come from one
     * of them (a future's callback calling {@code System.exit}), and completing a future here ran such a callback on
     * the exit hook's thread, where {@code System.exit} blocks for ever.
     */
    void endFrozenWorkersAtExit() {
        for (Worker w : workers.all()) {
            if (w.isStopped()) {
                w.process.destroyForcibly(); // SIGKILL ends a stopped process too
                w.awaitExit();
                exits.reapEnded(w);
            }
        }
    }

    /** Stops the pool (stop lock held): see {@link #stop}. */
    private void stopOnce(boolean kill) {
        state.markClosed();
        // no replacement may start from now on; wait for one in progress to settle
        supervisor.shutdown();
        Uninterruptibly.awaitTermination(supervisor, STOP_GRACE_MILLIS * 2);
        results.stop(STOP_GRACE_MILLIS);
        final Runnable hook = duringStop;
        if (hook != null) {
            hook.run();
        }
        final Worker[] all = workers.all();
        for (Worker w : all) {
            if (kill) {
                w.state.set(Worker.KILLED); // refuses sends: a task published after the drain below is requeued
                w.process.destroyForcibly();
            } else {
                w.state.set(Worker.STOPPING);
                w.sendControl(Protocol.STOP, 0);
                // also end its stdin watcher, which a JVM exit would otherwise wait ~300 ms for
                w.closeStdin();
            }
        }
        for (Worker w : all) {
            if (!kill) {
                w.awaitExit();
            }
            w.closeStdin();
            w.process.destroyForcibly();
            w.awaitExit();
            starter.exited(w);
            exits.reapEnded(w); // killed, or stopped but held to its grace: what it created may be left
            exits.releaseTimedOutPins(w);
        }
        pumpLock.lock();
        try {
            workers.replaceAll(new Worker[0]);
            for (Worker w : all) {
                for (Task t = w.inFlight.getAndSet(null); t != null; ) {
                    final Task next = t.nextInGroup;
                    t.nextInGroup = null;
                    t.error = TaskFinisher.shutDown();
                    pump.pushDone(t);
                    t = next;
                }
            }
        } finally {
            pumpLock.unlock();
        }
        for (Worker w : all) {
            w.unmap();
            w.stdout.awaitEnd(1000);
            w.stderr.awaitEnd(1000);
        }
        pump.settleStopped();
        copies.close(); // every call has completed: its copies are back in the cache or released
        // this process may keep mappings of arrays its workers held, for a reopen: they are deleted now (review 51:
        // a dropped result's reference file stayed mapped after close)
        SharedArrays.trimRetainedMappings();
    }

    /**
     * Runs {@code closing}, the body of a {@code close()} or {@code shutdownNow()}, marked as closing the pool on
     * this thread: a callback it runs (a task it settles while it drains or stops) may close the pool again.
     */
    void closeOnThisThread(Runnable closing) {
        if (closingHere.get() != null) {
            closing.run(); // a close within a close on this thread: the outer one's mark stays
            return;
        }
        closingHere.set(Boolean.TRUE);
        try {
            closing.run();
        } finally {
            closingHere.remove();
        }
    }

    /**
     * Another call stops the pool: waits until it has, unless this thread is one that stop waits for. The result
     * thread (a callback closing the pool): the stop joins it, up to {@link #STOP_GRACE_MILLIS}, and both waiting
     * stalled the stop for the whole grace. A thread inside its own {@code close()} or {@code shutdownNow()} (a
     * callback run there closing the pool): that call goes on only once the callback returns, and waiting hung it
     * for good.
     */
    void awaitStoppedUnlessStoppingHere() {
        if (!results.isCurrentThread() && closingHere.get() == null) {
            awaitStopped();
        }
    }

    private void awaitStopped() {
        synchronized (stopLock) {
            // also while another close() still drains (CLOSING): a second close() returns only once stopped
            boolean interrupted = false;
            while (!stopped && !state.running()) {
                try {
                    stopLock.wait(100);
                } catch (InterruptedException e) {
                    interrupted = true; // returned at once, before the pool had stopped; kept for the caller
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
