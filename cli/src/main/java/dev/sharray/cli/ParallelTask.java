package dev.sharray.cli;

import dev.sharray.pool.RemoteFunction;

/**
 * One unit of parallel work. It is a {@link RemoteFunction}, so the same task runs on threads in this JVM
 * or in a worker JVM of the pool: tasks given to a pool-backed {@link Parallel} must capture only shared
 * arrays, records, strings, primitives and enums (no buffers, channels or {@code this}).
 *
 * @param <T> argument type
 * @param <R> result type
 */
@FunctionalInterface
public interface ParallelTask<T, R> extends RemoteFunction<T, R> {
}
