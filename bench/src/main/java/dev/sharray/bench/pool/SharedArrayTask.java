package dev.sharray.bench.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Stats;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

/**
 * A pool task whose argument is a SharedArray of {@code bytes} (the worker reads its last element), joined
 * before the next: the array crosses as its descriptor and a reference, so a 1 GiB array should cost what a
 * 1 MiB one does (bar: within 2x). One run is the median of {@value #TASKS} tasks, in seconds.
 */
public class SharedArrayTask implements Workload {
    private static final int TASKS = 200;
    /** Tasks run in the set-up so that both sides' per-task paths are compiled before anything is timed. */
    private static final int WARMUP_TASKS = 2_000;
    private static final RemoteFunction<SharedArray, Double> LAST = a -> a.getDouble(a.size() - 1);
    private ProcessPool pool;
    private SharedArray array;

    /** For the harness. */
    public SharedArrayTask() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        array = SharedArray.create(DType.FLOAT64, params.getLong("bytes", 1L << 20) / 8);
        pool = PoolWorkloads.pool(params);
        for (int i = 0; i < WARMUP_TASKS; i++) {
            pool.submit(LAST, array).join();
        }
    }

    @Override
    public double run() {
        final double[] seconds = new double[TASKS];
        for (int i = 0; i < TASKS; i++) {
            final long t0 = System.nanoTime();
            pool.submit(LAST, array).join();
            seconds[i] = (System.nanoTime() - t0) * 1e-9;
        }
        return Stats.median(seconds);
    }

    @Override
    public void close() {
        PoolWorkloads.close(pool, array);
    }
}
