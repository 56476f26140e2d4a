package dev.sharray.pool;

import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The policy for the pool's reusable message buffers: reuse keeps the common small messages free of
 * allocation, but a buffer that grew for one rare large message (a big list of small arrays, say) is
 * dropped after it, so a long-lived pool or worker does not pin its largest message's size for good. The
 * readers and writers over these buffers are re-wrapped after each message for the same reason.
 */
final class ScratchBuffers {
    /** Buffers up to this capacity are kept for reuse. */
    static final int KEEP_BYTES = 4 << 20;
    /**
     * What a reader or writer wraps between messages, so it does not keep the last (possibly large)
     * message's buffer reachable.
     */
    static final UnsafeBuffer EMPTY = new UnsafeBuffer(new byte[0]);

    private ScratchBuffers() {
    }

    /**
     * @param buffer  a buffer whose message has been delivered
     * @param initial the capacity of a fresh buffer
     * @return {@code buffer}, or a fresh buffer of {@code initial} bytes when it grew above {@link #KEEP_BYTES}
     */
    static ExpandableArrayBuffer trimmed(ExpandableArrayBuffer buffer, int initial) {
        return buffer.capacity() > KEEP_BYTES ? new ExpandableArrayBuffer(initial) : buffer;
    }
}
