package dev.sharray.bench.pool;

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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A loop of {@code map} calls of tiny tasks on two workers: the time of one call of {@code tasks} no-op
 * tasks, back to back or after {@code idleMillis} with nothing to do. After an idle period the workers and
 * the result thread sleep, so the call's first round trips include waking them, and on a VM the idle vCPUs
 * too. Use {@code -bm sample} for medians: the average of a few hundred calls follows the outliers.
 * {@code -p taskMicros=5,100} makes each task spin that long instead: medium tasks, whose groups queue behind
 * running groups while the parent sleeps (on 2 cores its polling competed with the two workers; see
 * docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PoolMapBench {
    private static final RemoteFunction<Integer, Integer> NOOP = x -> x;

    /** Tasks per call. */
    @Param({"200", "1000", "10000"})
    public int tasks;

    /** Idle time before each call (not timed). */
    @Param({"0", "100"})
    public int idleMillis;

    /** How long each task spins in its worker, in microseconds; 0 for a no-op. */
    @Param({"0"})
    public int taskMicros;

    private RemoteFunction<Integer, Integer> task;

    private ProcessPool pool;
    private List<Integer> args;

    /** Starts a two-worker pool. */
    @Setup(Level.Trial)
    public void setUp() {
        pool = ProcessPool.create(2);
        task = taskMicros == 0 ? NOOP : spinning(taskMicros * 1_000L);
        args = new ArrayList<>(tasks);
        for (int i = 0; i < tasks; i++) {
            args.add(i);
        }
    }

    /** Leaves the pool idle before the call, when asked to (not timed: JMH excludes invocation set-up). */
    @Setup(Level.Invocation)
    public void idle() throws InterruptedException {
        if (idleMillis > 0) {
            Thread.sleep(idleMillis);
        }
    }

    /** Stops it. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
    }

    /** @return the results, so the JIT keeps the call */
    @Benchmark
    public List<Integer> mapTinyTasks() {
        return pool.map(task, args);
    }

    /** @return a task that spins {@code nanos} on the worker's clock and returns its argument */
    private static RemoteFunction<Integer, Integer> spinning(long nanos) {
        return x -> {
            final long end = System.nanoTime() + nanos;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            return x;
        };
    }
}
