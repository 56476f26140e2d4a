package dev.sharray.pool;

import org.agrona.ExpandableArrayBuffer;

/**
 * The policy for the pool's reusable message buffers: reuse keeps the common small messages free of
 * allocation, but a buffer that grew for one rare large message (a big list of small arrays, say) is
 * dropped after it, so a long-lived pool or worker does not pin its largest message's size for good.
 */
final class ScratchBuffers {
    /** Buffers up to this capacity are kept for reuse. */
    static final int KEEP_BYTES = 4 << 20;

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
