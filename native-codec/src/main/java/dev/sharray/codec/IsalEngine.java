package dev.sharray.codec;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;

/**
 * ISA-L's {@code ec_encode_data} family on matrices we generate, so its output matches ours; called through
 * libsharraycodec's SIGBUS guard, which this backend therefore needs too.
 */
final class IsalEngine extends AddressEngine {
    /** ISA-L takes an {@code int} length; longer shards go through in slices of this size. */
    private static final long MAX_CALL = 1 << 30;

    @Override
    public Backend backend() {
        return Backend.ISAL;
    }

    @Override
    public SimdLevel simdLevel() {
        return SimdLevel.ISAL_DISPATCH;
    }

    @Override
    public Tables prepare(int[][] coeffs) {
        return new IsalTables(coeffs);
    }

    @Override
    void dotPointers(Tables t, long srcPtrs, long dstPtrs, long len, boolean acc) {
        try {
            dotPointersUnfenced(t, srcPtrs, dstPtrs, len, acc);
        } finally {
            // ISA-L reads the tables through a raw address: keep their JNA Memory (freed by a Cleaner) alive
            java.lang.ref.Reference.reachabilityFence(t);
        }
    }

    private void dotPointersUnfenced(Tables t, long srcPtrs, long dstPtrs, long len, boolean acc) {
        long g = ((IsalTables) t).address;
        if (len > MAX_CALL) {
            sliced(t, srcPtrs, dstPtrs, len, acc);
            return;
        }
        if (!acc) {
            check(NativeLib.sc_isal_encode(IsalLib.ENCODE_DATA, (int) len, t.cols, t.rows, g, srcPtrs, dstPtrs));
            return;
        }
        // ec_encode_data_update adds one source's contribution to every output.
        for (int j = 0; j < t.cols; j++) {
            long src = RawMemory.getLong(srcPtrs + (long) j * Long.BYTES);
            check(NativeLib.sc_isal_update(IsalLib.ENCODE_DATA_UPDATE, (int) len, t.cols, t.rows, j, g, src, dstPtrs));
        }
    }

    private static void check(int status) {
        if (status != 0) {
            throw MemoryFaultException.inCall(Backend.ISAL);
        }
    }

    /** Rare (shards over 1 GiB): re-points copies of the pointer arrays slice by slice. */
    private void sliced(Tables t, long srcPtrs, long dstPtrs, long len, boolean acc) {
        long[] src = new Pointer(srcPtrs).getLongArray(0, t.cols);
        long[] dst = new Pointer(dstPtrs).getLongArray(0, t.rows);
        try (Memory s = new Memory((long) t.cols * Long.BYTES); Memory d = new Memory((long) t.rows * Long.BYTES)) {
            for (long pos = 0; pos < len; pos += MAX_CALL) {
                for (int j = 0; j < t.cols; j++) {
                    s.setLong((long) j * Long.BYTES, src[j] + pos);
                }
                for (int p = 0; p < t.rows; p++) {
                    d.setLong((long) p * Long.BYTES, dst[p] + pos);
                }
                dotPointers(t, Pointer.nativeValue(s), Pointer.nativeValue(d), Math.min(MAX_CALL, len - pos), acc);
            }
        }
    }

    /** ISA-L's expanded tables: 32 bytes per coefficient. */
    private static final class IsalTables extends NativeMemoryTables {
        IsalTables(int[][] coeffs) {
            super(coeffs.length, coeffs[0].length, 32L * coeffs.length * coeffs[0].length);
            IsalLib.ec_init_tables(cols, rows, GfMatrix.flatten(coeffs), address);
        }
    }
}
