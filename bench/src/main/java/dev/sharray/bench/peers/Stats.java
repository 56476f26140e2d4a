package dev.sharray.bench.peers;

import java.util.Arrays;

/** Small statistics helpers. */
public final class Stats {
    private Stats() {
    }

    /**
     * @param values samples (not modified)
     * @return their median, NaN when empty
     */
    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /**
     * @param values samples
     * @return the smallest, NaN when empty
     */
    public static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    /**
     * @param values samples
     * @return the largest, NaN when empty
     */
    public static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }
}
