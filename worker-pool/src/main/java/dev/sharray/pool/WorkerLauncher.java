package dev.sharray.pool;

import dev.sharray.JvmFlags;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts worker JVMs: the running JDK's {@code java}, the parent's classpath and the project's JVM
 * flags in one {@code @argfile} (no command-line length limit, no classpath in {@code ps}), then
 * {@link WorkerMain} with the ring file, worker id and parent pid.
 */
final class WorkerLauncher implements AutoCloseable {
    private final Path argFile;
    private final String java;

    /**
     * Writes the argument file.
     *
     * @param argFile          where to write it (0600)
     * @param heapSize         {@code -Xmx} value, or {@code null} for the JVM default
     * @param maxBytes         heap arrays in results above this size are shared
     * @param jvmOptions       extra options, appended last so they override ours
     * @param reducerClasses   user reducer classes the workers must instantiate
     * @throws IOException when the file cannot be written
     */
    WorkerLauncher(Path argFile, String heapSize, long maxBytes, List<String> jvmOptions, List<String> reducerClasses)
        throws IOException {
        this.argFile = argFile;
        this.java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        final String classpath = System.getProperty("java.class.path");
        if (classpath == null || classpath.isEmpty()) {
            throw new IllegalStateException("java.class.path is empty: cannot give workers the parent's classpath");
        }
        final List<String> args = new ArrayList<>(JvmFlags.forCurrentJvm());
        args.add("-Dchronicle.analytics.disable=true");
        // the parent reaps dead processes' files; a worker doing it again only slows its first task
        args.add("-Dsharray.reaper.disabled=true");
        args.add("-D" + WorkerMain.MAX_BYTES_PROPERTY + "=" + maxBytes);
        // workers are short-lived helpers: no hsperfdata file (it would outlive a kill -9 in /tmp),
        // and the serial collector starts fastest
        args.add("-XX:-UsePerfData");
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"))) {
            args.add("-XX:+UseSerialGC");
        }
        if (heapSize != null) {
            args.add("-Xmx" + heapSize);
        }
        if (!reducerClasses.isEmpty()) {
            args.add("-D" + WorkerMain.REDUCERS_PROPERTY + "=" + String.join(",", reducerClasses));
        }
        args.addAll(jvmOptions);
        args.add("-cp");
        args.add(classpath);
        final StringBuilder sb = new StringBuilder();
        for (String a : args) {
            sb.append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
        }
        Files.write(argFile, sb.toString().getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(argFile, PosixFilePermissions.fromString("rw-------"));
    }

    /**
     * Starts one worker.
     *
     * @param workerId the pool's number for it
     * @param ringFile its transport file, already created
     * @return the started process
     * @throws IOException when the JVM cannot be started
     */
    Process launch(int workerId, Path ringFile) throws IOException {
        final ProcessBuilder pb = new ProcessBuilder(java, "@" + argFile, WorkerMain.class.getName(),
            ringFile.toString(), Integer.toString(workerId), Long.toString(ProcessHandle.current().pid()));
        return pb.start();
    }

    /** Deletes the argument file. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(argFile);
        } catch (IOException ignored) {
            // the folder is reaped with the process; nothing else to do
        }
    }
}
