package dev.sharray.pool;

import java.io.Serializable;

/**
 * A function run by a worker JVM. Named classes and serializable lambdas both work: the function
 * travels through Java serialization restricted to functions, and every value it captures (fields
 * of a named class, captured variables of a lambda) crosses through the pool's
 * {@link dev.sharray.reducers.Reducers reducers}, so a captured {@code SharedArray} crosses as its
 * descriptor, never as a copy. A lambda must not capture {@code this} of a non-function class.
 *
 * @param <T> argument type
 * @param <R> result type
 */
@FunctionalInterface
public interface RemoteFunction<T, R> extends Serializable {

    /**
     * Runs in a worker.
     *
     * @param t the argument, rebuilt in the worker
     * @return the result, sent back through the reducers
     * @throws Exception anything; it reaches the caller as a {@link RemoteTaskException}
     */
    R apply(T t) throws Exception;
}
