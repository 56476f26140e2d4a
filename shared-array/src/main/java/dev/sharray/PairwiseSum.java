package dev.sharray;

import org.agrona.UnsafeApi;

/**
 * Sums doubles in NumPy's pairwise order (NumPy 2's {@code pairwise_sum}, over the whole array): a run of at most
 * {@value #BLOCK} values is summed in eight interleaved partial sums, added as {@code ((s0 + s1) + (s2 + s3)) +
 * ((s4 + s5) + (s6 + s7))}, then its last {@code n % 8} values one by one (fewer than eight values: one by one); a
 * longer run is split in two at half its length rounded down to a multiple of eight, and the halves' sums added.
 * The rounding error grows with the logarithm of the count, not with the count as in a running sum (10<sup>7</sup>
 * times 0.1: exactly 1,000,000 here, 1,000,000.00004 in four interleaved running sums), for the same work.
 *
 * <p>Every layout of the same values (a dense array, a strided view, a heap array) is summed in this one order, so
 * gives the same bits (a NaN result excepted: which NaN's payload survives an addition of two is the compiled
 * code's choice): dense doubles through {@link #ofDense}, any other through an instance fed one value at a
 * time, in row-major order, which walks the same tree. Callers add the result to {@code 0.0}, as NumPy adds it to
 * the reduction's identity (a sum of negative zeros is {@code 0.0}).
 */
final class PairwiseSum {
    /** The longest run summed without a split. */
    static final int BLOCK = 128;
    private static final int LANES = 8;

    // the unfinished splits, outermost first: the length of each one's second half, and its first half's sum
    // once it has one (a split's halves are each at least half as long: at most 64 are ever open)
    private final long[] secondHalf = new long[64];
    private final double[] firstHalfSum = new double[64];
    private final boolean[] inSecondHalf = new boolean[64];
    private int splits;
    // the run being summed
    private final double[] lanes = new double[LANES];
    private long runLength;
    private long runSeen;
    private double runTail;
    private double result;

    /** @param count how many values {@link #add} will be given */
    PairwiseSum(long count) {
        if (count > 0) {
            descend(count);
        }
    }

    /** Adds the next value (row-major order). */
    void add(double v) {
        final long i = runSeen++;
        final long laned = runLength < LANES ? 0 : runLength - runLength % LANES;
        if (i < LANES && i < laned) {
            lanes[(int) i] = v;
        } else if (i < laned) {
            lanes[(int) (i & (LANES - 1))] += v;
        } else {
            if (i == laned && laned > 0) {
                runTail = laneSum(lanes);
            }
            runTail += v;
        }
        if (runSeen == runLength) {
            endRun(runLength % LANES == 0 ? laneSum(lanes) : runTail);
        }
    }

    /** @return the sum of the values given (0.0 for none); valid once all have been */
    double result() {
        return result;
    }

    /** Opens the splits down to the first run of a range of {@code n} values. */
    private void descend(long n) {
        while (n > BLOCK) {
            final long first = firstHalf(n);
            secondHalf[splits] = n - first;
            inSecondHalf[splits] = false;
            splits++;
            n = first;
        }
        runLength = n;
        runSeen = 0;
        runTail = -0.0;
    }

    private void endRun(double sum) {
        double s = sum;
        while (splits > 0) {
            final int top = splits - 1;
            if (!inSecondHalf[top]) {
                firstHalfSum[top] = s;
                inSecondHalf[top] = true;
                descend(secondHalf[top]);
                return;
            }
            s = firstHalfSum[top] + s;
            splits--;
        }
        result = s;
    }

    private static long firstHalf(long n) {
        final long half = n / 2;
        return half - half % LANES;
    }

    private static double laneSum(double[] r) {
        return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    }

    /**
     * @param base   the object holding the doubles, {@code null} when off the heap
     * @param offset the first one's offset in {@code base}, or its address
     * @param n      how many
     * @return their sum in the order above (not yet added to {@code 0.0})
     */
    static double ofDense(Object base, long offset, long n) {
        if (n > BLOCK) {
            final long first = firstHalf(n);
            return ofDense(base, offset, first) + ofDense(base, offset + first * Double.BYTES, n - first);
        }
        if (n < LANES) {
            double s = -0.0;
            for (long i = 0; i < n; i++) {
                s += UnsafeApi.getDouble(base, offset + i * Double.BYTES);
            }
            return s;
        }
        double r0 = UnsafeApi.getDouble(base, offset);
        double r1 = UnsafeApi.getDouble(base, offset + 8);
        double r2 = UnsafeApi.getDouble(base, offset + 16);
        double r3 = UnsafeApi.getDouble(base, offset + 24);
        double r4 = UnsafeApi.getDouble(base, offset + 32);
        double r5 = UnsafeApi.getDouble(base, offset + 40);
        double r6 = UnsafeApi.getDouble(base, offset + 48);
        double r7 = UnsafeApi.getDouble(base, offset + 56);
        final long laned = n - n % LANES;
        long i = LANES;
        for (; i < laned; i += LANES) {
            final long at = offset + i * Double.BYTES;
            r0 += UnsafeApi.getDouble(base, at);
            r1 += UnsafeApi.getDouble(base, at + 8);
            r2 += UnsafeApi.getDouble(base, at + 16);
            r3 += UnsafeApi.getDouble(base, at + 24);
            r4 += UnsafeApi.getDouble(base, at + 32);
            r5 += UnsafeApi.getDouble(base, at + 40);
            r6 += UnsafeApi.getDouble(base, at + 48);
            r7 += UnsafeApi.getDouble(base, at + 56);
        }
        double s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
        for (; i < n; i++) {
            s += UnsafeApi.getDouble(base, offset + i * Double.BYTES);
        }
        return s;
    }

    /**
     * @return the sum of the products of {@code n} doubles at each base and offset, pairwise in the order above
     *     (not yet added to {@code 0.0}); see {@link #ofDense} for the arguments
     */
    static double ofDenseProducts(Object a, long aOffset, Object b, long bOffset, long n) {
        if (n > BLOCK) {
            final long first = firstHalf(n);
            final long skip = first * Double.BYTES;
            return ofDenseProducts(a, aOffset, b, bOffset, first)
                + ofDenseProducts(a, aOffset + skip, b, bOffset + skip, n - first);
        }
        if (n < LANES) {
            double s = -0.0;
            for (long i = 0; i < n; i++) {
                s += product(a, aOffset, b, bOffset, i * Double.BYTES);
            }
            return s;
        }
        double r0 = product(a, aOffset, b, bOffset, 0);
        double r1 = product(a, aOffset, b, bOffset, 8);
        double r2 = product(a, aOffset, b, bOffset, 16);
        double r3 = product(a, aOffset, b, bOffset, 24);
        double r4 = product(a, aOffset, b, bOffset, 32);
        double r5 = product(a, aOffset, b, bOffset, 40);
        double r6 = product(a, aOffset, b, bOffset, 48);
        double r7 = product(a, aOffset, b, bOffset, 56);
        final long laned = n - n % LANES;
        long i = LANES;
        for (; i < laned; i += LANES) {
            final long at = i * Double.BYTES;
            r0 += product(a, aOffset, b, bOffset, at);
            r1 += product(a, aOffset, b, bOffset, at + 8);
            r2 += product(a, aOffset, b, bOffset, at + 16);
            r3 += product(a, aOffset, b, bOffset, at + 24);
            r4 += product(a, aOffset, b, bOffset, at + 32);
            r5 += product(a, aOffset, b, bOffset, at + 40);
            r6 += product(a, aOffset, b, bOffset, at + 48);
            r7 += product(a, aOffset, b, bOffset, at + 56);
        }
        double s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
        for (; i < n; i++) {
            s += product(a, aOffset, b, bOffset, i * Double.BYTES);
        }
        return s;
    }

    private static double product(Object a, long aOffset, Object b, long bOffset, long at) {
        return UnsafeApi.getDouble(a, aOffset + at) * UnsafeApi.getDouble(b, bOffset + at);
    }
}
