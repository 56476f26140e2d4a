package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;
import dev.sharray.pool.ProcessPool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

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
     * Waits while the workers' class-data archive folder ({@code ~/.cache/sharray/cds}, see
     * {@code ProcessPool}) holds a training file: on JDK 25 the archive is dumped by a background JVM after
     * the training pool's {@code close()}, which would otherwise run beside the first measured pools.
     */
    static void awaitWorkerArchive(Duration max) throws Exception {
        final String configured = System.getProperty("sharray.pool.cds.dir");
        final String xdg = System.getenv("XDG_CACHE_HOME");
        final Path folder = configured != null ? Path.of(configured)
            : (xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache"))
                .resolve("sharray").resolve("cds");
        final long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline && training(folder)) {
            Thread.sleep(50);
        }
    }

    private static boolean training(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return false;
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.anyMatch(p -> p.getFileName().toString().contains(".jsa.tmp-"));
        }
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
