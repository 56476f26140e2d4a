package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
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

    /**
     * Another thread flipping the caller's {@code present} during a reconstruct must not leave a decode plan for
     * one erasure pattern cached under another's key. The racing calls flip shard 0 between present
     * ({T,T,T,F}: rebuild shard 3 from 0 and 1) and missing ({F,T,T,F}: rebuild 0 and 3 from 1 and 2). Before,
     * the key was made from one reading of the array and the plan from a second: with the byte[][] form ~2% of
     * fresh codecs (433 of 20,000), and with the stripe form ~5% (146 of 3,000), kept the {T,T,T,F} plan under
     * the {F,T,T,F} key, and every later, correct reconstruct of {F,T,T,F} on that codec silently read the
     * missing shard 0 as a survivor and left it unrebuilt, with a wrong shard 3. Now the flags are copied once
     * per call and the checks, the plan and its key all come from the copy.
     */
    @Test
    void presentFlagsChangedByAnotherThreadCannotPoisonThePlanCache() throws Exception {
        int k = 2;
        int m = 2;
        int len = 64;
        byte[][] original = Codecs.randomStripe(new Random(11), k, m, len);
        ErasureCodec.create(k, m).encode(original);
        boolean[] racy = {false, true, true, false};
        AtomicBoolean stop = new AtomicBoolean();
        Thread flipper = new Thread(() -> {
            while (!stop.get()) {
                racy[0] = !racy[0];
            }
        });
        flipper.setDaemon(true);
        flipper.start();
        try (SharedArray stripe = SharedArray.create(DType.UINT8, k + m, len)) {
            for (int round = 0; round < 12_000; round++) {
                ErasureCodec codec = ErasureCodec.create(k, m); // a fresh, empty plan cache
                if (round % 6 == 5) {
                    codec.reconstruct(stripe, racy);
                } else {
                    codec.reconstruct(Codecs.copy(original), racy);
                }
                byte[][] lost = Codecs.copy(original);
                lost[0] = new byte[len];
                lost[3] = null;
                codec.reconstruct(lost, new boolean[] {false, true, true, false});
                for (int i = 0; i < k + m; i++) {
                    assertArrayEquals(original[i], lost[i], "round " + round + ": shard " + i + " rebuilt by the "
                        + "plan cached for {F,T,T,F}");
                }
            }
        } finally {
            stop.set(true);
            flipper.join();
        }
    }
}
