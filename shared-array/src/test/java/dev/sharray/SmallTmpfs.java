package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small tmpfs mounted on a new temporary folder, for tests of full file systems; needs root (CI runs as root), and
 * fails, not skips, without it. Tests in other modules reuse it through the test-jar.
 */
public final class SmallTmpfs implements AutoCloseable {
    private final Path path;

    private SmallTmpfs(Path path) {
        this.path = path;
    }

    /**
     * @param options the mount options, such as {@code size=8m}
     * @return the mounted file system
     */
    public static SmallTmpfs mount(String options) throws Exception {
        final Path folder = Files.createTempDirectory("sharray-small-tmpfs");
        final Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", folder.toString())
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "mounting a small tmpfs needs root (CI runs as root): " + out);
        return new SmallTmpfs(folder);
    }

    /** @return where it is mounted */
    public Path path() {
        return path;
    }

    /** Unmounts it (lazily: a file still open keeps it until closed) and deletes the folder. */
    @Override
    public void close() throws Exception {
        new ProcessBuilder("umount", "-l", path.toString()).start().waitFor();
        Files.deleteIfExists(path);
    }
}
