package dev.sharray.bench.pool;

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

import java.util.concurrent.TimeUnit;

/**
 * Tiny-task round trip through the pool: submit {@code x + 1}, wait for the answer. The median
 * (p0.50 of SampleTime) is the figure compared with joblib/loky's per-task cost.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PoolRoundTripBench {
    private static final RemoteFunction<Integer, Integer> INC = x -> x + 1;

    private ProcessPool pool;
    private Integer arg = 1;

    /** Starts a one-worker pool. */
    @Setup(Level.Trial)
    public void setUp() {
        pool = ProcessPool.create(1);
    }

    /** Stops it. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    /** @return the answer, so the JIT keeps the call */
    @Benchmark
    public Integer tinyTask() {
        return pool.submit(INC, arg).join();
    }
}
