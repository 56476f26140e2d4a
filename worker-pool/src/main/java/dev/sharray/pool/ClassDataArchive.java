package dev.sharray.pool;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * AppCDS for worker JVMs: a dynamic class-data archive of the classes a worker loads, made once per JDK,
 * classpath and JVM options and reused by every later worker, which then starts with those classes
 * already parsed and verified.
 *
 * <p>The archive lives in the user cache ({@code $XDG_CACHE_HOME/sharray/cds} or {@code ~/.cache/sharray/cds},
 * or the folder named by {@code -Dsharray.pool.cds.dir}), named by a hash of the JDK, the workers' full
 * argument list and each classpath jar's size and modification time, so a rebuilt jar or another JDK
 * gets its own archive. When it is missing, the first worker of a pool is started with
 * {@code -XX:ArchiveClassesAtExit} into a private temporary name; when that worker exits normally (the
 * pool's {@code close()}), the file is renamed into place atomically, so concurrent pools never see a
 * partial archive. Works on JDK 17 and later.
 *
 * <p>Off when the classpath holds a directory (CDS archives jars only: test runs from
 * {@code target/classes}), when the user passes CDS options, or with {@code -Dsharray.pool.cds=false}.
 */
final class ClassDataArchive {
    private static final String[] LOG_OFF = {"-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-Xlog:class+path=off"};
    private final Path archive;
    private Path trainingFile;
    private int trainer = -1;

    private ClassDataArchive(Path archive) {
        this.archive = archive;
    }

    /**
     * @param classpath  the workers' classpath
     * @param args       every argument of the workers' argument file (flags and classpath)
     * @param jvmOptions the user's extra options
     * @return the archive policy, or {@code null} when CDS is off for these workers
     */
    static ClassDataArchive forWorkers(String classpath, List<String> args, List<String> jvmOptions) {
        if (!Boolean.parseBoolean(System.getProperty("sharray.pool.cds", "true"))) {
            return null;
        }
        for (String o : jvmOptions) {
            if (o.startsWith("-Xshare") || o.contains("SharedArchiveFile") || o.contains("ArchiveClassesAtExit")
                || o.contains("SharedClassListFile") || o.contains("AOTCache") || o.contains("AOTMode")) {
                return null;
            }
        }
        try {
            final Fnv64 key = new Fnv64();
            key.add(System.getProperty("java.home") + '\n' + System.getProperty("java.vm.version") + '\n');
            for (String a : args) {
                key.add(a + '\n');
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
            final String name = "worker-jdk" + Runtime.version().feature() + "-" + key.hex() + ".jsa";
            return new ClassDataArchive(dir.resolve(name));
        } catch (IOException | RuntimeException e) {
            return null;
        }
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

    /**
     * Deletes all but the {@value #KEEP} most recently written archives, and temporary files of trainers
     * that died more than an hour ago.
     */
    static void prune(Path folder) {
        final List<Path> archives = new ArrayList<>();
        final long now = System.currentTimeMillis();
        try (java.util.stream.Stream<Path> files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                final String n = p.getFileName().toString();
                if (!n.startsWith("worker-")) {
                    continue;
                }
                if (n.endsWith(".jsa")) {
                    archives.add(p);
                } else if (n.contains(".jsa.tmp-") && now - Files.getLastModifiedTime(p).toMillis() > STALE_TMP_MILLIS) {
                    Files.deleteIfExists(p);
                }
            }
            archives.sort(java.util.Comparator.comparingLong(ClassDataArchive::modified).reversed());
            for (int i = KEEP; i < archives.size(); i++) {
                Files.deleteIfExists(archives.get(i));
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

    private static Path cacheFolder() {
        final String configured = System.getProperty("sharray.pool.cds.dir");
        if (configured != null) {
            return Path.of(configured);
        }
        final String xdg = System.getenv("XDG_CACHE_HOME");
        final Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("sharray").resolve("cds");
    }

    /** @return the archive path (it may not exist yet) */
    Path archive() {
        return archive;
    }

    /**
     * The CDS options of one worker launch: use the archive when it exists, else make this worker (the first
     * one launched without an archive) write it at exit.
     *
     * @param workerId the worker's number
     * @return options to put before the argument file
     */
    synchronized List<String> optionsFor(int workerId) {
        final List<String> opts = new ArrayList<>();
        if (Files.isRegularFile(archive)) {
            opts.add("-XX:SharedArchiveFile=" + archive);
            opts.add("-Xshare:auto");
        } else if (trainer < 0) {
            try {
                Files.createDirectories(archive.getParent(),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (IOException | UnsupportedOperationException e) {
                return opts;
            }
            trainer = workerId;
            trainingFile = archive.resolveSibling(archive.getFileName() + ".tmp-" + ProcessHandle.current().pid()
                + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            opts.add("-XX:ArchiveClassesAtExit=" + trainingFile);
        } else {
            return opts;
        }
        for (String o : LOG_OFF) {
            opts.add(o);
        }
        return opts;
    }

    /**
     * A worker exited: if it was writing the archive and exited normally, the archive is moved into place.
     *
     * @param workerId the worker's number
     * @param exitCode its exit code, or -1 when unknown
     */
    synchronized void workerExited(int workerId, int exitCode) {
        if (workerId != trainer) {
            return;
        }
        final Path tmp = trainingFile;
        trainer = Integer.MAX_VALUE; // one attempt per pool
        trainingFile = null;
        try {
            if (exitCode == 0 && Files.isRegularFile(tmp) && Files.size(tmp) > 0) {
                Files.move(tmp, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                prune(archive.getParent());
            }
        } catch (IOException | RuntimeException ignored) {
            // no archive this time: the next pool tries again
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // left in the cache folder; harmless
            }
        }
    }
}
