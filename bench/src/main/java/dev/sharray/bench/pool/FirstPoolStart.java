package dev.sharray.bench.pool;

import dev.sharray.pool.ProcessPool;

import java.util.List;
import java.util.Locale;

/**
 * The first pool of a fresh JVM, as a command line tool or an application meets it: milliseconds from
 * before {@code ProcessPool.create(2)} until a map of 2 tasks has returned, printed on one line. Run it
 * several times, each in a new JVM, alternating the builds to compare (the harness's own pool-start row
 * times later pools of one JVM, which no longer pay for the classes and code the first one set up):
 * {@code for i in $(seq 10); do java @bench/target/jvm.args -cp bench/target/benchmarks.jar
 * dev.sharray.bench.pool.FirstPoolStart; done}
 */
public final class FirstPoolStart {
    private FirstPoolStart() {
    }

    /**
     * @param args unused
     */
    public static void main(String[] args) {
        final long t0 = System.nanoTime();
        try (ProcessPool pool = ProcessPool.create(2)) {
            pool.map((Integer x) -> x + 1, List.of(1, 2));
            System.out.printf(Locale.ROOT, "%.1f%n", (System.nanoTime() - t0) / 1e6);
        }
    }
}
