package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Views against an independent model (element offsets and strides), in this JVM and in a child JVM. */
class ViewsTest {
    /** The model: shape, strides and offset counted in elements of the base array. */
    record Model(long[] shape, long[] strides, long offset) {
        long at(long... idx) {
            long o = offset;
            for (int i = 0; i < idx.length; i++) {
                o += idx[i] * strides[i];
            }
            return o;
        }

        long size() {
            long n = 1;
            for (long s : shape) {
                n *= s;
            }
            return n;
        }

        double[] values() {
            double[] out = new double[(int) size()];
            long[] idx = new long[shape.length];
            for (int k = 0; k < out.length; k++) {
                out[k] = at(idx);
                for (int ax = shape.length - 1; ax >= 0; ax--) {
                    if (++idx[ax] < shape[ax]) {
                        break;
                    }
                    idx[ax] = 0;
                }
            }
            return out;
        }
    }

    private static SharedArray base(long... shape) {
        SharedArray a = SharedArray.create(DType.FLOAT64, shape);
        double[] v = new double[(int) a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = i;
        }
        a.copyFrom(v);
        return a;
    }

    private static Model slice(Model m, int axis, long start, long stop, long step) {
        long n = m.shape[axis];
        stop = Math.max(-1, Math.min(n, stop));
        List<Long> picked = new ArrayList<>();
        for (long i = start; step > 0 ? i < stop : i > stop; i += step) {
            picked.add(i);
        }
        long[] shape = m.shape.clone();
        long[] strides = m.strides.clone();
        shape[axis] = picked.size();
        strides[axis] = m.strides[axis] * step;
        return new Model(shape, strides, picked.isEmpty() ? m.offset : m.offset + start * m.strides[axis]);
    }

    private static Model select(Model m, int axis, long index) {
        long[] shape = new long[m.shape.length - 1];
        long[] strides = new long[m.shape.length - 1];
        for (int i = 0, j = 0; i < m.shape.length; i++) {
            if (i != axis) {
                shape[j] = m.shape[i];
                strides[j++] = m.strides[i];
            }
        }
        return new Model(shape, strides, m.offset + index * m.strides[axis]);
    }

    private static Model permute(Model m, int[] axes) {
        long[] shape = new long[axes.length];
        long[] strides = new long[axes.length];
        for (int i = 0; i < axes.length; i++) {
            shape[i] = m.shape[axes[i]];
            strides[i] = m.strides[axes[i]];
        }
        return new Model(shape, strides, m.offset);
    }

    @Test
    void randomComposedViewsMatchTheModelForReadsAndWrites() {
        Random rnd = new Random(42);
        try (SharedArray base = base(4, 5, 6)) {
            for (int trial = 0; trial < 300; trial++) {
                SharedArray v = base.retain();
                Model m = new Model(new long[] {4, 5, 6}, new long[] {30, 6, 1}, 0);
                for (int op = 0; op < 4 && m.shape.length > 0; op++) {
                    SharedArray next;
                    int axis = rnd.nextInt(m.shape.length);
                    long n = m.shape[axis];
                    switch (rnd.nextInt(4)) {
                        case 0: {
                            if (n == 0) {
                                continue;
                            }
                            long step = rnd.nextBoolean() ? 1 + rnd.nextInt(3) : -(1 + rnd.nextInt(3));
                            long start = rnd.nextInt((int) n);
                            long stop = step > 0 ? start + rnd.nextInt((int) (n - start) + 1) : -1 + rnd.nextInt((int) start + 1);
                            next = v.slice(axis, start, stop, step);
                            m = slice(m, axis, start, stop, step);
                            break;
                        }
                        case 1: {
                            if (n == 0 || m.shape.length == 1) {
                                continue;
                            }
                            long index = rnd.nextInt((int) n);
                            next = v.select(axis, index);
                            m = select(m, axis, index);
                            break;
                        }
                        case 2:
                            next = v.transpose();
                            int[] rev = new int[m.shape.length];
                            for (int i = 0; i < rev.length; i++) {
                                rev[i] = rev.length - 1 - i;
                            }
                            m = permute(m, rev);
                            break;
                        default: {
                            List<Integer> axes = new ArrayList<>();
                            for (int i = 0; i < m.shape.length; i++) {
                                axes.add(i);
                            }
                            java.util.Collections.shuffle(axes, rnd);
                            int[] perm = axes.stream().mapToInt(Integer::intValue).toArray();
                            next = v.permute(perm);
                            m = permute(m, perm);
                        }
                    }
                    v.release();
                    v = next;
                }
                assertArrayEquals(m.shape, v.shape());
                assertArrayEquals(m.values(), v.toDoubleArray(), "trial " + trial);
                if (v.size() > 0) {
                    long[] idx = new long[m.shape.length];
                    for (int i = 0; i < idx.length; i++) {
                        idx[i] = rnd.nextInt((int) m.shape[i]);
                    }
                    long flat = m.at(idx);
                    v.setDouble(-1, idx);
                    assertEquals(-1, base.getDouble(flat / 30, flat / 6 % 5, flat % 6));
                    base.setDouble(flat, flat / 30, flat % 30 / 6, flat % 6);
                }
                Descriptor d = Descriptor.fromBytes(v.descriptor().toBytes());
                try (SharedArray reopened = SharedArray.open(d)) {
                    assertArrayEquals(v.toDoubleArray(), reopened.toDoubleArray());
                    assertArrayEquals(v.strides(), reopened.strides());
                }
                v.release();
            }
        }
    }

    @Test
    void composedViewsReopenInASecondJvmAndWritesCrossBothWays() throws Exception {
        try (SharedArray base = base(4, 6);
             SharedArray reversed = base.slice(0, 3, -1, -1);
             SharedArray reversedT = reversed.transpose();
             SharedArray stepped = reversedT.slice(0, 5, 0, -2);
             SharedArray row = base.select(0, 2);
             SharedArray permuted = base.permute(1, 0);
             SharedArray reshaped = base.reshape(2, 12);
             ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
            child.expect("ready ");
            for (SharedArray view : List.of(reversed, reversedT, stepped, row, permuted, reshaped)) {
                child.send("open " + HexFormat.of().formatHex(view.descriptor().toBytes()));
                String id = child.expect("id ");
                child.send("dump " + id);
                String[] parts = child.expect("values ").split(",");
                double[] seen = Arrays.stream(parts).mapToDouble(Double::parseDouble).toArray();
                assertArrayEquals(view.toDoubleArray(), seen, view.toString());
                long[] last = view.shape();
                for (int i = 0; i < last.length; i++) {
                    last[i] -= 1;
                }
                String idx = Arrays.stream(last).mapToObj(Long::toString).reduce((a, b) -> a + " " + b).orElse("");
                child.send("set " + id + " 1000.5 " + idx);
                assertEquals("ok", child.readLine());
                assertEquals(1000.5, view.getDouble(last), "child write seen by the parent through " + view);
                view.setDouble(-7.25, last);
                child.send("get " + id + " " + idx);
                assertEquals(-7.25, Double.parseDouble(child.expect("value ")), "parent write seen by the child");
                child.send("release " + id);
                assertEquals("ok", child.readLine());
            }
            assertEquals(0, child.finish());
        }
    }

    @Test
    void reshapeNeedsAContiguousView() {
        try (SharedArray a = base(3, 4); SharedArray t = a.transpose()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.reshape(12));
            assertTrue(e.getMessage().contains("contiguous"), e.getMessage());
            try (SharedArray r = a.reshape(-1, 2)) {
                assertArrayEquals(new long[] {6, 2}, r.shape());
                assertEquals(11, r.getDouble(5, 1));
            }
            assertThrows(IllegalArgumentException.class, () -> a.reshape(5, 3));
            long[] deep = new long[Descriptor.MAX_NDIM + 1];
            Arrays.fill(deep, 1);
            deep[0] = 12;
            IllegalArgumentException tooDeep = assertThrows(IllegalArgumentException.class, () -> a.reshape(deep));
            assertTrue(tooDeep.getMessage().contains("at most 32"), tooDeep.getMessage());
            try (SharedArray r = a.reshape(Arrays.copyOf(deep, Descriptor.MAX_NDIM))) {
                assertEquals(Descriptor.MAX_NDIM, r.descriptor().shape().length, "the deepest view still crosses");
            }
        }
    }

    @Test
    void badViewArgumentsAreRejected() {
        try (SharedArray a = base(3, 4)) {
            assertThrows(IllegalArgumentException.class, () -> a.slice(0, 0, 3, 0));
            assertThrows(IllegalArgumentException.class, () -> a.slice(2, 0, 3, 1));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(0, 5, 6, -1));
            // a start one past the end, with a step that goes down from it: its first element would lie past the data
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(0, 3, -1, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(1, 4, 0, -2));
            assertThrows(IndexOutOfBoundsException.class, () -> a.select(1, 4));
            assertThrows(IllegalArgumentException.class, () -> a.permute(0, 0));
            try (SharedArray empty = a.slice(0, 2, 2, 1)) {
                assertEquals(0, empty.size());
                assertEquals(0, empty.toDoubleArray().length);
            }
            // an empty slice whose start lies outside the axis keeps the view's offset: its descriptor reopens
            for (long start : new long[] {3, 7, 1000}) {
                try (SharedArray empty = a.slice(0, start, start, 1);
                     SharedArray reopened = SharedArray.open(empty.descriptor())) {
                    assertEquals(0, empty.size());
                    assertEquals(a.offset(), empty.offset(), "start " + start);
                    assertArrayEquals(new long[] {0, 4}, reopened.shape());
                }
            }
            // nothing to infer a dimension from: a specific error, not an ArithmeticException (division by zero)
            assertThrows(IllegalArgumentException.class, () -> a.reshape(-1, 0));
            try (SharedArray empty = a.slice(0, 1, 1, 1)) {
                assertThrows(IllegalArgumentException.class, () -> empty.reshape(0, -1));
            }
        }
    }

    @Test
    void hugeViewArgumentsFailAsSmallOnesDoInsteadOfOverflowing() {
        try (SharedArray a = base(3, 4)) {
            // before: stop - start overflowed to a negative count and an empty view came back
            IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> a.slice(0, Long.MIN_VALUE, 3, 1));
            assertTrue(e.getMessage().contains("slice start " + Long.MIN_VALUE), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(1, Long.MAX_VALUE, -1, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> a.slice(0, -5, 3, 1)); // as for a small start
            try (SharedArray empty = a.slice(0, Long.MAX_VALUE, 3, 1)) { // empty either way, as before
                assertEquals(0, empty.size());
            }
            // walking down from below stop is empty, as for a small start; before, start - stop overflowed and the
            // empty slice was refused as out of bounds
            try (SharedArray small = a.slice(0, -5, 3, -1); SharedArray huge = a.slice(0, Long.MIN_VALUE, 3, -1);
                 SharedArray far = a.slice(1, Long.MIN_VALUE + 1, 0, Long.MIN_VALUE)) {
                assertArrayEquals(new long[] {0, 4}, small.shape());
                assertArrayEquals(new long[] {0, 4}, huge.shape());
                assertArrayEquals(new long[] {3, 0}, far.shape());
            }
            // a step longer than the axis takes the start alone; before, -Long.MIN_VALUE overflowed to an empty view
            try (SharedArray last = a.slice(0, 2, -1, Long.MIN_VALUE); SharedArray first = a.slice(1, 0, 4, Long.MAX_VALUE)) {
                assertArrayEquals(new long[] {1, 4}, last.shape());
                assertEquals(a.getDouble(2, 3), last.getDouble(0, 3));
                assertArrayEquals(new long[] {3, 1}, first.shape());
                assertEquals(a.getDouble(2, 0), first.getDouble(2, 0));
                try (SharedArray reopened = SharedArray.open(last.descriptor())) {
                    assertEquals(a.getDouble(2, 3), reopened.getDouble(0, 3));
                }
            }
            // before: ArithmeticException("long overflow") from the product of the requested shape
            IllegalArgumentException r = assertThrows(IllegalArgumentException.class, () -> a.reshape(1L << 40, 1L << 40));
            assertTrue(r.getMessage().contains("cannot reshape"), r.getMessage());
            assertThrows(IllegalArgumentException.class, () -> a.reshape(-1, 1L << 40, 1L << 40));
            assertEquals(1, SharedArrays.localReferences(a), "no view was left behind");
        }
    }

    @Test
    void emptyViewsOfArraysWithAZeroLengthAxisReopenFromTheirDescriptors() {
        // before: select or slice along another axis moved the offset past the (empty) data, and open() refused the
        // view's own descriptor: "offset: the view covers bytes [160, 160) but the data of ... is [128, 128)"
        try (SharedArray rows = SharedArray.create(DType.FLOAT64, 0, 5);
             SharedArray cols = SharedArray.create(DType.INT16, 2, 0);
             SharedArray flat = SharedArray.create(DType.INT32, 0);
             SharedArray reshaped = flat.reshape(0, 5)) {
            List<SharedArray> views = new ArrayList<>();
            try {
                views.add(rows.select(1, 4));
                views.add(rows.slice(1, 2, 4, 1));
                views.add(rows.slice(1, 4, 0, -2));
                views.add(cols.select(0, 1));
                views.add(cols.slice(0, 1, 2, 1));
                views.add(reshaped.select(1, 4));
                SharedArray transposed = reshaped.transpose();
                views.add(transposed);
                views.add(transposed.slice(0, 3, 5, 1));
                for (SharedArray v : views) {
                    assertEquals(0, v.size());
                    try (SharedArray reopened = SharedArray.open(Descriptor.fromBytes(v.descriptor().toBytes()))) {
                        assertArrayEquals(v.shape(), reopened.shape(), v.toString());
                        assertEquals(0, reopened.toDoubleArray().length);
                    }
                }
            } finally {
                views.forEach(SharedArray::release);
            }
        }
    }

    @Test
    void emptyReshapesADescriptorCannotCarryAreRefused() {
        try (SharedArray empty = SharedArray.create(DType.FLOAT64, 0)) {
            // before: the view came back and its descriptor() threw "shape: (4611686018427387904, 0) of FLOAT64
            // overflows 2^63 bytes"
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> empty.reshape(1L << 62, 0));
            assertTrue(e.getMessage().contains("cannot reshape (0,) into (4611686018427387904, 0)"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> empty.reshape(3, 1L << 61, 0));
            assertEquals(1, SharedArrays.localReferences(empty), "no view was left behind");
            assertThrows(IllegalArgumentException.class, () -> empty.reshape(0, 1L << 62)); // in any order
            try (SharedArray fine = empty.reshape(1L << 59, 0)) { // 2^62 bytes if it were not empty: fits
                try (SharedArray reopened = SharedArray.open(fine.descriptor())) {
                    assertArrayEquals(new long[] {1L << 59, 0}, reopened.shape());
                }
            }
        }
    }
}
