package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.pool.ProcessPool;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sum of squares over a 1 GiB float64 SharedArray with 1 and 2 workers, via {@code mapChunks} in 2, 8 or 16
 * chunks: each worker reads its chunk in place ({@link Kernels#SUM_OF_SQUARES}). Throughput = 1 GiB / time per
 * op; the bar is 2 workers >= 1.7x one worker.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PoolSumOfSquaresBench {
    /** Number of worker JVMs. */
    @Param({"1", "2"})
    public int workers;

    /**
     * Chunks per call: one per worker of 2 (the fastest for this uniform kernel on the project's VM), or several
     * per worker, as a job whose chunks cost different amounts would use.
     */
    @Param({"2", "8", "16"})
    public int chunks;

    private ProcessPool pool;
    private SharedArray array;

    /** Creates and fills the array, starts the pool and warms its per-task path. */
    @Setup(Level.Trial)
    public void setUp() {
        array = PoolWorkloads.filled(1L << 30, 1.0);
        pool = ProcessPool.builder().workers(workers).heapSize("256m").build();
        PoolWorkloads.warmTaskPath(pool, array); // steady state: see there
    }

    /** Stops the pool and frees the array. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        array.release();
    }

    /** @return the sum of squares */
    @Benchmark
    public double sumOfSquares() {
        final List<Double> parts = pool.mapChunks(array, array.shape()[0] / chunks, Kernels.SUM_OF_SQUARES);
        double s = 0;
        for (double p : parts) {
            s += p;
        }
        return s;
    }
}
