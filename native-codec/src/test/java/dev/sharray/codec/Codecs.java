package dev.sharray.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test helpers: every backend configuration this machine can run, and random stripes. */
final class Codecs {
    private Codecs() {
    }

    /**
     * NATIVE at every SIMD level up to the CPU's best, ISAL, JAVA (Vector API) and the scalar Java engine. ISA-L
     * is required, not optional: run-tests.sh installs libisal2, so its absence is a test failure, never a silent
     * skip.
     */
    static List<ErasureCodec> all(int k, int m, Matrix matrix) {
        List<ErasureCodec> r = new ArrayList<>();
        SimdLevel max = ErasureCodec.builder(1, 1).backend(Backend.NATIVE).build().simdLevel();
        for (SimdLevel l : SimdLevel.values()) {
            if (l.nativeCode() >= 0 && l.nativeCode() <= max.nativeCode()) {
                r.add(ErasureCodec.builder(k, m).matrix(matrix).backend(Backend.NATIVE).simdLevel(l).build());
            }
        }
        r.add(ErasureCodec.builder(k, m).matrix(matrix).backend(Backend.ISAL).build());
        r.add(ErasureCodec.builder(k, m).matrix(matrix).backend(Backend.JAVA).build());
        // the JAVA backend's engine where the Vector API is missing; this JVM has it, so it is built directly
        r.add(ErasureCodec.builder(k, m).matrix(matrix).build(new ScalarEngine()));
        return r;
    }

    static byte[][] randomStripe(Random rnd, int k, int m, int len) {
        byte[][] s = new byte[k + m][len];
        for (int i = 0; i < k; i++) {
            rnd.nextBytes(s[i]);
        }
        return s;
    }

    static byte[][] copy(byte[][] s) {
        byte[][] c = new byte[s.length][];
        for (int i = 0; i < s.length; i++) {
            c[i] = s[i] == null ? null : s[i].clone();
        }
        return c;
    }
}
