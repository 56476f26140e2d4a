package dev.sharray.pool;

import dev.sharray.NativeFiles;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * AppCDS for worker JVMs: a class-data archive of the classes a worker loads, made once per JDK, classpath
 * and JVM options and reused by every later worker, which then starts with those classes already parsed
 * and verified.
 *
 * <p>The archive lives in the user cache ({@code $XDG_CACHE_HOME/sharray/cds} or {@code ~/.cache/sharray/cds},
 * or the folder named by {@code -Dsharray.pool.cds.dir}), named by a hash of the JDK, the workers' full
 * argument list and each classpath jar's size and modification time, so a rebuilt jar or another JDK
 * gets its own archive. When it is missing, the first worker of a pool trains it:
 * <ul>
 *   <li>JDK 25 and later: the trainer records the classes it loads ({@code -XX:DumpLoadedClassList}); when it
 *   exits normally, a background JVM with the workers' own options dumps a <em>static</em> archive from
 *   that list. A static archive records the module options it was made with, so the workers keep the
 *   JDK's optimized module handling, which the flag file's {@code --add-exports} switches off against the
 *   JDK's default archive: measured, a worker's start-up CPU fell by ~14 % against a dynamic archive.</li>
 *   <li>Older JDKs: the trainer writes a dynamic archive at exit ({@code -XX:ArchiveClassesAtExit}); a
 *   static one gains nothing there, as JDK 17 switches optimized module handling off for those options
 *   at dump time too.</li>
 * </ul>
 * Either way the archive is written under a private temporary name and renamed into place atomically, so
 * concurrent pools never see a partial archive, with its checksum beside it ({@link ArchiveSeal}): an archive
 * whose bytes differ from it is deleted before any worker maps it, and trained again. When a trainer that exited
 * normally leaves no archive, or the dump fails, a {@code .failed} marker stops further attempts for this
 * configuration for a day. A worker that dies at start with the archive mapped drops it the same way, and the pool
 * relaunches it without (an archive this JVM cannot start with would fail every worker: see
 * {@link #dropAfterFailedStart}); so does a trainer that dies at start ({@link #trainerDiedAtStart}).
 *
 * <p>Used and trained only in a folder no other user can change (see {@link #isSafeFolder}).
 *
 * <p>Off when the classpath holds a directory (CDS archives jars only: test runs from
 * {@code target/classes}), when there is no cache folder (no absolute home: Java's {@code user.home} is
 * {@code ?} for a uid without a passwd entry), when the user passes CDS options or options a JVM cannot dump an
 * archive with (agents, {@code --patch-module}, ...: see {@code REFUSED_BY_ARCHIVING}), before JDK 25 when the JDK
 * has no base archive of its own (see {@link #canArchiveWith}), or with {@code -Dsharray.pool.cds=false}.
 */
final class ClassDataArchive {
    /** System property set in the worker that trains the archive (see {@link #TRAINING}). */
    private static final String TRAINING_PROPERTY = "sharray.pool.cds.training";
    /**
     * Whether this JVM is a worker training the archive: it then loads, before it exits, classes other workers
     * may need later but it never used (see {@code WorkerLoop}).
     */
    static final boolean TRAINING = Boolean.getBoolean(TRAINING_PROPERTY);
    private static final String[] LOG_OFF = {"-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:class+path=off"};
    /** JDK 25+ keeps the module options in a static archive (see the class comment). */
    private static final boolean STATIC_ARCHIVE = Runtime.version().feature() >= 25;
    /** A training younger than this is taken to be in progress elsewhere: no second trainer meanwhile. */
    private static final long TRAINING_GRACE_MILLIS = 120_000;
    /**
     * After a worker that exited normally left no archive (or the static dump failed), no pool trains this
     * configuration again for this long: each attempt costs a worker's class list and a second of dumping.
     */
    static final long FAILED_RETRY_MILLIS = 24 * 3_600_000L;
    /**
     * The exit code of a JDK 17 JVM whose archive dump failed: at exit ("An error has occurred while processing the
     * shared archive file. Unable to write to shared archive file."), or at start for an option it cannot archive
     * with. A worker exits 0 when stopped, or by a signal's code when killed or crashed.
     */
    private static final int DUMP_FAILED_EXIT = 1;
    private final Path archive;
    private final String javaCommand;
    private final List<String> workerArgs;
    private Path trainingFile;
    private int trainer = -1;
    /** Whether a launch found the archive damaged and deleted it, not yet reported (see {@link #takeDamaged}). */
    private boolean damaged;
    /** The workers launched with the archive mapped that have not said hello yet. */
    private final Set<Integer> mappersStarting = new HashSet<>();
    /** The worker training the archive until it says hello, else -1 (see {@link #trainerDiedAtStart}). */
    private int startingTrainer = -1;

    private ClassDataArchive(Path archive, String javaCommand, List<String> workerArgs) {
        this.archive = archive;
        this.javaCommand = javaCommand;
        this.workerArgs = List.copyOf(workerArgs);
    }

    /**
     * Before JDK 25 the trainer writes a dynamic archive, which sits on top of the JDK's own base archive: a runtime
     * without one (a jlink image made without {@code --generate-cds-archive}) stops the trainer at start ("DynamicDump
     * SharedSpaces is unsupported when base CDS archive is not loaded"), a wasted worker start and a worrying line in
     * the first pool of every configuration (deployment review 49). JDK 25's static archive needs no base.
     *
     * @param javaHome the workers' JDK
     * @param feature  its feature version
     * @return whether an archive can be made for workers of that JDK
     */
    static boolean canArchiveWith(Path javaHome, int feature) {
        if (feature >= 25) {
            return true;
        }
        for (String vm : new String[] {"server", "client"}) {
            for (String file : new String[] {"classes.jsa", "classes_nocoops.jsa"}) {
                if (Files.isRegularFile(javaHome.resolve("lib").resolve(vm).resolve(file))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @param java       the workers' {@code java} executable
     * @param classpath  the workers' classpath
     * @param args       every argument of the workers' argument file (flags and classpath)
     * @param jvmOptions the user's extra options
     * @return the archive policy, or {@code null} when CDS is off for these workers
     */
    static ClassDataArchive forWorkers(String java, String classpath, List<String> args, List<String> jvmOptions) {
        if (!Boolean.parseBoolean(System.getProperty("sharray.pool.cds", "true"))) {
            return null;
        }
        final List<String> inherited = InheritedJavaOptions.all();
        if (turnArchivesOff(jvmOptions) || turnArchivesOff(inherited)
            || !canArchiveWith(Path.of(System.getProperty("java.home")), Runtime.version().feature())) {
            return null;
        }
        try {
            final Fnv64 key = new Fnv64();
            key.add(System.getProperty("java.home") + '\n' + System.getProperty("java.vm.version") + '\n');
            for (String a : args) {
                key.add(a + '\n');
            }
            // the workers' JVMs read these too: an archive of their own, so that a start they make fail (an option
            // the JVM refuses) is not blamed on, and does not discard, the archive of workers without them
            for (String o : inherited) {
                key.add("env " + o + '\n');
            }
            for (String entry : classpath.split(File.pathSeparator)) {
                if (entry.isEmpty()) {
                    continue;
                }
                final Path p = Path.of(entry);
                if (!Files.isRegularFile(p)) {
                    return null; // a directory (or a missing entry): CDS refuses such a classpath
                }
                key.add(entry + ' ' + Files.size(p) + ' ' + Files.getLastModifiedTime(p).toMillis() + '\n');
            }
            final Path dir = cacheFolder();
            if (dir == null) {
                return null; // no home to keep a cache in: workers run without an archive
            }
            final String name = "worker-jdk" + Runtime.version().feature() + "-" + key.hex() + ".jsa";
            return new ClassDataArchive(dir.resolve(name), java, args);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Options with which a JVM cannot dump a class-data archive. JDK 17 refuses them when the trainer starts
     * ({@code -XX:ArchiveClassesAtExit}): "Must enable AllowArchivingWithJavaAgent", "CDS dumping does not support
     * native JVMTI agent", "Cannot use the following option when dumping the shared archive: --patch-module", and
     * for a directory appended to the boot class path "Cannot have non-empty directory in paths" at exit. The first
     * worker then never started, and the pool failed to build, every time (a JaCoCo or debugger agent in the
     * workers' options was enough). JDK 25's static dump fails on them too, quietly. Such workers run without an
     * archive. Without the JDK's base archive ({@code -XX:-UseSharedSpaces}, and JDK 17's base archive needs
     * compressed class pointers) JDK 17 refuses to start the trainer too.
     */
    private static final String[] REFUSED_BY_ARCHIVING = {
        "-javaagent:", "-agentlib:", "-agentpath:", "-Xrun", "-Xbootclasspath/a", "--patch-module",
        "--limit-modules", "--upgrade-module-path", "-XX:-UseSharedSpaces", "-XX:-UseCompressedClassPointers",
    };

    /** @return whether {@code options} hold the user's own CDS options, or one a JVM cannot dump an archive with */
    private static boolean turnArchivesOff(List<String> options) {
        for (String o : options) {
            if (o.startsWith("-Xshare") || o.contains("SharedArchiveFile") || o.contains("ArchiveClassesAtExit")
                || o.contains("SharedClassListFile") || o.contains("AOTCache") || o.contains("AOTMode")) {
                return true;
            }
            for (String refused : REFUSED_BY_ARCHIVING) {
                if (o.startsWith(refused)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * 64-bit FNV-1a over UTF-8 text: the archive's name only has to tell configurations apart (a clash
     * would make a JVM refuse an archive dumped for other paths and run without it). Not SHA-256: the first
     * {@code MessageDigest} in a JVM initializes the security providers, ~35 ms before the first worker
     * can be started.
     */
    static final class Fnv64 {
        private long hash = 0xcbf29ce484222325L;

        void add(String text) {
            for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
                hash ^= b & 0xff;
                hash *= 0x100000001b3L;
            }
        }

        String hex() {
            final String h = Long.toHexString(hash); // not String.format: no Formatter and locale data to load
            return "0".repeat(16 - h.length()) + h;
        }
    }

    /** Archives kept per cache folder (each jar rebuild or JDK update makes a new one, ~3 MB each). */
    private static final int KEEP = 8;
    private static final long STALE_TMP_MILLIS = 3_600_000;

    /** Worker jars ({@link WorkerJar}) not written for this long: a configuration not used for a month. */
    private static final long STALE_JAR_MILLIS = 30L * 24 * 3_600_000;

    /**
     * Deletes all but the {@value #KEEP} most recently written archives, worker jars and their classpath links
     * ({@link ClassPathLinks}) not written for a month, and
     * temporary files of trainers and jar writers that died more than an hour ago. Run when an archive is trained,
     * not at every pool's start.
     */
    static void prune(Path folder) {
        final List<Path> archives = new ArrayList<>();
        final long now = System.currentTimeMillis();
        try (java.util.stream.Stream<Path> files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                final String n = p.getFileName().toString();
                if (n.startsWith(ClassPathLinks.PREFIX) && ClassPathLinks.olderThan(p, STALE_JAR_MILLIS, now)) {
                    Files.deleteIfExists(p);
                }
                if (!n.startsWith("worker-")) {
                    continue;
                }
                if (n.endsWith(".jsa")) {
                    archives.add(p);
                } else if ((n.contains(".jsa" + CacheFiles.WRITING) || n.contains(".jar" + CacheFiles.WRITING)
                    || n.contains(ArchiveSeal.SUFFIX + CacheFiles.WRITING))
                    && now - Files.getLastModifiedTime(p).toMillis() > STALE_TMP_MILLIS) {
                    Files.deleteIfExists(p);
                } else if (n.endsWith(".jsa" + ArchiveSeal.SUFFIX) && now - Files.getLastModifiedTime(p).toMillis() > STALE_TMP_MILLIS
                    && !Files.exists(p.resolveSibling(n.substring(0, n.length() - ArchiveSeal.SUFFIX.length())))) {
                    Files.deleteIfExists(p); // the seal of an archive deleted (a sealing that stopped half way, if young)
                } else if (n.endsWith(".jar") && now - Files.getLastModifiedTime(p).toMillis() > STALE_JAR_MILLIS) {
                    Files.deleteIfExists(p);
                } else if (n.endsWith(".jsa.failed") && now - Files.getLastModifiedTime(p).toMillis() > FAILED_RETRY_MILLIS) {
                    Files.deleteIfExists(p);
                }
            }
            archives.sort(java.util.Comparator.comparingLong(ClassDataArchive::modified).reversed());
            for (int i = KEEP; i < archives.size(); i++) {
                Files.deleteIfExists(archives.get(i));
                Files.deleteIfExists(ArchiveSeal.sealOf(archives.get(i)));
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: the cache only grows by a few MB per build
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    /** @return the cache folder, or null when there is none (no absolute home folder) */
    static Path cacheFolder() {
        final String configured = System.getProperty("sharray.pool.cds.dir");
        if (configured != null) {
            return Path.of(configured);
        }
        // as NativeFiles: a relative XDG_CACHE_HOME is ignored (the XDG rule), and so is a home that is not an absolute
        // path: Java's user.home is "?" for a uid without a passwd entry, which made "?/.cache/sharray/cds" in
        // whatever folder the pool was started from
        final String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "sharray", "cds");
        }
        final String home = System.getProperty("user.home");
        if (home == null || home.isEmpty() || !Path.of(home).isAbsolute()) {
            return null;
        }
        return Path.of(home, ".cache", "sharray", "cds");
    }

    /** @return the archive path (it may not exist yet) */
    Path archive() {
        return archive;
    }

    /**
     * The CDS options of one worker launch: use the archive when it exists, else make this worker (the first
     * one launched without an archive, unless another pool's training is under way) train it.
     *
     * @param workerId the worker's number
     * @return options to put before the argument file
     */
    synchronized List<String> optionsFor(int workerId) {
        final List<String> opts = new ArrayList<>();
        boolean present = Files.isRegularFile(archive);
        if (present && !isSafeFolder(archive.getParent())) {
            return opts;
        }
        if (present && !ArchiveSeal.isIntact(archive)) {
            deleteArchive();
            damaged = true;
            present = false; // trained again right away: the file, not the JVM, was at fault
        }
        if (present) {
            opts.add("-XX:SharedArchiveFile=" + archive);
            opts.add("-Xshare:auto");
            mappersStarting.add(workerId);
        } else if (trainer < 0 && !trainingUnderWay() && !failedRecently()) {
            try {
                Files.createDirectories(archive.getParent(),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (IOException | UnsupportedOperationException e) {
                CacheFolderNotice.unusable(archive.getParent(), "a class-data archive", e);
                return opts;
            }
            if (!isSafeFolder(archive.getParent())) {
                return opts;
            }
            prune(archive.getParent());
            trainer = workerId;
            startingTrainer = workerId;
            trainingFile = CacheFiles.writingName(archive);
            opts.add(STATIC_ARCHIVE ? "-XX:DumpLoadedClassList=" + classList(trainingFile)
                : "-XX:ArchiveClassesAtExit=" + trainingFile);
            opts.add("-D" + TRAINING_PROPERTY + "=true");
        } else {
            return opts;
        }
        for (String o : LOG_OFF) {
            opts.add(o);
        }
        return opts;
    }

    /**
     * A worker JVM maps the archive's classes as they are, unverified: like a native library, it is used (and
     * trained) only in a folder no other user can change ({@link NativeFiles#requireSafeFolder}), as a cache
     * folder named by {@code XDG_CACHE_HOME} or {@code -Dsharray.pool.cds.dir} may be shared with others.
     * Otherwise the workers run without an archive.
     */
    private static boolean isSafeFolder(Path folder) {
        try {
            NativeFiles.requireSafeFolder(folder, "to map a class-data archive from");
            return true;
        } catch (IOException | RuntimeException e) {
            CacheFolderNotice.unusable(folder, "a class-data archive", e);
            return false;
        }
    }

    /** Whether a recent temporary file of this archive shows another trainer or dump at work. */
    private boolean trainingUnderWay() {
        return trainingFiles(TRAINING_GRACE_MILLIS) > 0;
    }

    /**
     * @param maxAgeMillis count only files modified this recently
     * @return how many temporary files of this archive's training are in the cache folder
     */
    long trainingFiles(long maxAgeMillis) {
        final String prefix = archive.getFileName() + CacheFiles.WRITING;
        final long now = System.currentTimeMillis();
        try (java.util.stream.Stream<Path> files = Files.list(archive.getParent())) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix) && now - modified(p) < maxAgeMillis)
                .count();
        } catch (IOException | RuntimeException e) {
            return 0; // no cache folder yet
        }
    }

    /**
     * @return whether a launch since the last call found the archive damaged (its bytes differ from its seal, or it has
     *     none) and deleted it
     */
    synchronized boolean takeDamaged() {
        final boolean was = damaged;
        damaged = false;
        return was;
    }

    /**
     * A worker said hello, or was killed from outside before it could (SIGKILL, SIGTERM: a user's kill, the OOM
     * killer): whatever ends it, the archive it mapped is not at fault and stays. (A killed trainer gave up its role
     * when its exit was seen.)
     */
    synchronized void archiveNotAtFault(int workerId) {
        mappersStarting.remove(workerId);
        if (workerId == startingTrainer) {
            startingTrainer = -1;
        }
    }

    /**
     * A worker died before it said hello: if it was training the archive, this pool trains no more, and a relaunch
     * runs without. A JDK 17 trainer ({@code -XX:ArchiveClassesAtExit}) exits at start whenever that JVM cannot
     * dump: no base archive in the JDK (a {@code jlink} image), or options that no check here sees (in
     * {@code -XX:VMOptionsFile}, {@code _JAVA_OPTIONS} set after this JVM started); the pool then failed to build.
     *
     * @param workerId the worker's number
     * @return whether it was the trainer (its exit marked the archive failed when it was the dump's refusal)
     */
    synchronized boolean trainerDiedAtStart(int workerId) {
        if (workerId != startingTrainer) {
            return false;
        }
        startingTrainer = -1;
        trainer = Integer.MAX_VALUE; // one attempt per pool
        return true;
    }

    /**
     * A worker died before it said hello. If it had mapped the archive, the archive is deleted and marked failed
     * (no pool trains it again for a day, as its seal held: the JVM rather than the file is likely at fault). An
     * archive a JVM cannot use may crash it rather than be refused by {@code -Xshare:auto} (JDK 17: SIGBUS on a
     * truncated one, or an overwritten one that slipped past the seal; JDK 25: SIGSEGV), so no pool of this
     * configuration could start until someone deleted it.
     *
     * @param workerId the worker's number
     * @return whether the worker had mapped the archive, which is now gone: a relaunch runs without it
     */
    synchronized boolean dropAfterFailedStart(int workerId) {
        if (!mappersStarting.remove(workerId)) {
            return false;
        }
        deleteArchive();
        markFailed();
        return true;
    }

    /** @return the marker of a failed training of this archive */
    Path failedMarker() {
        return archive.resolveSibling(archive.getFileName() + ".failed");
    }

    private boolean failedRecently() {
        final Path marker = failedMarker();
        return Files.exists(marker) && System.currentTimeMillis() - modified(marker) < FAILED_RETRY_MILLIS;
    }

    private void markFailed() {
        try {
            Files.deleteIfExists(failedMarker());
            Files.createFile(failedMarker());
        } catch (IOException | RuntimeException ignored) {
            // no marker: the next pool tries again
        }
    }

    private static Path classList(Path trainingFile) {
        return trainingFile.resolveSibling(trainingFile.getFileName() + ".classlist");
    }

    /**
     * A worker exited: if it was training the archive and exited normally, the archive is moved into place
     * (dynamic archive) or dumped in the background from its class list (static archive).
     *
     * @param workerId the worker's number
     * @param exitCode its exit code, or -1 when unknown
     * @param lastStderrLines its last standard error lines once it has ended; asked only of a trainer that
     *     exited with {@link #DUMP_FAILED_EXIT} after it said hello
     */
    synchronized void workerExited(int workerId, int exitCode, Supplier<List<String>> lastStderrLines) {
        if (workerId != trainer) {
            return;
        }
        if (exitCode == DUMP_FAILED_EXIT && workerId != startingTrainer && !dumpFailed(lastStderrLines.get())) {
            // a task's System.exit(1): not this JVM's refusal to dump. Its archive, if any, missed the classes a
            // trainer loads before a normal exit: neither kept nor marked failed; the next pool trains again
            exitCode = -1;
        }
        final Path tmp = trainingFile;
        trainer = Integer.MAX_VALUE; // one attempt per pool
        trainingFile = null;
        if (STATIC_ARCHIVE) {
            if (exitCode != 0) {
                deleteQuietly(classList(tmp)); // a crashed or killed trainer: the next pool tries again
            } else if (!startStaticDump(tmp)) {
                deleteQuietly(classList(tmp));
                markFailed();
            }
            return;
        }
        try {
            if (exitCode == 0 && Files.isRegularFile(tmp) && Files.size(tmp) > 0) {
                ArchiveSeal.seal(tmp, archive);
                prune(archive.getParent());
            } else if (exitCode == 0 || exitCode == DUMP_FAILED_EXIT) {
                // a normal exit wrote no archive: this JVM cannot make one for these options. Or the JVM's own exit
                // when its dump failed (a full file system: "Unable to write to shared archive file") or was refused
                // at start: it printed why into the user's stderr, which every later pool repeated
                markFailed();
            }
        } catch (IOException | RuntimeException ignored) {
            // no archive this time: the next pool tries again
        } finally {
            deleteQuietly(tmp);
        }
    }

    /**
     * @param lastStderrLines what a trainer that exited with {@link #DUMP_FAILED_EXIT} wrote last
     * @return whether its JVM said that it could not write the archive (HotSpot's text: "An error has occurred
     *     while processing the shared archive file.", then the reason), or could not start with the options
     */
    static boolean dumpFailed(List<String> lastStderrLines) {
        for (String line : lastStderrLines) {
            if (line.contains("shared archive file") || line.contains("Error occurred during initialization of VM")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Starts a JVM with the workers' arguments that dumps the static archive from the trainer's class list
     * into {@code tmp}, then a second one that seals it and renames it into place ({@link ArchiveSeal#main}), and a
     * shell removes the temporary files. They run at low priority and are not waited for: a dump takes ~1 s of CPU,
     * and the shell finishes the job even when this JVM exits first. Until it is done, later pools run without an
     * archive (and do not train again).
     *
     * @return whether the dump was started
     */
    private boolean startStaticDump(Path tmp) {
        final Path list = classList(tmp);
        final Path argFile = tmp.resolveSibling(tmp.getFileName() + ".args");
        try {
            if (!Files.isRegularFile(list) || Files.size(list) == 0) {
                return false;
            }
            final StringBuilder sb = new StringBuilder();
            for (String a : workerArgs) {
                sb.append(WorkerLauncher.quoteForArgFile(a)).append('\n');
            }
            Files.writeString(argFile, sb, StandardCharsets.UTF_8);
            // the paths travel as positional parameters, never inside the script text
            final ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c",
                "n=; command -v nice >/dev/null 2>&1 && n='nice -n 10'; $n \"$1\" \"@$2\" -Xshare:dump \"-XX:SharedClassListFile=$3\" \"-XX:SharedArchiveFile=$4\""
                    + " -Xlog:cds=off -Xlog:cds+dynamic=off -Xlog:class+path=off"
                    + " && $n \"$1\" \"@$2\" \"$7\" \"$4\" \"$5\" || : > \"$6\"; rm -f -- \"$2\" \"$3\" \"$4\"",
                "sharray-cds-dump", javaCommand, argFile.toString(), list.toString(), tmp.toString(), archive.toString(),
                failedMarker().toString(), ArchiveSeal.class.getName());
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            DescriptorHeadroom.require("the class-data archive's dump"); // as for a worker: the JDK's start at the limit
            pb.start();
            return true;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(argFile);
            return false;
        }
    }

    private void deleteArchive() {
        deleteQuietly(archive);
        deleteQuietly(ArchiveSeal.sealOf(archive));
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // left in the cache folder; pruned once stale
        }
    }
}
