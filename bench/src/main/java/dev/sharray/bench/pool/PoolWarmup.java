package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;

import java.time.Duration;
import java.util.Arrays;
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
    public void setUp(Params params) throws Exception {
        workers = (int) params.getLong("workers", 2);
        array = PoolWorkloads.filled(params.getLong("bytes", 1L << 30), 1.0);
        // the row times pools whose workers start from the class-data archive, as every pool after the
        // first one of a configuration does: let a first pool train it, and let its dump finish
        run();
        awaitWorkerArchive(Duration.ofSeconds(60));
    }

    /**
     * Waits while this JVM's background dump of the workers' class-data archive runs: on JDK 25 the first
     * pool's {@code close()} leaves one running for about a second (see {@code ProcessPool}), which would
     * otherwise share the cores with the first measured pools. The dump's shell names itself
     * {@code sharray-cds-dump} in its arguments.
     */
    static void awaitWorkerArchive(Duration max) throws InterruptedException {
        final long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline && ProcessHandle.current().children().anyMatch(PoolWarmup::isArchiveDump)) {
            Thread.sleep(50);
        }
    }

    private static boolean isArchiveDump(ProcessHandle p) {
        return p.isAlive() && p.info().arguments().map(a -> Arrays.asList(a).contains("sharray-cds-dump")).orElse(false);
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
