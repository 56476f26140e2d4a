package dev.sharray.cli.demo;

import dev.sharray.cli.CliException;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.Ui;
import dev.sharray.pool.ProcessPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Fits the requested demo size to the machine: the array and its parity (1.4x) must fit in the temp
 * folder sharray will use and in available memory (tmpfs pages are memory), beside the workers' rings, with headroom. The folder is the
 * one the library would choose: the configured one, else {@code /dev/shm} while a demo of at least 1 MiB fits
 * there, else {@code java.io.tmpdir} (a container's default 64 MiB {@code /dev/shm} cannot hold one).
 */
final class DemoSizer {
    /** Data plus RS(10,4) parity. */
    static final double FOOTPRINT = 1.4;
    private static final long HEADROOM = 128L << 20;
    private static final long MIB = 1L << 20;

    private DemoSizer() {
    }

    /** A folder the demo's arrays may go to, and the bytes free there. */
    record Folder(Path path, long free) {
    }

    /** Where the demo's arrays go, and how many bytes the array takes there. */
    record Fit(Path root, long bytes) {
    }

    /**
     * @param requested requested array bytes, at least {@link DemoCommand#MIN_SIZE} (the command checks it)
     * @param workers   the worker JVMs the demo starts: their rings take room in the same folder
     * @return the size to use; a message says so when it is smaller than requested
     */
    static long fit(long requested, int workers) {
        final long reserved = workers * ProcessPool.tempBytesPerWorker();
        final Path configured = configuredRoot();
        final Path shm = Path.of("/dev/shm");
        final Folder shmFolder = configured == null && Files.isDirectory(shm) && Files.isWritable(shm)
            ? new Folder(shm, usable(shm)) : null;
        final Path other = configured != null ? configured : Path.of(System.getProperty("java.io.tmpdir"));
        final long mem = memAvailable();
        final Fit fit = fit(requested, shmFolder, new Folder(other, usable(other)), mem, reserved);
        if (fit.bytes() < requested) {
            Ui.info("reduced the demo size from " + Sizes.format(requested) + " to " + Sizes.format(fit.bytes()) + ": "
                + fit.root() + " has " + Sizes.format(usable(fit.root())) + " free (" + Sizes.format(reserved)
                + " of it for the workers' rings) and " + Sizes.format(mem) + " of memory is available");
        }
        return fit.bytes();
    }

    /**
     * The decision, on the facts given: {@code /dev/shm} keeps the headroom of 128 MiB (above the library's own 64
     * MiB, so the library puts the arrays there too); the other folder a quarter of its room, at most that, so a
     * small folder still runs a small demo.
     *
     * @param shm      {@code /dev/shm} when it is usable and no folder is configured, else null
     * @param other    the configured folder, else {@code java.io.tmpdir}
     * @param reserved the bytes the workers' rings take in whichever folder it is
     * @throws CliException when not even 1 MiB fits
     */
    static Fit fit(long requested, Folder shm, Folder other, long mem, long reserved) {
        if (shm != null) {
            final long max = maxBytes(Math.min(shm.free(), mem) - reserved - HEADROOM);
            if (max >= MIB || requested <= max) {
                return new Fit(shm.path(), Math.min(requested, max));
            }
        }
        final long room = Math.min(other.free(), mem) - reserved;
        final long max = maxBytes(room - Math.min(HEADROOM, room / 4));
        if (requested <= max) {
            return new Fit(other.path(), requested);
        }
        if (max < MIB) {
            throw new CliException("not enough room for the demo: " + other.path() + " has " + Sizes.format(other.free())
                + " free (" + Sizes.format(reserved) + " of it for the workers' rings) and " + Sizes.format(mem)
                + " of memory is available"
                + (shm != null ? " (" + shm.path() + " has " + Sizes.format(shm.free()) + " free)" : ""));
        }
        return new Fit(other.path(), max);
    }

    /** @return the largest array (whole MiB) whose data and parity take 80% of {@code budget} at most */
    private static long maxBytes(long budget) {
        return budget <= 0 ? 0 : (long) (budget * 0.8 / FOOTPRINT) & ~(MIB - 1);
    }

    /** @return the folder configured by {@code -Dsharray.tempFolder} or {@code SHARRAY_TEMP_FOLDER}, or null */
    private static Path configuredRoot() {
        String p = System.getProperty("sharray.tempFolder");
        if (p == null || p.isBlank()) {
            p = System.getenv("SHARRAY_TEMP_FOLDER");
        }
        return p == null || p.isBlank() ? null : Path.of(p);
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
