package dev.sharray.bench.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.pool.ProcessPool;

import java.util.Arrays;

/** Helpers shared by the pool workloads of the side-by-side harness. */
final class PoolWorkloads {
    /** Columns of the 2-D arrays: a row is 1 MiB of float64, chunks are whole rows. */
    static final long COLS = 131_072;

    private PoolWorkloads() {
    }

    /** @return a pool of {@code workers} (param, default 2) workers, each having run a task */
    static ProcessPool pool(Params params) throws Exception {
        final int workers = (int) params.getLong("workers", 2);
        final ProcessPool pool = ProcessPool.builder().workers(workers).build();
        pool.map(x -> x, java.util.Collections.nCopies(4 * workers, 1));
        return pool;
    }

    /** No-op chunk tasks that bring a pool's per-task path to steady state (see {@link #warmTaskPath}). */
    static final int TASK_PATH_WARMUP_TASKS = 3_200;

    /**
     * Runs {@link #TASK_PATH_WARMUP_TASKS} no-op chunk tasks over {@code array} so that the JIT compilers of the
     * parent and the workers have compiled the pool's per-task path (decoding, opening the view, the answer,
     * the release) before a row with few long tasks per call is timed. Such a row runs that path only 1-8
     * times per call, so without this it runs interpreted or in C1 for its whole measurement. Scratch probe,
     * 8-chunk sum of squares over 1 GiB on 2 workers, medians of 60 calls: 28.3-35.0 ms per call with a
     * worker idle 395-444 us between two of its tasks, against 22.8-25.0 ms and 97-108 us after 19,200 no-op
     * tasks, and 24.5 ms and 168 us after 3,200.
     */
    static void warmTaskPath(ProcessPool pool, SharedArray array) {
        final long rows = Math.max(1, array.shape()[0] / 64);
        final long tasksPerCall = (array.shape()[0] + rows - 1) / rows;
        for (long done = 0; done < TASK_PATH_WARMUP_TASKS; done += tasksPerCall) {
            pool.mapChunks(array, rows, Kernels.TOUCH);
        }
    }

    /**
     * Closes a workload's pool, then releases its array (the pool's tasks no longer hold it).
     *
     * @param pool  the pool, or {@code null} when the set-up failed before making it
     * @param array the array, or {@code null} likewise
     */
    static void close(ProcessPool pool, SharedArray array) {
        try {
            if (pool != null) {
                pool.close();
            }
        } finally {
            if (array != null) {
                array.release();
            }
        }
    }

    /**
     * @param sum a sum of squares over an array {@link #filled} with 1.0
     * @param array that array
     * @throws IllegalStateException unless the sum is its element count
     */
    static void checkSumOfSquares(double sum, SharedArray array) {
        if (sum != array.size()) {
            throw new IllegalStateException("sum of squares " + sum + ", expected " + array.size());
        }
    }

    /**
     * @param bytes array size
     * @param value fill value
     * @return a (bytes / 1 MiB, 131072) FLOAT64 array filled with {@code value}
     */
    static SharedArray filled(long bytes, double value) {
        final long rows = bytes / (COLS * 8);
        final SharedArray a = SharedArray.create(DType.FLOAT64, rows, COLS);
        final double[] row = new double[(int) COLS];
        Arrays.fill(row, value);
        for (long i = 0; i < rows; i++) {
            try (SharedArray r = a.select(0, i)) {
                r.copyFrom(row);
            }
        }
        return a;
    }
}
