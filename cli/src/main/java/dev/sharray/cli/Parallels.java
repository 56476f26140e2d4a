package dev.sharray.cli;

import java.util.Locale;

/**
 * Chooses the {@link Parallel} implementation: the one place to switch between worker JVMs and threads.
 * {@link #create(int, Workload)} gives the worker pool (set {@code SHARRAY_PARALLEL=threads} to run the same tasks on
 * threads instead); {@link #local(int)} gives threads for tasks that hold process-local state (buffers,
 * channels) such as checksumming and writing files.
 */
public final class Parallels {
    private Parallels() {
    }

    /**
     * @param workers  how many tasks run at once, at least 1
     * @param workload where the tasks' hot loops run (decides the workers' JIT)
     * @return a pool of worker JVMs (or threads when {@code SHARRAY_PARALLEL=threads}); close it when done
     */
    public static Parallel create(int workers, Workload workload) {
        String mode = System.getProperty("sharray.parallel", System.getenv("SHARRAY_PARALLEL"));
        if (mode != null && mode.toLowerCase(Locale.ROOT).startsWith("thread")) {
            return local(workers);
        }
        return new PoolParallel(Math.max(1, workers), workload);
    }

    /**
     * @param workers  how many tasks run at once, at least 1
     * @param workload where the tasks' hot loops run
     * @return what {@link #create(int, Workload)} gives, started only when first used (or on
     *         {@link Parallel#startEarly}); close it when done
     */
    public static Parallel lazy(int workers, Workload workload) {
        return new LazyParallel(Math.max(1, workers), n -> create(n, workload));
    }

    /**
     * @param workers how many tasks run at once, at least 1
     * @return threads in this JVM; close it when done
     */
    public static Parallel local(int workers) {
        return new ThreadParallel(Math.max(1, workers));
    }

    /** @return the default worker count: the available processors, at most 8 */
    public static int defaultWorkers() {
        return Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
    }
}
