package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The worker-to-parent direction: a worker whose result bytes are malformed (as a compromised or buggy
 * worker would send them) fails only that task, with a {@link MalformedDataException} naming the fault, and
 * the pool goes on working with the same worker.
 */
class HostileResultTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).reducers(Reducers.defaults().with(new ForgingReducer())).build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** A value whose bytes, when a worker writes it, are forged in the way {@code kind} names. */
    public record Forged(int kind) {
    }

    /**
     * Writes honestly in the parent and forges in a worker (the workers' system properties tell them apart),
     * so the parent's reading side meets bytes no honest writer produces.
     */
    public static final class ForgingReducer implements Reducer<Forged> {
        public ForgingReducer() {
        }

        @Override
        public Class<Forged> type() {
            return Forged.class;
        }

        @Override
        public void write(Forged value, ValueWriter out) {
            if (System.getProperty(WorkerMain.MAX_BYTES_PROPERTY) == null) {
                out.writeValue(value.kind());
                return;
            }
            switch (value.kind()) {
                case 0 -> out.writeByte((byte) 0x7f); // an unknown tag
                case 1 -> { // a long[] claiming 2^31-1 elements
                    out.writeByte((byte) 13);
                    out.writeInt(Integer.MAX_VALUE);
                }
                case 2 -> { } // nothing: the reader runs off the end of the message
                case 3 -> { // the value, then junk
                    out.writeValue(value.kind());
                    out.writeLong(0xdeadbeefL);
                }
                default -> out.writeValue("not an int"); // the wrong type
            }
        }

        @Override
        public Forged read(ValueReader in) {
            return new Forged(in.readValue(Integer.class));
        }
    }

    @Test
    void malformedResultBytesFailTheTaskWithAClearMessageAndThePoolGoesOn() throws Exception {
        final long pid = pool.workerPids().get(0);
        // junk after the value is caught at the value: a user reducer's payload is framed by its length
        final List<String> expected = List.of("unknown tag 127", "count", "truncated input", "read 5 of the 13 bytes",
            "expected java.lang.Integer");
        for (int kind = 0; kind < expected.size(); kind++) {
            final int forgery = kind;
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> pool.submit((Integer k) -> new Forged(k), forgery).get(30, TimeUnit.SECONDS));
            final MalformedDataException m = assertInstanceOf(MalformedDataException.class, e.getCause());
            assertTrue(m.getMessage().contains(expected.get(kind)), kind + ": " + m.getMessage());
            // the framing was sound: the same worker answers the next task
            assertEquals(kind + 1, pool.submit((Integer x) -> x + 1, kind).get(30, TimeUnit.SECONDS));
            assertEquals(List.of(pid), pool.workerPids());
        }
        // an honest Forged still crosses from the parent's side (the reducer's read accepts good bytes)
        assertEquals(new Forged(7), Reducers.defaults().with(new ForgingReducer())
            .fromBytes(Reducers.defaults().with(new ForgingReducer()).toBytes(new Forged(7))));
    }

    /**
     * Below the values: a worker writes frames no honest writer produces straight into its ring to the
     * parent (found through /proc/self/maps, as the ring file is unlinked once the worker is up). The
     * parent refuses the ring from then on: it kills that worker, fails its task as a crash, starts a
     * replacement, and goes on.
     */
    @Test
    void garbledFramesFromAWorkerKillItAndThePoolGoesOn() throws Exception {
        // 0: an unknown frame type; 1: a fragment without a first; 2: two garbled frames, then the worker exits
        // at once, so the parent may meet them while draining the dead worker's ring rather than in its pump
        for (int forgery = 0; forgery < 3; forgery++) {
            final int kindSent = forgery;
            final long pid = pool.workerPids().get(0);
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> pool.submit((Integer kind) -> {
                    writeRawFrameToParent(kind == 1 ? Frames.MIDDLE : 99);
                    if (kind == 2) {
                        writeRawFrameToParent(98);
                        Runtime.getRuntime().halt(3);
                    }
                    Thread.sleep(60_000); // the parent kills us long before
                    return 0;
                }, kindSent).get(30, TimeUnit.SECONDS));
            assertInstanceOf(WorkerCrashedException.class, e.getCause());
            assertEquals(5, pool.submit((Integer x) -> x + 1, 4).get(30, TimeUnit.SECONDS));
            assertTrue(!pool.workerPids().contains(pid), "the worker that sent garbage was replaced");
        }
    }

    /** In a worker: appends a 3-byte record of {@code type} to this worker's ring to the parent. */
    static void writeRawFrameToParent(int type) throws java.io.IOException {
        long start = -1;
        long end = -1;
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps"))) {
            if (line.contains("-worker-") && line.contains(".ring")) {
                final String[] range = line.substring(0, line.indexOf(' ')).split("-");
                start = Long.parseUnsignedLong(range[0], 16);
                end = Long.parseUnsignedLong(range[1], 16);
                break;
            }
        }
        if (start < 0) {
            throw new IllegalStateException("no ring mapping in /proc/self/maps");
        }
        final org.agrona.concurrent.UnsafeBuffer file = new org.agrona.concurrent.UnsafeBuffer(start, (int) (end - start));
        final int ringLength = file.getInt(8) + org.agrona.concurrent.ringbuffer.RingBufferDescriptor.TRAILER_LENGTH;
        final org.agrona.concurrent.ringbuffer.OneToOneRingBuffer toParent = new org.agrona.concurrent.ringbuffer.OneToOneRingBuffer(
            new org.agrona.concurrent.UnsafeBuffer(start + 64 + ringLength, ringLength));
        if (!toParent.write(type, new org.agrona.concurrent.UnsafeBuffer(new byte[] {1, 2, 3}), 0, 3)) {
            throw new IllegalStateException("ring full");
        }
    }
}
