package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ElementAccessTest {
    @Test
    void everyDtypeRoundTripsThroughItsOwnAccessorsAndBulkCopies() {
        try (SharedArray a = SharedArray.copyOf(new double[] {1.5, -2, 3})) {
            assertEquals(DType.FLOAT64, a.dtype());
            a.setDouble(9.25, 1);
            assertArrayEquals(new double[] {1.5, 9.25, 3}, a.toDoubleArray());
        }
        try (SharedArray a = SharedArray.copyOf(new float[] {1.5f, -2f})) {
            a.setFloat(7.5f, 0);
            assertArrayEquals(new float[] {7.5f, -2f}, a.toFloatArray());
            assertEquals(-2.0, a.getDouble(1));
        }
        try (SharedArray a = SharedArray.copyOf(new long[] {Long.MAX_VALUE, -1})) {
            assertEquals(Long.MAX_VALUE, a.getLong(0));
            a.setLong(Long.MIN_VALUE, 1);
            assertArrayEquals(new long[] {Long.MAX_VALUE, Long.MIN_VALUE}, a.toLongArray());
        }
        try (SharedArray a = SharedArray.copyOf(new int[] {5, -6})) {
            a.setInt(Integer.MIN_VALUE, 0);
            assertArrayEquals(new int[] {Integer.MIN_VALUE, -6}, a.toIntArray());
            assertEquals(-6L, a.getLong(1));
        }
        try (SharedArray a = SharedArray.copyOf(new short[] {5, -6})) {
            a.setShort((short) 300, 1);
            assertArrayEquals(new short[] {5, 300}, a.toShortArray());
        }
        try (SharedArray a = SharedArray.copyOf(new byte[] {5, -6})) {
            assertEquals(DType.INT8, a.dtype());
            a.setByte((byte) -128, 0);
            assertArrayEquals(new byte[] {-128, -6}, a.toByteArray());
        }
        try (SharedArray a = SharedArray.create(DType.UINT8, 2)) {
            a.setByte((byte) 200, 0);
            assertEquals(200, a.getInt(0));
            assertEquals((byte) 200, a.getByte(0));
            assertEquals(200.0, a.getDouble(0));
        }
        try (SharedArray a = SharedArray.copyOf(new double[][] {{1, 2, 3}, {4, 5, 6}})) {
            assertArrayEquals(new long[] {2, 3}, a.shape());
            assertEquals(6, a.getDouble(1, 2));
            assertArrayEquals(new long[] {24, 8}, a.strides());
        }
    }

    @Test
    void lossyConversionsAreRefusedWithAClearMessage() {
        try (SharedArray i64 = SharedArray.create(DType.INT64, 2); SharedArray f64 = SharedArray.create(DType.FLOAT64, 2);
             SharedArray i32 = SharedArray.create(DType.INT32, 2); SharedArray u8 = SharedArray.create(DType.UINT8, 2)) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> i64.getDouble(0));
            assertTrue(e.getMessage().contains("INT64"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, () -> f64.getLong(0));
            assertThrows(UnsupportedOperationException.class, () -> f64.setLong(1, 0));
            assertThrows(UnsupportedOperationException.class, () -> i32.setDouble(1.0, 0));
            assertThrows(UnsupportedOperationException.class, () -> i32.getFloat(0));
            assertThrows(UnsupportedOperationException.class, () -> u8.setInt(1, 0));
            assertThrows(UnsupportedOperationException.class, () -> i64.toDoubleArray());
            assertThrows(UnsupportedOperationException.class, () -> f64.copyFrom(new long[2]));
            i32.setShort((short) 7, 1); // widening writes are fine
            f64.setInt(7, 1);
            assertEquals(7, i32.getLong(1));
            assertEquals(7.0, f64.getDouble(1));
        }
    }

    @Test
    void aRefusedWriteNamesTheSetterOfTheElementType() {
        // before: "writing a int into a UINT8 array can lose information; convert it explicitly first", which named
        // neither what to convert to nor how an unsigned byte is written
        try (SharedArray i32 = SharedArray.create(DType.INT32, 2); SharedArray u8 = SharedArray.create(DType.UINT8, 2);
             SharedArray f32 = SharedArray.create(DType.FLOAT32, 2)) {
            assertEquals("writing a double into an INT32 array can lose information; convert the value explicitly and use"
                + " setInt (copyFrom(int[]) for a whole array)",
                assertThrows(UnsupportedOperationException.class, () -> i32.setDouble(2.0, 0)).getMessage());
            assertEquals("writing an int into a UINT8 array can lose information; convert the value explicitly and use"
                + " setByte (copyFrom(byte[]) for a whole array), which stores the byte's bits: (byte) 200 stores 200",
                assertThrows(UnsupportedOperationException.class, () -> u8.copyFrom(new int[] {200, 1})).getMessage());
            assertEquals("writing a double into a FLOAT32 array can lose information; convert the value explicitly and use"
                + " setFloat (copyFrom(float[]) for a whole array)",
                assertThrows(UnsupportedOperationException.class, () -> f32.setDouble(0.1, 1)).getMessage());
            u8.setByte((byte) 200, 0); // as the message says
            assertEquals(200, u8.getInt(0));
        }
    }

    @Test
    void indexErrorsAndUseAfterReleaseAreSpecific() {
        SharedArray a = SharedArray.create(DType.FLOAT64, 3, 4);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> a.getDouble(3, 0));
        assertTrue(e.getMessage().contains("axis 0 with size 3"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> a.setDouble(1, 0, -1));
        // an index equal to its axis's size, on every axis, through the n-dimensional access path too (one past
        // the end of an axis reaches the next row's memory, or past the data for the last one)
        try (SharedArray c = SharedArray.create(DType.INT32, 2, 3, 4)) {
            final long[] shape = c.shape();
            for (int axis = 0; axis < shape.length; axis++) {
                final long[] index = new long[shape.length];
                index[axis] = shape[axis];
                final String where = "axis " + axis;
                assertThrows(IndexOutOfBoundsException.class, () -> c.getInt(index), where);
                assertThrows(IndexOutOfBoundsException.class, () -> c.getDouble(index), where);
                assertThrows(IndexOutOfBoundsException.class, () -> c.setInt(7, index), where);
            }
            assertEquals(0, c.sum(), "nothing was written");
        }
        assertThrows(IndexOutOfBoundsException.class, () -> a.getDouble(new long[] {2, 4}));
        assertThrows(IllegalArgumentException.class, () -> a.getDouble(1));
        assertThrows(IllegalArgumentException.class, () -> a.copyFrom(new double[11]));
        a.release();
        a.release(); // idempotent
        a.close();
        for (Runnable r : new Runnable[] {() -> a.getDouble(0, 0), () -> a.setDouble(1, 0, 0), a::toDoubleArray,
            a::descriptor, a::transpose, () -> a.slice(0, 0, 1, 1), a::sum, a::address, () -> a.add(1)}) {
            IllegalStateException ise = assertThrows(IllegalStateException.class, r::run);
            assertTrue(ise.getMessage().contains("released"), ise.getMessage());
        }
        assertTrue(a.isReleased());
    }

    @Test
    void aCopyToOfTheWrongLengthNamesTheDestination() {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 3, 4); SharedArray t = a.transpose()) {
            // before: "source has 11 elements, ..." for the array copied into
            for (NdArray target : new NdArray[] {a, t, HeapArray.zeros(DType.FLOAT64, 3, 4), HeapArray.zeros(DType.INT16, 12)}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> target.copyTo(new double[11]));
                assertTrue(e.getMessage().startsWith("destination has 11 elements"), e.getMessage());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.copyFrom(new double[13]));
            assertTrue(e.getMessage().startsWith("source has 13 elements"), e.getMessage());
        }
    }

    @Test
    void wholeScalarsOutsideAnIntegerDtypeAreRefusedNotWrapped() {
        HeapArray u8 = HeapArray.ofBytes(DType.UINT8, new byte[] {0, 1, (byte) 200});
        // before: add(-1) gave UINT8 [255, 0, 199] (-1 wrapped to 255 before it was added) and add(300) [44, 45, 244];
        // NumPy 2 raises OverflowError for both
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> u8.add(-1));
        assertTrue(e.getMessage().contains("scalar -1 is out of range for a UINT8 array (0..255)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> u8.add(300));
        final HeapArray i8 = HeapArray.ofBytes(DType.INT8, new byte[] {0});
        e = assertThrows(IllegalArgumentException.class, () -> i8.add(128));
        assertTrue(e.getMessage().contains("scalar 128 is out of range for an INT8 array (-128..127)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> u8.multiply(256));
        assertThrows(IllegalArgumentException.class, () -> HeapArray.of(new byte[] {1}).subtract(128));
        assertThrows(IllegalArgumentException.class, () -> HeapArray.of(new short[] {1}).add(40000));
        assertThrows(IllegalArgumentException.class, () -> HeapArray.of(new int[] {1}).multiply(1L << 31));
        try (SharedArray shared = SharedArray.copyOf(new byte[] {1, 2})) {
            assertThrows(IllegalArgumentException.class, () -> shared.add(200));
        }
        // in range, not whole, or a division: as before (the array's own arithmetic wraps, as NumPy's does)
        assertArrayEquals(new long[] {255, 0, 199}, u8.subtract(1).toLongArray());
        assertArrayEquals(new long[] {255, 0, 199}, u8.add(255).toLongArray());
        assertEquals(DType.FLOAT64, u8.add(-1.5).dtype());
        assertArrayEquals(new double[] {-0.0, -1, -200}, u8.divide(-1).toDoubleArray());
        assertArrayEquals(new long[] {(1L << 52) + 1}, HeapArray.of(new long[] {1}).add(1L << 52).toLongArray());
    }

    @Test
    void reductionsOfAReleasedEmptyArrayThrowToo() {
        SharedArray empty = SharedArray.create(DType.FLOAT64, 0);
        empty.release();
        // before: mean() returned NaN for the released handle (an empty array skipped the check)
        for (Runnable r : new Runnable[] {empty::mean, empty::sum, empty::min, empty::max, empty::toDoubleArray}) {
            IllegalStateException ise = assertThrows(IllegalStateException.class, r::run);
            assertTrue(ise.getMessage().contains("released"), ise.getMessage());
        }
    }

    @Test
    void negativeAndOverflowingShapesAreRejectedBeforeAnyFileExists() throws Exception {
        Path folder = SharedArrays.processFolder();
        long before = countFiles(folder);
        assertThrows(IllegalArgumentException.class, () -> SharedArray.create(DType.FLOAT64, 3, -1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SharedArray.create(DType.FLOAT64, 1L << 40, 1L << 40));
        assertTrue(e.getMessage().startsWith("shape: "), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> SharedArray.builder(DType.UINT8, 3L << 30).backing(Backing.AGRONA).create());
        assertEquals(before, countFiles(folder));
    }

    @Test
    void aSizeWhoseFilesWouldPass2To63IsRefusedBeforeAnyFileExists() throws Exception {
        Path folder = SharedArrays.processFolder();
        long before = countFiles(folder);
        // the data file rounds up to 2^63 - 4096 bytes; with the 4096-byte refcount file that is 2^63.
        // before: the sum wrapped to Long.MIN_VALUE and passed the free-space check, both files were created (and
        // deleted again) and the file system's refusal came back as InsufficientSpaceException
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SharedArray.create(DType.INT8, Long.MAX_VALUE - 4096 - 128));
        assertTrue(e.getMessage().contains("needs more than 2^63 bytes"), e.getMessage());
        assertEquals(before, countFiles(folder));
    }

    @Test
    void shapesAreCheckedTheSameInEveryAxisOrder() throws Exception {
        // before: (0, 2^61) of FLOAT64 was created, its leading 0 hiding that 8 * 2^61 overflows, while its transpose
        // (2^61, 0) failed the same check: the view's descriptor() threw, and with leak detection on (which describes
        // each tracked handle) transpose() itself threw InvalidDescriptorException
        Path folder = SharedArrays.processFolder();
        long before = countFiles(folder);
        for (long[] shape : new long[][] {{0, 1L << 61}, {1L << 61, 0}, {3, 0, 1L << 61}, {0, 1L << 40, 1L << 40}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SharedArray.create(DType.FLOAT64, shape));
            assertTrue(e.getMessage().contains("overflows 2^63 bytes"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> HeapArray.zeros(DType.FLOAT64, shape));
        }
        assertEquals(before, countFiles(folder));
        // a legal empty array: every order of its axes describes itself and reopens, every handle tracked
        LeakDetection detection = SharedArrays.leakDetection();
        SharedArrays.setLeakDetection(LeakDetection.PARANOID);
        try (SharedArray a = SharedArray.create(DType.INT8, 0, 1L << 31, 1L << 31)) {
            for (int[] axes : new int[][] {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
                try (SharedArray v = a.permute(axes); SharedArray reopened = SharedArray.open(v.descriptor())) {
                    assertArrayEquals(v.shape(), reopened.shape());
                    assertTrue(v.prefault());
                }
            }
        } finally {
            SharedArrays.setLeakDetection(detection);
        }
    }

    @Test
    void arithmeticResultsAreHeapArraysAndCreateNoFiles() throws Exception {
        Path folder = SharedArrays.processFolder();
        try (SharedArray a = SharedArray.copyOf(new double[] {1, 2, 3, 4});
             SharedArray b = SharedArray.copyOf(new double[] {4, 3, 2, 1});
             SharedArray ints = SharedArray.copyOf(new int[] {1, 2, 3, 4})) {
            long before = countFiles(folder);
            HeapArray sum = a.add(b);
            HeapArray scaled = a.multiply(2);
            HeapArray diff = a.subtract(HeapArray.of(new double[] {1, 1, 1, 1}));
            HeapArray quotient = ints.divide(2);
            HeapArray intsPlus = ints.add(3);
            assertEquals(before, countFiles(folder), "arithmetic must not create shared files");
            assertArrayEquals(new double[] {5, 5, 5, 5}, sum.toDoubleArray());
            assertArrayEquals(new double[] {2, 4, 6, 8}, scaled.toDoubleArray());
            assertArrayEquals(new double[] {0, 1, 2, 3}, diff.toDoubleArray());
            assertEquals(DType.FLOAT64, quotient.dtype());
            assertArrayEquals(new double[] {0.5, 1, 1.5, 2}, quotient.toDoubleArray());
            assertEquals(DType.INT32, intsPlus.dtype());
            assertArrayEquals(new int[] {4, 5, 6, 7}, intsPlus.toIntArray());
            assertEquals(10, a.sum());
            assertEquals(1, a.min());
            assertEquals(4, a.max());
            assertEquals(2.5, a.mean());
            assertEquals(4 + 6 + 6 + 4, a.dot(b));
            assertThrows(IllegalArgumentException.class, () -> a.add(HeapArray.of(new double[3])));
            try (SharedArray shared = sum.toShared()) {
                assertEquals(before + 2, countFiles(folder), "toShared is the explicit way to share");
                assertArrayEquals(sum.toDoubleArray(), shared.toDoubleArray());
            }
            assertEquals(before, countFiles(folder));
        }
    }

    @Test
    void minAndMaxOrderNegativeZeroBelowZeroWhateverThePosition() {
        // values, then the bits of the expected min and max
        final double[][] cases = {
            {0.0, -0.0}, {-0.0, 0.0}, {1.0, 0.0, -0.0, 2.0}, {-1.0, -0.0, 0.0},
        };
        final double[][] expected = {{-0.0, 0.0}, {-0.0, 0.0}, {-0.0, 2.0}, {-1.0, 0.0}};
        for (int c = 0; c < cases.length; c++) {
            final HeapArray a = HeapArray.of(cases[c]);
            final String what = java.util.Arrays.toString(cases[c]);
            assertEquals(Double.doubleToRawLongBits(expected[c][0]), Double.doubleToRawLongBits(a.min()), what);
            assertEquals(Double.doubleToRawLongBits(expected[c][1]), Double.doubleToRawLongBits(a.max()), what);
        }
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(HeapArray.of(new float[] {0.0f, -0.0f}).min()));
    }

    @Test
    void sumGivesTheSameBitsForEveryLayoutOfTheSameValues() {
        // values whose sum depends on the order of the additions; lengths across the eight lanes' tail, a run's
        // longest (128) and the first splits
        final java.util.Random random = new java.util.Random(3);
        for (int n : new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 1001, 4099}) {
            final double[] values = new double[n];
            for (int i = 0; i < n; i++) {
                values[i] = random.nextGaussian() * Math.pow(10, random.nextInt(12));
            }
            final double expected = PairwiseReference.sum(values);
            try (SharedArray contiguous = SharedArray.copyOf(values);
                 SharedArray table = SharedArray.create(DType.FLOAT64, n, 2)) {
                for (int i = 0; i < n; i++) {
                    table.setDouble(-1, i, 0);
                    table.setDouble(values[i], i, 1);
                }
                try (SharedArray column = table.select(1, 1)) { // strided: the general path
                    assertFalse(n > 1 && column.isContiguous());
                    assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(contiguous.sum()), "contiguous, n=" + n);
                    assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(column.sum()), "strided, n=" + n);
                    assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(HeapArray.of(values).sum()), "heap, n=" + n);
                }
            }
        }
    }

    @Test
    void stridedReductionsMatchHeapComputation() {
        try (SharedArray a = SharedArray.copyOf(new double[][] {{1, 2, 3}, {4, 5, 6}}); SharedArray t = a.transpose();
             SharedArray col = t.select(0, 1)) {
            assertArrayEquals(new double[] {2, 5}, col.toDoubleArray());
            assertEquals(7, col.sum());
            assertEquals(21, t.sum());
            assertArrayEquals(new double[] {1, 4, 2, 5, 3, 6}, t.toDoubleArray());
            assertArrayEquals(new double[] {2, 8, 4, 10, 6, 12}, t.multiply(2).toDoubleArray());
        }
    }

    static long countFiles(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder)) {
            return s.count();
        }
    }
}
