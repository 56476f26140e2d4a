package dev.sharray.codec;

/**
 * Shared plumbing of the pure-Java engines, whose kernels read and write heap arrays: native shards are staged
 * chunk by chunk through per-thread heap arrays ({@link RawMemory}'s copies, which the JVM turns into an
 * {@code InternalError} rather than a crash when the memory faults), and verify computes into those arrays.
 * The subclass supplies the heap kernel, which must use none of this scratch itself.
 */
abstract class HeapEngine implements Engine {
    /** Bytes of each shard staged per kernel call. */
    static final int CHUNK = 16 * 1024;
    private static final ScratchSlot<HeapScratch> SCRATCH = new ScratchSlot<>(HeapScratch::new);

    @Override
    public final void dot(Tables t, long[] src, long[] dst, long len, boolean acc) {
        HeapScratch s = SCRATCH.get();
        byte[][] hs = s.src(t.cols);
        byte[][] hd = s.dst(t.rows);
        for (long pos = 0; pos < len; pos += CHUNK) {
            int n = (int) Math.min(CHUNK, len - pos);
            for (int j = 0; j < t.cols; j++) {
                RawMemory.read(src[j] + pos, hs[j], 0, n);
            }
            if (acc) {
                for (int p = 0; p < t.rows; p++) {
                    RawMemory.read(dst[p] + pos, hd[p], 0, n);
                }
            }
            dot(t, hs, hd, 0, n, acc);
            for (int p = 0; p < t.rows; p++) {
                RawMemory.write(hd[p], 0, dst[p] + pos, n);
            }
        }
    }

    @Override
    public final boolean verify(Tables t, byte[][] src, byte[][] parity, int off, int len) {
        byte[][] hd = SCRATCH.get().dst(t.rows);
        for (int pos = 0, n; pos < len; pos += n) { // += n: pos never overflows past len
            n = Math.min(CHUNK, len - pos);
            computeChunk(t, src, off + pos, n, hd);
            for (int p = 0; p < t.rows; p++) {
                if (!java.util.Arrays.equals(hd[p], 0, n, parity[p], off + pos, off + pos + n)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public final boolean verify(Tables t, long[] src, long[] parity, long len) {
        HeapScratch s = SCRATCH.get();
        byte[][] hs = s.src(t.cols);
        byte[][] hd = s.dst(t.rows);
        byte[] expected = s.compare();
        for (long pos = 0; pos < len; pos += CHUNK) {
            int n = (int) Math.min(CHUNK, len - pos);
            for (int j = 0; j < t.cols; j++) {
                RawMemory.read(src[j] + pos, hs[j], 0, n);
            }
            dot(t, hs, hd, 0, n, false);
            for (int p = 0; p < t.rows; p++) {
                RawMemory.read(parity[p] + pos, expected, 0, n);
                if (!java.util.Arrays.equals(hd[p], 0, n, expected, 0, n)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Computes the chunk [off, off + n) of every output into hd[p][0, n). */
    private void computeChunk(Tables t, byte[][] src, int off, int n, byte[][] hd) {
        HeapScratch s = SCRATCH.get();
        byte[][] hs = s.src(t.cols);
        for (int j = 0; j < t.cols; j++) {
            System.arraycopy(src[j], off, hs[j], 0, n);
        }
        dot(t, hs, hd, 0, n, false);
    }

    /** One thread's heap staging arrays, grown on demand and never shrunk. */
    private static final class HeapScratch {
        private final byte[][] src = new byte[ErasureCodec.MAX_SHARDS][];
        private final byte[][] dst = new byte[ErasureCodec.MAX_SHARDS][];
        private final byte[] compare = new byte[CHUNK];

        byte[][] src(int n) {
            return fill(src, n);
        }

        byte[][] dst(int n) {
            return fill(dst, n);
        }

        byte[] compare() {
            return compare;
        }

        private static byte[][] fill(byte[][] a, int n) {
            for (int i = 0; i < n; i++) {
                if (a[i] == null) {
                    a[i] = new byte[CHUNK];
                }
            }
            return a;
        }
    }
}
