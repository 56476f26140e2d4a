package dev.sharray.bench.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two workers ready to run a task on a mapped array: pool start plus one task per worker that opens a
 * SharedArray (so the array classes are loaded and the file mapped in both). The pool is closed
 * outside the measured time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PoolStartBench {
    private static final RemoteFunction<SharedArray, Double> FIRST = a -> a.getDouble(0);

    private SharedArray array;
    private ProcessPool pool;

    /** Creates the array once. */
    @Setup(Level.Trial)
    public void setUp() {
        array = SharedArray.create(DType.FLOAT64, 1024);
    }

    /** Frees it. */
    @TearDown(Level.Trial)
    public void tearDown() {
        array.release();
    }

    /** Closes the pool started by the measured call. */
    @TearDown(Level.Invocation)
    public void closePool() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }

    /** @return the results of the first tasks */
    @Benchmark
    public List<Double> twoWorkersReady() {
        pool = ProcessPool.create(2);
        try (SharedArray a = array.slice(0, 0, 512, 1); SharedArray b = array.slice(0, 512, 1024, 1)) {
            return pool.map(FIRST, List.of(a, b));
        }
    }
}
