package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReconstructTest {

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void everyErasurePatternOfRs63Reconstructs(Matrix matrix) {
        Random rnd = new Random(63);
        int k = 6;
        int m = 3;
        int n = k + m;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            byte[][] original = Codecs.randomStripe(rnd, k, m, 77);
            codec.encode(original);
            int patterns = 0;
            for (int mask = 0; mask < 1 << n; mask++) {
                if (Integer.bitCount(mask) > m) {
                    continue;
                }
                boolean[] present = new boolean[n];
                byte[][] s = Codecs.copy(original);
                for (int i = 0; i < n; i++) {
                    present[i] = (mask & 1 << i) == 0;
                    if (!present[i]) {
                        s[i] = (i & 1) == 0 ? null : new byte[77];
                    }
                }
                codec.reconstruct(s, present);
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(original[i], s[i], codec + " mask " + Integer.toBinaryString(mask) + " shard " + i);
                }
                patterns++;
            }
            assertTrue(patterns == 130, "1 + 9 + 36 + 84 patterns, got " + patterns);
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void randomPatternsOfRs104AndRs173ReconstructOnArraysAndBuffers(Matrix matrix) {
        Random rnd = new Random(104);
        for (int[] km : new int[][] {{10, 4}, {17, 3}}) {
            int k = km[0];
            int m = km[1];
            int n = k + m;
            for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
                for (int round = 0; round < 25; round++) {
                    int len = 1 + rnd.nextInt(5000);
                    byte[][] original = Codecs.randomStripe(rnd, k, m, len);
                    codec.encode(original);
                    boolean[] present = randomPresent(rnd, n, 1 + rnd.nextInt(m));
                    byte[][] s = Codecs.copy(original);
                    ByteBuffer[] b = new ByteBuffer[n];
                    for (int i = 0; i < n; i++) {
                        b[i] = ByteBuffer.allocateDirect(len);
                        if (present[i]) {
                            b[i].put(0, original[i]);
                        } else {
                            s[i] = null;
                        }
                    }
                    codec.reconstruct(s, present);
                    codec.reconstruct(b, present);
                    for (int i = 0; i < n; i++) {
                        assertArrayEquals(original[i], s[i], codec + " shard " + i);
                        byte[] got = new byte[len];
                        b[i].get(0, got);
                        assertArrayEquals(original[i], got, codec + " buffer shard " + i);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void reconstructDataLeavesMissingParityAlone(Matrix matrix) {
        Random rnd = new Random(5);
        int k = 10;
        int m = 4;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            byte[][] original = Codecs.randomStripe(rnd, k, m, 999);
            codec.encode(original);
            boolean[] present = new boolean[k + m];
            java.util.Arrays.fill(present, true);
            present[1] = false;
            present[7] = false;
            present[11] = false;
            present[13] = false;
            byte[][] s = Codecs.copy(original);
            s[1] = null;
            s[7] = null;
            s[11] = null;
            byte[] untouched = new byte[999];
            s[13] = untouched;
            codec.reconstructData(s, present);
            assertArrayEquals(original[1], s[1], codec + " data 1");
            assertArrayEquals(original[7], s[7], codec + " data 7");
            assertNull(s[11], codec + " parity 11 must stay null");
            assertSame(untouched, s[13]);
            assertArrayEquals(new byte[999], s[13], codec + " parity 13 must not be written");
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void patternsBeyondThePlanCacheAreComputedPerCallAndStillReconstruct(Matrix matrix) {
        // RS(120,120): a plan's tables are large, so the cache holds few of them; every pattern here is new
        Random rnd = new Random(120);
        int k = 120;
        int m = 120;
        int n = k + m;
        int len = 97;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            int patterns = codec.maxCachedPlans() + 10;
            byte[][] original = Codecs.randomStripe(rnd, k, m, len);
            codec.encode(original);
            for (int p = 0; p < patterns; p++) {
                boolean[] present = randomPresent(rnd, n, 1 + rnd.nextInt(m));
                byte[][] s = Codecs.copy(original);
                for (int i = 0; i < n; i++) {
                    if (!present[i]) {
                        s[i] = null;
                    }
                }
                codec.reconstruct(s, present);
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(original[i], s[i], codec + " pattern " + p + " shard " + i);
                }
            }
            assertTrue(codec.cachedPlanCount() <= codec.maxCachedPlans(),
                codec + ": " + codec.cachedPlanCount() + " plans cached, bound " + codec.maxCachedPlans());
            assertTrue(codec.cachedPlanCount() < patterns, codec + ": the patterns beyond the bound were not cached");
        }
    }

    /**
     * Concurrent misses each found room in the plan cache (its size was read before a plan was made) and each cached
     * their plan: RS(128,128) on 300 threads cached 55 plans against a bound of 51. Here four misses decide together
     * with one place left; before, all four were cached.
     */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "JAVA"})
    void concurrentMissesNeverCacheMorePlansThanTheBound(Backend backend) throws Exception {
        int k = 128;
        int n = 2 * k;
        int threads = 4;
        ErasureCodec codec = ErasureCodec.builder(k, k).backend(backend).build();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            int max = codec.maxCachedPlans();
            assertTrue(max + threads <= n, "too few single-shard patterns for a bound of " + max);
            for (int p = 0; p < max - 1; p++) {
                codec.planTableBytes(allBut(n, p));
            }
            assertEquals(max - 1, codec.cachedPlanCount());
            java.util.concurrent.CyclicBarrier decided = new java.util.concurrent.CyclicBarrier(threads);
            codec.afterPlanPlaceDecided(() -> {
                try {
                    decided.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            java.util.List<java.util.concurrent.Future<Long>> calls = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                boolean[] present = allBut(n, max - 1 + t);
                calls.add(pool.submit(() -> codec.planTableBytes(present)));
            }
            for (java.util.concurrent.Future<Long> call : calls) {
                assertTrue(call.get(60, java.util.concurrent.TimeUnit.SECONDS) > 0);
            }
            codec.afterPlanPlaceDecided(null);
            assertEquals(max, codec.cachedPlanCount(), codec + ": bound " + max);
        } finally {
            pool.shutdownNow();
            codec.close();
        }
    }

    private static boolean[] allBut(int n, int missing) {
        boolean[] present = new boolean[n];
        java.util.Arrays.fill(present, true);
        present[missing] = false;
        return present;
    }

    /**
     * The plan cache's bound keeps the tables of a wide code's cached plans within 64 MiB (or 16 plans, the
     * floor) on every backend. Before, every backend was counted at the native kernels' 40 table bytes per
     * coefficient, but the JAVA backend's tables take 2 x its vector length + 4 bytes (132 with 512-bit
     * vectors), on the Java heap: RS(128,128) cached up to 51 plans of 4.3 MB, 220 MB, and with -Xmx256m a
     * loop of new erasure patterns ended in OutOfMemoryError within 200 calls.
     */
    @Test
    void thePlanCacheBoundCountsEachBackendsOwnTables() {
        int k = 128;
        int m = 128;
        boolean[] worst = new boolean[k + m]; // m data shards lost: m x k rows for all, again for data only
        java.util.Arrays.fill(worst, m, k + m, true);
        for (ErasureCodec codec : Codecs.all(k, m, Matrix.VANDERMONDE)) {
            long planBytes = codec.planTableBytes(worst);
            long cached = codec.maxCachedPlans() * planBytes;
            assertTrue(cached <= Math.max(64L << 20, 16 * planBytes), codec + ": " + codec.maxCachedPlans()
                + " plans of " + planBytes + " table bytes = " + cached + " bytes");
        }
    }

    /**
     * A plan the full cache does not keep belongs to its one call, which frees its native tables when it ends.
     * Before, they waited for the garbage collector, which the Java heap seldom calls on while only native memory
     * grows: RS(128,128) reconstructs of 1-byte shards over new erasure patterns held 1.1 GB of resident memory
     * with the default heap and 2.0 GB with -Xmx16g (each plan up to 1.3 MB of tables, the Java heap at 170-410
     * MB). Here 20 such calls left 20 plans' tables allocated.
     */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void plansBeyondTheCacheFreeTheirNativeTablesWhenTheCallEnds(Backend backend) {
        int k = 128;
        int m = 128;
        int n = k + m;
        Random rnd = new Random(128);
        ErasureCodec codec = ErasureCodec.builder(k, m).backend(backend).build();
        byte[][] original = Codecs.randomStripe(rnd, k, m, 7);
        codec.encode(original);
        long before = 0;
        for (int call = 0, beyond = 0; beyond < 20; call++) {
            if (codec.cachedPlanCount() == codec.maxCachedPlans() && before == 0) {
                before = NativeMemoryTables.BYTES_NOT_FREED.get(); // the cache is full: every new pattern is computed per call
            }
            boolean[] present = randomPresent(rnd, n, 1 + rnd.nextInt(m));
            byte[][] s = Codecs.copy(original);
            for (int i = 0; i < n; i++) {
                if (!present[i]) {
                    s[i] = null;
                }
            }
            if (call % 2 == 0) {
                codec.reconstruct(s, present);
            } else {
                codec.reconstructData(s, present);
            }
            for (int i = 0; i < (call % 2 == 0 ? n : k); i++) {
                assertArrayEquals(original[i], s[i], codec + " call " + call + " shard " + i);
            }
            beyond += before != 0 ? 1 : 0;
        }
        assertEquals(before, NativeMemoryTables.BYTES_NOT_FREED.get(), codec + ": native table bytes left by 20 uncached plans");
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void reconstructDataAcceptsMissingParityItWillNotWrite(Matrix matrix) {
        // a read-only buffer, and one aliasing a data shard, in missing parity slots: never written, so allowed
        Random rnd = new Random(7);
        int k = 4;
        int m = 3;
        int len = 300;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            byte[][] original = Codecs.randomStripe(rnd, k, m, len);
            codec.encode(original);
            ByteBuffer[] b = new ByteBuffer[k + m];
            for (int i = 0; i < k + m; i++) {
                b[i] = ByteBuffer.allocateDirect(len).put(0, original[i]);
            }
            boolean[] present = {true, false, true, true, true, false, false};
            ByteBuffer lostData = b[1];
            lostData.put(0, new byte[len]);
            b[5] = ByteBuffer.allocateDirect(len).asReadOnlyBuffer();
            b[6] = b[0].duplicate();
            codec.reconstructData(b, present);
            byte[] got = new byte[len];
            lostData.get(0, got);
            assertArrayEquals(original[1], got, codec + " rebuilt data");
            byte[][] heap = Codecs.copy(original);
            heap[1] = new byte[len];
            heap[6] = heap[0]; // aliases a data shard, but is a missing parity slot: not written
            codec.reconstructData(heap, present);
            assertArrayEquals(original[1], heap[1], codec + " rebuilt heap data");
            assertArrayEquals(original[0], heap[0], codec + " data 0 untouched");
        }
    }

    static boolean[] randomPresent(Random rnd, int n, int lost) {
        boolean[] present = new boolean[n];
        java.util.Arrays.fill(present, true);
        for (int l = 0; l < lost; ) {
            int i = rnd.nextInt(n);
            if (present[i]) {
                present[i] = false;
                l++;
            }
        }
        return present;
    }
}
