package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache folder its group may write (a umask-002 home) is refused for the launch jar and the class-data archive, and
 * workers start slower without them: the pool used to say nothing, so its user never learnt why.
 */
class CacheFolderNoticeTest {
    private static final String NOTICE = "worker JVMs start slower, without";

    @Test
    void aGroupWritableCacheFolderIsNamedOnceWithItsReason(@TempDir Path dir) throws Exception {
        final Path cache = cacheFolder(dir, "rwxrwx---");
        final String out = runPool(cache);
        assertEquals(1, out.lines().filter(l -> l.contains(NOTICE)).count(), out); // two pools' worth of checks, one line
        final String line = out.lines().filter(l -> l.contains(NOTICE)).findFirst().orElseThrow();
        assertTrue(line.contains(cache.toString()) && line.contains("writable by other users") && line.contains("chmod"),
            line);
    }

    @Test
    void aPrivateCacheFolderIsUsedWithoutANotice(@TempDir Path dir) throws Exception {
        final Path cache = cacheFolder(dir, "rwx------");
        final String out = runPool(cache);
        assertTrue(out.lines().noneMatch(l -> l.contains(NOTICE)), out);
        try (var files = Files.list(cache)) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".jar")), "the launch jar is kept there");
        }
    }

    private static Path cacheFolder(Path dir, String mode) throws Exception {
        final Path cache = Files.createDirectory(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString(mode));
        return cache;
    }

    /**
     * Runs {@link ExecJavaLikeApp} (a pool, one task) twice in one child JVM with {@code cache} as the cache folder;
     * checks that the tasks ran.
     */
    private static String runPool(Path cache) throws Exception {
        final List<String> options = new ArrayList<>(List.of("-Xmx256m", "-Dsharray.pool.cds.dir=" + cache));
        final String tempFolder = System.getProperty("sharray.tempFolder");
        if (tempFolder != null) {
            options.add("-Dsharray.tempFolder=" + tempFolder);
        }
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(System.getProperty("java.class.path"), options,
            TwoPools.class.getName())).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.lines().anyMatch("answer 42"::equals), out);
        return out;
    }

    /** Two pools in a row, as a program that builds one per job. */
    public static final class TwoPools {
        private TwoPools() {
        }

        /** @param args none */
        public static void main(String[] args) throws Exception {
            ExecJavaLikeApp.main(new String[0]);
            ExecJavaLikeApp.main(new String[0]);
        }
    }
}
