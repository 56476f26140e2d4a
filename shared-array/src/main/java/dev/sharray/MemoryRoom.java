package dev.sharray;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much memory a new file in a tmpfs can still take. A tmpfs's pages are memory, charged to the memory cgroup of
 * the process that allocates them: preallocating a file larger than the memory left (a container run with
 * {@code --memory=1g --shm-size=4g}, or a tmpfs mounted larger than RAM) does not fail with {@code ENOSPC} but
 * makes the kernel's OOM killer end a process, typically the one allocating, whose array files then stay until a
 * reaper finds them.
 *
 * <p>What is left is the least of: the machine's {@code MemAvailable} plus free swap ({@code /proc/meminfo}), and for
 * this process's memory cgroup and each above it (v1 or v2), its limit less its usage plus the page cache it can
 * drop ({@code inactive_file}). Unknown parts count as unlimited.
 */
final class MemoryRoom {
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    private MemoryRoom() {
    }

    /** @return bytes of memory a new tmpfs file can take now, {@link Long#MAX_VALUE} when unknown */
    static long available() {
        return available(machine(), Own.CGROUP);
    }

    /**
     * @param room the machine's room
     * @param own  this process's memory cgroup, or null; package-private for tests
     * @return the least of the machine's room and that of every cgroup from {@code own} up to its hierarchy's base
     */
    static long available(long room, Cgroup own) {
        if (own != null) {
            for (Path dir = own.dir; dir != null && dir.startsWith(own.base); dir = dir.getParent()) {
                room = Math.min(room, cgroupRoom(dir, own.v2)); // a limit above ours counts as well
            }
        }
        return room;
    }

    /** This process's memory cgroup, looked up once: a process rarely moves, and a limit read twice costs twice. */
    private static final class Own {
        static final Cgroup CGROUP = ownCgroup();
    }

    /** This process's memory cgroup: its folder, under the hierarchy's {@code base}. */
    record Cgroup(boolean v2, Path base, Path dir) {
    }

    /** MemAvailable plus SwapFree, in bytes. */
    private static long machine() {
        return machine(KernelFiles.read("/proc/meminfo"));
    }

    /** @param meminfo the text of {@code /proc/meminfo}, or null; package-private for tests */
    static long machine(String meminfo) {
        if (meminfo == null) {
            return Long.MAX_VALUE;
        }
        final long available = field(meminfo, "MemAvailable:");
        final long swapFree = field(meminfo, "SwapFree:");
        return available < 0 ? Long.MAX_VALUE : (available + Math.max(0, swapFree)) * 1024;
    }

    /** Kilobytes of a {@code /proc/meminfo} line, or -1. */
    private static long field(String meminfo, String name) {
        final int at = meminfo.indexOf(name);
        if (at < 0) {
            return -1;
        }
        final int end = meminfo.indexOf('\n', at);
        try {
            return Long.parseLong(meminfo.substring(at + name.length(), end < 0 ? meminfo.length() : end)
                .replace("kB", "").trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** @return this process's memory cgroup, or null when there is none to read */
    private static Cgroup ownCgroup() {
        final String self = KernelFiles.read("/proc/self/cgroup");
        if (self == null) {
            return null;
        }
        String v2 = null;
        for (String line : self.split("\n")) {
            final String[] parts = line.split(":", 3);
            if (parts.length < 3 || !parts[2].startsWith("/")) {
                continue;
            }
            if (java.util.Arrays.asList(parts[1].split(",")).contains("memory")) {
                final Path base = CGROUP_ROOT.resolve("memory");
                final Path dir = base.resolve(parts[2].substring(1));
                if (Files.isRegularFile(dir.resolve("memory.limit_in_bytes"))) {
                    return new Cgroup(false, base, dir);
                }
            } else if (parts[0].equals("0") && parts[1].isEmpty()) {
                v2 = parts[2];
            }
        }
        if (v2 != null) {
            final Path dir = CGROUP_ROOT.resolve(v2.substring(1));
            if (Files.isRegularFile(dir.resolve("memory.max"))) {
                return new Cgroup(true, CGROUP_ROOT, dir);
            }
        }
        return null;
    }

    /** A cgroup's limit less its usage plus its droppable page cache; {@link Long#MAX_VALUE} when unlimited. */
    static long cgroupRoom(Path dir, boolean v2) { // package-private for tests
        final long limit = number(KernelFiles.read(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes").toString()));
        if (limit < 0 || limit >= Long.MAX_VALUE / 2) { // "max", or v1's unlimited (2^63 - page): no need for the rest
            return Long.MAX_VALUE;
        }
        final long usage = number(KernelFiles.read(dir.resolve(v2 ? "memory.current" : "memory.usage_in_bytes").toString()));
        if (usage < 0) {
            return Long.MAX_VALUE;
        }
        final String stat = KernelFiles.read(dir.resolve("memory.stat").toString());
        long inactiveFile = 0;
        if (stat != null) {
            for (String line : stat.split("\n")) {
                if (line.startsWith(v2 ? "inactive_file " : "total_inactive_file ")) {
                    inactiveFile = Math.max(0, number(line.substring(line.indexOf(' ') + 1)));
                }
            }
        }
        return Math.max(0, limit - usage + inactiveFile);
    }

    private static long number(String text) {
        if (text == null) {
            return -1;
        }
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return -1; // "max"
        }
    }
}
