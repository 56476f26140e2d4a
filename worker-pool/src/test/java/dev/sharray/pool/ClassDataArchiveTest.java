package dev.sharray.pool;

import dev.sharray.JvmFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AppCDS policy of worker JVMs, and a real archive: trained by one pool, mapped by the next pool's worker. */
class ClassDataArchiveTest {
    /** A test's body, given a stand-in classpath jar. */
    @FunctionalInterface
    private interface WithJar {
        void run(Path jar) throws Exception;
    }

    /** Runs {@code body} with the archive cache in {@code dir}/cache and a stand-in jar {@code dir}/a.jar. */
    private static void withCacheIn(Path dir, WithJar body) throws Exception {
        System.setProperty("sharray.pool.cds.dir", dir.resolve("cache").toString());
        try {
            body.run(Files.writeString(dir.resolve("a.jar"), "x"));
        } finally {
            System.clearProperty("sharray.pool.cds.dir");
        }
    }

    /** This JVM's java: a trainer's exit is judged as this JDK's. */
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @Test
    void offForDirectoriesAndUserCdsOptions(@TempDir Path dir) throws Exception {
        final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
        assertNull(ClassDataArchive.forWorkers("java", dir.toString(), List.of(), List.of()), "a directory on the classpath");
        assertNull(ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of("-Xshare:off")));
        assertNull(ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of("-XX:AOTCache=x.aot")));
        assertNotNull(ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of()));
    }

    /**
     * A uid without a passwd entry has user.home "?": the cache folder was "?/.cache/sharray/cds", made in
     * whatever folder the pool was started from. Without an absolute home (and no XDG_CACHE_HOME) there is
     * no archive.
     */
    @Test
    void noArchiveWithoutAnAbsoluteHome(@TempDir Path dir) throws Exception {
        final String home = System.getProperty("user.home");
        System.setProperty("user.home", "?");
        try {
            final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
            final ClassDataArchive cds = ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of());
            assertTrue(cds == null || cds.archive().isAbsolute(), "a relative cache folder: " + (cds == null ? "" : cds.archive()));
            assertFalse(Files.exists(Path.of("?")), "made ? in the working folder");
        } finally {
            System.setProperty("user.home", home);
        }
    }

    /** JDK 17 refuses to dump an archive with these (the trainer never started); JDK 25's dump fails on them too. */
    @Test
    void offForOptionsAJvmCannotArchiveWith(@TempDir Path dir) throws Exception {
        final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
        for (String option : List.of("-javaagent:/x/jacocoagent.jar=destfile=a.exec",
            "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n", "-agentpath:/x/libprof.so",
            "-Xbootclasspath/a:/x", "--patch-module=java.base=/x", "--limit-modules=java.base", "--upgrade-module-path=/x",
            "-XX:-UseSharedSpaces", "-XX:-UseCompressedClassPointers")) {
            assertNull(ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of("-Xmx1g", option)), option);
        }
    }

    /**
     * A pool whose workers run with a Java agent (coverage, monitoring): on JDK 17 its first worker, the archive's
     * trainer, failed with "Must enable AllowArchivingWithJavaAgent in order to run Java agent during CDS dumping",
     * so the pool never started.
     */
    @Test
    void aPoolWithAJavaAgentInItsWorkersStarts(@TempDir Path dir) throws Exception {
        final Path classes = Path.of(NoOpAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final Path agent = dir.resolve("agent.jar");
        final java.util.jar.Manifest manifest = new java.util.jar.Manifest();
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", NoOpAgent.class.getName());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(agent), manifest)) {
            final String entry = NoOpAgent.class.getName().replace('.', '/') + ".class";
            out.putNextEntry(new JarEntry(entry));
            Files.copy(classes.resolve(entry), out);
            out.closeEntry();
        }
        runsATask(dir, Map.of(), "-javaagent:" + agent);
    }

    /**
     * Runs {@link AgentPoolChild} (a pool of one worker, one task) with jars only on its classpath, its own cache
     * folder, {@code environment} and the workers' {@code options}, and checks that the task ran.
     *
     * @return what the parent printed
     */
    private static String runsATask(Path dir, Map<String, String> environment, String... options) throws Exception {
        final List<String> cmd = JvmFlags.javaCommand(jarsOnly(dir), List.of("-Dsharray.pool.cds.dir=" + dir.resolve("cds")),
            AgentPoolChild.class.getName(), options);
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(environment);
        final Process parent = pb.start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, parent.exitValue(), out);
        assertTrue(out.contains("RESULT [42]"), out);
        return out;
    }

    /**
     * A JDK 17 trainer exits at start when its JVM cannot dump an archive for a reason the pool's option check does
     * not see (here an option in a {@code -XX:VMOptionsFile}; also a JDK without its base archive): the pool failed
     * to build ("DynamicDumpSharedSpaces is unsupported when base CDS archive is not loaded"). It now relaunches the
     * worker without training. JDK 25's trainer only writes a class list, and starts.
     */
    @Test
    void aPoolWhoseArchiveTrainerCannotStartStartsWithoutIt(@TempDir Path dir) throws Exception {
        final Path options = Files.writeString(dir.resolve("worker.options"), "-XX:-UseSharedSpaces\n");
        final String out = runsATask(dir, Map.of(), "-XX:VMOptionsFile=" + options);
        if (Runtime.version().feature() < 25) {
            assertTrue(out.contains("died at start while training the class-data archive"), out);
        }
    }

    /**
     * A collector chosen in the environment the workers inherit ({@code JAVA_TOOL_OPTIONS=-XX:+UseParallelGC}, common
     * in container images): the pool added {@code -XX:+UseSerialGC} too, and every worker died at start ("Multiple
     * garbage collectors selected": jvmvariety review 48) on JDK 25, and on JDK 17 without a launch jar. Both cases:
     * with the cache folder, and with none (a file where it should be).
     */
    @Test
    void aCollectorChosenInTheEnvironmentIsLeftToTheWorkers(@TempDir Path dir) throws Exception {
        runsATask(dir, Map.of("JAVA_TOOL_OPTIONS", "-XX:+UseParallelGC"));
        final Path noCache = Files.createDirectories(dir.resolve("no-cache"));
        Files.writeString(noCache.resolve("cds"), "a file, not the cache folder");
        final String out = runsATask(noCache, Map.of("JDK_JAVA_OPTIONS", "-XX:+UseParallelGC"));
        assertFalse(out.contains("Multiple garbage collectors"), out);
    }

    /** Options in {@code _JAVA_OPTIONS} reach every worker as those of the other two variables do: no trainer then. */
    @Test
    void noTrainerWhenUnderscoreJavaOptionsTurnArchivesOff(@TempDir Path dir) throws Exception {
        final String out = runsATask(dir, Map.of("_JAVA_OPTIONS", "-Xshare:off"));
        assertFalse(out.contains("training the class-data archive"), out);
        try (Stream<Path> files = Files.list(dir.resolve("cds"))) {
            assertEquals(0, files.filter(p -> p.getFileName().toString().contains(".jsa")).count(), "an archive was trained");
        } catch (java.nio.file.NoSuchFileException e) {
            // no cache folder at all: nothing trained
        }
    }

    /**
     * A JDK 17 runtime without a base archive (a jlink image made without --generate-cds-archive) stopped the first
     * worker, training, at start with "DynamicDumpSharedSpaces is unsupported when base CDS archive is not loaded": no
     * training there now. JDK 25's static archive needs none.
     */
    @Test
    void noArchiveIsTrainedForAJdkBefore25WithoutABaseArchive(@TempDir Path dir) throws Exception {
        final Path image = Files.createDirectories(dir.resolve("image/lib/server"));
        assertFalse(ClassDataArchive.canArchiveWith(dir.resolve("image"), 17));
        assertTrue(ClassDataArchive.canArchiveWith(dir.resolve("image"), 25));
        Files.writeString(image.resolve("classes_nocoops.jsa"), "");
        assertTrue(ClassDataArchive.canArchiveWith(dir.resolve("image"), 17));
        assertTrue(ClassDataArchive.canArchiveWith(Path.of(System.getProperty("java.home")), 17), "this JDK has one");
    }

    /** @return this JVM's classpath with its class directories packed into jars (CDS archives jars only) */
    private static String jarsOnly(Path dir) throws Exception {
        final StringBuilder jars = new StringBuilder();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                p = jar(p, dir.resolve("cp" + n++ + ".jar"));
            }
            jars.append(jars.length() == 0 ? "" : File.pathSeparator).append(p);
        }
        return jars.toString();
    }

    @Test
    void archiveNameFollowsClasspathAndOptions(@TempDir Path dir) throws Exception {
        withCacheIn(dir, jar -> {
            final Path b = ClassDataArchive.forWorkers("java", jar.toString(), List.of("-Xmx1g"), List.of()).archive();
            assertEquals(b, ClassDataArchive.forWorkers("java", jar.toString(), List.of("-Xmx1g"), List.of()).archive());
            assertNotEquals(b, ClassDataArchive.forWorkers("java", jar.toString(), List.of("-Xmx2g"), List.of()).archive());
            Files.writeString(jar, "changed jar");
            assertNotEquals(b, ClassDataArchive.forWorkers("java", jar.toString(), List.of("-Xmx1g"), List.of()).archive());
            assertTrue(b.startsWith(dir.resolve("cache")));
            // the first launch trains, the others neither train nor use a missing archive
            final ClassDataArchive cds = ClassDataArchive.forWorkers("java", jar.toString() + File.pathSeparator, List.of(), List.of());
            final List<String> first = cds.optionsFor(1);
            final String training = Runtime.version().feature() >= 25 ? "-XX:DumpLoadedClassList=" : "-XX:ArchiveClassesAtExit=";
            assertTrue(first.stream().anyMatch(o -> o.startsWith(training)), first.toString());
            assertTrue(cds.optionsFor(2).isEmpty());
            // a trainer that crashed leaves no archive
            cds.workerExited(1, 137, List::of);
            assertFalse(Files.exists(cds.archive()));
        });
    }

    @Test
    void aSecondPoolsWorkerMapsTheArchiveTheFirstPoolTrained(@TempDir Path dir) throws Exception {
        final Path cache = dir.resolve("cds");
        final List<String> cmd = JvmFlags.javaCommand(jarsOnly(dir), List.of("-Dsharray.pool.cds.dir=" + cache),
            CdsTrainee.class.getName());
        final Process parent = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, parent.exitValue(), out);
        final String archive = out.lines().filter(l -> l.startsWith("ARCHIVE ")).findFirst().orElse("ARCHIVE none").substring(8);
        assertTrue(archive.startsWith(cache.resolve("worker-jdk" + Runtime.version().feature() + "-").toString()), out);
        final String mapped = out.lines().filter(l -> l.startsWith("MAPPED ")).findFirst().orElse("MAPPED none");
        assertTrue(mapped.contains(archive), "the second pool's worker did not map the archive: " + out);
        if (Runtime.version().feature() >= 25) {
            // a static archive replaces the JDK's default one, whose module options would not match ours
            assertFalse(mapped.contains(System.getProperty("java.home")), "the JDK's default archive was mapped too: " + out);
        }
        assertTrue(out.contains("LEFTOVER 0"), "temporary training files were left: " + out);
        assertTrue(ArchiveSeal.isIntact(Path.of(archive)), "the archive was not sealed: " + out);
        // the trainer ran no array task, yet loaded the C library binding for the workers that unmap one later:
        // a class only JNA's own classes name, so its symbol is in the archive only when JNA's classes are
        final byte[] bytes = Files.readAllBytes(Path.of(archive));
        assertTrue(new String(bytes, StandardCharsets.ISO_8859_1).contains("com/sun/jna/Native$ffi_callback"),
            "the archive lacks the C library binding's classes");
    }

    /**
     * A classpath under a folder with a blank: the launch jar's Class-Path named its jars %-escaped, which the JVM's
     * class loader decodes and HotSpot's class-data sharing does not, so workers loaded none of sharray's classes from
     * the archive (0 of 80 before; links without escapes now stand in for such entries).
     */
    @Test
    void aClasspathUnderAFolderWithABlankLoadsItsClassesFromTheArchive(@TempDir Path dir) throws Exception {
        final Path jars = Files.createDirectory(dir.resolve("my jars"));
        final StringBuilder classpath = new StringBuilder();
        for (String entry : jarsOnly(dir).split(File.pathSeparator)) {
            final Path copy = jars.resolve(Path.of(entry).getFileName());
            Files.copy(Path.of(entry), copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            classpath.append(classpath.length() == 0 ? "" : File.pathSeparator).append(copy);
        }
        final Path logs = Files.createDirectory(dir.resolve("logs"));
        final Process parent = new ProcessBuilder(JvmFlags.javaCommand(classpath.toString(), List.of(
            "-Dsharray.pool.cds.dir=" + dir.resolve("cds"), "-D" + CdsTrainee.CLASS_LOG + "=" + logs),
            CdsTrainee.class.getName())).redirectErrorStream(true).start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, parent.exitValue(), out);
        final String[] counts = out.lines().filter(l -> l.startsWith("APPCLASSES ")).findFirst().orElse("APPCLASSES 0/0")
            .substring(11).split("/");
        final int shared = Integer.parseInt(counts[0]);
        final int all = Integer.parseInt(counts[1]);
        assertTrue(all > 20 && shared > all / 2, "sharray's classes from the archive: " + shared + " of " + all + "\n" + out);
    }

    /**
     * 64 KiB in the archive's middle overwritten, as by a disk error. Depending on what lies there, a worker that
     * mapped it crashed at start, or said hello and crashed in its first task (every task of every pool, until someone
     * deleted the file), or ran: the seal finds it before any worker maps it.
     */
    @Test
    void aDamagedArchiveIsDeletedBeforeAnyWorkerMapsIt(@TempDir Path dir) throws Exception {
        final String classpath = jarsOnly(dir); // once: the archive's name follows the jars' times
        final Path archive = trainedArchive(dir, classpath);
        overwriteMiddle(archive);
        final String out = poolRun(dir, classpath);
        assertTrue(out.contains("RESULT [42]"), out);
        assertTrue(out.contains("the workers' class-data archive " + archive + " was damaged"), out);
        assertFalse(out.contains("died at start"), "a worker mapped the damaged archive: " + out);
        assertFalse(out.contains("A fatal error"), out);
        // the file, not the JVM, was at fault: trained again at once, not held off for a day
        assertFalse(Files.exists(archive.resolveSibling(archive.getFileName() + ".failed")), out);
        assertTrue(!Files.exists(archive) || ArchiveSeal.isIntact(archive), "the damaged archive is still there: " + out);
    }

    /**
     * An archive the JVM cannot start with although its bytes match its seal, as for a fault of the JVM: made here by
     * damaging a copy and sealing that. Each damage is the one that crashed every worker at start in trials on that
     * JDK (JDK 25 refuses a truncated archive cleanly; JDK 17's dynamic archive crashed at start or later on 64 KiB of
     * garbage, depending on its layout, but always on a truncation).
     */
    @Test
    void anArchiveTheJvmCannotStartWithIsDroppedAndThePoolStartsWithoutIt(@TempDir Path dir) throws Exception {
        final String classpath = jarsOnly(dir);
        final Path archive = trainedArchive(dir, classpath);
        final Path copy = archive.resolveSibling("damaged.tmp");
        Files.copy(archive, copy);
        copy.toFile().setWritable(true, true);
        if (Runtime.version().feature() >= 25) {
            overwriteMiddle(copy);
        } else {
            try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.WRITE)) {
                ch.truncate(ch.size() / 2);
            }
        }
        ArchiveSeal.seal(copy, archive);
        final String out = poolRun(dir, classpath);
        assertTrue(out.contains("RESULT [42]"), out);
        assertTrue(out.contains("died at start with the class-data archive " + archive), out);
        assertFalse(Files.exists(archive), "the archive is still there: " + out);
        assertFalse(Files.exists(ArchiveSeal.sealOf(archive)), "its seal is still there: " + out);
        assertTrue(Files.exists(archive.resolveSibling(archive.getFileName() + ".failed")), out);
    }

    /**
     * A worker killed from outside while it starts (SIGKILL: a user's kill, the OOM killer) is not a sign of a bad
     * archive: the archive was deleted and turned off for a day, and a worker started without one made build() fail
     * (soak review 50). The worker is relaunched as it was now, and the archive kept.
     */
    @Test
    void aWorkerKilledWhileStartingIsRelaunchedAndTheArchiveKept(@TempDir Path dir) throws Exception {
        final String classpath = jarsOnly(dir);
        final Path archive = trainedArchive(dir, classpath);
        final Process parent = new ProcessBuilder(JvmFlags.javaCommand(classpath,
            List.of("-Dsharray.pool.cds.dir=" + dir.resolve("cds")), KilledAtStartChild.class.getName()))
            .redirectErrorStream(true).start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, parent.exitValue(), out);
        assertTrue(out.contains("KILLED ") && out.contains("was killed while starting (worker 1 failed to start (exit"
            + " code 137)") && out.contains("worker 2 starts in its place"), out);
        assertTrue(out.contains("RESULT [42]"), out);
        assertTrue(Files.exists(archive), "the archive was deleted: " + out);
        assertFalse(Files.exists(archive.resolveSibling(archive.getFileName() + ".failed")), out);
    }

    /** @return the archive a first JVM's pools trained in {@code dir}/cds */
    private static Path trainedArchive(Path dir, String classpath) throws Exception {
        final Process trainee = new ProcessBuilder(JvmFlags.javaCommand(classpath,
            List.of("-Dsharray.pool.cds.dir=" + dir.resolve("cds")), CdsTrainee.class.getName())).redirectErrorStream(true).start();
        final String trained = new String(trainee.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(trainee.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, trainee.exitValue(), trained);
        assertTrue(trained.contains("LEFTOVER 0"), trained);
        return Path.of(trained.lines().filter(l -> l.startsWith("ARCHIVE ")).findFirst().orElseThrow().substring(8));
    }

    private static void overwriteMiddle(Path file) throws Exception {
        final byte[] garbage = new byte[64 << 10];
        new java.util.Random(7).nextBytes(garbage);
        file.toFile().setWritable(true, true);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(garbage), ch.size() / 2);
        }
    }

    /** @return the output of a second JVM whose one-worker pool runs one task with the archive in {@code dir}/cds */
    private static String poolRun(Path dir, String classpath) throws Exception {
        final Process parent = new ProcessBuilder(JvmFlags.javaCommand(classpath,
            List.of("-Dsharray.pool.cds.dir=" + dir.resolve("cds")), AgentPoolChild.class.getName()))
            .directory(dir.toFile()) // a crashed worker's hs_err file goes into its working folder
            .redirectErrorStream(true).start();
        final String out = new String(parent.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(parent.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, parent.exitValue(), out);
        return out;
    }

    private static Path jar(Path classes, Path jar) throws Exception {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) {
                    out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                    Files.copy(f, out);
                    out.closeEntry();
                }
            }
        }
        return jar;
    }

    @Test
    void aFailedTrainingIsNotRepeatedForADay(@TempDir Path dir) throws Exception {
        withCacheIn(dir, jar -> {
            // /bin/false as the workers' java: on JDK 25 the background dump fails; on JDK 17 the trainer's
            // normal exit left no archive
            final ClassDataArchive cds = ClassDataArchive.forWorkers("/bin/false", jar.toString(), List.of(), List.of());
            final List<String> first = cds.optionsFor(1);
            assertFalse(first.isEmpty(), "the first launch trains");
            final String listOption = first.get(0);
            if (listOption.startsWith("-XX:DumpLoadedClassList=")) {
                Files.writeString(Path.of(listOption.substring(listOption.indexOf('=') + 1)), "java/lang/Object\n");
            }
            cds.workerExited(1, 0, List::of);
            for (int i = 0; i < 200 && !Files.exists(cds.failedMarker()); i++) {
                Thread.sleep(50); // the dump runs in the background
            }
            assertTrue(Files.exists(cds.failedMarker()), "no failure marker");
            final ClassDataArchive next = ClassDataArchive.forWorkers("/bin/false", jar.toString(), List.of(), List.of());
            for (int i = 0; i < 200 && next.trainingFiles(Long.MAX_VALUE) > 0; i++) {
                Thread.sleep(50); // the dump's shell removes its temporary files after writing the marker
            }
            assertEquals(0, next.trainingFiles(Long.MAX_VALUE), "temporary files left");
            assertTrue(next.optionsFor(1).isEmpty(), "trained again despite a recent failure");
            // a day later it tries again
            Files.setLastModifiedTime(next.failedMarker(),
                FileTime.fromMillis(System.currentTimeMillis() - ClassDataArchive.FAILED_RETRY_MILLIS - 1000));
            final ClassDataArchive later = ClassDataArchive.forWorkers("/bin/false", jar.toString(), List.of(), List.of());
            assertFalse(later.optionsFor(1).isEmpty(), "never retried");
        });
    }

    /**
     * A trainer whose JVM could not write what it trains (here its output path is a folder; in use a full file
     * system): JDK 17 prints "Unable to create shared archive file ... Error occurred during initialization of VM"
     * into the user's stderr and exits 1. No marker was left for that, so every later pool trained again and
     * printed it again. Runs a real JVM with the trainer's options and passes on its exit code.
     */
    @Test
    void aTrainerWhoseJvmCouldNotWriteIsNotRepeatedForADay(@TempDir Path dir) throws Exception {
        withCacheIn(dir, jar -> {
            final ClassDataArchive cds = ClassDataArchive.forWorkers(JAVA, jar.toString(), List.of(), List.of());
            final List<String> trainer = cds.optionsFor(1);
            assertFalse(trainer.isEmpty(), "the first launch trains");
            final Path output = Path.of(trainer.get(0).substring(trainer.get(0).indexOf('=') + 1));
            Files.createDirectories(output.resolve("blocked"));
            final List<String> cmd = new java.util.ArrayList<>(List.of(JAVA));
            cmd.addAll(trainer);
            cmd.add("-version");
            final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            final List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            cds.archiveNotAtFault(1); // the trainer had said hello: it fails when it dumps at exit
            cds.workerExited(1, p.exitValue(), () -> lines);
            for (int i = 0; i < 200 && !Files.exists(cds.failedMarker()); i++) {
                Thread.sleep(50); // JDK 25: the background dump finds no class list
            }
            assertTrue(Files.exists(cds.failedMarker()), "no failure marker after exit code " + p.exitValue());
            assertTrue(ClassDataArchive.forWorkers(JAVA, jar.toString(), List.of(), List.of()).optionsFor(1).isEmpty(),
                "trained again");
        });
    }

    /**
     * A task that calls {@code System.exit(1)} in the trainer ends its JVM with the code a JDK 17 JVM exits with
     * when its dump fails: it was taken for that, and no pool of this configuration trained again for a day. Such an
     * exit (no word from HotSpot about the archive) marks nothing; the next pool trains again. A real JDK 17 JVM
     * calling {@code System.exit(1)} under {@code -XX:ArchiveClassesAtExit} writes its archive silently, so its
     * last lines are the task's.
     */
    @Test
    void aTaskExitingWithOneInTheTrainerDoesNotMarkTheArchiveFailed(@TempDir Path dir) throws Exception {
        withCacheIn(dir, jar -> {
            final ClassDataArchive cds = ClassDataArchive.forWorkers(JAVA, jar.toString(), List.of(), List.of());
            assertFalse(cds.optionsFor(1).isEmpty(), "the first launch trains");
            cds.archiveNotAtFault(1);
            cds.workerExited(1, 1, () -> List.of("[worker 1] exiting on the task's request"));
            assertFalse(Files.exists(cds.failedMarker()), "a task's exit marked the archive failed");
            assertEquals(0, cds.trainingFiles(Long.MAX_VALUE), "temporary files left");
            assertFalse(ClassDataArchive.forWorkers(JAVA, jar.toString(), List.of(), List.of()).optionsFor(1).isEmpty(),
                "the next pool does not train");
        });
    }

    @Test
    void hotSpotsWordsOnAFailedDumpAreRecognised() {
        assertTrue(ClassDataArchive.dumpFailed(List.of("An error has occurred while processing the shared archive file.",
            "Unable to create shared archive file /x.jsa: (Is a directory).")));
        assertTrue(ClassDataArchive.dumpFailed(List.of("Error occurred during initialization of VM",
            "Unable to use shared archive.")));
        assertFalse(ClassDataArchive.dumpFailed(List.of("task output", "Exception in thread \"main\"")));
    }

    /**
     * A worker maps an archive's classes unverified: one in a folder another user can change (a shared cache
     * named by XDG_CACHE_HOME or sharray.pool.cds.dir) is neither used nor trained into. Runs as any user.
     */
    @Test
    void anArchiveInAFolderOthersCanChangeIsNotUsed(@TempDir Path dir) throws Exception {
        final Path open = Files.createDirectory(dir.resolve("open"));
        System.setProperty("sharray.pool.cds.dir", open.resolve("cds").toString());
        try {
            final Path jar = Files.writeString(dir.resolve("a.jar"), "x");
            final ClassDataArchive cds = ClassDataArchive.forWorkers("java", jar.toString(), List.of(), List.of());
            Files.createDirectories(cds.archive().getParent());
            Files.writeString(cds.archive(), "planted");

            Files.setPosixFilePermissions(cds.archive().getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
            assertTrue(cds.optionsFor(1).isEmpty(), "an archive in a folder anyone can write to was used");

            // our own folder, inside one anyone can write to (not sticky): it can be renamed away and replaced
            Files.setPosixFilePermissions(cds.archive().getParent(), PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
            assertTrue(cds.optionsFor(1).isEmpty(), "an archive in a folder inside an open one was used");
            Files.delete(cds.archive());
            assertTrue(cds.optionsFor(1).isEmpty(), "trained into a folder inside an open one");

            Files.setAttribute(open, "unix:mode", 01777); // sticky, as /tmp is: ours stays ours
            ArchiveSeal.seal(Files.writeString(cds.archive().resolveSibling("ours.tmp"), "ours"), cds.archive());
            assertEquals(List.of("-XX:SharedArchiveFile=" + cds.archive(), "-Xshare:auto"), cds.optionsFor(1).subList(0, 2));
        } finally {
            System.clearProperty("sharray.pool.cds.dir");
        }
    }

    @Test
    void pruneKeepsTheNewestArchives(@TempDir Path dir) throws Exception {
        for (int i = 0; i < 12; i++) {
            final Path p = dir.resolve("worker-jdk17-" + i + ".jsa");
            ArchiveSeal.seal(Files.writeString(dir.resolve("written"), "a"), p);
            Files.setLastModifiedTime(p, FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        // seals (ArchiveSeal) without their archive: an old one goes; a young one may be a sealing half way, and stays
        final Path orphanSeal = Files.writeString(dir.resolve("worker-jdk17-y.jsa" + ArchiveSeal.SUFFIX), "1 0\n");
        Files.setLastModifiedTime(orphanSeal, FileTime.fromMillis(1000));
        final Path youngSeal = Files.writeString(dir.resolve("worker-jdk17-z.jsa" + ArchiveSeal.SUFFIX), "1 0\n");
        final Path sealTmp = Files.writeString(dir.resolve("worker-jdk17-z.jsa" + ArchiveSeal.SUFFIX + ".tmp-1-2"), "t");
        Files.setLastModifiedTime(sealTmp, FileTime.fromMillis(1000));
        final Path staleTmp = Files.writeString(dir.resolve("worker-jdk17-x.jsa.tmp-1-2"), "t");
        Files.setLastModifiedTime(staleTmp, FileTime.fromMillis(1000));
        final Path other = Files.writeString(dir.resolve("unrelated.txt"), "u");
        // worker jars (WorkerJar): one not written for a month goes, a recent one stays, a crashed writer's temporary goes
        final Path oldJar = Files.writeString(dir.resolve("worker-0123456789abcdef.jar"), "j");
        Files.setLastModifiedTime(oldJar, FileTime.fromMillis(System.currentTimeMillis() - 31L * 24 * 3_600_000));
        final Path newJar = Files.writeString(dir.resolve("worker-fedcba9876543210.jar"), "j");
        final Path jarTmp = Files.writeString(dir.resolve("worker-fedcba9876543210.jar.tmp-1-2"), "t");
        Files.setLastModifiedTime(jarTmp, FileTime.fromMillis(1000));
        ClassDataArchive.prune(dir);
        assertFalse(Files.exists(oldJar));
        assertTrue(Files.exists(newJar));
        assertFalse(Files.exists(jarTmp));
        for (int i = 0; i < 12; i++) {
            assertEquals(i >= 4, Files.exists(dir.resolve("worker-jdk17-" + i + ".jsa")), "archive " + i);
            assertEquals(i >= 4, Files.exists(ArchiveSeal.sealOf(dir.resolve("worker-jdk17-" + i + ".jsa"))), "seal " + i);
        }
        assertFalse(Files.exists(orphanSeal));
        assertTrue(Files.exists(youngSeal));
        assertFalse(Files.exists(sealTmp));
        assertFalse(Files.exists(staleTmp));
        assertTrue(Files.exists(other));
    }
}
