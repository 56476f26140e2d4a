package dev.sharray.bench.pool;

import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

import java.util.ArrayList;
import java.util.List;

/**
 * Tiny-task round trip: {@code tasks} no-op tasks through {@code ProcessPool.map} on {@code workers}
 * workers (as joblib's {@code Parallel(n_jobs=2)} over 10,000 no-op tasks); seconds per task, in steady
 * state.
 */
public class TinyTaskRoundTrip implements Workload {
    private static final RemoteFunction<Integer, Integer> NOOP = x -> x;
    /**
     * Calls run before the harness's own warm-up, so the JIT compilers of the parent and the workers are done
     * with the map path before a run is timed. Their compilations take CPU from the pool for its first ~2 s on
     * a 2-core machine. Scratch probe on JDK 25, 10,000 tasks, each timed run after an untimed one as the
     * harness does, medians of 7 runs in two JVMs: 1.91 and 2.79 us after 3 calls, 0.81 and 0.66 us after 30.
     */
    private static final int WARMUP_CALLS = 30;
    private ProcessPool pool;
    private List<Integer> args;

    /** For the harness. */
    public TinyTaskRoundTrip() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        pool = PoolWorkloads.pool(params);
        final int tasks = (int) params.getLong("tasks", 10_000);
        args = new ArrayList<>(tasks);
        for (int i = 0; i < tasks; i++) {
            args.add(i);
        }
        for (int i = 0; i < WARMUP_CALLS; i++) {
            pool.map(NOOP, args);
        }
    }

    @Override
    public double run() {
        final long t0 = System.nanoTime();
        final List<Integer> out = pool.map(NOOP, args);
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        if (out.size() != args.size() || !out.get(out.size() - 1).equals(args.get(args.size() - 1))) {
            throw new IllegalStateException("wrong results");
        }
        return seconds / args.size();
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }
}
