package dev.sharray.bench.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;

import java.util.Arrays;

/**
 * The machine's ceiling for {@link LargeHeapArgument}: one {@code copyFrom} of the same 1 GiB {@code double[]}
 * (one element changed per run, as there) into a SharedArray that is already allocated and mapped, with no
 * pool. Sharing a heap array cannot cost less than this one copy.
 */
public class HeapCopy implements Workload {
    private double[] array;
    private SharedArray copy;
    private int runs;

    /** For the harness. */
    public HeapCopy() {
    }

    @Override
    public void setUp(Params params) {
        array = new double[(int) (params.getLong("bytes", 1L << 30) / 8)];
        Arrays.fill(array, 1.0);
        copy = SharedArray.create(DType.FLOAT64, array.length);
        copy.copyFrom(array); // allocates and maps its pages, as the pool's copy cache has after its first run
    }

    @Override
    public double run() {
        final int mid = array.length / 2;
        array[mid] = ++runs;
        final long t0 = System.nanoTime();
        copy.copyFrom(array);
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        if (copy.getDouble(mid) != runs) {
            throw new IllegalStateException("the copy holds " + copy.getDouble(mid) + " at " + mid + ", not " + runs);
        }
        return seconds;
    }

    @Override
    public void close() {
        if (copy != null) {
            copy.release();
        }
        array = null;
    }
}
