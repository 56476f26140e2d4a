package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The codec's library inside a jar: many JVMs starting at once each load a complete library, extracted
 * into the cache (temp name + atomic rename, no locks) with JNA's own library beside it, and a truncated
 * cached copy is replaced the same way. The cache's other cases are in shared-array's {@code NativeFilesTest}.
 */
class NativeLibExtractionTest {
    private static final String KNOWN_PARITY = "[[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]";

    @TempDir
    static Path tmp;

    private static byte[] library;
    private static Path jar;

    /**
     * Child side: prints READY, waits for a line on stdin (so all children race for the extraction at
     * the same moment), then loads the library through {@link NativeLib} and prints OK, the file it
     * loaded and the NATIVE known-answer parity.
     */
    public static void main(String[] args) throws IOException {
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        ErasureCodec codec = ErasureCodec.builder(5, 5).backend(Backend.NATIVE).build();
        byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
            new byte[2], new byte[2]};
        codec.encode(shards);
        System.out.println("OK " + NativeLib.path() + " " + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)));
    }

    @BeforeAll
    static void buildJar() throws IOException {
        Path built = NativeLib.path();
        assertNotNull(built, "the library must load in this JVM: " + NativeLib.failure());
        assertTrue(built.endsWith(Path.of("classes", NativeLib.RESOURCE)),
            "from target/classes the library is used in place: " + built);
        library = Files.readAllBytes(built);
        jar = tmp.resolve("codec-native.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("linux-x86-64/"));
            out.closeEntry();
            out.putNextEntry(new JarEntry(NativeLib.RESOURCE));
            out.write(library);
            out.closeEntry();
        }
    }

    @Test
    void manyJvmsExtractOnceAndAllLoad() throws Exception {
        Path cache = Files.createDirectory(tmp.resolve("cache-race"));
        Path target = race(cache, 6);
        assertEquals(cache, target.getParent().getParent());
        assertTrue(target.getParent().getFileName().toString().startsWith("sharray-native-"), target.toString());
        assertEquals("libsharraycodec.so", target.getFileName().toString());
        List<Path> files = filesUnder(cache);
        assertEquals(2, files.size(), "one cached codec library and JNA's, no temp leftovers: " + files);
        assertTrue(files.contains(target), files.toString());
        assertTrue(files.stream().anyMatch(p -> p.getFileName().toString().equals("libjnidispatch.so")), files.toString());
        assertArrayEquals(library, Files.readAllBytes(target));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target.getParent())));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));

        // a truncated cached copy (wrong size) is replaced, again by several JVMs at once
        Files.write(target, Arrays.copyOf(library, library.length / 2));
        assertEquals(target, race(cache, 3));
        assertEquals(files, filesUnder(cache));
        assertArrayEquals(library, Files.readAllBytes(target));
    }

    /**
     * Starts {@code n} child JVMs with the jar ahead of target/classes, releases them together, checks that
     * each computed the known answer from the same library file.
     *
     * @return that file
     */
    private static Path race(Path cache, int n) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JvmFlags.forCurrentJvm());
        cmd.addAll(List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-Dsharray.nativeCache=" + cache, "-cp", jar + File.pathSeparator + System.getProperty("java.class.path"),
            NativeLibExtractionTest.class.getName()));
        List<Process> children = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                children.add(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> outs = new ArrayList<>();
            for (Process p : children) {
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                assertEquals("READY", r.readLine());
                outs.add(r);
            }
            for (Process p : children) {
                OutputStream in = p.getOutputStream();
                in.write('\n');
                in.flush();
            }
            Path loaded = null;
            for (int i = 0; i < n; i++) {
                String[] answer = outs.get(i).readLine().split(" ", 3);
                assertEquals("OK", answer[0], "child " + i);
                assertEquals(KNOWN_PARITY, answer[2], "child " + i);
                assertEquals(loaded == null ? answer[1] : loaded.toString(), answer[1], "child " + i + " loaded another file");
                loaded = Path.of(answer[1]);
                assertTrue(children.get(i).waitFor(30, TimeUnit.SECONDS));
                assertEquals(0, children.get(i).exitValue());
            }
            return loaded;
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
    }
}
