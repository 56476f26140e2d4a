package dev.sharray.cli;

/** Chooses the {@link Parallel} implementation: the one place to switch between threads and worker JVMs. */
public final class Parallels {
    private Parallels() {
    }

    /**
     * @param workers how many tasks run at once, at least 1
     * @return a parallel runner; close it when done
     */
    public static Parallel create(int workers) {
        return new ThreadParallel(Math.max(1, workers));
    }

    /** @return the default worker count: the available processors, at most 8 */
    public static int defaultWorkers() {
        return Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors()));
    }
}
