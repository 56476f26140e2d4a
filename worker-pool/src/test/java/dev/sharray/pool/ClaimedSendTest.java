package dev.sharray.pool;

import dev.sharray.reducers.Reducers;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Messages that fit one ring record are encoded straight into claimed ring memory; longer ones are staged
 * and fragmented. Both sides of that boundary arrive intact, in a ring in this process and through a
 * worker JVM.
 */
class ClaimedSendTest {
    private static final int CAPACITY = 4096;
    /** A stateless function, so after its first task it travels as a 5-byte reference (FN_REF). */
    private static final RemoteFunction<byte[], byte[]> ECHO = x -> x;

    private static byte[] random(int n, long seed) {
        final byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static List<byte[]> drain(Frames.Reader reader) {
        final List<byte[]> got = new ArrayList<>();
        final Frames.Sink sink = (DirectBuffer buffer, int offset, int length) -> {
            final byte[] b = new byte[length];
            buffer.getBytes(offset, b);
            got.add(b);
        };
        while (reader.poll(sink, 100) > 0) {
            // read until empty
        }
        return got;
    }

    @Test
    void claimedMessagesUpToTheRecordLimitAndFragmentedOnesAboveItArriveIntact() {
        final OneToOneRingBuffer ring = new OneToOneRingBuffer(
            new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY + RingBufferDescriptor.TRAILER_LENGTH)));
        final Frames.Writer writer = new Frames.Writer(ring);
        final Frames.Reader reader = new Frames.Reader(ring);
        final int max = writer.maxWhole();
        assertEquals(ring.maxMsgLength(), max);
        assertEquals(CAPACITY / 8, max); // what the pool-level test below relies on

        final List<byte[]> sent = new ArrayList<>();
        for (int length : new int[] {1, max - 1, max}) {
            final byte[] m = random(length, length);
            final int at = writer.claim(length, () -> true);
            writer.claimed().putBytes(at, m);
            writer.commit(at);
            sent.add(m);
        }
        // an aborted claim is skipped by the reader
        final int aborted = writer.claim(max, () -> true);
        writer.claimed().putBytes(aborted, random(max, 99));
        writer.abort(aborted);
        final List<byte[]> first = drain(reader);
        assertEquals(sent.size(), first.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), first.get(i));
        }
        // above the limit a claim is refused (the sender then fragments through write)
        assertThrows(IllegalArgumentException.class, () -> writer.claim(max + 1, () -> true));
        for (int length : new int[] {max + 1, 2 * max + 3}) {
            final byte[] m = random(length, length);
            writer.write(new UnsafeBuffer(m), 0, length, () -> true);
        }
        final List<byte[]> fragmented = drain(reader);
        assertEquals(2, fragmented.size());
        assertArrayEquals(random(max + 1, max + 1), fragmented.get(0));
        assertArrayEquals(random(2 * max + 3, 2 * max + 3), fragmented.get(1));

        // the claimed ones, read again after re-sending them all in one go (wrapping around the ring)
        for (byte[] m : sent) {
            final int at = writer.claim(m.length, () -> true);
            writer.claimed().putBytes(at, m);
            writer.commit(at);
        }
        final List<byte[]> claimed = drain(reader);
        assertEquals(sent.size(), claimed.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), claimed.get(i));
        }
    }

    /** The argument length that makes the TASK message of a known (FN_REF) function exactly {@code messageLength}. */
    private static int argLengthFor(int messageLength) {
        for (int n = Math.max(0, messageLength - 64); n <= messageLength; n++) {
            if (Protocol.TASK_HEADER + 5 + Reducers.defaults().toBytes(new byte[n]).length == messageLength) {
                return n;
            }
        }
        throw new AssertionError("no byte[] length gives a " + messageLength + "-byte message");
    }

    @Test
    void tasksAtAndAboveTheClaimBoundaryReachTheWorkerIntact() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).ringCapacity(CAPACITY).build()) {
            final int max = CAPACITY / 8; // OneToOneRingBuffer's record limit for this capacity
            assertArrayEquals(new byte[] {1}, pool.submit(ECHO, new byte[] {1}).get(60, TimeUnit.SECONDS));
            for (int messageLength : new int[] {max - 1, max, max + 1, 3 * max}) {
                final byte[] arg = random(argLengthFor(messageLength), messageLength);
                assertArrayEquals(arg, pool.submit(ECHO, arg).get(60, TimeUnit.SECONDS), "message of " + messageLength + " bytes");
            }
            // many back to back: claims wrap around the ring while the worker reads
            final List<byte[]> args = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                args.add(random(argLengthFor(max - (i % 3)), i));
            }
            final List<byte[]> echoed = pool.map(ECHO, args);
            for (int i = 0; i < args.size(); i++) {
                assertArrayEquals(args.get(i), echoed.get(i));
            }
        }
    }
}
