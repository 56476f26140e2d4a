package dev.sharray.pool;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Bounded waits that an interrupt does not cut short; the interrupt is kept for the caller. Stopping the pool must
 * wait for its workers and threads whatever the calling thread's interrupt status: cut short, {@code close()} killed
 * the workers it had asked to stop and freed what they left while they still lived, so their arrays stayed behind.
 */
final class Uninterruptibly {
    private Uninterruptibly() {
    }

    /** A wait that may be interrupted. */
    private interface Wait {
        /** @return whether the awaited thing is done */
        boolean await(long nanos) throws InterruptedException;
    }

    /** Waits up to {@code millis} for {@code thread} to end. */
    static void join(Thread thread, long millis) {
        await(millis, nanos -> {
            TimeUnit.NANOSECONDS.timedJoin(thread, nanos);
            return !thread.isAlive();
        });
    }

    /** Waits up to {@code millis} for {@code process} to end. */
    static void waitFor(Process process, long millis) {
        await(millis, nanos -> process.waitFor(nanos, TimeUnit.NANOSECONDS));
    }

    /** Waits up to {@code millis} for a shut-down {@code executor}'s tasks to end. */
    static void awaitTermination(ExecutorService executor, long millis) {
        await(millis, nanos -> executor.awaitTermination(nanos, TimeUnit.NANOSECONDS));
    }

    private static void await(long millis, Wait wait) {
        boolean interrupted = false;
        try {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (true) {
                try {
                    wait.await(Math.max(0, deadline - System.nanoTime()));
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // Thread.interrupted() is false now: the next wait blocks
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
