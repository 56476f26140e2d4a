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
