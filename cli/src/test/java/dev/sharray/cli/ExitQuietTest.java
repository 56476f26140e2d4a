package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work a Ctrl-C or SIGTERM stops fails on its way out (a pool shut down at exit, an array refused): the command line
 * printed that as its error ("sharray: CancellationException: ProcessPool was shut down") after the user's own
 * Ctrl-C. While the JVM exits it now says nothing more; the exit code is the signal's.
 */
class ExitQuietTest {
    @Test
    void aFailureWhileTheJvmExitsIsNotReported(@TempDir Path dir) throws Exception {
        final String missing = dir.resolve("no-shards").toString();
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(List.of(), ExitingCliChild.class.getName(), missing))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        final List<String> errors = out.lines().filter(l -> l.startsWith("sharray: ")).toList();
        assertEquals(1, errors.size(), out); // the running one's, not the hook's
        assertTrue(errors.get(0).contains(missing), out);
        assertTrue(out.contains("running: code 1") && out.contains("in a hook: code 1"), out);
    }
}
