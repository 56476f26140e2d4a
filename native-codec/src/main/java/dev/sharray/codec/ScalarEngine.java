package dev.sharray.codec;

/**
 * The pure-Java backend for a JVM without {@code jdk.incubator.vector}: one 256-entry product table per
 * coefficient (its row of {@link Galois#MUL}), one output and one source at a time over 16 KiB blocks of the
 * length, so the block of every source stays in cache while all outputs are computed. Native shards are staged
 * through per-thread heap arrays by {@link HeapEngine}.
 *
 * <p>The outputs are written source by source: an output array must not also be one of the sources (as
 * {@link ErasureCodec} guarantees), except as the only source, which is read before it is written byte by byte.
 */
final class ScalarEngine extends HeapEngine {
    /**
     * Bytes per length block. Measured on RS(10,4) with 1 MiB shards: one output and one source per pass is as
     * fast as four outputs per pass, or as eight bytes at a time through long-wide loads and stores (the table
     * loads bound all of them), and it is the simplest.
     */
    private static final int BLOCK = 16 * 1024;

    @Override
    public Backend backend() {
        return Backend.JAVA;
    }

    @Override
    public SimdLevel simdLevel() {
        return SimdLevel.JAVA_SCALAR;
    }

    @Override
    public Tables prepare(int[][] coeffs) {
        return new ScalarTables(coeffs);
    }

    @Override
    public void dot(Tables t, byte[][] src, byte[][] dst, int off, int len, boolean acc) {
        final int[] rowOf = ((ScalarTables) t).rowOf;
        final byte[] mul = Galois.MUL;
        final int cols = t.cols;
        // to = from + min(BLOCK, end - from), never from + BLOCK: that sum overflows within 16 KiB of the int limit
        for (int from = off, end = off + len, to; from < end; from = to) {
            to = from + Math.min(BLOCK, end - from);
            for (int p = 0; p < t.rows; p++) {
                byte[] d = dst[p];
                int j = 0;
                if (!acc) { // the first source sets the output: nothing to clear first, no stale parity read
                    byte[] s = src[0];
                    int row = rowOf[p * cols];
                    for (int i = from; i < to; i++) {
                        d[i] = mul[row | (s[i] & 0xff)];
                    }
                    j = 1;
                }
                for (; j < cols; j++) {
                    byte[] s = src[j];
                    int row = rowOf[p * cols + j];
                    for (int i = from; i < to; i++) {
                        d[i] ^= mul[row | (s[i] & 0xff)];
                    }
                }
            }
        }
    }

    /** Per coefficient c, the offset {@code c << 8} of its product row in {@link Galois#MUL}: no table is copied. */
    private static final class ScalarTables extends Tables {
        final int[] rowOf;

        ScalarTables(int[][] m) {
            super(m.length, m[0].length);
            rowOf = new int[rows * cols];
            for (int p = 0; p < rows; p++) {
                for (int j = 0; j < cols; j++) {
                    rowOf[p * cols + j] = m[p][j] << 8;
                }
            }
        }

        @Override
        long bytes() {
            return (long) Integer.BYTES * rowOf.length;
        }
    }
}
