package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Options given in {@code JAVA_TOOL_OPTIONS} or {@code JDK_JAVA_OPTIONS} (a common way to pass sharray's flags in a
 * container) made every worker print the JVM's "Picked up ..." note again, under its own prefix, at every start
 * (deployment review 49). The parent's own note stays; the workers' are dropped.
 */
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
        assertTrue(out.contains("Picked up JAVA_TOOL_OPTIONS: -Dsharray.test.tool=1")
            && out.contains("NOTE: Picked up JDK_JAVA_OPTIONS: -Dsharray.test.jdk=1"), "the parent's own notes\n" + out);
        assertFalse(out.contains("] Picked up") || out.contains("] NOTE: Picked up"), out);
    }
}
