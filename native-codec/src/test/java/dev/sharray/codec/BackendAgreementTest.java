package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ChildJvm;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class BackendAgreementTest {
    private static final int[][] SHAPES = {{1, 1}, {2, 1}, {3, 2}, {4, 4}, {5, 3}, {6, 3}, {10, 4}, {8, 9}, {17, 3},
        {12, 12}, {20, 11}, {50, 20}, {200, 56}};
    private static final int[] LENGTHS = {1, 2, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 129, 1000, 4097,
        16384 + 7, 40000};

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void everyBackendAndLevelProducesTheSameParity(Matrix matrix) {
        Random rnd = new Random(42 + matrix.ordinal());
        for (int[] km : SHAPES) {
            int k = km[0];
            int m = km[1];
            List<ErasureCodec> codecs = Codecs.all(k, m, matrix);
            for (int len : LENGTHS) {
                if ((long) (k + m) * len > 3_000_000) {
                    continue; // keep the big shapes quick; they are covered at the shorter lengths
                }
                byte[][] reference = Codecs.randomStripe(rnd, k, m, len);
                ReferenceCodec.encode(matrix, k, m, reference);
                for (ErasureCodec codec : codecs) {
                    byte[][] s = Codecs.copy(reference);
                    for (int p = k; p < k + m; p++) {
                        rnd.nextBytes(s[p]); // stale parity must be overwritten, not accumulated
                    }
                    codec.encode(s);
                    for (int p = k; p < k + m; p++) {
                        assertArrayEquals(reference[p], s[p], codec + " len " + len + " parity " + p);
                    }
                    assertTrue(codec.verify(s), codec + " verify len " + len);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void directBuffersMatchArraysAndHonourPositionAndLimit(Matrix matrix) {
        Random rnd = new Random(7);
        int k = 10;
        int m = 4;
        for (int len : new int[] {1, 63, 1000, 70001}) {
            byte[][] reference = Codecs.randomStripe(rnd, k, m, len);
            ReferenceCodec.encode(matrix, k, m, reference);
            for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
                ByteBuffer[] bufs = new ByteBuffer[k + m];
                for (int i = 0; i < k + m; i++) {
                    // 3 bytes of padding on each side, poisoned, to prove only position..limit is touched.
                    ByteBuffer b = ByteBuffer.allocateDirect(len + 6);
                    for (int j = 0; j < len + 6; j++) {
                        b.put(j, (byte) 0x5A);
                    }
                    if (i < k) {
                        b.put(3, reference[i]);
                    }
                    b.position(3).limit(3 + len);
                    bufs[i] = b;
                }
                codec.encode(bufs);
                assertTrue(codec.verify(bufs), codec + " verify");
                for (int p = k; p < k + m; p++) {
                    ByteBuffer b = bufs[p];
                    assertEquals(3, b.position());
                    assertEquals(3 + len, b.limit());
                    byte[] got = new byte[len];
                    b.get(3, got);
                    assertArrayEquals(reference[p], got, codec + " len " + len + " parity " + p);
                    ByteBuffer whole = b.duplicate().clear();
                    for (int j : new int[] {0, 1, 2, len + 3, len + 4, len + 5}) {
                        assertEquals((byte) 0x5A, whole.get(j), codec + " wrote outside position..limit at " + j);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void offsetAndLengthEncodeOnlyThatRange(Matrix matrix) {
        Random rnd = new Random(3);
        byte[][] reference = Codecs.randomStripe(rnd, 6, 3, 300);
        ReferenceCodec.encode(matrix, 6, 3, reference);
        for (ErasureCodec codec : Codecs.all(6, 3, matrix)) {
            byte[][] s = Codecs.copy(reference);
            for (int p = 6; p < 9; p++) {
                java.util.Arrays.fill(s[p], (byte) 1);
            }
            codec.encode(s, 37, 200);
            for (int p = 6; p < 9; p++) {
                for (int i = 0; i < 300; i++) {
                    byte expected = i >= 37 && i < 237 ? reference[p][i] : 1;
                    assertEquals(expected, s[p][i], codec + " parity " + p + " byte " + i);
                }
            }
        }
    }

    /**
     * Child side of {@link #heapShardsAtTheIntLimitCodeOnEveryBackend}: each engine multiplies the last 100 bytes
     * of an array of the largest length a JVM allocates by 2, in place (one array keeps the child at 2 GiB; a
     * codec call would need two). Prints each outcome: the bytes from {@code len - 101}, or the exception.
     */
    public static final class AtTheIntLimit {
        public static void main(String[] args) {
            int len = Integer.MAX_VALUE - 8;
            byte[] shard = new byte[len];
            for (String name : new String[] {"JAVA", "NATIVE", "JAVA_SCALAR"}) {
                for (int i = 0; i < 100; i++) {
                    shard[len - 100 + i] = (byte) (i + 1);
                }
                Engine engine = name.equals("JAVA_SCALAR") ? new ScalarEngine()
                    : Engines.select(Backend.valueOf(name), null);
                String outcome;
                try {
                    engine.dot(engine.prepare(new int[][] {{2}}), new byte[][] {shard}, new byte[][] {shard},
                        len - 100, 100, false);
                    outcome = Arrays.toString(Arrays.copyOfRange(shard, len - 101, len));
                } catch (RuntimeException e) {
                    outcome = e.toString();
                }
                System.out.println(name + " " + outcome);
            }
        }
    }

    /**
     * Shards within 16 KiB of the int limit (each engine, the scalar Java one too): the JAVA backend's block loop
     * once computed {@code from + 16 KiB} past Integer.MAX_VALUE, skipped the last block and threw IndexOutOfBoundsException on the wrapped index
     * (from {@code encode(byte[][], offset, length)}, {@code reconstruct}, {@code update} alike). A 2 GiB array
     * needs its own JVM.
     */
    @Test
    void heapShardsAtTheIntLimitCodeOnEveryBackend() throws Exception {
        byte[] expected = new byte[101]; // byte len - 101 is outside the range: untouched
        for (int i = 0; i < 100; i++) {
            expected[i + 1] = (byte) Galois.mul(2, i + 1);
        }
        try (ChildJvm child = ChildJvm.start(AtTheIntLimit.class, List.of("-Xmx3g", "-XX:NewRatio=8"))) {
            assertEquals(Arrays.toString(expected), child.expect("JAVA "));
            assertEquals(Arrays.toString(expected), child.expect("NATIVE "));
            assertEquals(Arrays.toString(expected), child.expect("JAVA_SCALAR "));
            assertEquals(0, child.finish());
        }
    }
}
