package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * sharray's warnings (the codec's fallback from its native library, a pool's unusable cache folder) went only through
 * SLF4J: an application without an SLF4J provider, where SLF4J drops every line, never learnt of them (deployment
 * review 49, F2). They reach standard error there now.
 */
class LoggersTest {
    @Test
    void withoutAnSlf4jProviderWarningsAndErrorsReachStandardError() throws Exception {
        final String withoutProvider = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("slf4j-simple")).collect(Collectors.joining(File.pathSeparator));
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(withoutProvider, List.of(), LoggingChild.class.getName()))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("No SLF4J providers were found"), "the premise: no provider\n" + out);
        assertTrue(out.contains("WARN dev.sharray.test - the fallback costs 25x"), out);
        assertTrue(out.contains("ERROR dev.sharray.test - failed: java.lang.IllegalStateException: why"), out);
        assertTrue(out.contains("java.lang.IllegalStateException: with its trace"), out);
        assertFalse(out.contains("not said"), out);
    }

    @Test
    void withAProviderItsLoggerIsUsed() {
        assertFalse(Loggers.get("dev.sharray.test") instanceof StandardErrorLogger, "slf4j-simple is on the classpath");
    }

    /** Child side: logs at each level through {@link Loggers}. */
    public static final class LoggingChild {
        public static void main(String[] args) {
            final org.slf4j.Logger log = Loggers.get("dev.sharray.test");
            log.info("not said");
            log.debug("not said either");
            log.warn("the fallback costs {}x", 25);
            log.error("failed: {}", new IllegalStateException("why").toString());
            log.error("failed", new IllegalStateException("with its trace"));
        }
    }
}
