package dev.sharray;

/**
 * NumPy 2's {@code pairwise_sum} (numpy/_core/src/umath/loops_utils.h.src) written as it is there, recursively over
 * an array: what the tests expect {@link NdArray#sum()} and {@link NdArray#dot} to add up, and in which order.
 */
final class PairwiseReference {
    private PairwiseReference() {
    }

    /** @return {@code 0.0 +} the pairwise sum of {@code values}, as {@code numpy.add.reduce} answers */
    static double sum(double[] values) {
        return 0.0 + sum(values, 0, values.length);
    }

    private static double sum(double[] a, int from, int n) {
        if (n < 8) {
            double res = -0.0;
            for (int i = 0; i < n; i++) {
                res += a[from + i];
            }
            return res;
        }
        if (n <= 128) {
            final double[] r = new double[8];
            System.arraycopy(a, from, r, 0, 8);
            int i = 8;
            for (; i < n - n % 8; i += 8) {
                for (int j = 0; j < 8; j++) {
                    r[j] += a[from + i + j];
                }
            }
            double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            for (; i < n; i++) {
                res += a[from + i];
            }
            return res;
        }
        int n2 = n / 2;
        n2 -= n2 % 8;
        return sum(a, from, n2) + sum(a, from + n2, n - n2);
    }
}
