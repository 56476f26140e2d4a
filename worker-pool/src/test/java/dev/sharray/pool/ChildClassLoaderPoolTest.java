package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program run by {@code mvn exec:java} (its classes in a child class loader, {@code java.class.path} Maven's own
 * jar): the workers started with {@code java.class.path} alone and failed with "Could not find or load main class
 * dev.sharray.pool.WorkerMain". They now also get the class loaders' jars and folders; {@code Builder.classpath}
 * names another classpath where that cannot be told.
 */
class ChildClassLoaderPoolTest {
    @Test
    void aProgramLoadedByAChildClassLoaderRunsTasks(@TempDir Path dir) throws Exception {
        final Result r = run(dir);
        assertEquals(0, r.exit, r.out);
        assertTrue(r.out.lines().anyMatch("answer 42"::equals), r.out);
    }

    @Test
    void anExplicitClasspathIsTheWorkersOwn(@TempDir Path dir) throws Exception {
        final Result r = run(dir, dir.resolve("nothing-here.jar").toString());
        assertNotEquals(0, r.exit, r.out);
        assertTrue(r.out.contains("dev.sharray.pool.WorkerMain"), r.out); // the workers could not load it
    }

    private record Result(int exit, String out) {
    }

    private static Result run(Path dir, String... appArgs) throws Exception {
        // the host's classpath: a folder with ExecJavaLike alone
        final String name = ExecJavaLike.class.getName().replace('.', '/') + ".class";
        final Path host = dir.resolve("host");
        Files.createDirectories(host.resolve(name).getParent());
        try (var in = ExecJavaLike.class.getClassLoader().getResourceAsStream(name)) {
            Files.copy(in, host.resolve(name));
        }
        final List<String> args = new ArrayList<>(List.of(System.getProperty("java.class.path"),
            ExecJavaLikeApp.class.getName()));
        args.addAll(List.of(appArgs));
        final List<String> options = new ArrayList<>(List.of("-Xmx256m", "-Dsharray.pool.cds=false"));
        final String tempFolder = System.getProperty("sharray.tempFolder");
        if (tempFolder != null) {
            options.add("-Dsharray.tempFolder=" + tempFolder);
        }
        final Process p = new ProcessBuilder(JvmFlags.javaCommand(host.toString(), options, ExecJavaLike.class.getName(),
            args.toArray(new String[0]))).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        return new Result(p.exitValue(), out);
    }
}
