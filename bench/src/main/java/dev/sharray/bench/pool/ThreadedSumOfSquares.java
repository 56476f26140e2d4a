package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The machine's ceiling for {@link SumOfSquares}: the same kernel over the same 1 GiB FLOAT64 array in this JVM,
 * on {@code threads} threads (default 1) over as many parts, with no pool. Pool ÷ this is what the pool costs;
 * 2 threads ÷ 1 is how far two cores scale on this machine's memory.
 */
public class ThreadedSumOfSquares implements Workload {
    private SharedArray array;
    private ExecutorService executor;
    private int threads;

    /** For the harness. */
    public ThreadedSumOfSquares() {
    }

    @Override
    public void setUp(Params params) {
        threads = (int) params.getLong("threads", 1);
        array = PoolWorkloads.filled(params.getLong("bytes", 1L << 30), 1.0);
        executor = Executors.newFixedThreadPool(threads);
    }

    @Override
    public double run() throws Exception {
        final long t0 = System.nanoTime();
        final double sum = Kernels.sumOfSquaresOnThreads(executor, array, threads);
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        PoolWorkloads.checkSumOfSquares(sum, array);
        return seconds;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
        if (array != null) {
            array.release();
        }
    }
}
