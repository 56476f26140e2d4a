package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * sharray's warnings (the codec's fallback from its native library, a pool's unusable cache folder) went only through
 * SLF4J: an application without an SLF4J provider, where SLF4J drops every line, never learnt of them (deployment
 * review 49, F2). They reach standard error there now.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LoggersTest {
    @Test
    void withoutAnSlf4jProviderWarningsAndErrorsReachStandardError() throws Exception {
        final String out = loggingChild("slf4j-simple", null);
        assertTrue(out.contains("No SLF4J providers were found"), "the premise: no provider\n" + out);
        assertTrue(out.contains("WARN dev.sharray.test - the fallback costs 25x"), out);
        assertTrue(out.contains("ERROR dev.sharray.test - failed: java.lang.IllegalStateException: why"), out);
        assertTrue(out.contains("java.lang.IllegalStateException: with its trace"), out);
        assertFalse(out.contains("not said"), out);
    }

    /**
     * SLF4J 1.7's API in place of ours, without a binding (an application may pin 1.7, as Spring Boot 2 does): the
     * standard error logger, built on SLF4J 2's base class, failed to link, and every log line of sharray threw
     * NoClassDefFoundError, so a create whose JNA could not load failed (diff review 49, F1). SLF4J's silence then.
     */
    @Test
    void underSlf4j17WithoutABindingLoggingIsSilentAndNeverThrows() throws Exception {
        final String out = loggingChild("slf4j-", "slf4j-api-1.7.36.jar");
        assertTrue(out.contains("org.slf4j.impl.StaticLoggerBinder"), "the premise: SLF4J 1.7, no binding\n" + out);
        assertFalse(out.contains("the fallback costs") || out.contains("Error"), out);
    }

    /** An application that put slf4j-nop on its classpath asked for silence: sharray keeps it. */
    @Test
    void slf4jNopChosenKeepsSharraySilent() throws Exception {
        final String out = loggingChild("slf4j-simple",
            "slf4j-nop-" + org.slf4j.LoggerFactory.class.getPackage().getImplementationVersion() + ".jar");
        assertFalse(out.contains("No SLF4J providers") || out.contains("the fallback costs"), out);
    }

    /**
     * @param dropped what the classpath entries left out contain
     * @param added   a jar the build copied for these tests (shared-array/pom.xml) put on the classpath, or null
     * @return the output of a {@link LoggingChild} on this JVM's classpath so changed; it exited normally
     */
    private static String loggingChild(String dropped, String added) throws Exception {
        String classpath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains(dropped)).collect(Collectors.joining(File.pathSeparator));
        if (added != null) {
            final Path jar = Path.of("target", "slf4j-variants", added).toAbsolutePath();
            assertTrue(java.nio.file.Files.isRegularFile(jar), jar + " (copied by the build)");
            classpath += File.pathSeparator + jar;
        }
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(classpath, List.of(), LoggingChild.class.getName()))
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
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
