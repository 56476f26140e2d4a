package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One codec shared by several threads encoding, verifying and reconstructing different stripes. */
class ConcurrencyTest {

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL", "JAVA"})
    void oneCodecManyThreads(Backend backend) throws Exception {
        ErasureCodec codec = ErasureCodec.builder(10, 4).backend(backend).build();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                results.add(pool.submit(() -> {
                    start.await();
                    return work(codec, new Random(seed));
                }));
            }
            start.countDown();
            for (Future<Integer> f : results) {
                assertTrue(f.get(120, TimeUnit.SECONDS) > 0);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static int work(ErasureCodec codec, Random rnd) {
        int k = codec.dataShards();
        int n = codec.totalShards();
        int rounds = 0;
        for (; rounds < 60; rounds++) {
            int len = 1 + rnd.nextInt(50_000);
            byte[][] original = Codecs.randomStripe(rnd, k, n - k, len);
            byte[][] expected = Codecs.copy(original);
            ReferenceCodec.encode(Matrix.VANDERMONDE, k, n - k, expected);
            codec.encode(original);
            for (int i = k; i < n; i++) {
                assertArrayEquals(expected[i], original[i], "encode");
            }
            // Random erasure patterns exercise the shared decode-plan cache from all threads at once.
            boolean[] present = ReconstructTest.randomPresent(rnd, n, 1 + rnd.nextInt(n - k));
            byte[][] s = Codecs.copy(original);
            ByteBuffer[] b = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                b[i] = ByteBuffer.allocateDirect(len).put(0, original[i]);
                if (!present[i]) {
                    s[i] = null;
                    b[i].put(0, new byte[len]);
                }
            }
            codec.reconstruct(s, present);
            codec.reconstruct(b, present);
            for (int i = 0; i < n; i++) {
                assertArrayEquals(original[i], s[i], "reconstruct shard " + i);
                byte[] got = new byte[len];
                b[i].get(0, got);
                assertArrayEquals(original[i], got, "reconstruct buffer shard " + i);
            }
            assertTrue(codec.verify(b), "verify");
        }
        return rounds;
    }
}
