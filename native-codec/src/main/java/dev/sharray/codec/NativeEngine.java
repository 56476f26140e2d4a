package dev.sharray.codec;

/** sharray's own C kernels at one SIMD level. */
final class NativeEngine extends AddressEngine {
    private final SimdLevel level;
    private final int code;

    NativeEngine(SimdLevel level) {
        this.level = level;
        this.code = level.nativeCode();
    }

    /** The best level this CPU (and OS) supports; requires {@link NativeLib#available()}. */
    static SimdLevel maxLevel() {
        return SimdLevel.ofNativeCode(NativeLib.sc_max_level());
    }

    @Override
    public Backend backend() {
        return Backend.NATIVE;
    }

    @Override
    public SimdLevel simdLevel() {
        return level;
    }

    @Override
    public Tables prepare(int[][] coeffs) {
        return new NativeTables(coeffs);
    }

    @Override
    void dotPointers(Tables t, long srcPtrs, long dstPtrs, long len, boolean acc) {
        NativeTables nt = (NativeTables) t;
        int status = NativeLib.sc_dot(len, t.cols, t.rows, nt.address, srcPtrs, dstPtrs, acc ? 1 : 0, code);
        // the C code reads the tables through a raw address: keep their JNA Memory (freed by a Cleaner when
        // unreachable) alive until it returns, e.g. for an uncached decode plan held only by a local
        java.lang.ref.Reference.reachabilityFence(nt);
        if (status != 0) {
            throw MemoryFaultException.inCall(Backend.NATIVE);
        }
    }

    /** Nibble tables and GFNI bit matrices in native memory (JNA frees it with the codec). */
    private static final class NativeTables extends NativeMemoryTables {
        NativeTables(int[][] coeffs) {
            super(coeffs.length, coeffs[0].length, NativeLib.sc_table_size(coeffs.length, coeffs[0].length));
            NativeLib.sc_init_tables(rows, cols, GfMatrix.flatten(coeffs), address);
        }
    }
}
