package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;

import java.util.HashSet;
import java.util.Set;

/**
 * Pool start: a fresh {@code ProcessPool} of {@code workers} JVMs, timed until every worker has run a
 * task on a slice of a mapped 1 GiB FLOAT64 array (as joblib's side: until every loky worker has run a
 * task on a memmap slice). The pool is closed after the timed part.
 */
public class PoolWarmup implements Workload {
    private SharedArray array;
    private int workers;

    /** For the harness. */
    public PoolWarmup() {
    }

    @Override
    public void setUp(Params params) {
        workers = (int) params.getLong("workers", 2);
        array = PoolWorkloads.filled(params.getLong("bytes", 1L << 30), 1.0);
    }

    @Override
    public double run() throws Exception {
        final long rows = array.shape()[0];
        final long t0 = System.nanoTime();
        final ProcessPool pool = ProcessPool.create(workers);
        final double seconds;
        try {
            final Set<Long> seen = new HashSet<>();
            while (seen.size() < workers) {
                // like joblib's side: one task per worker on its part of the array, until all have run one
                seen.addAll(pool.mapChunks(array, (rows + workers - 1) / workers, Kernels.TOUCH));
            }
            seconds = (System.nanoTime() - t0) * 1e-9;
        } finally {
            pool.close();
        }
        return seconds;
    }

    @Override
    public void close() {
        if (array != null) {
            array.release();
        }
    }

}
