package dev.sharray.pool;

import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The framing layer on its own: reassembly, refusal of garbled frame sequences, and buffer trimming. */
class FramesTest {
    private static final int CAPACITY = 1 << 16;

    private static OneToOneRingBuffer ring() {
        return new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(CAPACITY + RingBufferDescriptor.TRAILER_LENGTH)));
    }

    /**
     * Messages at the boundary of one frame: the largest whole one, one byte more (a first and a last fragment),
     * and exactly two frames' worth, each arrive intact and in order. A message of exactly maxWhole() bytes sent as
     * a fragment would be a first fragment with no last one: never delivered, and garbling the next message.
     */
    @Test
    void messagesAtTheFrameSizeBoundaryArriveIntactAndInOrder() {
        final OneToOneRingBuffer ring = ring();
        final Frames.Writer writer = new Frames.Writer(ring);
        final Frames.Reader reader = new Frames.Reader(ring);
        final int max = writer.maxWhole();
        final List<byte[]> sent = new ArrayList<>();
        for (int length : new int[] {max, max + 1, max - 1, 2 * max, 1}) {
            final byte[] message = new byte[length];
            new Random(length).nextBytes(message);
            sent.add(message);
        }
        final List<byte[]> got = new ArrayList<>();
        final Frames.Sink sink = (DirectBuffer b, int offset, int length) -> {
            final byte[] copy = new byte[length];
            b.getBytes(offset, copy);
            got.add(copy);
        };
        for (byte[] message : sent) { // one at a time: each fits the ring once the previous one was read
            assertTrue(writer.write(new UnsafeBuffer(message), 0, message.length, () -> false), "written");
            while (reader.poll(sink, 100) > 0) {
                // drain
            }
        }
        assertEquals(sent.size(), got.size(), "messages delivered");
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), got.get(i), "message " + i + " of " + sent.get(i).length + " bytes");
        }
    }

    /**
     * A record whose length word was garbled to reach past the ring (the fuzz review): before, the reader handed
     * the sink that range, and only Agrona's bounds checks stopped the reads past the ring's memory.
     */
    @Test
    void aRecordReachingPastTheRingIsRefusedAsCorrupt() {
        final OneToOneRingBuffer ring = ring();
        final Frames.Writer writer = new Frames.Writer(ring);
        final Frames.Reader reader = new Frames.Reader(ring);
        assertTrue(writer.write(new UnsafeBuffer(new byte[16]), 0, 16, () -> false), "written");
        ring.buffer().putIntVolatile(0, Integer.MAX_VALUE); // the first record's length word
        final List<Integer> delivered = new ArrayList<>();
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> reader.poll((DirectBuffer b, int offset, int length) -> delivered.add(length), 100));
        assertTrue(e.getMessage().contains("reaches past the ring"), e.getMessage());
        assertEquals(List.of(), delivered, "nothing was handed on");
    }

    @Test
    void aLargeMessageArrivesIntactAndItsReassemblyBufferIsNotKept() throws Exception {
        final OneToOneRingBuffer ring = ring();
        final Frames.Writer writer = new Frames.Writer(ring);
        final Frames.Reader reader = new Frames.Reader(ring);
        final byte[] big = new byte[ScratchBuffers.KEEP_BYTES + 12345];
        new Random(7).nextBytes(big);
        final List<byte[]> got = new ArrayList<>();
        final Frames.Sink sink = (DirectBuffer b, int offset, int length) -> {
            final byte[] copy = new byte[length];
            b.getBytes(offset, copy);
            got.add(copy);
        };
        // the ring holds 64 KiB: the writer waits for the reader, so run it beside us
        final Thread sender = new Thread(() -> writer.write(new UnsafeBuffer(big), 0, big.length, () -> true));
        sender.start();
        while (got.isEmpty()) {
            reader.poll(sink, 100);
        }
        sender.join();
        assertArrayEquals(big, got.get(0));
        assertTrue(reader.assemblyCapacity() <= ScratchBuffers.KEEP_BYTES, "capacity " + reader.assemblyCapacity());
        // messages of ordinary size still reassemble after the trim
        final byte[] medium = new byte[3 * ring.maxMsgLength() + 5];
        new Random(8).nextBytes(medium);
        writer.write(new UnsafeBuffer(medium), 0, medium.length, () -> true);
        while (got.size() < 2) {
            reader.poll(sink, 100);
        }
        assertArrayEquals(medium, got.get(1));
    }

    @Test
    void garbledFrameSequencesAreRefused() {
        final byte[] payload = {1, 2, 3};
        final Frames.Sink ignore = (b, o, l) -> { };
        // also a fragment after a fragmented message's last one: that message is complete, a new one needs a first
        for (int[] types : new int[][] {{Frames.MIDDLE}, {Frames.LAST}, {99}, {Frames.WHOLE, Frames.LAST},
            {Frames.FIRST, Frames.LAST, Frames.LAST}, {Frames.FIRST, Frames.MIDDLE, Frames.LAST, Frames.MIDDLE}}) {
            final OneToOneRingBuffer ring = ring();
            for (int type : types) {
                assertTrue(ring.write(type, new UnsafeBuffer(payload), 0, payload.length));
            }
            final Frames.Reader reader = new Frames.Reader(ring);
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> reader.poll(ignore, 10));
            assertTrue(e.getMessage().contains("fragment without a first fragment") || e.getMessage().contains("unknown frame type 99"),
                e.getMessage());
        }
    }

    @Test
    void scratchBuffersAreKeptUpToTheLimitAndReplacedAboveIt() {
        final ExpandableArrayBuffer small = new ExpandableArrayBuffer(ScratchBuffers.KEEP_BYTES);
        small.putByte(ScratchBuffers.KEEP_BYTES - 1, (byte) 1);
        assertSame(small, ScratchBuffers.trimmed(small, 64));
        final ExpandableArrayBuffer grown = new ExpandableArrayBuffer(64);
        grown.putByte(ScratchBuffers.KEEP_BYTES + 1, (byte) 1);
        final ExpandableArrayBuffer fresh = ScratchBuffers.trimmed(grown, 64);
        assertEquals(64, fresh.capacity());
    }
}
