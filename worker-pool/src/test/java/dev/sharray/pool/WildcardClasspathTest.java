package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code dir/*} entry of the workers' classpath ({@code ProcessPool.Builder.classpath}, the natural form for an
 * extracted Spring Boot jar's {@code BOOT-INF/lib/*}) was copied as it is into the launch jar's {@code Class-Path},
 * which has no wildcards: the workers found none of the folder's jars ("Could not find or load main class
 * dev.sharray.pool.WorkerMain" when sharray was among them). It worked only without a launch jar, where the
 * {@code java} launcher expands {@code -cp}. The pool now expands it itself, as the launcher does.
 */
class WildcardClasspathTest {
    private static final String S = File.pathSeparator;

    @Test
    void aWildcardNamesTheFoldersJarsSortedAndNotThoseOfItsSubfolders(@TempDir Path dir) throws Exception {
        final Path lib = Files.createDirectories(dir.resolve("lib"));
        for (String name : new String[] {"b.jar", "a.JAR", "c.jar.txt", "notes", "sub/d.jar"}) {
            Files.createDirectories(lib.resolve(name).getParent());
            Files.writeString(lib.resolve(name), "x");
        }
        assertEquals(dir + "/classes" + S + lib + "/a.JAR" + S + lib + "/b.jar" + S,
            WorkersClasspath.expandWildcards(dir + "/classes" + S + lib + "/*" + S + dir + "/missing/*" + S));
        assertEquals("plain.jar" + S + lib + "/*.jar", WorkersClasspath.expandWildcards("plain.jar" + S + lib + "/*.jar"),
            "only a whole last part is a wildcard");
        Files.writeString(lib.resolve("*"), "a file by that very name");
        assertEquals(lib + "/*", WorkersClasspath.expandWildcards(lib + "/*"), "names that file, as for the launcher");
    }

    /** A task needs a class from a jar that only the wildcard folder holds; the workers start from a launch jar. */
    @Test
    void aPoolsWildcardClasspathReachesWorkersThatStartFromALaunchJar(@TempDir Path dir) throws Exception {
        final Path lib = Files.createDirectories(dir.resolve("lib"));
        extraJar(dir, lib.resolve("extra.jar"));
        final Path cache = dir.resolve("cds");
        final String before = System.getProperty("sharray.pool.cds.dir");
        final String answer;
        try {
            System.setProperty("sharray.pool.cds.dir", cache.toString());
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m")
                .classpath(WorkersClasspath.derive() + S + lib + File.separator + "*").build()) {
                answer = pool.submit((Integer x) -> System.getProperty("java.class.path") + "|"
                    + Class.forName("probe.Extra").getMethod("hello").invoke(null), 0).get(60, TimeUnit.SECONDS);
            }
        } finally {
            if (before == null) {
                System.clearProperty("sharray.pool.cds.dir");
            } else {
                System.setProperty("sharray.pool.cds.dir", before);
            }
        }
        assertTrue(answer.startsWith(cache.toRealPath() + "/worker-") && answer.contains(".jar|"),
            "the worker started from a launch jar: " + answer);
        assertEquals("hello from extra.jar", answer.substring(answer.indexOf('|') + 1));
    }

    /** Writes a jar of one class, {@code probe.Extra}, whose {@code hello()} says where it is from. */
    private static void extraJar(Path dir, Path jar) throws Exception {
        final Path classes = ProbeClasses.compile(dir, "Extra", "package probe;\n"
            + "public final class Extra {\n"
            + "    public static String hello() { return \"hello from extra.jar\"; }\n"
            + "}\n", "");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, new Manifest())) {
            j.putNextEntry(new JarEntry("probe/Extra.class"));
            j.write(Files.readAllBytes(classes.resolve("probe/Extra.class")));
            j.closeEntry();
        }
    }
}
