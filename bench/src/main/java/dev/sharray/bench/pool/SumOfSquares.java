package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;

import java.util.List;

/**
 * Sum of squares over a 1 GiB FLOAT64 SharedArray with {@code mapChunks} in {@code chunks} chunks
 * (1: one task, one worker busy; 8: both workers), each worker reading its chunk in place
 * ({@link Kernels#SUM_OF_SQUARES}). The set-up brings the pool's per-task path to steady state first
 * ({@link PoolWorkloads#warmTaskPath}).
 */
public class SumOfSquares implements Workload {
    ProcessPool pool;
    SharedArray array;
    long rowsPerChunk;

    /** For the harness. */
    public SumOfSquares() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        array = PoolWorkloads.filled(params.getLong("bytes", 1L << 30), 1.0);
        final long chunks = params.getLong("chunks", 8);
        rowsPerChunk = (array.shape()[0] + chunks - 1) / chunks;
        pool = PoolWorkloads.pool(params);
        PoolWorkloads.warmTaskPath(pool, array); // steady state: see there
    }

    @Override
    public double run() {
        final long t0 = System.nanoTime();
        final List<Double> parts = pool.mapChunks(array, rowsPerChunk, Kernels.SUM_OF_SQUARES);
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        double total = 0;
        for (double p : parts) {
            total += p;
        }
        PoolWorkloads.checkSumOfSquares(total, array);
        return seconds;
    }

    @Override
    public void close() {
        PoolWorkloads.close(pool, array);
    }
}
