package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The direct memory a thread keeps for staging heap shards (NATIVE and ISAL) is sized by the shards it codes, not
 * by the 16 KiB chunk: every thread that ever codes keeps it, and with many threads (virtual threads above all) a
 * chunk per shard for small shards ran out of direct memory. Before: 2,000 virtual threads each encoding one
 * RS(10,4) stripe of 100-byte shards (JDK 25, -Xmx256m) kept 232 KiB each, and 871 of the 2,000 calls failed with
 * "OutOfMemoryError: Cannot reserve 8192 bytes of direct buffer memory" after 186 s of retries; now all pass in 2 s.
 */
class ScratchSizeTest {
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void smallShardsKeepLittleStagingMemoryAndStillCodeRight(Backend backend) throws Exception {
        final int k = 10;
        final int m = 4;
        final int len = 100;
        ErasureCodec codec = ErasureCodec.builder(k, m).backend(backend).build();
        ErasureCodec reference = ErasureCodec.builder(k, m).backend(Backend.JAVA).build();
        AtomicInteger kept = new AtomicInteger(-1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread fresh = new Thread(() -> { // a thread whose scratch is new
            try {
                Random rnd = new Random(9);
                byte[][] s = Codecs.randomStripe(rnd, k, m, len);
                codec.encode(s);
                byte[][] expected = Codecs.copy(s);
                reference.encode(expected);
                assertArrayEquals(expected, s, "encode");
                assertTrue(codec.verify(s), "verify");
                s[k + 3][len - 1] ^= 1;
                assertFalse(codec.verify(s), "verify sees the last byte of the last parity shard");
                s[k + 3][len - 1] ^= 1;
                byte[] newData = new byte[len];
                rnd.nextBytes(newData);
                codec.update(s, 4, newData);
                byte[][] reencoded = Codecs.copy(s);
                reference.encode(reencoded);
                assertArrayEquals(reencoded, s, "update");
                try (SharedArray stripe = SharedArray.create(DType.UINT8, k + m, len)) {
                    codec.encode(stripe);
                    codec.update(stripe, 1, newData);
                    assertTrue(codec.verify(stripe), "stripe update");
                }
                kept.set(DirectScratch.get().stagingCapacity());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        fresh.start();
        fresh.join();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        // 14 shards, plus verify's 4 work rows, of 128 bytes each (100 rounded up to 64): 2,304 bytes
        assertEquals((k + m + m) * 128, kept.get(), "staging kept by the thread, in bytes");
    }
}
