package dev.sharray.bench.pool;

import dev.sharray.HeapArray;
import dev.sharray.NdArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A 1 GiB in-RAM {@code double[]}, wrapped as a {@link HeapArray}, passed as the argument of one task typed
 * on {@link NdArray}: the reducers copy it once into a pool-owned SharedArray (it is above {@code maxBytes}),
 * the worker gets that SharedArray as it is (no copy back to the heap) and reads its first and last element;
 * after the task the copy goes back to the pool's copy cache ({@code ProcessPool.Builder#copyCacheBytes}),
 * so from the second run on the copy lands in memory that is already allocated and mapped, as in a loop
 * that passes a large array call after call. Each run first changes one element in the middle, so every run passes
 * new content (as joblib's side: an in-RAM ndarray, one element changed per run so joblib's dump cache
 * cannot reuse an earlier memmap, auto-memmapped for one task that reads {@code a[0] + a[-1]}).
 */
public class LargeHeapArgument implements Workload {
    private static final RemoteFunction<NdArray, Double> FIRST_LAST = a -> a.getDouble(0) + a.getDouble(a.size() - 1);
    private ProcessPool pool;
    private double[] array;
    private HeapArray heap;
    private int runs;

    /** For the harness. */
    public LargeHeapArgument() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        array = new double[(int) (params.getLong("bytes", 1L << 30) / 8)];
        Arrays.fill(array, 1.0);
        heap = HeapArray.of(array);
        pool = PoolWorkloads.pool(params);
    }

    @Override
    public double run() throws Exception {
        array[array.length / 2] = ++runs; // new content every run
        final long t0 = System.nanoTime();
        final double r = pool.submit(FIRST_LAST, heap).get(120, TimeUnit.SECONDS);
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
        heap = null;
    }
}
