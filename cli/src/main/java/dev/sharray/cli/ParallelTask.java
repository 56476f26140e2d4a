package dev.sharray.cli;

import java.io.Serializable;

/**
 * One unit of parallel work. Serializable so the same task can run in a worker JVM: capture only
 * shared arrays, strings and primitives.
 *
 * @param <T> argument type
 * @param <R> result type
 */
@FunctionalInterface
public interface ParallelTask<T, R> extends Serializable {
    /**
     * @param arg the argument
     * @return the result
     * @throws Exception anything; it fails the whole run
     */
    R apply(T arg) throws Exception;
}
