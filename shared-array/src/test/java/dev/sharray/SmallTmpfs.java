package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A small tmpfs mounted on a new temporary folder for each test, for tests of full file systems: register it with
 * {@code @RegisterExtension final SmallTmpfs tmpfs = new SmallTmpfs("size=8m");}. Needs root (CI runs as root), and
 * fails, not skips, without it. Tests in other modules reuse it through the test-jar.
 */
public final class SmallTmpfs implements BeforeEachCallback, AfterEachCallback {
    private final String options;
    private Path path;

    /** @param options the mount options, such as {@code size=8m} */
    public SmallTmpfs(String options) {
        this.options = options;
    }

    /** @return where this test's file system is mounted */
    public Path path() {
        return path;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        path = Files.createTempDirectory("sharray-small-tmpfs");
        final Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", path.toString())
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "mounting a small tmpfs needs root (CI runs as root): " + out);
    }

    /** Unmounts it (lazily: a file still open keeps it until closed) and deletes the folder. */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (path == null) {
            return; // no folder was made
        }
        new ProcessBuilder("umount", "-l", path.toString()).start().waitFor();
        Files.deleteIfExists(path);
    }
}
