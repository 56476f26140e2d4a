package dev.sharray.pool;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A parent JVM for {@link ClassDataArchiveTest}, started with jars only on its classpath so that its pools
 * use worker class-data archives: a first pool trains the archive, a second one must map it. Prints
 * {@code ARCHIVE <file>}, {@code MAPPED <the archive files a worker maps>} and
 * {@code LEFTOVER <temporary files left>}; with {@value #CLASS_LOG} also {@code APPCLASSES <from the archive>/<all>}.
 */
public final class CdsTrainee {
    /** Names a folder for the workers' class-loading logs: the second pool's worker then prints {@code APPCLASSES}. */
    static final String CLASS_LOG = "trainee.classLog";

    private CdsTrainee() {
    }

    public static void main(String[] args) throws Exception {
        final Path cache = Path.of(System.getProperty("sharray.pool.cds.dir"));
        final String classLog = System.getProperty(CLASS_LOG);
        // the same options for both pools: they are part of the archive's key
        final ProcessPool.Builder builder = ProcessPool.builder().workers(1);
        if (classLog != null) {
            builder.jvmOptions("-Xlog:class+load=info:file=" + classLog + "/worker-%p.log");
        }
        try (ProcessPool pool = builder.build()) {
            pool.map((Integer x) -> x + 1, List.of(1));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Path archive = null;
        while (archive == null && System.nanoTime() < deadline) {
            archive = find(cache, ".jsa");
            Thread.sleep(50);
        }
        System.out.println("ARCHIVE " + archive);
        if (archive == null) {
            return;
        }
        try (ProcessPool pool = builder.build()) {
            if (classLog != null) {
                System.out.println("APPCLASSES " + pool.submit((String log) -> sharedOfOwnClasses(log), classLog).get());
            }
            final List<String> mapped = pool.submit((Integer unused) -> Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.endsWith(".jsa")).map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct().toList(), 0).get();
            System.out.println("MAPPED " + mapped);
        }
        long leftover;
        do { // the background dump removes its temporary files right after renaming the archive
            Thread.sleep(50);
            leftover = count(cache) - 1;
        } while (leftover > 0 && System.nanoTime() < deadline);
        System.out.println("LEFTOVER " + leftover);
    }

    /**
     * In a worker: how many of sharray's classes it loaded so far came from a class-data archive, as
     * {@code <from the archive>/<all>}, read from its {@code -Xlog:class+load} file in {@code logFolder}.
     */
    private static String sharedOfOwnClasses(String logFolder) throws Exception {
        final List<String> own = Files.readAllLines(Path.of(logFolder, "worker-" + ProcessHandle.current().pid() + ".log"))
            .stream().filter(l -> l.contains(" dev.sharray.")).toList();
        return own.stream().filter(l -> l.contains("source: shared objects file")).count() + "/" + own.size();
    }

    private static Path find(Path dir, String suffix) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).findFirst().orElse(null);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /** @return the files in {@code dir} other than the jars workers start from (see WorkerJar) and archive seals */
    private static long count(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString())
                .filter(n -> !n.endsWith(".jar") && !n.endsWith(ArchiveSeal.SUFFIX)).count();
        }
    }
}
