package dev.sharray.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Counts a process's sleeps for the tests of idle costs: each one is a wake-up later. */
final class ContextSwitches {
    private ContextSwitches() {
    }

    /** @return the voluntary context switches of all of a process's threads: how often they went to sleep */
    static long voluntary(long pid) throws IOException {
        long total = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                } catch (IOException threadEnded) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return total;
    }
}
