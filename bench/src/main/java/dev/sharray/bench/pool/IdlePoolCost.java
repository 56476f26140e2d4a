package dev.sharray.bench.pool;

import dev.sharray.pool.ProcessPool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What an idle pool costs: the CPU time and the wake-ups (voluntary context switches, all threads) of
 * each worker JVM while the pool sits idle after a few tasks, from {@code /proc}.
 *
 * <p>Usage: {@code java @target/jvm.args -cp <bench classpath> dev.sharray.bench.pool.IdlePoolCost
 * [workers=2] [seconds=10]}
 */
public final class IdlePoolCost {
    private IdlePoolCost() {
    }

    /**
     * @param args optional worker count and idle seconds
     * @throws Exception when the pool or {@code /proc} fails
     */
    public static void main(String[] args) throws Exception {
        final int workers = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        final int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        final long tick = 10; // ms per clock tick (USER_HZ 100 on Linux)
        try (ProcessPool pool = ProcessPool.create(workers)) {
            pool.map((Integer x) -> x, List.of(1, 2, 3, 4, 5, 6, 7, 8));
            Thread.sleep(1000);
            final List<Long> pids = pool.workerPids();
            final long[][] before = new long[pids.size()][];
            for (int i = 0; i < pids.size(); i++) {
                before[i] = sample(pids.get(i));
            }
            Thread.sleep(seconds * 1000L);
            for (int i = 0; i < pids.size(); i++) {
                final long[] after = sample(pids.get(i));
                System.out.printf(Locale.ROOT, "idle worker %d: %.1f ms CPU per second, %.0f wake-ups per second%n", i,
                    (after[0] - before[i][0]) * tick / (double) seconds, (after[1] - before[i][1]) / (double) seconds);
            }
        }
    }

    /** @return {CPU clock ticks, voluntary context switches} summed over the process's threads */
    private static long[] sample(long pid) throws IOException {
        long ticks = 0;
        long switches = 0;
        try (Stream<Path> threads = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) threads::iterator) {
                try {
                    final String stat = Files.readString(t.resolve("stat"));
                    final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                } catch (IOException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return new long[] {ticks, switches};
    }
}
