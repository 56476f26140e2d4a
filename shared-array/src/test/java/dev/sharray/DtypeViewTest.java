package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SharedArray#viewAs}: NumPy's {@code a.view(dtype)}, in this JVM and through a descriptor in a child JVM. */
class DtypeViewTest {
    /** A (3, 4) FLOAT64 array holding 0.5, 1.5, ... */
    private static SharedArray doubles() {
        SharedArray a = SharedArray.create(DType.FLOAT64, 3, 4);
        double[] v = new double[12];
        for (int i = 0; i < v.length; i++) {
            v[i] = i + 0.5;
        }
        a.copyFrom(v);
        return a;
    }

    private static byte[] littleEndian(double... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            b.putDouble(v);
        }
        return b.array();
    }

    @Test
    void theSameBytesReadAsAnotherDtypeWithNumpysShapesAndStrides() {
        try (SharedArray a = doubles();
             SharedArray bytes = a.viewAs(DType.UINT8);
             SharedArray longs = a.viewAs(DType.INT64);
             SharedArray floats = a.viewAs(DType.FLOAT32);
             SharedArray rows = a.slice(0, 1, 3, 1);
             SharedArray rowShorts = rows.viewAs(DType.INT16);
             SharedArray row = a.select(0, 2);
             SharedArray rowBytes = row.viewAs(DType.INT8)) {
            assertArrayEquals(new long[] {3, 32}, bytes.shape());
            assertArrayEquals(new long[] {32, 1}, bytes.strides());
            assertArrayEquals(littleEndian(a.toDoubleArray()), bytes.toByteArray());
            assertEquals(a.offset(), bytes.offset());
            assertEquals(a.path(), bytes.path());
            // the same size: shape and strides unchanged
            assertArrayEquals(new long[] {3, 4}, longs.shape());
            assertArrayEquals(new long[] {32, 8}, longs.strides());
            assertEquals(Double.doubleToRawLongBits(6.5), longs.getLong(1, 2));
            assertArrayEquals(new long[] {3, 8}, floats.shape());
            assertArrayEquals(new long[] {32, 4}, floats.strides());
            assertArrayEquals(new long[] {2, 16}, rowShorts.shape());
            assertArrayEquals(new long[] {32, 2}, rowShorts.strides());
            assertEquals(a.offset() + 32, rowShorts.offset());
            assertArrayEquals(new long[] {32}, rowBytes.shape());
            assertArrayEquals(Arrays.copyOfRange(littleEndian(a.toDoubleArray()), 64, 96), rowBytes.toByteArray());
            // writes cross both ways: zero copy
            longs.setLong(Double.doubleToRawLongBits(-2.25), 2, 3);
            assertEquals(-2.25, a.getDouble(2, 3));
            a.setDouble(Double.longBitsToDouble(0x0102030405060708L), 0, 1);
            assertEquals(0x08, bytes.getInt(0, 8));
            assertEquals(0x01, bytes.getInt(0, 15));
            // a view of a view, back to the original dtype
            try (SharedArray back = bytes.viewAs(DType.FLOAT64)) {
                assertArrayEquals(a.shape(), back.shape());
                assertArrayEquals(a.strides(), back.strides());
                assertArrayEquals(a.toDoubleArray(), back.toDoubleArray());
            }
        }
    }

    @Test
    void viewsNumpyRefusesAreRefusedNamingTheProblem() {
        try (SharedArray a = doubles();
             SharedArray columns = a.slice(1, 0, 4, 2);
             SharedArray transposed = a.transpose();
             SharedArray reversedColumns = a.slice(1, 3, -1, -1);
             SharedArray rowOne = a.select(0, 1);
             SharedArray element = rowOne.select(0, 2);
             SharedArray u = SharedArray.create(DType.UINT8, 3, 12)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> columns.viewAs(DType.UINT8));
            assertEquals("cannot view float64 (3, 2) with strides (32, 16) as uint8: the last axis must be contiguous"
                + " (stride 8) to change the element size, but its stride is 16", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> transposed.viewAs(DType.FLOAT32));
            assertTrue(e.getMessage().contains("its stride is 32"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> reversedColumns.viewAs(DType.INT16));
            assertTrue(e.getMessage().contains("its stride is -8"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> element.viewAs(DType.UINT8));
            assertTrue(e.getMessage().contains("a 0-d view keeps its element size (8 bytes)"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> u.viewAs(DType.FLOAT64));
            assertEquals("cannot view uint8 (3, 12) with strides (12, 1) as float64: the last axis holds 12 bytes"
                + " (12 x 1), not a multiple of the 8 bytes of a float64", e.getMessage());
            // the same element size is always fine, transposed or strided: NumPy too
            try (SharedArray t = transposed.viewAs(DType.INT64); SharedArray c = columns.viewAs(DType.INT64);
                 SharedArray scalar = element.viewAs(DType.INT64)) {
                assertArrayEquals(new long[] {8, 32}, t.strides());
                assertArrayEquals(new long[] {32, 16}, c.strides());
                assertEquals(0, scalar.ndim());
                assertEquals(Double.doubleToRawLongBits(6.5), scalar.getLong());
            }
            assertEquals(6, SharedArrays.localReferences(a), "refused views left no reference behind");
        }
    }

    @Test
    void elementsThatWouldNotStartOnAnElementBoundaryAreRefused() {
        try (SharedArray u = SharedArray.create(DType.UINT8, 3, 16);
             SharedArray middle = u.slice(1, 4, 12, 1);            // 8 bytes a row, from byte 4 of each
             SharedArray w = SharedArray.create(DType.UINT8, 2, 20);
             SharedArray firstEight = w.slice(1, 0, 8, 1);         // rows 20 bytes apart
             SharedArray oneRow = firstEight.slice(0, 0, 1, 1);    // a single row: no row stride is applied
             SharedArray i = SharedArray.create(DType.INT32, 6);
             SharedArray fromSecond = i.slice(0, 1, 5, 1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> middle.viewAs(DType.FLOAT64));
            assertEquals("cannot view uint8 (3, 8) with strides (16, 1) as float64: its offset, byte 4 of the data, is"
                + " not a multiple of 8: a float64 there would not start on an element boundary", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> firstEight.viewAs(DType.FLOAT64));
            assertEquals("cannot view uint8 (2, 8) with strides (20, 1) as float64: stride 20 of axis 0 is not a"
                + " multiple of 8: its float64 elements would not start on element boundaries", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> fromSecond.viewAs(DType.INT64));
            assertTrue(e.getMessage().contains("byte 4 of the data"), e.getMessage());
            try (SharedArray fine = middle.viewAs(DType.INT32); SharedArray d = oneRow.viewAs(DType.FLOAT64);
                 SharedArray reopened = SharedArray.open(Descriptor.fromBytes(d.descriptor().toBytes()))) {
                assertArrayEquals(new long[] {3, 2}, fine.shape());
                assertArrayEquals(new long[] {16, 4}, fine.strides());
                assertArrayEquals(new long[] {1, 1}, d.shape());
                assertArrayEquals(new long[] {20, 8}, d.strides(), "the unapplied row stride is kept, as in NumPy");
                assertArrayEquals(d.strides(), reopened.strides());
                d.setDouble(3.75, 0, 0);
                assertEquals(3.75, reopened.getDouble(0, 0));
            }
        }
    }

    @Test
    void emptyViewsFollowNumpyAndReopenFromTheirDescriptors() {
        try (SharedArray noColumns = SharedArray.create(DType.UINT8, 3, 0);
             SharedArray noRows = SharedArray.create(DType.UINT8, 0, 16);
             SharedArray oddRows = SharedArray.create(DType.UINT8, 0, 5);
             SharedArray u = SharedArray.create(DType.UINT8, 4, 3);
             SharedArray row = u.select(0, 1);                    // byte 3 of the data
             SharedArray none = row.slice(0, 1, 1, 1);            // empty, keeps that offset
             SharedArray huge = SharedArray.create(DType.UINT8, 1L << 61, 0)) {
            try (SharedArray a = noColumns.viewAs(DType.FLOAT64); SharedArray b = noRows.viewAs(DType.FLOAT64);
                 SharedArray c = none.viewAs(DType.FLOAT64)) {
                assertArrayEquals(new long[] {3, 0}, a.shape());
                assertArrayEquals(new long[] {0, 2}, b.shape());
                assertArrayEquals(new long[] {0}, c.shape());
                assertEquals(u.offset(), c.offset(), "no first element: the offset moves down to a boundary");
                for (SharedArray v : List.of(a, b, c)) {
                    try (SharedArray reopened = SharedArray.open(Descriptor.fromBytes(v.descriptor().toBytes()))) {
                        assertArrayEquals(v.shape(), reopened.shape());
                        assertEquals(0, reopened.toDoubleArray().length);
                    }
                }
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> oddRows.viewAs(DType.FLOAT64));
            assertTrue(e.getMessage().contains("the last axis holds 5 bytes"), e.getMessage());
            // (2^61, 0) of FLOAT64: a shape no descriptor can carry, refused here rather than by descriptor()
            e = assertThrows(IllegalArgumentException.class, () -> huge.viewAs(DType.FLOAT64));
            assertTrue(e.getMessage().contains("overflows 2^63 bytes"), e.getMessage());
            try (SharedArray bytes = huge.viewAs(DType.INT8)) {
                assertArrayEquals(new long[] {1L << 61, 0}, bytes.shape());
            }
            assertEquals(1, SharedArrays.localReferences(huge));
        }
    }

    @Test
    void aReleasedArrayIsRefusedAsByTheOtherViews() {
        SharedArray a = doubles();
        SharedArray bytes = a.viewAs(DType.UINT8);
        a.release();
        IllegalStateException slice = assertThrows(IllegalStateException.class, () -> a.slice(0, 0, 1, 1));
        IllegalStateException view = assertThrows(IllegalStateException.class, () -> a.viewAs(DType.UINT8));
        assertEquals(slice.getMessage(), view.getMessage());
        assertThrows(NullPointerException.class, () -> bytes.viewAs(null));
        // the view holds its own reference: the file outlives the array's handle
        try (bytes; SharedArray back = bytes.viewAs(DType.FLOAT64)) {
            assertEquals(8.5, back.getDouble(2, 0));
        }
        assertThrows(IllegalStateException.class, () -> bytes.viewAs(DType.INT64));
    }

    @Test
    void aDtypeViewsDescriptorOpensInAChildJvmOnTheSameBytes() throws Exception {
        int k = 4;
        int m = 2;
        try (SharedArray stripe = SharedArray.create(DType.UINT8, k + m, 64);
             SharedArray dataRows = stripe.slice(0, 0, k, 1);
             SharedArray data = dataRows.viewAs(DType.FLOAT64);
             SharedArray a = doubles();
             SharedArray aRows = a.slice(0, 1, 3, 1);
             SharedArray aBytes = aRows.viewAs(DType.UINT8);
             SharedArray aShorts = a.viewAs(DType.INT16);
             ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
            double[] values = new double[k * 8];
            for (int i = 0; i < values.length; i++) {
                values[i] = Math.scalb(i - 7.25, i % 5);
            }
            data.copyFrom(values);
            child.expect("ready ");
            for (SharedArray view : List.of(data, aBytes, aShorts)) {
                String id = ArrayAgent.open(child, view.descriptor()); // fails at once on an "error" answer
                child.send("dump " + id);
                String dump = child.readLine();
                assertTrue(dump.startsWith("values "), dump);
                double[] seen = Arrays.stream(dump.substring(7).split(",")).mapToDouble(Double::parseDouble).toArray();
                assertArrayEquals(view.toDoubleArray(), seen, view.toString());
                if (view == data) {
                    child.send("set " + id + " 1000.5 3 7");
                    assertEquals("ok", child.readLine());
                    byte[] lastRow = Arrays.copyOfRange(stripe.toByteArray(), 3 * 64, 4 * 64);
                    assertArrayEquals(littleEndian(1000.5), Arrays.copyOfRange(lastRow, 56, 64),
                        "the child's double is in the parent's UINT8 stripe");
                }
                child.send("release " + id);
                assertEquals("ok", child.readLine());
            }
            assertEquals(0, child.finish());
        }
    }
}
