package dev.sharray.cli.demo;

import dev.sharray.cli.CliException;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.Ui;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Fits the requested demo size to the machine: the array and its parity (1.4x) must fit in the temp
 * folder sharray will use and in available memory (tmpfs pages are memory), with headroom.
 */
final class DemoSizer {
    /** Data plus RS(10,4) parity. */
    static final double FOOTPRINT = 1.4;
    private static final long HEADROOM = 128L << 20;

    private DemoSizer() {
    }

    /**
     * @param requested requested array bytes, at least {@link DemoCommand#MIN_SIZE} (the command checks it)
     * @return the size to use; a message says so when it is smaller than requested
     */
    static long fit(long requested) {
        Path root = root();
        long free = usable(root);
        long mem = memAvailable();
        long budget = Math.min(free, mem) - HEADROOM;
        long max = (long) (budget * 0.8 / FOOTPRINT) & ~((1L << 20) - 1);
        if (requested <= max) {
            return requested;
        }
        if (max < (1L << 20)) {
            throw new CliException("not enough room for the demo: " + root + " has " + Sizes.format(free)
                + " free and " + Sizes.format(mem) + " of memory is available");
        }
        Ui.info("reduced the demo size from " + Sizes.format(requested) + " to " + Sizes.format(max) + ": " + root
            + " has " + Sizes.format(free) + " free and " + Sizes.format(mem) + " of memory is available");
        return max;
    }

    /** Where SharedArray.create will put the arrays (mirrors its documented order). */
    static Path root() {
        String p = System.getProperty("sharray.tempFolder");
        if (p == null || p.isBlank()) {
            p = System.getenv("SHARRAY_TEMP_FOLDER");
        }
        if (p != null && !p.isBlank()) {
            return Path.of(p);
        }
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static long usable(Path root) {
        try {
            Path existing = root;
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            return existing == null ? Long.MAX_VALUE : Files.getFileStore(existing).getUsableSpace();
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    /** MemAvailable from /proc/meminfo, or the JVM's view of free physical memory. */
    static long memAvailable() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
            for (String l : lines) {
                if (l.startsWith("MemAvailable:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getFreeMemorySize();
        }
        return Long.MAX_VALUE;
    }
}
