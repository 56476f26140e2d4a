package dev.sharray.bench.pool;

import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A 1 GiB in-RAM {@code double[]} passed as the argument of one task: the reducers share it (it is above
 * {@code maxBytes}) and the worker reads its first and last element (as joblib's side: an in-RAM ndarray
 * auto-memmapped for one task that reads {@code a[0] + a[-1]}).
 */
public class LargeHeapArgument implements Workload {
    private static final RemoteFunction<double[], Double> FIRST_LAST = a -> a[0] + a[a.length - 1];
    private ProcessPool pool;
    private double[] array;

    /** For the harness. */
    public LargeHeapArgument() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        array = new double[(int) (params.getLong("bytes", 1L << 30) / 8)];
        Arrays.fill(array, 1.0);
        pool = PoolWorkloads.pool(params);
    }

    @Override
    public double run() throws Exception {
        final long t0 = System.nanoTime();
        final double r = pool.submit(FIRST_LAST, array).get(120, TimeUnit.SECONDS);
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        if (r != 2.0) {
            throw new IllegalStateException("first + last = " + r);
        }
        return seconds;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
        array = null;
    }
}
