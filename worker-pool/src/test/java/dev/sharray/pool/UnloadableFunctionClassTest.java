package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A named function class the workers cannot load (defined in JShell, by a plugin's or a child class loader, or
 * missing from {@code ProcessPool.Builder.classpath}) was reported as "corrupt function bytes:
 * java.lang.ClassNotFoundException": the bytes were sound, the workers' classpath lacked the class. The message now
 * says so, as a lambda's already did, and names {@code ProcessPool.Builder.classpath}.
 */
class UnloadableFunctionClassTest {
    private static final String CLASS = "probe.Twice";

    @Test
    void aFunctionClassTheWorkersCannotLoadIsNamedAsSuch(@TempDir Path dir) throws Exception {
        final RemoteFunction<Integer, Integer> twice = childLoaderFunction(dir);
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            final Exception submitted = assertThrows(Exception.class, () -> pool.submit(twice, 21).get(60, TimeUnit.SECONDS));
            assertNamesTheClassAndTheClasspath(submitted);
            final Exception mapped = assertThrows(Exception.class, () -> pool.map(twice, List.of(1, 2, 3)));
            assertNamesTheClassAndTheClasspath(mapped);
            assertEquals(42, pool.submit((Integer x) -> 2 * x, 21).get(60, TimeUnit.SECONDS), "the pool still works");
        }
    }

    private static void assertNamesTheClassAndTheClasspath(Exception e) {
        // a submit's future wraps the failure
        final RemoteTaskException failure = assertInstanceOf(RemoteTaskException.class,
            e instanceof ExecutionException ? e.getCause() : e);
        final StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        final String text = trace.toString();
        assertEquals(MalformedDataException.class.getName(), failure.remoteClassName(), text);
        final String message = failure.remoteMessage();
        assertTrue(message.startsWith("function of class " + CLASS + ", which cannot be loaded here: it is not on the"
            + " workers' classpath") && message.contains("ProcessPool.Builder.classpath"), text);
        assertFalse(text.contains("corrupt function bytes"), text);
        // a map's other tasks' failures are its suppressed ones; a task's failure used to be caused by a copy of itself
        final long attached = java.util.Arrays.stream(failure.getSuppressed())
            .filter(s -> !(s instanceof CallFailures.OmittedTaskFailures)).count();
        assertEquals(1 + attached, text.split(Pattern.quote(message), -1).length - 1,
            "the message once per task's failure, not again as its cause: " + text);
    }

    /** An instance of {@link #CLASS}, compiled into {@code dir} and loaded by a child class loader over it alone. */
    @SuppressWarnings("unchecked")
    private static RemoteFunction<Integer, Integer> childLoaderFunction(Path dir) throws Exception {
        final String sharray = Path.of(RemoteFunction.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        final Path classes = ProbeClasses.compile(dir, "Twice", "package probe;\n"
            + "public final class Twice implements dev.sharray.pool.RemoteFunction<Integer, Integer> {\n"
            + "    private static final long serialVersionUID = 1L;\n"
            + "    @Override public Integer apply(Integer x) { return 2 * x; }\n"
            + "}\n", sharray);
        final URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
            UnloadableFunctionClassTest.class.getClassLoader());
        return (RemoteFunction<Integer, Integer>) Class.forName(CLASS, true, loader).getConstructor().newInstance();
    }
}
