package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A ring file the pool cannot delete at close is said, as an array's file is (fault review 49, F6). */
class RingFileUnlinkTest {
    @TempDir
    Path folder;

    @Test
    void aRingFileThatCannotBeDeletedIsSaidInAWarning() throws Exception {
        final Path path = folder.resolve("w1.ring");
        try (RingFile rings = RingFile.create(path, 4096)) {
            // a delete that fails: a non-empty folder where the file was (EIO, as the fault review injected, is not
            // reachable from a test without a tracer)
            Files.delete(path);
            Files.createDirectories(path.resolve("inside"));
            final String said = stderrOf(rings::unlink);
            assertTrue(said.contains("WARN") && said.contains("could not delete " + path), said);
        }
    }

    private static String stderrOf(Runnable action) {
        final PrintStream before = System.err;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(before);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
