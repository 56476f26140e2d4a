package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Options given in {@code JAVA_TOOL_OPTIONS} or {@code JDK_JAVA_OPTIONS} (a common way to pass sharray's flags in a
 * container) made every worker print the JVM's "Picked up ..." note again, under its own prefix, at every start
 * (deployment review 49). The parent's own note stays; the workers' are dropped.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EnvironmentOptionNotesTest {
    @Test
    void workersDoNotRepeatTheEnvironmentOptionNotes() throws Exception {
        final ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(List.of("-Dsharray.pool.cds=false"),
            AgentPoolChild.class.getName())).redirectErrorStream(true);
        pb.environment().put("JAVA_TOOL_OPTIONS", "-Dsharray.test.tool=1");
        pb.environment().put("JDK_JAVA_OPTIONS", "-Dsharray.test.jdk=1");
        final Process parent = pb.start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, parent.exitValue(), out);
        assertTrue(out.contains("RESULT [42]"), out);
        // the parent's own notes, once each: the worker's, under its prefix, are gone
        assertEquals(1, occurrences(out, "Picked up JAVA_TOOL_OPTIONS: -Dsharray.test.tool=1"), out);
        assertEquals(1, occurrences(out, "NOTE: Picked up JDK_JAVA_OPTIONS: -Dsharray.test.jdk=1"), out);
    }

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }
}
