package dev.sharray.codec;

import java.nio.ByteBuffer;

/**
 * Shared plumbing of the engines whose kernels take raw pointers (our C library and ISA-L): native
 * shards go straight to C; heap shards are staged chunk by chunk through per-thread direct memory.
 */
abstract class AddressEngine implements Engine {
    private static final int CHUNK = DirectScratch.CHUNK;

    /**
     * Bytes of each shard staged per kernel call for a call of {@code len} bytes: {@link #CHUNK}, or less for shorter
     * shards (rounded up to 64). The staging memory is per thread and kept, so it is sized by the shards, not by
     * the chunk: at a whole chunk per shard, 2,000 virtual threads coding RS(10,4) stripes of 100-byte shards each
     * reserved 232 KiB of direct memory, and 871 of their calls failed with OutOfMemoryError under a 256 MiB limit.
     */
    private static int stride(long len) {
        return (int) Math.min(CHUNK, (Math.min(CHUNK, len) + 63) & ~63L);
    }

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
        final int stride = stride(len);
        ByteBuffer stage = s.staging((t.cols + t.rows) * stride);
        long base = s.stagingAddress();
        long[] ss = s.stagedSrc;
        long[] sd = s.stagedDst;
        for (int j = 0; j < t.cols; j++) {
            ss[j] = base + (long) j * stride;
        }
        for (int p = 0; p < t.rows; p++) {
            sd[p] = base + (long) (t.cols + p) * stride;
        }
        long srcPtrs = s.pointers(0, ss, t.cols, 0);
        long dstPtrs = s.pointers(1, sd, t.rows, 0);
        for (int pos = 0, n; pos < len; pos += n) { // += n: pos never overflows past len
            n = Math.min(stride, len - pos);
            for (int j = 0; j < t.cols; j++) {
                stage.put(j * stride, src[j], off + pos, n);
            }
            if (acc) {
                for (int p = 0; p < t.rows; p++) {
                    stage.put((t.cols + p) * stride, dst[p], off + pos, n);
                }
            }
            dotPointers(t, srcPtrs, dstPtrs, n, acc);
            for (int p = 0; p < t.rows; p++) {
                stage.get((t.cols + p) * stride, dst[p], off + pos, n);
            }
        }
    }

    @Override
    public final boolean verify(Tables t, long[] src, long[] parity, long len) {
        return verify(t, src, parity, len, 0);
    }

    /**
     * @param front bytes at the start of the staging area that the caller uses (heap verify stages its shards
     *              there and has already grown the area to hold this call's work area too): the work area follows
     */
    private boolean verify(Tables t, long[] src, long[] parity, long len, int front) {
        DirectScratch s = DirectScratch.get();
        final int stride = stride(len);
        s.staging(front + t.rows * stride); // never grows (moves) the area under a heap verify: it sized it already
        long work = s.stagingAddress() + front;
        long[] w = s.stagedWork;
        for (int p = 0; p < t.rows; p++) {
            w[p] = work + (long) p * stride;
        }
        long dstPtrs = s.pointers(2, w, t.rows, 0);
        for (long pos = 0; pos < len; pos += stride) {
            long n = Math.min(stride, len - pos);
            dotPointers(t, s.pointers(0, src, t.cols, pos), dstPtrs, n, false);
            for (int p = 0; p < t.rows; p++) {
                int differ = NativeLib.sc_differ(work + (long) p * stride, parity[p] + pos, n);
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
        final int stride = stride(len);
        final int stagingBytes = (t.cols + t.rows) * stride;
        ByteBuffer stage = s.staging(stagingBytes + t.rows * stride); // the staged shards, then verify's work area
        long base = s.stagingAddress();
        long[] ss = s.stagedSrc;
        long[] sd = s.stagedDst;
        for (int j = 0; j < t.cols; j++) {
            ss[j] = base + (long) j * stride;
        }
        for (int p = 0; p < t.rows; p++) {
            sd[p] = base + (long) (t.cols + p) * stride;
        }
        for (int pos = 0, n; pos < len; pos += n) { // += n: pos never overflows past len
            n = Math.min(stride, len - pos);
            for (int j = 0; j < t.cols; j++) {
                stage.put(j * stride, src[j], off + pos, n);
            }
            for (int p = 0; p < t.rows; p++) {
                stage.put((t.cols + p) * stride, parity[p], off + pos, n);
            }
            if (!verify(t, ss, sd, n, stagingBytes)) {
                return false;
            }
        }
        return true;
    }
}
