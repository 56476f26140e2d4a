package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.JvmFlags;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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
 * The native library inside a jar: extracted once per content into a hash-named cache folder, safely
 * with many JVMs starting at once (temp name + atomic rename, no locks), and a bad cached copy replaced.
 */
class NativeLoaderTest {
    private static final String KNOWN_PARITY = "[[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]";

    @TempDir
    static Path tmp;

    private static byte[] library;
    private static Path jar;
    private static String folderName;

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
        assertTrue(built.endsWith(Path.of("classes", NativeLoader.RESOURCE)),
            "from target/classes the library is used in place: " + built);
        library = Files.readAllBytes(built);
        jar = tmp.resolve("codec-native.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("linux-x86-64/"));
            out.closeEntry();
            out.putNextEntry(new JarEntry(NativeLoader.RESOURCE));
            out.write(library);
            out.closeEntry();
        }
        folderName = NativeLoader.folderName(library);
    }

    @Test
    void manyJvmsExtractOnceAndAllLoad() throws Exception {
        Path cache = Files.createDirectory(tmp.resolve("cache-race"));
        Path target = cache.resolve(folderName).resolve(NativeLoader.LIBRARY_FILE);
        race(cache, 6, target);
        assertEquals(List.of(target), filesUnder(cache), "one cached library, no temp leftovers");
        assertArrayEquals(library, Files.readAllBytes(target));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target.getParent())));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));

        // a truncated cached copy (wrong size) is replaced, again by several JVMs at once
        Files.write(target, Arrays.copyOf(library, library.length / 2));
        race(cache, 3, target);
        assertEquals(List.of(target), filesUnder(cache));
        assertArrayEquals(library, Files.readAllBytes(target));
    }

    /** Starts {@code n} child JVMs with the jar ahead of target/classes, releases them together, checks each. */
    private static void race(Path cache, int n, Path expected) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JvmFlags.forCurrentJvm());
        cmd.addAll(List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
            "-Dsharray.nativeCache=" + cache, "-cp", jar + File.pathSeparator + System.getProperty("java.class.path"),
            NativeLoaderTest.class.getName()));
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
            for (int i = 0; i < n; i++) {
                assertEquals("OK " + expected + " " + KNOWN_PARITY, outs.get(i).readLine(), "child " + i);
                assertTrue(children.get(i).waitFor(30, TimeUnit.SECONDS));
                assertEquals(0, children.get(i).exitValue());
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void corruptCachedCopiesAreReplacedAndGoodOnesReused() throws IOException {
        Path cache = tmp.resolve("cache-corrupt");
        Path target = cache.resolve(folderName).resolve(NativeLoader.LIBRARY_FILE);
        URL url = jarUrl();

        Files.createDirectories(target.getParent());
        Files.write(target, new byte[] {1, 2, 3}); // wrong size
        assertEquals(target, NativeLoader.locate(url, List.of(cache)));
        assertArrayEquals(library, Files.readAllBytes(target));

        byte[] sameSize = library.clone();
        sameSize[sameSize.length / 2] ^= 0x5A; // right size, wrong bytes: the byte comparison catches it
        Files.write(target, sameSize);
        assertEquals(target, NativeLoader.locate(url, List.of(cache)));
        assertArrayEquals(library, Files.readAllBytes(target));

        Object inode = Files.readAttributes(target, "unix:ino").get("ino");
        Path stale = target.resolveSibling(".libsharraycodec.so.1.dead.tmp");
        Files.write(stale, new byte[10]);
        Files.setLastModifiedTime(stale, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
        assertEquals(target, NativeLoader.locate(url, List.of(cache)));
        assertEquals(inode, Files.readAttributes(target, "unix:ino").get("ino"), "a good copy is reused, not rewritten");

        Files.write(target, new byte[0]);
        NativeLoader.locate(url, List.of(cache));
        assertFalse(Files.exists(stale), "temp files left by crashed extractions long ago are removed");
        assertEquals(List.of(target), filesUnder(cache));
    }

    @Test
    void anUnusableRootFallsBackToTheNext() throws IOException {
        Path notAFolder = Files.write(tmp.resolve("plain-file"), new byte[1]);
        Path second = tmp.resolve("cache-second");
        Path got = NativeLoader.locate(jarUrl(), List.of(notAFolder, second));
        assertEquals(second.resolve(folderName).resolve(NativeLoader.LIBRARY_FILE), got);
        assertArrayEquals(library, Files.readAllBytes(got));
    }

    private static URL jarUrl() throws IOException {
        return new URL("jar:" + jar.toUri() + "!/" + NativeLoader.RESOURCE);
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
    }
}
