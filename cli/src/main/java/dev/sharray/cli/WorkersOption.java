package dev.sharray.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The {@code --workers N} and {@code --threads} options shared by the parallel commands. */
public final class WorkersOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    private int workers = Parallels.defaultWorkers();

    /** @param n how many workers run tasks in parallel */
    @Option(names = {"-w", "--workers"}, paramLabel = "N",
        description = "Parallel workers (default: available processors, at most 8).")
    void setWorkers(int n) {
        if (n < 1 || n > 256) {
            throw new ParameterException(spec.commandLine(), "--workers must be between 1 and 256, got " + n);
        }
        workers = n;
    }

    @Option(names = "--threads", description = "Run the parallel work on threads in this JVM instead of worker JVMs "
        + "(no worker start-up; also SHARRAY_PARALLEL=threads).")
    boolean threads;

    /**
     * @param workload where the tasks' hot loops run
     * @return a runner for the parallel work: worker JVMs (started on first use) or, with --threads, threads
     */
    public Parallel compute(Workload workload) {
        return threads ? Parallels.local(workers) : Parallels.lazy(workers, workload);
    }

    /** @return the chosen worker count */
    public int workers() {
        return workers;
    }
}
