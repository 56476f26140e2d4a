package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AppCDS policy of worker JVMs (the archives themselves are exercised by the benchmarks, on jars). */
class ClassDataArchiveTest {
    @Test
    void offForDirectoriesAndUserCdsOptions(@TempDir Path dir) throws Exception {
        final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
        assertNull(ClassDataArchive.forWorkers(dir.toString(), List.of(), List.of()), "a directory on the classpath");
        assertNull(ClassDataArchive.forWorkers(jar.toString(), List.of(), List.of("-Xshare:off")));
        assertNull(ClassDataArchive.forWorkers(jar.toString(), List.of(), List.of("-XX:AOTCache=x.aot")));
        assertNotNull(ClassDataArchive.forWorkers(jar.toString(), List.of(), List.of()));
    }

    @Test
    void archiveNameFollowsClasspathAndOptions(@TempDir Path dir) throws Exception {
        System.setProperty("sharray.pool.cds.dir", dir.resolve("cache").toString());
        try {
            final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
            final Path b = ClassDataArchive.forWorkers(jar.toString(), List.of("-Xmx1g"), List.of()).archive();
            assertEquals(b, ClassDataArchive.forWorkers(jar.toString(), List.of("-Xmx1g"), List.of()).archive());
            assertNotEquals(b, ClassDataArchive.forWorkers(jar.toString(), List.of("-Xmx2g"), List.of()).archive());
            Files.writeString(jar, "changed jar");
            assertNotEquals(b, ClassDataArchive.forWorkers(jar.toString(), List.of("-Xmx1g"), List.of()).archive());
            assertTrue(b.startsWith(dir.resolve("cache")));
            // the first launch trains, the others neither train nor use a missing archive
            final ClassDataArchive cds = ClassDataArchive.forWorkers(jar.toString() + File.pathSeparator, List.of(), List.of());
            final List<String> first = cds.optionsFor(1);
            assertTrue(first.stream().anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit=")), first.toString());
            assertTrue(cds.optionsFor(2).isEmpty());
            // a trainer that crashed leaves no archive
            cds.workerExited(1, 137);
            assertFalse(Files.exists(cds.archive()));
        } finally {
            System.clearProperty("sharray.pool.cds.dir");
        }
    }

    @Test
    void pruneKeepsTheNewestArchives(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 12; i++) {
            final Path p = Files.writeString(dir.resolve("worker-jdk17-" + i + ".jsa"), "a");
            Files.setLastModifiedTime(p, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        final Path staleTmp = Files.writeString(dir.resolve("worker-jdk17-x.jsa.tmp-1-2"), "t");
        Files.setLastModifiedTime(staleTmp, FileTime.fromMillis(1000));
        final Path other = Files.writeString(dir.resolve("unrelated.txt"), "u");
        ClassDataArchive.prune(dir);
        for (int i = 0; i < 12; i++) {
            assertEquals(i >= 4, Files.exists(dir.resolve("worker-jdk17-" + i + ".jsa")), "archive " + i);
        }
        assertFalse(Files.exists(staleTmp));
        assertTrue(Files.exists(other));
    }
}
