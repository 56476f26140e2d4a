package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The manifest-only jar workers start from, so that module flags do not switch off the JDK's archived module graph. */
class WorkerJarTest {
    private static final List<String> FLAGS = LaunchJarTest.FLAGS;

    /** The manifest is LaunchJar's (LaunchJarTest): the workers' jar adds WorkerMain and leaves the vector module out. */
    @Test
    void theWorkersManifestRunsWorkerMainAndLeavesTheVectorModuleOut(@TempDir Path dir) throws Exception {
        final List<String> rest = new ArrayList<>();
        final Attributes a = WorkerJar.manifest(dir.toRealPath(), LaunchJar.expand(dir.toString()), FLAGS, rest).getMainAttributes();
        assertEquals(WorkerMain.class.getName(), a.getValue(Attributes.Name.MAIN_CLASS));
        final List<String> launchRest = new ArrayList<>();
        LaunchJar.manifest(dir.toRealPath(), "a.Main", LaunchJar.expand(dir.toString()), FLAGS, launchRest);
        assertTrue(launchRest.remove(WorkerJar.VECTOR_MODULE), launchRest.toString());
        assertEquals(launchRest, rest);
    }

    @Test
    void aJarIsWrittenOnceAndADamagedOrDifferentOneIsReplaced(@TempDir Path dir) throws Exception {
        final Path cache = dir.resolve("cds");
        final WorkerJar first = WorkerJar.prepare(cache, dir.toString(), FLAGS);
        assertNotNull(first);
        final Path jar = first.jar();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(jar)));
        final FileTime written = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(jar, written);
        assertEquals(jar, WorkerJar.prepare(cache, dir.toString(), FLAGS).jar());
        assertEquals(written, Files.getLastModifiedTime(jar), "an intact jar is used as it is");
        Files.writeString(jar, "not a jar");
        assertEquals(jar, WorkerJar.prepare(cache, dir.toString(), FLAGS).jar());
        try (JarFile f = new JarFile(jar.toFile())) {
            final Manifest m = f.getManifest();
            assertEquals(WorkerMain.class.getName(), m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS));
        }
        // pruned by another configuration's training while a pool still runs: its next worker launch writes it again
        final WorkerJar running = WorkerJar.prepare(cache, dir.toString(), FLAGS);
        Files.delete(jar);
        assertEquals(jar, running.present());
        try (JarFile f = new JarFile(jar.toFile())) {
            assertEquals(WorkerMain.class.getName(), f.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS));
        }
        final WorkerJar other = WorkerJar.prepare(cache, dir + File.pathSeparator + dir.resolve("x.jar"), FLAGS);
        assertFalse(other.jar().equals(jar), "another classpath has its own jar");
        try (Stream<Path> files = Files.list(cache)) {
            assertEquals(2, files.count(), "no temporary file left");
        }
    }

    /** Entries that need escaping are named through links (see ClassPathLinks), made again when pruned. */
    @Test
    void entriesUnderABlankAreNamedThroughLinksThatAPruneAndALaunchRenew(@TempDir Path dir) throws Exception {
        final Path plain = Files.writeString(dir.resolve("plain.jar"), "x");
        final Path blank = Files.writeString(Files.createDirectory(dir.resolve("my jars")).resolve("lib é.jar"), "x");
        final Path cache = dir.resolve("cds");
        final WorkerJar jar = WorkerJar.prepare(cache, plain + File.pathSeparator + blank, FLAGS);
        assertNotNull(jar);
        final String classPath;
        try (JarFile f = new JarFile(jar.jar().toFile())) {
            classPath = f.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        }
        assertFalse(classPath.contains("%"), classPath);
        final String[] names = classPath.split(" ");
        assertEquals(2, names.length, classPath);
        assertTrue(names[0].endsWith("plain.jar") && !names[0].startsWith(ClassPathLinks.PREFIX), classPath);
        final Path link = cache.toRealPath().resolve(names[1]);
        assertTrue(names[1].startsWith(ClassPathLinks.PREFIX) && names[1].endsWith("-lib__.jar"), classPath);
        assertEquals(blank.toRealPath(), Files.readSymbolicLink(link));
        assertEquals(List.of(plain.toRealPath(), blank.toRealPath()), jar.classpath(), "the real entries key the archive");

        // a month unused: pruned with the jars; a running pool's next launch makes it again
        final FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 31L * 24 * 3_600_000);
        Files.getFileAttributeView(link, java.nio.file.attribute.BasicFileAttributeView.class,
            java.nio.file.LinkOption.NOFOLLOW_LINKS).setTimes(old, null, null);
        final FileTime targetTime = Files.getLastModifiedTime(blank);
        ClassDataArchive.prune(cache.toRealPath());
        assertFalse(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS), "an old link is pruned");
        assertTrue(Files.exists(blank), "its target is not touched");
        assertEquals(targetTime, Files.getLastModifiedTime(blank));
        jar.present();
        assertEquals(blank.toRealPath(), Files.readSymbolicLink(link));
        // a link to something else by that name is replaced
        Files.delete(link);
        Files.createSymbolicLink(link, plain);
        assertNotNull(WorkerJar.prepare(cache, plain + File.pathSeparator + blank, FLAGS));
        assertEquals(blank.toRealPath(), Files.readSymbolicLink(link));
        try (Stream<Path> files = Files.list(cache)) {
            assertEquals(2, files.count(), "the jar and one link, no temporary file");
        }
    }

    /**
     * The jar's folder was checked when the pool began; a replacement worker, started much later, ran whatever jar was
     * there by then (the third security review put another user's jar there through a folder that had become
     * changeable by others). Each launch now checks the folder and the jar again.
     */
    @Test
    void aLaterLaunchRefusesAJarWhoseFolderOrFileOthersCanNowChange(@TempDir Path dir) throws Exception {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a file to another uid needs root (CI runs as root, as the disk-full tests do)");
        final WorkerJar running = WorkerJar.prepare(dir.resolve("cds"), dir.toString(), FLAGS);
        final Path jar = running.present();
        Files.setAttribute(jar, "unix:uid", 4242);
        final IOException theirs = assertThrows(IOException.class, running::present);
        assertTrue(theirs.getMessage().contains("refusing to run it"), theirs.getMessage());
        Files.setAttribute(jar, "unix:uid", 0);
        assertEquals(jar, running.present());
        Files.setPosixFilePermissions(jar.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        final IOException open = assertThrows(IOException.class, running::present);
        assertTrue(open.getMessage().contains("writable by other users")
            && open.getMessage().contains("refusing to start worker JVMs from a launch jar in"), open.getMessage());
    }

    /**
     * A replacement worker refused for that reason said only "cannot replace a dead worker: cannot start worker 2",
     * the reason three causes down (the fourth security review).
     */
    @Test
    void aReplacementRefusedItsJarSaysWhy(@TempDir Path dir) throws Exception {
        final String before = System.getProperty("sharray.pool.cds.dir");
        final java.io.PrintStream err = System.err;
        final java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        final Path safe = dir.resolve("safe");
        System.setProperty("sharray.pool.cds.dir", safe.toString());
        System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
            assertEquals(1, pool.submit((Integer x) -> x, 1).get());
            Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwxrwxrwx"));
            ProcessHandle.of(pool.workerPids().get(0)).orElseThrow().destroyForcibly();
            for (int i = 0; i < 600 && !said.toString(java.nio.charset.StandardCharsets.UTF_8)
                    .contains("cannot replace a dead worker"); i++) {
                Thread.sleep(50);
            }
        } catch (RuntimeException e) {
            // closing a pool without workers may fail: the message is what this test reads
        } finally {
            System.setErr(err);
            Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwx------"));
            if (before == null) {
                System.clearProperty("sharray.pool.cds.dir");
            } else {
                System.setProperty("sharray.pool.cds.dir", before);
            }
        }
        final String text = said.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.contains("cannot replace a dead worker: cannot start worker ")
            && text.contains("refusing to start worker JVMs from a launch jar in"), text);
    }

    @Test
    void noJarInAFolderOthersCanWrite(@TempDir Path dir) throws Exception {
        final Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertNull(WorkerJar.prepare(open, dir.toString(), FLAGS));
        assertNull(WorkerJar.prepare(null, dir.toString(), FLAGS));
    }

    /**
     * The workers' JVMs keep the JDK's archived module graph ("full module graph: enabled" in their CDS log), still
     * have the exports the arrays need (a task maps and sums a shared array through Agrona's Unsafe access), and run
     * without jdk.incubator.vector unless the pool's options add it.
     */
    @Test
    void workersKeepTheArchivedModuleGraphAndTheExportsTheyNeed(@TempDir Path logs) throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 1024)) {
            a.setDouble(2.5, 7);
            final RemoteFunction<SharedArray, String> probe = x -> x.sum() + " "
                + ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m")
                .jvmOptions("-Xlog:cds=info:file=" + logs.resolve("w%p.log")).build()) {
                assertEquals("2.5 false", pool.submit(probe, a).get());
            }
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m")
                .jvmOptions("--add-modules=jdk.incubator.vector").build()) {
                assertEquals("2.5 true", pool.submit(probe, a).get());
            }
        }
        try (Stream<Path> files = Files.list(logs)) {
            final List<Path> all = files.toList();
            assertEquals(1, all.size(), all.toString());
            final String log = Files.readString(all.get(0));
            assertTrue(log.contains("full module graph: enabled"), log);
        }
    }

    /**
     * Without a cache folder no other user can write, there is no jar: workers start with every flag and {@code -cp} on
     * their command line. Either way with the JVM's default collector: the serial one the pool chose on JDK 25 (and
     * without the jar) left a task's dead large arrays in the heap until it was full (new-user review 50).
     */
    @Test
    void workersStartFromTheCommandLineWithoutASafeFolderAndFromTheJarWithOne(@TempDir Path dir) throws Exception {
        final RemoteFunction<Integer, String> how = x -> System.getProperty("java.class.path") + "|"
            + java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments() + "| collectors "
            + java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName).toList();
        final Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        final String before = System.getProperty("sharray.pool.cds.dir");
        final String fromCommandLine;
        final String fromJar;
        try {
            System.setProperty("sharray.pool.cds.dir", open.toString());
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
                fromCommandLine = pool.submit(how, 0).get();
            }
            System.setProperty("sharray.pool.cds.dir", dir.resolve("safe").toString());
            try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("64m").build()) {
                fromJar = pool.submit(how, 0).get();
            }
        } finally {
            if (before == null) {
                System.clearProperty("sharray.pool.cds.dir");
            } else {
                System.setProperty("sharray.pool.cds.dir", before);
            }
        }
        assertEquals(System.getProperty("java.class.path"), fromCommandLine.substring(0, fromCommandLine.indexOf('|')));
        assertTrue(fromCommandLine.contains("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"), fromCommandLine);
        assertFalse(fromCommandLine.contains("-XX:+UseSerialGC"), fromCommandLine);
        // the JVM's default, as this test JVM's (G1 on a machine of two or more cores and 2 GiB)
        final String defaultCollectors = "collectors " + java.lang.management.ManagementFactory
            .getGarbageCollectorMXBeans().stream().map(java.lang.management.GarbageCollectorMXBean::getName).toList();
        assertTrue(fromCommandLine.endsWith(defaultCollectors), fromCommandLine + " / " + defaultCollectors);
        try (Stream<Path> files = Files.list(open)) {
            assertEquals(0, files.count(), "no jar in a folder others can write");
        }
        assertTrue(fromJar.startsWith(dir.resolve("safe").toRealPath() + "/worker-") && fromJar.contains(".jar|"), fromJar);
        assertFalse(fromJar.contains("--add-exports"), fromJar);
        assertFalse(fromJar.contains("-XX:+UseSerialGC"), fromJar);
        assertTrue(fromJar.endsWith(defaultCollectors), fromJar + " / " + defaultCollectors);
    }
}
