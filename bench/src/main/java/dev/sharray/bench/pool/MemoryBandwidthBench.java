package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
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

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The hardware baseline of the pool's sum-of-squares rows: the same kernel ({@link Kernels#sumOfSquares(long,
 * long)}) over the same 1 GiB FLOAT64 mapped array, in this JVM, on 1 or 2 threads, with the pages already
 * mapped. The pool's 1- and 2-worker figures divided by these tell pool overhead from memory-bandwidth
 * limits: {@code bench/run-jmh.sh MemoryBandwidthBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MemoryBandwidthBench {
    /** Threads summing disjoint halves. */
    @Param({"1", "2"})
    public int threads;

    private SharedArray array;
    private ExecutorService executor;

    /** Creates and fills the array (so its pages are mapped here), starts the threads. */
    @Setup(Level.Trial)
    public void setUp() {
        array = PoolWorkloads.filled(1L << 30, 1.0);
        executor = Executors.newFixedThreadPool(threads);
    }

    /** Frees them. */
    @TearDown(Level.Trial)
    public void tearDown() {
        executor.shutdownNow();
        array.release();
    }

    /**
     * @return the sum of squares
     * @throws Exception never
     */
    @Benchmark
    public double sumOfSquares() throws Exception {
        return Kernels.sumOfSquaresOnThreads(executor, array, threads);
    }
}
