package dev.sharray.cli.demo;


/**
 * How the demo array is cut into RS(k, m) stripes: {@code stripes} groups of k data shards of
 * {@code shardLength} bytes each, back to back in the FLOAT64 array; parity row {@code g*m + j} of a UINT8
 * (stripes*m, shardLength) array holds parity shard j of stripe g.
 *
 * @param k           data shards per stripe
 * @param m           parity shards per stripe
 * @param stripes     number of stripes
 * @param shardLength bytes per shard, a multiple of 64
 */
public record StripeLayout(int k, int m, int stripes, long shardLength) {
    private static final long TARGET_STRIPE = 16L << 20;

    /**
     * @param bytes   requested array size
     * @param k       data shards
     * @param m       parity shards
     * @param workers workers, so that there are enough stripes to balance
     * @return a layout covering at least {@code bytes}
     */
    public static StripeLayout plan(long bytes, int k, int m, int workers) {
        long g = Math.max(4L * workers, (bytes + TARGET_STRIPE - 1) / TARGET_STRIPE);
        long s = (bytes + g * k - 1) / (g * k);
        s = (s + 63) & ~63L;
        return new StripeLayout(k, m, (int) g, s);
    }

    /** @return bytes of the data array */
    long dataBytes() {
        return (long) stripes * k * shardLength;
    }

    /** @return bytes of the parity array */
    long parityBytes() {
        return (long) stripes * m * shardLength;
    }

    /** @return FLOAT64 elements in the data array */
    long elements() {
        return dataBytes() / 8;
    }

    /** @return FLOAT64 elements per stripe */
    long elementsPerStripe() {
        return (long) k * shardLength / 8;
    }
}
