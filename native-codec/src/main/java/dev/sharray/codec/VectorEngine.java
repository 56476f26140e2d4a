package dev.sharray.codec;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The pure-Java backend: nibble-table lookups with {@code selectFrom} at the preferred vector width,
 * four outputs per pass over the sources, scalar tail. Native shards are staged chunk by chunk through
 * per-thread heap arrays by {@link HeapEngine} (the Vector API has no zero-copy access to raw memory on JDK 17 and
 * 25 alike).
 */
final class VectorEngine extends HeapEngine {
    /** static final, or C2 does not vectorise. */
    private static final VectorSpecies<Byte> S = ByteVector.SPECIES_PREFERRED;
    private static final int VL = S.length();
    /** Bytes per length block: all output groups run over one block so sources stay in cache. */
    private static final int BLOCK = 16 * 1024;

    @Override
    public Backend backend() {
        return Backend.JAVA;
    }

    @Override
    public SimdLevel simdLevel() {
        return SimdLevel.VECTOR_API;
    }

    @Override
    public Tables prepare(int[][] coeffs) {
        return new VectorTables(coeffs);
    }

    @Override
    public void dot(Tables t, byte[][] src, byte[][] dst, int off, int len, boolean acc) {
        VectorTables vt = (VectorTables) t;
        // to = from + min(BLOCK, end - from), never from + BLOCK: within 16 KiB of Integer.MAX_VALUE that sum
        // overflows, which skipped the last block and then indexed the arrays at a negative position
        for (int from = off, end = off + len, to; from < end; from = to) {
            to = from + Math.min(BLOCK, end - from);
            int p = 0;
            for (; p + 4 <= t.rows; p += 4) {
                dot4(vt, p, src, dst[p], dst[p + 1], dst[p + 2], dst[p + 3], from, to, acc);
            }
            for (; p < t.rows; p++) {
                dot1(vt, p, src, dst[p], from, to, acc);
            }
        }
    }

    private static void dot4(VectorTables t, int p0, byte[][] src, byte[] d0, byte[] d1, byte[] d2, byte[] d3,
                             int from, int to, boolean acc) {
        byte[] tab = t.nibbles;
        int cols = t.cols;
        int i = from;
        for (int last = to - VL; i <= last; i += VL) {
            ByteVector a0 = acc ? ByteVector.fromArray(S, d0, i) : ByteVector.zero(S);
            ByteVector a1 = acc ? ByteVector.fromArray(S, d1, i) : ByteVector.zero(S);
            ByteVector a2 = acc ? ByteVector.fromArray(S, d2, i) : ByteVector.zero(S);
            ByteVector a3 = acc ? ByteVector.fromArray(S, d3, i) : ByteVector.zero(S);
            for (int j = 0; j < cols; j++) {
                ByteVector x = ByteVector.fromArray(S, src[j], i);
                ByteVector lo = x.and((byte) 0x0f);
                ByteVector hi = x.lanewise(VectorOperators.LSHR, 4).and((byte) 0x0f);
                int e = (p0 * cols + j) * 2 * VL;
                int stride = cols * 2 * VL;
                a0 = a0.lanewise(VectorOperators.XOR, lookup(tab, e, lo, hi));
                a1 = a1.lanewise(VectorOperators.XOR, lookup(tab, e + stride, lo, hi));
                a2 = a2.lanewise(VectorOperators.XOR, lookup(tab, e + 2 * stride, lo, hi));
                a3 = a3.lanewise(VectorOperators.XOR, lookup(tab, e + 3 * stride, lo, hi));
            }
            a0.intoArray(d0, i);
            a1.intoArray(d1, i);
            a2.intoArray(d2, i);
            a3.intoArray(d3, i);
        }
        if (i < to) {
            scalar(t, p0, src, d0, i, to, acc);
            scalar(t, p0 + 1, src, d1, i, to, acc);
            scalar(t, p0 + 2, src, d2, i, to, acc);
            scalar(t, p0 + 3, src, d3, i, to, acc);
        }
    }

    private static void dot1(VectorTables t, int p, byte[][] src, byte[] d, int from, int to, boolean acc) {
        byte[] tab = t.nibbles;
        int cols = t.cols;
        int i = from;
        for (int last = to - VL; i <= last; i += VL) {
            ByteVector a = acc ? ByteVector.fromArray(S, d, i) : ByteVector.zero(S);
            for (int j = 0; j < cols; j++) {
                ByteVector x = ByteVector.fromArray(S, src[j], i);
                ByteVector lo = x.and((byte) 0x0f);
                ByteVector hi = x.lanewise(VectorOperators.LSHR, 4).and((byte) 0x0f);
                a = a.lanewise(VectorOperators.XOR, lookup(tab, (p * cols + j) * 2 * VL, lo, hi));
            }
            a.intoArray(d, i);
        }
        if (i < to) {
            scalar(t, p, src, d, i, to, acc);
        }
    }

    private static ByteVector lookup(byte[] tab, int e, ByteVector lo, ByteVector hi) {
        ByteVector tl = ByteVector.fromArray(S, tab, e);
        ByteVector th = ByteVector.fromArray(S, tab, e + VL);
        return lo.selectFrom(tl).lanewise(VectorOperators.XOR, hi.selectFrom(th));
    }

    private static void scalar(VectorTables t, int p, byte[][] src, byte[] d, int from, int to, boolean acc) {
        byte[] mul = Galois.MUL;
        for (int i = from; i < to; i++) {
            int v = acc ? d[i] : 0;
            for (int j = 0; j < t.cols; j++) {
                v ^= mul[t.coeffs[p * t.cols + j] << 8 | (src[j][i] & 0xff)];
            }
            d[i] = (byte) v;
        }
    }

    /** Per coefficient: a vector of c * (lane & 15), then one of c * ((lane & 15) << 4). */
    private static final class VectorTables extends Tables {
        final byte[] nibbles;
        final int[] coeffs;

        VectorTables(int[][] m) {
            super(m.length, m[0].length);
            coeffs = new int[rows * cols];
            nibbles = new byte[rows * cols * 2 * VL];
            for (int p = 0; p < rows; p++) {
                for (int j = 0; j < cols; j++) {
                    int e = p * cols + j;
                    int c = m[p][j];
                    coeffs[e] = c;
                    for (int lane = 0; lane < VL; lane++) {
                        nibbles[e * 2 * VL + lane] = (byte) Galois.mul(c, lane & 15);
                        nibbles[e * 2 * VL + VL + lane] = (byte) Galois.mul(c, (lane & 15) << 4);
                    }
                }
            }
        }

        @Override
        long bytes() {
            return nibbles.length + (long) Integer.BYTES * coeffs.length;
        }
    }
}
