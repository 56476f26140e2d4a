package dev.sharray.codec;

import java.util.Arrays;

/**
 * The set of present shards (up to 256) as a bitmap, the key of the decode-plan cache. A per-thread
 * mutable instance probes the cache without allocating; only a miss stores an immutable copy.
 */
final class PatternKey {
    private final long[] bits = new long[ErasureCodec.MAX_SHARDS / 64];
    private int hash;

    PatternKey set(boolean[] present) {
        Arrays.fill(bits, 0L);
        for (int i = 0; i < present.length; i++) {
            if (present[i]) {
                bits[i >>> 6] |= 1L << i;
            }
        }
        hash = Arrays.hashCode(bits);
        return this;
    }

    PatternKey copy() {
        PatternKey c = new PatternKey();
        System.arraycopy(bits, 0, c.bits, 0, bits.length);
        c.hash = hash;
        return c;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PatternKey && Arrays.equals(bits, ((PatternKey) o).bits);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
