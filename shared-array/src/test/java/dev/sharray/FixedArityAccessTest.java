package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The 1-D and 2-D forms of the typed element accessors. Only getDouble/setDouble and the 1-D getLong/setLong had
 * them: the others took a varargs array, which only C2's escape analysis removes, and not once their bounds
 * failures had been thrown while they were profiled (24 B an access from then on, for the JVM's life; always under
 * C1: hotpath review 48).
 */
class FixedArityAccessTest {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int ACCESSES = 100_000;

    @Test
    void theFixedFormsReadAndWriteWhatTheVarargsFormsDo() {
        for (NdArray a : new NdArray[] {SharedArray.create(DType.INT16, 3, 4), HeapArray.zeros(DType.INT16, 3, 4)}) {
            a.setShort((short) -3, 2, 3);
            assertEquals(-3, a.getShort(new long[] {2, 3}));
            a.setByte((byte) 5, 0, 1);
            assertEquals(5, a.getShort(new long[] {0, 1}));
            assertEquals(-3, a.getInt(2, 3));
            assertEquals(-3f, a.getFloat(2, 3));
            assertEquals(-3L, a.getLong(2, 3));
            assertEquals(5, a.getShort(0, 1));
            final IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> a.getInt(1, 4));
            assertEquals("index 4 is out of bounds for axis 1 with size 4 (shape (3, 4))", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> a.getInt(1));
            release(a);
        }
        try (SharedArray ints = SharedArray.create(DType.INT32, 2, 2)) {
            ints.setInt(7, 1, 0);
            assertEquals(7, ints.getInt(new long[] {1, 0}));
            assertThrows(UnsupportedOperationException.class, () -> ints.setFloat(1.5f, 0, 1), "the dtype rules hold");
        }
        try (SharedArray f = SharedArray.create(DType.FLOAT32, 4); SharedArray l = SharedArray.create(DType.INT64, 2, 2);
             SharedArray b = SharedArray.create(DType.UINT8, 4)) {
            f.setFloat(1.5f, 3);
            assertEquals(1.5f, f.getFloat(new long[] {3}));
            l.setLong(Long.MIN_VALUE, 1, 0);
            assertEquals(Long.MIN_VALUE, l.getLong(new long[] {1, 0}));
            b.setByte((byte) -1, 2);
            assertEquals(255, b.getInt(2));
            assertThrows(UnsupportedOperationException.class, () -> b.setInt(1, 0), "the dtype rules still hold");
        }
    }

    /** Measured on this thread; the interpreter allocates for a varargs call, so this fails without the fixed forms. */
    @Test
    void theFixedFormsAllocateNothing() {
        try (SharedArray shorts = SharedArray.create(DType.INT16, 32, 32); SharedArray bytes = SharedArray.create(DType.INT8, 1024);
             SharedArray ints = SharedArray.create(DType.INT32, 1024); SharedArray floats = SharedArray.create(DType.FLOAT32, 32, 32)) {
            long sum = 0;
            final long before = allocated();
            for (int k = 0; k < ACCESSES; k++) {
                final long i = k & 31;
                final long j = (k >> 5) & 31;
                shorts.setShort((short) k, i, j);
                sum += shorts.getShort(j, i) + shorts.getInt(i, j) + (long) shorts.getFloat(i, j);
                bytes.setByte((byte) k, k & 1023);
                sum += bytes.getByte(k & 1023) + bytes.getShort(k & 1023);
                ints.setInt(k, k & 1023);
                sum += ints.getInt(k & 1023);
                floats.setFloat(k, i, j);
                sum += (long) floats.getFloat(j, i);
            }
            final long allocated = allocated() - before;
            // the varargs forms: 24 or 32 bytes an access until C2 compiles the loop, megabytes in all
            assertTrue(allocated < 16 * 1024, allocated + " bytes allocated in " + 11L * ACCESSES + " accesses (sum "
                + sum + ")");
            assertTrue(sum != 0);
        }
    }

    private static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static void release(NdArray a) {
        if (a instanceof SharedArray) {
            ((SharedArray) a).release();
        }
    }
}
