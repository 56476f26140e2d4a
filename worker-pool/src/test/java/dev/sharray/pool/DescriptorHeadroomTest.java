package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool started with a few file descriptors left: the JDK's process start failed half way and closed descriptors it
 * never opened (stdin, the application's streams, class-path jars) and leaked a pipe. The pool now refuses first,
 * with the count and the limit, and touches nothing.
 */
class DescriptorHeadroomTest {
    @Test
    void aStartWithTooFewDescriptorsIsRefusedAndClosesNothingOfOurs(@TempDir Path dir) throws Exception {
        final List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -n 256 && exec \"$0\" \"$@\""));
        command.addAll(JvmFlags.javaCommand(List.of("-Xmx256m", "-Dsharray.pool.cds=false"),
            FdStarvedPoolStart.class.getName(), dir.toString(), "8"));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("FAILED cannot start worker") && out.contains("too few free file descriptors")
            && out.contains("of the limit 256 are open"), out);
        assertTrue(out.lines().anyMatch("CLOSED []"::equals), out);
        assertTrue(out.lines().anyMatch("OPENED []"::equals), out);
        assertTrue(out.lines().anyMatch("RECOVERED 42"::equals), out);
    }

    @Test
    void theCountsAreThisProcesssOwn() throws Exception {
        final long open = DescriptorHeadroom.open();
        final java.util.List<java.io.FileInputStream> held = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                held.add(new java.io.FileInputStream("/dev/null"));
            }
            // at least: another thread of this JVM may open one meanwhile
            final long now = DescriptorHeadroom.open();
            assertTrue(now >= open + 8, open + " open, then " + now + " with 8 more");
        } finally {
            for (java.io.FileInputStream in : held) {
                in.close();
            }
        }
        assertTrue(DescriptorHeadroom.softLimit() > open, "limit " + DescriptorHeadroom.softLimit() + ", open " + open);
    }
}
