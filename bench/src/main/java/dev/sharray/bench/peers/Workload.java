package dev.sharray.bench.peers;

/**
 * One side (sharray or a Java peer) of a row of the side-by-side harness ({@code bench/run-peers.sh}).
 *
 * <p>To add a side, write a public class with a public no-argument constructor implementing this
 * interface and name it in the row table of {@link Rows}; the pool and codec sides are expected as
 * {@code dev.sharray.bench.pool.*} and {@code dev.sharray.bench.codec.*}. A side whose class is not on the
 * classpath shows as "n/a". The harness calls {@link #setUp} once, then {@link #run()} for the warm-up
 * and measured repetitions (alternating with the other side of the row), then {@link #close()}.
 */
public interface Workload extends AutoCloseable {
    /**
     * Allocates what the runs need (arrays, helper JVMs, pools); not timed.
     *
     * @param params the row's parameters ({@code bytes}, {@code workers}, {@code threads}, ...)
     * @throws Exception when the workload cannot run here
     */
    void setUp(Params params) throws Exception;

    /**
     * One repetition.
     *
     * @return the time it took in seconds (per task for rows that say "per task")
     * @throws Exception when it fails; the harness reports the row as failed
     */
    double run() throws Exception;

    /** Frees what {@link #setUp} allocated. */
    @Override
    default void close() throws Exception {
    }
}
