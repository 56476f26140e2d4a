package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An array larger than the memory left, in a tmpfs larger than that memory (a container run with {@code --memory=1g
 * --shm-size=4g}), is refused with {@link InsufficientSpaceException}. Before, the tmpfs had room, so create
 * preallocated the file, and the kernel's OOM killer ended the creating JVM on the way (its files left behind).
 * Needs root for the tmpfs and the memory cgroup (CI runs as root).
 */
class MemoryLimitTest {
    private static final long LIMIT = 512L << 20;

    /** @return a command prefix that moves the process into {@code cgroup} before it runs the rest */
    private static List<String> inCgroup(Path cgroup) {
        return List.of("sh", "-c", "echo $$ > " + cgroup.resolve("cgroup.procs") + " && exec \"$@\"", "sh");
    }

    @Test
    void anArrayLargerThanTheCgroupsMemoryInALargerTmpfsIsRefusedNotKilled() throws Exception {
        final Path mount = Files.createTempDirectory("sharray-memory-tmpfs");
        final Path cgroup = createMemoryCgroup(LIMIT);
        try {
            run("mount", "-t", "tmpfs", "-o", "size=2g", "tmpfs", mount.toString());
            final List<String> inCgroup = inCgroup(cgroup);
            try (ChildJvm child = ChildJvm.startWrapped(inCgroup, MemoryLimitChild.class,
                    List.of("-Dsharray.reaper.disabled=true"), mount.toString(), Long.toString(1L << 30),
                    Long.toString(64L << 20))) {
                final String big = child.readLine();
                assertTrue(big.startsWith("big refused not enough memory for ") && big.contains("tmpfs"), big);
                assertEquals("files 0", child.readLine(), "the refused create left files");
                assertEquals("small created", child.readLine());
                assertEquals(0, child.finish());
            }
        } finally {
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
            Files.deleteIfExists(mount);
            Files.deleteIfExists(cgroup); // rmdir: a cgroup with no process left
        }
    }

    /**
     * The same for a user's sparse {@code .npy} in such a tmpfs: its open allocates its holes, so more holes than the
     * memory left are refused there, the file unchanged. Before, the open did not allocate them (the first writes
     * into its holes did, page by page, until the OOM killer ended a process).
     */
    @Test
    void aSparseNpyWithMoreHolesThanTheCgroupsMemoryIsRefusedAtOpen() throws Exception {
        final Path mount = Files.createTempDirectory("sharray-memory-tmpfs");
        final Path cgroup = createMemoryCgroup(LIMIT);
        try {
            run("mount", "-t", "tmpfs", "-o", "size=2g", "tmpfs", mount.toString());
            final Path file = mount.resolve("user.npy");
            final byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {1L << 27});
            try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
                raf.write(header);
                raf.setLength(header.length + (1L << 30)); // 1 GiB of holes
            }
            final List<String> inCgroup = inCgroup(cgroup);
            try (ChildJvm child = ChildJvm.startWrapped(inCgroup, SparseOpenChild.class,
                    List.of("-Dsharray.reaper.disabled=true"), Long.toString(1L << 26), file.toString())) {
                final String outcome = child.readLine();
                assertTrue(outcome.startsWith("refused dev.sharray.InsufficientSpaceException: not enough memory for "
                    + mount + " (a tmpfs, whose files are memory) to back " + file), outcome);
                assertEquals(0, child.finish());
            }
            assertEquals(0, Files.getFileStore(mount).getTotalSpace() - Files.getFileStore(mount).getUnallocatedSpace()
                - 4096, "the refused open left pages allocated (the header's is the only one)");
        } finally {
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
            Files.deleteIfExists(mount);
            Files.deleteIfExists(cgroup);
        }
    }

    /** A memory cgroup of this process's with {@code limit} bytes (v1, or v2 with the memory controller on). */
    private static Path createMemoryCgroup(long limit) throws IOException {
        final String name = "sharray-test-" + ProcessHandle.current().pid();
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            final String[] parts = line.split(":", 3);
            if (List.of(parts[1].split(",")).contains("memory")) {
                final Path dir = Path.of("/sys/fs/cgroup/memory", parts[2].substring(1), name);
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limit));
                return dir;
            }
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            if (line.startsWith("0::/")) {
                final Path parent = Path.of("/sys/fs/cgroup", line.substring(4));
                Files.writeString(parent.resolve("cgroup.subtree_control"), "+memory");
                final Path dir = Files.createDirectories(parent.resolve(name));
                Files.writeString(dir.resolve("memory.max"), Long.toString(limit));
                if (Files.exists(dir.resolve("memory.swap.max"))) { // only with swap accounting
                    Files.writeString(dir.resolve("memory.swap.max"), "0");
                }
                return dir;
            }
        }
        throw new AssertionError("no memory cgroup to make one in (needs root, cgroup v1 or v2): "
            + Files.readString(Path.of("/proc/self/cgroup"), StandardCharsets.US_ASCII));
    }

    private static void run(String... command) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", command) + " needs root (CI runs as root): " + out);
    }
}
