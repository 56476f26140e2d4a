package dev.sharray.cli;

import java.util.List;

/**
 * Runs tasks in parallel and returns their results in order. {@link Parallels#create(int)} picks the
 * implementation (today: threads in this JVM; the worker-pool version swaps in behind this interface).
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

    @Override
    void close();
}
