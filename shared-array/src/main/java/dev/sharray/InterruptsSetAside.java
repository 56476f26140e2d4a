package dev.sharray;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.function.Supplier;

/**
 * Runs file work with the calling thread's interrupt set aside, and gives it back after. Creating or opening an array
 * maps files through {@link java.nio.channels.FileChannel}s, which an interrupt closes: on a thread interrupted before
 * the call (by {@code ExecutorService.shutdownNow()}, a cancelled {@code Future}) every create and open failed with
 * "cannot create an array in ...: null". These calls are short and never wait for anyone, so they are not
 * interruptible: an interrupt that arrives during one makes it start again, and stays set for the caller.
 */
final class InterruptsSetAside {
    /** Attempts before a call whose channels an interrupt keeps closing fails as it did. */
    private static final int MAX_ATTEMPTS = 8;

    private InterruptsSetAside() {
    }

    /** @return what {@code work} returns; it must leave nothing behind when it throws (it may run again) */
    static <T> T call(Supplier<T> work) {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return work.get();
                } catch (RuntimeException e) {
                    if (!closedByInterrupt(e)) {
                        throw e;
                    }
                    if (attempt == MAX_ATTEMPTS) {
                        throw givenUp(e);
                    }
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The failure of a call that interrupts kept cutting short: a {@link ClosedByInterruptException} has no message,
     * so it said only "cannot map ...: null". An {@link UncheckedIOException} (what a closed channel gives) is
     * replaced by one that says why, with the last failure as its cause; any other is left as it is.
     */
    private static RuntimeException givenUp(RuntimeException e) {
        if (!(e instanceof UncheckedIOException)) {
            return e;
        }
        final InterruptedIOException why = new InterruptedIOException("interrupted " + MAX_ATTEMPTS
            + " times while mapping or reading its files, each interrupt closing them: the call gave up");
        why.initCause(e);
        final String what = e.getMessage() == null ? "" : e.getMessage().replaceFirst(": null$", "") + ": ";
        return new UncheckedIOException(what + why.getMessage(), why);
    }

    private static boolean closedByInterrupt(Throwable e) {
        for (int depth = 0; e != null && depth < 8; e = e.getCause(), depth++) {
            if (e instanceof ClosedByInterruptException) {
                return true;
            }
        }
        return false;
    }
}
