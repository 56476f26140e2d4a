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
