package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The manifest-only jar a JVM starts from so that module flags do not switch off the JDK's archived module graph. */
class LaunchJarTest {
    /** The project's kinds of flags, and one a manifest cannot carry; WorkerJarTest uses them too. */
    static final List<String> FLAGS = List.of("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-modules=jdk.incubator.vector",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED",
        "--add-exports=java.base/sun.security.x509=some.module", "-Dx=1");

    @Test
    void theManifestCarriesWhatItCanAndTheRestStaysInOrder(@TempDir Path dir) throws Exception {
        final List<String> rest = new ArrayList<>();
        final Attributes a = LaunchJar.manifest(dir.toRealPath(), "a.Main", LaunchJar.expand(dir.toString()), FLAGS, rest).getMainAttributes();
        assertEquals("a.Main", a.getValue(Attributes.Name.MAIN_CLASS));
        assertEquals("java.base/java.lang.reflect", a.getValue("Add-Opens"));
        assertEquals("java.base/sun.nio.ch java.base/jdk.internal.misc", a.getValue("Add-Exports"));
        assertEquals("ALL-UNNAMED", a.getValue("Enable-Native-Access"));
        // no manifest attribute adds a module or exports to a named one
        assertEquals(List.of("--add-modules=jdk.incubator.vector", "--add-exports=java.base/sun.security.x509=some.module",
            "-Dx=1"), rest);
    }

    /** Each Class-Path entry, resolved against the jar's folder as the class loader does, names the classpath entry. */
    @Test
    void classPathEntriesResolveToTheParentsEntries(@TempDir Path dir) throws Exception {
        final Path cache = Files.createDirectories(dir.resolve("cache/sharray/cds"));
        final Path odd = Files.createDirectories(dir.resolve("with space/and%41percent"));
        final Path jarA = Files.writeString(odd.resolve("a b.jar"), "x");
        final Path beside = Files.writeString(cache.resolve("beside.jar"), "x");
        final Path classes = Files.createDirectories(dir.resolve("classes"));
        final Path missing = dir.resolve("gone.jar");
        final Path link = Files.createSymbolicLink(dir.resolve("link"), odd);
        final String classpath = String.join(File.pathSeparator, jarA.toString(), beside.toString(), classes.toString(),
            missing.toString(), link.resolve("a b.jar").toString(), "");
        final String[] entries = LaunchJar.manifest(cache.toRealPath(), "a.Main", LaunchJar.expand(classpath), FLAGS, new ArrayList<>())
            .getMainAttributes().getValue(Attributes.Name.CLASS_PATH).split(" ");
        final URI base = cache.toRealPath().toUri();
        final List<Path> resolved = Stream.of(entries).map(e -> Path.of(base.resolve(e))).toList();
        // the jar named again through a symbolic link is the same file: listed once
        assertEquals(List.of(jarA.toRealPath(), beside.toRealPath(), classes.toRealPath(), missing,
            Path.of("").toAbsolutePath().toRealPath()), resolved);
        assertTrue(entries[2].endsWith("/"), "a folder entry must end with '/': " + entries[2]);
        assertEquals("beside.jar", entries[1]);
        assertEquals(5, entries.length);
    }

    @Test
    void aWrittenJarHasTheManifestAndIsPrivate(@TempDir Path dir) throws Exception {
        final Manifest m = LaunchJar.manifest(dir.toRealPath(), "a.Main", LaunchJar.expand(dir.toString()), FLAGS, new ArrayList<>());
        final Path jar = dir.resolve("l.jar");
        LaunchJar.write(jar, m);
        assertTrue(LaunchJar.hasManifest(jar, m));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
        final Manifest other = LaunchJar.manifest(dir.toRealPath(), "b.Main", LaunchJar.expand(dir.toString()), FLAGS, new ArrayList<>());
        assertFalse(LaunchJar.hasManifest(jar, other));
        Files.writeString(jar, "not a jar");
        assertFalse(LaunchJar.hasManifest(jar, m));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file left");
        }
    }

    /**
     * A jar's own Class-Path entries follow it, depth first and each once, as the class loader reads them: listed flat,
     * the workers' class-data archive is keyed by every jar they read.
     */
    @Test
    void expandListsTheJarsAJarNamesRightAfterItOnceEach(@TempDir Path dir) throws Exception {
        final Path libs = Files.createDirectories(dir.resolve("my libs"));
        final Path c = jar(libs.resolve("c.jar"), null);
        final Path b = jar(libs.resolve("b.jar"), "c.jar ../a.jar missing.jar http://example.com/x.jar");
        final Path a = jar(dir.resolve("a.jar"), "my%20libs/b.jar");
        final Path notAJar = Files.writeString(dir.resolve("notes.txt"), "x");
        final Path d = jar(dir.resolve("d.jar"), null);
        final List<Path> expanded = LaunchJar.expand(String.join(File.pathSeparator, a.toString(), notAJar.toString(),
            c.toString(), d.toString()));
        assertEquals(List.of(a.toRealPath(), b.toRealPath(), c.toRealPath(), libs.toRealPath().resolve("missing.jar"),
            notAJar.toRealPath(), d.toRealPath()), expanded);
    }

    private static Path jar(Path file, String classPath) throws Exception {
        final Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null) {
            m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(file), m)) {
            out.flush();
        }
        return file;
    }
}
