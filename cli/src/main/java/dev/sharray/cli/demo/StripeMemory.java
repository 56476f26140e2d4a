package dev.sharray.cli.demo;

import dev.sharray.SharedArray;
import dev.sharray.cli.SharedMemory;
import java.nio.ByteBuffer;

/** Direct-buffer views of a stripe's shards straight on shared memory (no copy). */
final class StripeMemory {
    private StripeMemory() {
    }

    /** @return a little-endian direct buffer over {@code len} bytes of {@code a} from byte {@code offset} */
    static ByteBuffer bytes(SharedArray a, long offset, long len) {
        return SharedMemory.bytes(a, offset, len);
    }

    /** @return the k + m shard buffers of stripe {@code g} */
    static ByteBuffer[] shards(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        ByteBuffer[] s = new ByteBuffer[l.k() + l.m()];
        long base = (long) g * l.k() * l.shardLength();
        for (int i = 0; i < l.k(); i++) {
            s[i] = bytes(data, base + i * l.shardLength(), l.shardLength());
        }
        for (int j = 0; j < l.m(); j++) {
            s[l.k() + j] = bytes(parity, ((long) g * l.m() + j) * l.shardLength(), l.shardLength());
        }
        return s;
    }

    /**
     * Populates this process's page tables for stripe {@code g} of {@code data} (and of {@code parity} unless
     * null) in one call per array instead of a page fault per 4 KiB page on first touch. A task may run on
     * any worker, so each worker meets stripes it has not touched yet; once done for a stripe this costs
     * next to nothing (see {@link SharedArray#prefault()}).
     */
    static void prefault(SharedArray data, SharedArray parity, StripeLayout l, int g) {
        final long elements = l.elementsPerStripe();
        try (SharedArray d = data.slice(0, g * elements, (g + 1) * elements, 1)) {
            d.prefault();
        }
        if (parity != null) {
            try (SharedArray p = parity.slice(0, (long) g * l.m(), (long) (g + 1) * l.m(), 1)) {
                p.prefault();
            }
        }
    }

    /** The shards of stripe {@code g} the demo destroys: four of the fourteen, rotating per stripe. */
    static int[] erased(StripeLayout l, int g) {
        int n = l.k() + l.m();
        int[] e = new int[l.m()];
        for (int j = 0; j < e.length; j++) {
            e[j] = (g + j * (n / l.m())) % n;
        }
        return e;
    }
}
