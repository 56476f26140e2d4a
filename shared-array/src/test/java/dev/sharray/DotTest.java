package dev.sharray;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code dot} streams both arrays instead of copying each into a heap {@code double[]}: its result is one double,
 * and before, {@code a.dot(a)} of a 64 MiB shared array needed 128 MiB of heap (a 256 MiB array ran a 200 MiB heap
 * out of memory, while {@code sum()} and {@code max()} of it streamed).
 */
class DotTest {
    /** Child: a 64 MiB FLOAT64 array and a transposed view of it, dotted in a 48 MiB heap. */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) {
            try (SharedArray a = SharedArray.create(DType.FLOAT64, 2048, 4096);
                 SharedArray t = a.transpose()) {
                a.setDouble(3, 0, 1);
                a.setDouble(4, 2047, 4095);
                System.out.println("dot " + a.dot(a) + " " + t.dot(t));
            } catch (Throwable e) {
                System.out.println("dot failed: " + e);
            }
        }
    }

    @Test
    void aDotOfAnArrayLargerThanTheHeapStreams() throws Exception {
        try (ChildJvm child = ChildJvm.start(Child.class, List.of("-Xmx48m"))) {
            assertEquals("25.0 25.0", child.expect("dot "));
        }
    }

    @Test
    void viewsAndMixedOperandsSumInRowMajorOrder() {
        try (SharedArray m = SharedArray.create(DType.INT32, 3, 4);
             SharedArray t = m.transpose();
             SharedArray r = m.slice(1, 3, -1, -1)) {       // columns 3..0: a reversed, strided view
            final int[] values = new int[12];
            for (int i = 0; i < 12; i++) {
                values[i] = i + 1;
            }
            m.copyFrom(values);
            final HeapArray h = HeapArray.of(new double[] {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, 3, 4);
            // row-major over m: 1*1 + 12*2
            assertEquals(25, m.dot(h));
            assertEquals(25, h.dot(m));
            // r[i][j] = m[i][3 - j]: pairs m's row-major order with each row reversed
            double expected = 0;
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 4; j++) {
                    expected += values[i * 4 + j] * values[i * 4 + 3 - j];
                }
            }
            assertEquals(expected, m.dot(r));
            try (SharedArray tt = t.transpose()) {
                assertEquals(m.dot(m), tt.dot(m));
            }
            double sumOfSquares = 0;
            for (int v : values) {
                sumOfSquares += (double) v * v;
            }
            assertEquals(sumOfSquares, t.dot(t));
        }
    }
    /**
     * The fast path (contiguous FLOAT64 operands, shared or heap) and the general one (strided views, other dtypes)
     * sum the same products in the same order, that of sum() (pairwise): the same bits for every layout, and for
     * every tail length past a multiple of eight, and across a run's longest and the first splits.
     */
    @Test
    void everyLayoutOfTheSameValuesGivesTheSameBits() {
        final java.util.Random random = new java.util.Random(42);
        for (int n : new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 127, 128, 129, 1001, 1003}) {
            final double[] x = new double[n];
            final double[] y = new double[n];
            final double[] pairs = new double[2 * n];
            for (int i = 0; i < n; i++) {
                x[i] = random.nextGaussian() * 1e3;
                y[i] = random.nextGaussian() / 7;
                pairs[2 * i] = x[i];
                pairs[2 * i + 1] = y[i];
            }
            final double[] products = new double[n];
            for (int i = 0; i < n; i++) {
                products[i] = x[i] * y[i];
            }
            final double expected = PairwiseReference.sum(products);
            try (SharedArray dx = SharedArray.create(DType.FLOAT64, n);
                 SharedArray dy = SharedArray.create(DType.FLOAT64, n);
                 SharedArray both = SharedArray.create(DType.FLOAT64, n, 2);
                 SharedArray sx = both.select(1, 0);     // strided views: the general path
                 SharedArray sy = both.select(1, 1)) {
                dx.copyFrom(x);
                dy.copyFrom(y);
                both.copyFrom(pairs);
                final HeapArray hx = HeapArray.of(x, n);
                final HeapArray hy = HeapArray.of(y, n);
                assertEquals(expected, dx.dot(dy), "shared, dense: n=" + n);
                assertEquals(expected, hx.dot(hy), "heap: n=" + n);
                assertEquals(expected, dx.dot(hy), "shared and heap: n=" + n);
                assertEquals(expected, hx.dot(dy), "heap and shared: n=" + n);
                assertEquals(expected, sx.dot(sy), "strided views: n=" + n);
                assertEquals(expected, sx.dot(dy), "a view and a dense array: n=" + n);
                assertEquals(expected, dx.dot(HeapArray.of(y, n).multiply(1.0)), "a derived heap array: n=" + n);
            }
        }
    }
}
