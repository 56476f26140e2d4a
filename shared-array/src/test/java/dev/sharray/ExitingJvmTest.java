package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that has begun to exit (a Ctrl-C while the first array of over 2 GiB was being made): Chronicle's first use
 * registers a shutdown hook, which the JVM then refuses, and its class failed to initialize, its releaser thread
 * printing a 30-line trace. The create is now refused first, and {@link SharedArrays#jvmExiting} tells the exit
 * apart (the command line stays quiet on errors the exit causes).
 */
class ExitingJvmTest {
    @Test
    void aFirstArrayInAnExitingJvmIsRefusedQuietly(@TempDir Path root) throws Exception {
        assertRefusedQuietly(root);
    }

    @Test
    void aFirstChronicleArrayInAnExitingJvmIsRefusedQuietly(@TempDir Path root) throws Exception {
        assertRefusedQuietly(root, "afterAnArray");
    }

    /**
     * The exit began while the first Chronicle array's thread was inside Chronicle's first set-up, after the create's
     * check: the releaser's trace again (a Ctrl-C 0.4-0.55 s into a program making its first array over 2 GiB printed
     * it in 2 of 5 runs). Chronicle's shutdown hook is now registered before any of its slow set-up, and that
     * registration is the check.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anExitDuringChroniclesFirstSetUpIsQuiet(@TempDir Path root) throws Exception {
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(List.of("-Dsharray.tempFolder=" + root),
            ExitDuringChronicleStartChild.class.getName())).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertTrue(out.contains("exit while the creator is in net.openhft.chronicle.bytes.MappedFile"), "the premise\n" + out);
        assertFalse(out.contains("ExceptionInInitializerError") || out.contains("NoClassDefFoundError")
            || out.contains("Shutdown in progress"), out);
        assertEquals(0, p.exitValue(), out);
    }

    private static void assertRefusedQuietly(Path root, String... args) throws Exception {
        final List<String> options = new ArrayList<>(List.of("-Dsharray.tempFolder=" + root));
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(options, ExitingJvmChild.class.getName(), args))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("running: exiting false"), out);
        assertTrue(out.contains("in a hook: exiting true"), out);
        assertTrue(out.contains("refused: cannot create a shared array: this JVM is exiting"), out);
        assertFalse(out.contains("ExceptionInInitializerError") || out.contains("NoClassDefFoundError"), out);
    }
}
