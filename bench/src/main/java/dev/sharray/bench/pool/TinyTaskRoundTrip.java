package dev.sharray.bench.pool;

import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

import java.util.ArrayList;
import java.util.List;

/**
 * Tiny-task round trip: {@code tasks} no-op tasks through {@code ProcessPool.map} on {@code workers}
 * workers (as joblib's {@code Parallel(n_jobs=2)} over 10,000 no-op tasks); seconds per task.
 */
public class TinyTaskRoundTrip implements Workload {
    private static final RemoteFunction<Integer, Integer> NOOP = x -> x;
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
        pool.map(NOOP, args); // JIT both sides
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
