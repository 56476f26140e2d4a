package dev.sharray.cli;

import java.util.List;

/**
 * Runs tasks in parallel and returns their results in order. {@link Parallels#create(int, Workload)} picks the
 * implementation: worker JVMs or threads in this JVM.
 */
public interface Parallel extends AutoCloseable {
    /** @return how many tasks run at once */
    int workers();

    /** @return a short description such as {@code 2 threads} */
    String describe();

    /**
     * @param task the task
     * @param args one argument per task
     * @param <T>  argument type
     * @param <R>  result type
     * @return the results in argument order
     * @throws RuntimeException the first task failure, after all tasks ended
     */
    <T, R> List<R> map(ParallelTask<T, R> task, List<? extends T> args);

    /**
     * Starts the workers now, in the background, and runs {@code warmUp} once on each (loading what the real
     * tasks need), so worker start-up overlaps the caller's own set-up. Does nothing where there is nothing to
     * start.
     *
     * @param warmUp a task run once per worker with the worker's number; its result is ignored
     */
    default void startEarly(ParallelTask<Integer, ?> warmUp) {
    }

    @Override
    void close();
}
