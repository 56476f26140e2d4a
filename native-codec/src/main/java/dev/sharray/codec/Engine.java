package dev.sharray.codec;

/**
 * One backend's kernels: {@code dst[p] = (acc ? dst[p] : 0) ^ sum_j coeff[p][j] * src[j]} over GF(2^8),
 * for shards on the heap or in native memory. Only the first {@code cols} sources and {@code rows}
 * destinations of the arrays are used, so callers pass reusable per-thread arrays. Implementations are
 * stateless apart from per-thread scratch; arguments are validated by {@link ErasureCodec} beforehand.
 */
interface Engine {
    Backend backend();

    SimdLevel simdLevel();

    Tables prepare(int[][] coeffs);

    void dot(Tables t, byte[][] src, byte[][] dst, int off, int len, boolean acc);

    void dot(Tables t, long[] src, long[] dst, long len, boolean acc);

    /** True when every {@code parity[p]} equals the dot product; never writes the shards. */
    boolean verify(Tables t, byte[][] src, byte[][] parity, int off, int len);

    boolean verify(Tables t, long[] src, long[] parity, long len);
}
