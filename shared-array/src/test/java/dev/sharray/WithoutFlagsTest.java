package dev.sharray;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM started without the project's flags, as a user's first {@code java -cp ... Main} is: every entry point says
 * which flags are missing and how to pass them. Before, the first create failed with {@code IllegalAccessError:
 * class org.agrona.UnsafeApi ... cannot access class jdk.internal.misc.Unsafe}, and the next with
 * {@code NoClassDefFoundError: Could not initialize class org.agrona.UnsafeApi}.
 */
class WithoutFlagsTest {
    static final String EXPECTED = "IllegalStateException: this JVM was started without sharray's JVM flags"
        + " (config/jvm.flags): it lacks --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED. Start it with them all,"
        + " e.g. java @sharray.args -cp ..., the argfile written for the running JDK by java -cp <sharray-shared-array"
        + " jar> dev.sharray.JvmFlags > sharray.args (in a checkout the build writes shared-array/target/jvm.args); a JVM"
        + " you launch yourself gets them from JvmFlags.forCurrentJvm()";

    /**
     * The child: each entry point once, twice for create (the second call must not be a NoClassDefFoundError). A heap
     * array's sum failed with Agrona's raw IllegalAccessError, and every later use of HeapArray with
     * NoClassDefFoundError.
     */
    public static final class Child {
        private Child() {
        }

        public static void main(String[] args) {
            final List<Runnable> calls = List.of(
                () -> SharedArray.create(DType.FLOAT64, 4),
                () -> SharedArray.create(DType.FLOAT64, 4),
                () -> SharedArrays.processFolder(),
                () -> SharedArray.openNpy(Path.of(args[0])),
                () -> HeapArray.of(new double[] {1, 2, 3}, 3).sum(),
                () -> HeapArray.of(new double[] {1, 2, 3}, 3).dot(HeapArray.of(new double[] {1, 2, 3}, 3)),
                () -> HeapArray.of(new double[] {1, 2, 3}, 3).toShared());
            // first: a heap array needs no flags until it touches memory through Unsafe (sum and dot of FLOAT64)
            System.out.println("heap " + HeapArray.of(new double[] {1, 2, 3}, 3).getDouble(2));
            for (Runnable call : calls) {
                try {
                    call.run();
                    System.out.println("no exception");
                } catch (Throwable t) {
                    System.out.println(t.getClass().getSimpleName() + ": " + t.getMessage());
                }
            }
        }
    }

    @Test
    void everyEntryPointNamesTheMissingFlags() throws Exception {
        final Path npy;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            npy = a.path(); // a valid .npy the child may open (held here while it runs)
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx128m");
            cmd.add("-XX:TieredStopAtLevel=1");
            cmd.add("-Dchronicle.analytics.disable=true");
            final String tempFolder = System.getProperty("sharray.tempFolder");
            if (tempFolder != null) {
                cmd.add("-Dsharray.tempFolder=" + tempFolder);
            }
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(Child.class.getName());
            cmd.add(npy.toString());
            final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            final String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
            }
            final String[] lines = out.strip().split("\n");
            assertEquals(8, lines.length, out);
            assertEquals("heap 3.0", lines[0].strip(), out);
            for (int i = 1; i < 8; i++) {
                assertEquals(EXPECTED, lines[i].strip(), out);
            }
        }
    }

    @Test
    void theReadmeShowsTheCommandTheMessageNames() throws Exception {
        final Path root = dev.sharray.docs.DocFiles.root();
        final String readme = java.nio.file.Files.readString(root.resolve("README.md"));
        assertTrue(readme.contains("java @shared-array/target/jvm.args -cp \"myapp.jar:$(cat cli/target/classpath.txt)\""),
            "README shows how to run a program with the flags");
        assertTrue(readme.contains("`IllegalStateException: this JVM was started without sharray's JVM flags`"));
        assertTrue(java.nio.file.Files.isRegularFile(root.resolve("shared-array/target/jvm.args")),
            "the build wrote the argfile the message and the README name");
    }

    /** A program built against the jars gets its argfile from JvmFlags' main, which itself runs without the flags. */
    @Test
    void jvmFlagsPrintsAnArgfileThatStartsAJvmWithEverythingWorking(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final String cp = System.getProperty("java.class.path");
        final Process print = new ProcessBuilder(java, "-cp", cp, JvmFlags.class.getName())
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        final String printed = new String(print.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(print.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, print.exitValue(), printed);
        assertEquals(JvmFlags.forCurrentJvm(), printed.lines().toList());
        final Path argfile = Files.writeString(dir.resolve("sharray.args"), printed);
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4)) {
            final List<String> cmd = new ArrayList<>(List.of(java, "@" + argfile, "-Xmx128m",
                "-Dchronicle.analytics.disable=true"));
            final String tempFolder = System.getProperty("sharray.tempFolder");
            if (tempFolder != null) {
                cmd.add("-Dsharray.tempFolder=" + tempFolder);
            }
            cmd.addAll(List.of("-cp", cp, Child.class.getName(), a.path().toString()));
            final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ended");
            final List<String> lines = out.strip().lines().toList();
            assertEquals(8, lines.size(), out);
            assertEquals("heap 3.0", lines.get(0), out);
            assertTrue(lines.subList(1, 8).stream().allMatch("no exception"::equals), out);
        }
        final Process usage = new ProcessBuilder(java, "-cp", cp, JvmFlags.class.getName(), "x").start();
        assertTrue(usage.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, usage.exitValue());
    }
}
