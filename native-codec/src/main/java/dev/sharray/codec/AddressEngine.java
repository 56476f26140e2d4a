package dev.sharray.codec;

import java.nio.ByteBuffer;

/**
 * Shared plumbing of the engines whose kernels take raw pointers (our C library and ISA-L): native
 * shards go straight to C; heap shards are staged chunk by chunk through per-thread direct memory.
 */
abstract class AddressEngine implements Engine {
    private static final int CHUNK = DirectScratch.CHUNK;

    /** The kernel call: {@code srcPtrs}/{@code dstPtrs} are native arrays of t.cols / t.rows pointers. */
    abstract void dotPointers(Tables t, long srcPtrs, long dstPtrs, long len, boolean acc);

    @Override
    public final void dot(Tables t, long[] src, long[] dst, long len, boolean acc) {
        DirectScratch s = DirectScratch.get();
        dotPointers(t, s.pointers(0, src, t.cols, 0), s.pointers(1, dst, t.rows, 0), len, acc);
    }

    @Override
    public final void dot(Tables t, byte[][] src, byte[][] dst, int off, int len, boolean acc) {
        DirectScratch s = DirectScratch.get();
        ByteBuffer stage = s.staging((t.cols + t.rows) * CHUNK);
        long base = s.stagingAddress();
        long[] ss = s.stagedSrc;
        long[] sd = s.stagedDst;
        for (int j = 0; j < t.cols; j++) {
            ss[j] = base + (long) j * CHUNK;
        }
        for (int p = 0; p < t.rows; p++) {
            sd[p] = base + (long) (t.cols + p) * CHUNK;
        }
        long srcPtrs = s.pointers(0, ss, t.cols, 0);
        long dstPtrs = s.pointers(1, sd, t.rows, 0);
        for (int pos = 0, n; pos < len; pos += n) { // += n: pos never overflows past len
            n = Math.min(CHUNK, len - pos);
            for (int j = 0; j < t.cols; j++) {
                stage.put(j * CHUNK, src[j], off + pos, n);
            }
            if (acc) {
                for (int p = 0; p < t.rows; p++) {
                    stage.put((t.cols + p) * CHUNK, dst[p], off + pos, n);
                }
            }
            dotPointers(t, srcPtrs, dstPtrs, n, acc);
            for (int p = 0; p < t.rows; p++) {
                stage.get((t.cols + p) * CHUNK, dst[p], off + pos, n);
            }
        }
    }

    @Override
    public final boolean verify(Tables t, long[] src, long[] parity, long len) {
        DirectScratch s = DirectScratch.get();
        // Work area after the staging area, so heap verify (which stages into the front) can call this.
        int stagingBytes = (t.cols + t.rows) * CHUNK;
        s.staging(stagingBytes + t.rows * CHUNK);
        long work = s.stagingAddress() + stagingBytes;
        long[] w = s.stagedWork;
        for (int p = 0; p < t.rows; p++) {
            w[p] = work + (long) p * CHUNK;
        }
        long dstPtrs = s.pointers(2, w, t.rows, 0);
        for (long pos = 0; pos < len; pos += CHUNK) {
            long n = Math.min(CHUNK, len - pos);
            dotPointers(t, s.pointers(0, src, t.cols, pos), dstPtrs, n, false);
            for (int p = 0; p < t.rows; p++) {
                int differ = NativeLib.sc_differ(work + (long) p * CHUNK, parity[p] + pos, n);
                if (differ == NativeLib.FAULT) {
                    throw MemoryFaultException.inCall(backend());
                }
                if (differ != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public final boolean verify(Tables t, byte[][] src, byte[][] parity, int off, int len) {
        DirectScratch s = DirectScratch.get();
        int stagingBytes = (t.cols + t.rows) * CHUNK;
        ByteBuffer stage = s.staging(stagingBytes + t.rows * CHUNK);
        long base = s.stagingAddress();
        long[] ss = s.stagedSrc;
        long[] sd = s.stagedDst;
        for (int j = 0; j < t.cols; j++) {
            ss[j] = base + (long) j * CHUNK;
        }
        for (int p = 0; p < t.rows; p++) {
            sd[p] = base + (long) (t.cols + p) * CHUNK;
        }
        for (int pos = 0, n; pos < len; pos += n) { // += n: pos never overflows past len
            n = Math.min(CHUNK, len - pos);
            for (int j = 0; j < t.cols; j++) {
                stage.put(j * CHUNK, src[j], off + pos, n);
            }
            for (int p = 0; p < t.rows; p++) {
                stage.put((t.cols + p) * CHUNK, parity[p], off + pos, n);
            }
            if (!verify(t, ss, sd, n)) {
                return false;
            }
        }
        return true;
    }
}
