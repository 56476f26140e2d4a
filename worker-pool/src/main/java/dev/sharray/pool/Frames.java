package dev.sharray.pool;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.util.function.BooleanSupplier;

/**
 * Messages of any size over a ring buffer whose records are capped at {@code maxMsgLength}: a message
 * that fits goes as one WHOLE record, a bigger one as FIRST, MIDDLE..., LAST fragments that the
 * reader reassembles. One writer and one reader per ring, as the ring requires. A writer that knows a
 * message's length in advance can also {@link Writer#claim claim} a WHOLE record and encode into the ring
 * directly.
 */
final class Frames {
    static final int WHOLE = 1;
    static final int FIRST = 2;
    static final int MIDDLE = 3;
    static final int LAST = 4;

    private Frames() {
    }

    /** Receives complete messages. The buffer range is valid only during the call. */
    @FunctionalInterface
    interface Sink {
        void onMessage(DirectBuffer buffer, int offset, int length);

        /**
         * A fragmented message this JVM's heap could not hold while reassembling it: its fragments were read and
         * dropped, and the reader stands at the next message. By default the error is thrown.
         *
         * @param head          the message's first bytes (at most {@link Reader#HEAD_BYTES}), valid only during the call
         * @param offset        where they start in {@code head}
         * @param length        how many there are
         * @param messageLength the whole message's length
         * @param error         the failure to grow the reassembly buffer
         */
        default void onUnassembled(DirectBuffer head, int offset, int length, long messageLength, OutOfMemoryError error) {
            throw error;
        }
    }

    /** Writes messages, fragmenting as needed; the single producer of its ring. */
    static final class Writer {
        private final RingBuffer ring;
        private final int maxFrame;
        private final Idler idler = Idler.forWaiting();

        Writer(RingBuffer ring) {
            this.ring = ring;
            this.maxFrame = ring.maxMsgLength();
        }

        /**
         * Writes one message, waiting for the reader to make room.
         *
         * @param keepWaiting asked while the ring is full; {@code false} abandons the message (peer dead)
         * @return whether the whole message was written
         */
        boolean write(DirectBuffer src, int offset, int length, BooleanSupplier keepWaiting) {
            if (length <= maxFrame) {
                return put(WHOLE, src, offset, length, keepWaiting);
            }
            final int end = offset + length;
            for (int pos = offset; pos < end; ) {
                final int n = Math.min(maxFrame, end - pos);
                final int type = pos == offset ? FIRST : pos + n == end ? LAST : MIDDLE;
                if (!put(type, src, pos, n, keepWaiting)) {
                    return false;
                }
                pos += n;
            }
            return true;
        }

        /** @return the ring's position after the last message written (the writer's lock held) */
        long writtenUpTo() {
            return ring.producerPosition();
        }

        /** @return the ring's position up to which the reader has read and let go of its messages */
        long readUpTo() {
            return ring.consumerPosition();
        }

        /** @return the longest message that travels as one WHOLE record, and so can be {@link #claim claimed} */
        int maxWhole() {
            return maxFrame;
        }

        /**
         * Reserves a WHOLE record of {@code length} bytes in the ring, waiting for the reader to make room, so
         * the caller encodes the message straight into ring memory (no staging copy). The caller must end the
         * claim with {@link #commit} or {@link #abort}; until then the reader sees nothing of it.
         *
         * @param length      the message length, at most {@link #maxWhole()} (the ring refuses longer ones)
         * @param keepWaiting asked while the ring is full; {@code false} gives up (peer dead)
         * @return the index in {@link #claimed()} where the message goes, or -1 when given up
         */
        int claim(int length, BooleanSupplier keepWaiting) {
            if (length > maxFrame) {
                // the ring would throw too; this names what happened
                throw new IllegalArgumentException("message of " + length + " bytes cannot be claimed whole (max " + maxFrame + ")");
            }
            int index = ring.tryClaim(WHOLE, length);
            if (index >= 0) {
                return index;
            }
            idler.reset();
            while ((index = ring.tryClaim(WHOLE, length)) < 0) {
                if (!keepWaiting.getAsBoolean()) {
                    return -1;
                }
                idler.idle();
            }
            return index;
        }

        /** @return the ring's memory, where a {@link #claim claimed} message is encoded */
        MutableDirectBuffer claimed() {
            return ring.buffer();
        }

        /** Publishes a claimed message to the reader. */
        void commit(int index) {
            ring.commit(index);
        }

        /** Drops a claimed message: the reader skips it as padding. */
        void abort(int index) {
            ring.abort(index);
        }

        private boolean put(int type, DirectBuffer src, int offset, int length, BooleanSupplier keepWaiting) {
            if (ring.write(type, src, offset, length)) {
                return true;
            }
            idler.reset();
            while (!ring.write(type, src, offset, length)) {
                if (!keepWaiting.getAsBoolean()) {
                    return false;
                }
                idler.idle();
            }
            return true;
        }
    }

    /** Reads messages, reassembling fragments; the single consumer of its ring. */
    static final class Reader implements MessageHandler {
        /** How many first bytes of a fragmented message are kept apart, for {@link Sink#onUnassembled}. */
        static final int HEAD_BYTES = 64;

        private final RingBuffer ring;
        private ExpandableArrayBuffer assembly = new ExpandableArrayBuffer(0);
        private int assembled = -1;
        /** The first bytes of the message being reassembled (allocated up front: they are needed when the heap is full). */
        private final UnsafeBuffer head = new UnsafeBuffer(new byte[HEAD_BYTES]);
        private int headLength;
        /** The length of the message being reassembled so far, dropped fragments included. */
        private long received;
        /** Set while the rest of a message the heap could not hold is read and dropped. */
        private OutOfMemoryError dropping;
        private Sink sink;

        Reader(RingBuffer ring) {
            this.ring = ring;
        }

        /** @return the bytes the reassembly buffer holds on to (for tests) */
        int assemblyCapacity() {
            return assembly.capacity();
        }

        /**
         * Delivers complete messages among the next {@code limit} records.
         *
         * @return the number of records read (fragments included)
         */
        int poll(Sink sink, int limit) {
            this.sink = sink;
            return ring.read(this, limit);
        }

        /** @return whether a message is part way through: its first fragment read, its last not yet */
        boolean inMessage() {
            return assembled >= 0;
        }

        /** @return whether nothing waits to be read (a volatile look at both ends of the ring) */
        boolean isEmpty() {
            return ring.size() == 0;
        }

        @Override
        public void onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
            // the ring checks only that a record's length is positive: one garbled by a corrupt peer would otherwise
            // reach past the ring, caught today by Agrona's bounds checks alone (-Dagrona.disable.bounds.checks=true
            // turns them off)
            if (index < 0 || length < 0 || (long) index + length > buffer.capacity()) {
                throw new IllegalStateException("a record of " + length + " bytes at " + index + " reaches past the ring's "
                    + buffer.capacity() + " bytes: the ring is corrupt");
            }
            switch (type) {
                case WHOLE:
                    assembled = -1;
                    sink.onMessage(buffer, index, length);
                    break;
                case FIRST:
                    headLength = Math.min(length, HEAD_BYTES);
                    head.putBytes(0, buffer, index, headLength);
                    assembled = 0;
                    received = 0;
                    dropping = null;
                    append(buffer, index, length);
                    break;
                case MIDDLE:
                case LAST:
                    if (assembled < 0) {
                        throw new IllegalStateException("fragment without a first fragment (type " + type + ")");
                    }
                    if (received + length > Integer.MAX_VALUE - 8) {
                        throw new IllegalStateException("message larger than 2 GiB");
                    }
                    append(buffer, index, length);
                    if (type == LAST) {
                        final int n = assembled;
                        assembled = -1;
                        if (dropping != null) {
                            final OutOfMemoryError error = dropping;
                            dropping = null;
                            sink.onUnassembled(head, 0, headLength, received, error);
                        } else {
                            sink.onMessage(assembly, 0, n);
                            assembly = ScratchBuffers.trimmed(assembly, 0);
                        }
                    }
                    break;
                default:
                    throw new IllegalStateException("unknown frame type " + type);
            }
        }

        /**
         * Adds a fragment to the message being reassembled. When the heap cannot hold it, what was reassembled is
         * let go of and the message's later fragments are only counted: an OutOfMemoryError thrown out of the
         * ring's read would lose this fragment (the ring counts it read) and leave the others to be appended at
         * the wrong place, or fail every later read the same way.
         */
        private void append(DirectBuffer buffer, int index, int length) {
            received += length;
            if (dropping != null) {
                return;
            }
            try {
                assembly.putBytes(assembled, buffer, index, length);
                assembled += length;
            } catch (OutOfMemoryError e) {
                dropping = e;
                assembly = new ExpandableArrayBuffer(0);
            }
        }
    }
}
