package dev.sharray.cli.demo;

import com.sun.jna.Pointer;
import dev.sharray.SharedArray;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.SharedStripes;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;

/**
 * The per-stripe work of the demo, written so it can run in any worker: it needs only the two shared
 * arrays (which cross as descriptors), the layout and a stripe number.
 */
final class DemoTasks {
    /** Fill values cycle so every partial sum is an exact integer in a double. */
    static final int PERIOD = 1000;

    private DemoTasks() {
    }

    private static DoubleBuffer doubles(SharedArray data, StripeLayout l, int g) {
        long bytes = l.elementsPerStripe() * 8;
        return StripeMemory.bytes(data, (long) g * bytes, bytes).asDoubleBuffer();
    }

    /** x[i] = i mod 1000 over stripe g. */
    static Void fill(SharedArray data, StripeLayout l, int g) {
        StripeMemory.prefault(data, null, l, g);
        DoubleBuffer d = doubles(data, l, g);
        long first = (long) g * l.elementsPerStripe();
        int n = d.capacity();
        int v = (int) (first % PERIOD);
        for (int i = 0; i < n; i++) {
            d.put(i, v);
            if (++v == PERIOD) {
                v = 0;
            }
        }
        return null;
    }

    /** x *= 2 in place over stripe g. */
    static Void scale(SharedArray data, StripeLayout l, int g) {
        StripeMemory.prefault(data, null, l, g);
        DoubleBuffer d = doubles(data, l, g);
        int n = d.capacity();
        for (int i = 0; i < n; i++) {
            d.put(i, d.get(i) * 2.0);
        }
        return null;
    }

    /** @return the sum of stripe g */
    static Double sum(SharedArray data, StripeLayout l, int g) {
        StripeMemory.prefault(data, null, l, g);
        DoubleBuffer d = doubles(data, l, g);
        int n = d.capacity();
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += d.get(i);
        }
        return s;
    }

    /** Computes stripe g's parity in place. */
    static Void encode(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        StripeMemory.prefault(data, parity, l, g);
        codec(l).encode(StripeMemory.shards(data, parity, l, g));
        return null;
    }

    /** Overwrites the shards the demo erases in stripe g with junk. */
    static Void destroy(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        StripeMemory.prefault(data, parity, l, g);
        for (int e : StripeMemory.erased(l, g)) {
            long off = e < l.k() ? ((long) g * l.k() + e) * l.shardLength() : ((long) g * l.m() + e - l.k()) * l.shardLength();
            new Pointer((e < l.k() ? data : parity).address()).setMemory(off, l.shardLength(), (byte) 0xA5);
        }
        return null;
    }

    /** Rebuilds the erased shards of stripe g in place. */
    static Void reconstruct(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        StripeMemory.prefault(data, parity, l, g);
        boolean[] present = new boolean[l.k() + l.m()];
        java.util.Arrays.fill(present, true);
        for (int e : StripeMemory.erased(l, g)) {
            present[e] = false;
        }
        codec(l).reconstruct(StripeMemory.shards(data, parity, l, g), present);
        return null;
    }

    /** @return whether stripe g holds exactly 2 * (i mod 1000) and its parity is consistent */
    static Boolean verify(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        StripeMemory.prefault(data, parity, l, g);
        DoubleBuffer d = doubles(data, l, g);
        long first = (long) g * l.elementsPerStripe();
        int n = d.capacity();
        int v = (int) (first % PERIOD);
        for (int i = 0; i < n; i++) {
            if (Double.doubleToRawLongBits(d.get(i)) != Double.doubleToRawLongBits(2.0 * v)) {
                return false;
            }
            if (++v == PERIOD) {
                v = 0;
            }
        }
        ByteBuffer[] shards = StripeMemory.shards(data, parity, l, g);
        return codec(l).verify(shards);
    }

    /** @return the exact expected sum after scaling: 2 * sum of (i mod 1000) for i below n */
    static double expectedSum(long n) {
        long q = n / PERIOD;
        long r = n % PERIOD;
        return 2.0 * (q * (PERIOD * (PERIOD - 1L) / 2) + r * (r - 1) / 2);
    }

    private static ErasureCodec codec(StripeLayout l) {
        return SharedStripes.codec(l.k(), l.m(), Matrix.VANDERMONDE);
    }
}
