package dev.sharray.pool;

import dev.sharray.SharedArrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pool's folder removed under it (a tmp cleaner, a user's {@code rm -rf}): the next worker started made it again
 * with {@code createDirectories}, so with the umask's mode (0755: others could list the pool's files) rather than
 * this process's 0700; and while the JVM exited, after sharray's hook had removed it, it stayed. Workers now take the
 * folder as every other file of this process does.
 */
class RemovedPoolFolderTest {
    @Test
    void aWorkerStartedAfterThePoolsFolderWasRemovedMakesItAgainPrivate(@TempDir Path root) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(root).build()) {
            final Path folder = SharedArrays.processFolder(root);
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(60, TimeUnit.SECONDS));
            try (var files = Files.walk(folder)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            ProcessHandle.of(pool.workerPids().get(0)).orElseThrow().destroyForcibly(); // a replacement starts
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Integer answer = null;
            while (answer == null && System.nanoTime() < deadline) {
                try {
                    answer = pool.submit((Integer x) -> x + 1, 4).get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    // sent to the killed worker before the pool saw it die: the next one goes to the replacement
                }
            }
            assertEquals(5, answer);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        }
    }
}
