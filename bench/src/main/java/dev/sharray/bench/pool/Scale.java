package dev.sharray.bench.pool;

/**
 * In-place {@code x *= 1.0000001} over a 1 GiB FLOAT64 SharedArray with {@code mapChunks} in {@code chunks}
 * chunks, each worker writing its chunk in place ({@link Kernels#SCALE}).
 */
public class Scale extends SumOfSquares {
    /** For the harness. */
    public Scale() {
    }

    @Override
    public double run() {
        final long t0 = System.nanoTime();
        final long n = pool.mapChunks(array, rowsPerChunk, Kernels.SCALE).stream().mapToLong(Long::longValue).sum();
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        if (n != array.size()) {
            throw new IllegalStateException("scaled " + n + " elements, expected " + array.size());
        }
        return seconds;
    }
}
