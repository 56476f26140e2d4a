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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * A task whose argument is a SharedArray of 1 MiB or 1 GiB, reading one element: the handoff is a
 * descriptor plus a reference, so both sizes should cost the same (bar: within 2x).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PoolHandoffBench {
    private static final RemoteFunction<SharedArray, Double> LAST = a -> a.getDouble(a.size() - 1);

    /** Array size in bytes. */
    @Param({"1048576", "1073741824"})
    public long bytes;

    private ProcessPool pool;
    private SharedArray array;

    /** Starts a one-worker pool and creates the array. */
    @Setup(Level.Trial)
    public void setUp() {
        pool = ProcessPool.create(1);
        array = SharedArray.create(DType.FLOAT64, bytes / 8);
    }

    /** Stops the pool and frees the array. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        array.release();
    }

    /** @return the element read by the worker */
    @Benchmark
    public Double handoff() {
        return pool.submit(LAST, array).join();
    }
}
