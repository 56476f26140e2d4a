package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.OpenedArrays;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.agrona.DirectBuffer;

/**
 * Turns a worker's RESULT message into its task's outcome: the value or the remote error, the shared arrays
 * the value holds, and whether the worker holds arrays of it until told to release them. One per pool, used
 * under its pump lock; nothing is allocated beyond the decoded value.
 */
final class ResultDecoder {
    private final ValueReader reader;
    /** Arrays opened while decoding the current result. */
    private final OpenedArrays opened = new OpenedArrays();

    ResultDecoder(Reducers reducers) {
        this.reader = new ValueReader(reducers);
    }

    /**
     * Sets {@code t}'s result or error, its result arrays (the caller's from now on) and
     * {@link Task#resultHoldsArrays}. A malformed message becomes a {@link MalformedDataException} on the task
     * ({@link #readFailure}), its arrays released: a task always completes.
     */
    void decode(Task t, DirectBuffer buffer, int offset, int length) {
        try {
            reader.wrap(buffer, offset + Protocol.RESULT_HEADER, length - Protocol.RESULT_HEADER, opened);
            if (buffer.getByte(offset + 9) == Protocol.OK) {
                t.result = reader.readValue();
            } else {
                t.error = RemoteErrors.read(reader);
            }
            if (reader.remaining() != 0) {
                throw new MalformedDataException(reader.remaining() + " bytes trail the result");
            }
            // arrays in a result belong to the caller from now on (the pool releases them if it never gets them)
            t.resultArrays = opened.keep();
        } catch (RuntimeException | Error e) {
            // an Error too (a user reducer's AssertionError or StackOverflowError, a fault reading a truncated
            // array): it fails this task; escaping, it would end the result thread and every later call would hang
            t.error = readFailure(e);
            try {
                opened.close();
            } catch (RuntimeException releaseFailure) {
                t.error.addSuppressed(releaseFailure); // the task must still complete
            }
        }
        t.resultHoldsArrays = (buffer.getByte(offset + 10) & Protocol.HOLDS_ARRAYS) != 0;
        reader.wrap(ScratchBuffers.EMPTY, 0, 0, null); // the message's buffer may be a large reassembly
    }

    /**
     * @return what the task fails with when its result could not be read: {@link MalformedDataException} for bytes
     *     that are not a valid result; this JVM's own shortage of heap or file descriptors keeps its type, since the
     *     result was well formed and a caller may retry such a failure but not a malformed one
     */
    static Throwable readFailure(Throwable e) {
        if (e instanceof MalformedDataException) {
            return e;
        }
        if (e instanceof OutOfMemoryError) {
            return outOfMemory(e.getMessage(), e);
        }
        if (e instanceof UncheckedIOException && isShortOfDescriptors(e.getCause())) {
            return new UncheckedIOException("cannot read result: " + e.getMessage(), ((UncheckedIOException) e).getCause());
        }
        return new MalformedDataException("cannot read result: " + e, e);
    }

    private static OutOfMemoryError outOfMemory(String why, Throwable cause) {
        final OutOfMemoryError error = new OutOfMemoryError("cannot read result: " + why);
        error.initCause(cause);
        return error;
    }

    /** @return whether {@code e}, or an exception it was caused by, is EMFILE or ENFILE, as the JDK words them */
    private static boolean isShortOfDescriptors(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            final String m = c.getMessage();
            if (c instanceof IOException && m != null && m.contains("Too many open files")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Fails {@code t} with a RESULT message this JVM's heap could not hold while reassembling it. Arrays its worker
     * holds for the result are still released ({@link Task#resultHoldsArrays} is set from the message's header).
     *
     * @param head          the message's first bytes, its header among them
     * @param messageLength the whole message's length
     */
    void fail(Task t, DirectBuffer head, int offset, long messageLength, OutOfMemoryError error) {
        t.error = outOfMemory("its message of " + messageLength + " bytes does not fit in this JVM's heap", error);
        t.resultHoldsArrays = (head.getByte(offset + 10) & Protocol.HOLDS_ARRAYS) != 0;
    }
}
