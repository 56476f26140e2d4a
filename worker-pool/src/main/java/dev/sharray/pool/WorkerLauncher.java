package dev.sharray.pool;

import dev.sharray.JvmFlags;
import dev.sharray.SharedArrays;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Starts worker JVMs: the running JDK's {@code java} with the project's JVM flags and the pool's options in one
 * {@code @argfile} (no command-line length limit), then {@code -jar} with the {@link WorkerJar} (which names the
 * parent's classpath, {@link WorkerMain} and the module flags) or, without one, {@code -cp} with the classpath in the
 * argument file and {@link WorkerMain}; then the ring file, the parent's result doorbell, worker id and parent pid.
 */
final class WorkerLauncher {
    private final Path folder;
    private final String prefix;
    private final byte[] argFileContent;
    private final String java;
    /** The jar workers start from, or {@code null} when there is none (see {@link WorkerJar}). */
    private final WorkerJar jar;
    /** AppCDS for the workers, or {@code null} when off. */
    private final ClassDataArchive cds;
    private final Path doorbell;

    /** The system property a worker reads its allowed folders from (see {@link SharedArrays#allowFolder}). */
    static final String ALLOWED_FOLDERS_PROPERTY = "sharray.allowedFolders";

    /**
     * The user's JVM options with the folders this process allows added to the workers' allowed folders: a user's
     * {@code .npy} opened here ({@code openNpy}) crosses to a worker as a descriptor of that file, which the worker
     * opens only in a folder it allows. Merged into a {@code -Dsharray.allowedFolders} the user gave, not replaced by
     * it. A folder whose path holds the path separator cannot be named in the property and is left out.
     *
     * @param jvmOptions the user's options
     * @param allowed    the folders this process allows
     * @return the options to launch workers with
     */
    static List<String> withAllowedFolders(List<String> jvmOptions, Set<Path> allowed) {
        final String prefix = "-D" + ALLOWED_FOLDERS_PROPERTY + "=";
        final LinkedHashSet<String> folders = new LinkedHashSet<>();
        final List<String> options = new ArrayList<>(jvmOptions.size() + 1);
        for (String o : jvmOptions) {
            if (o.startsWith(prefix)) {
                folders.add(o.substring(prefix.length())); // the last one would win: keep all of them instead
            } else {
                options.add(o);
            }
        }
        for (Path folder : allowed) {
            final String name = folder.toString();
            if (!name.contains(File.pathSeparator)) {
                folders.add(name);
            }
        }
        folders.removeIf(String::isEmpty);
        if (!folders.isEmpty()) {
            options.add(prefix + String.join(File.pathSeparator, folders));
        }
        return options;
    }

    /**
     * Prepares the argument file content.
     *
     * @param folder           where per-launch argument files go (0600, deleted once the worker is up)
     * @param prefix           file name prefix
     * @param doorbell         the parent's result doorbell socket (see {@link ResultDoorbell}); it may not exist yet
     * @param heapSize         {@code -Xmx} value, or {@code null} for the JVM default
     * @param maxBytes         heap arrays in results above this size are shared
     * @param retainBytes      bytes of unreferenced mappings a worker keeps between tasks
     * @param jvmOptions       extra options, appended last so they override ours
     * @param reducerClasses   user reducer classes the workers must instantiate
     * @param tempRoot         the pool's temp folder ({@code ProcessPool.Builder.tempFolder}), or {@code null}
     * @param explicitClasspath the workers' classpath ({@code ProcessPool.Builder.classpath}), or {@code null} for
     *                          this JVM's ({@link WorkersClasspath})
     * @throws IOException when the file cannot be written
     */
    WorkerLauncher(Path folder, String prefix, Path doorbell, String heapSize, long maxBytes, long retainBytes, List<String> jvmOptions,
                   List<String> reducerClasses, Path tempRoot, String explicitClasspath)
        throws IOException {
        this.folder = folder;
        this.prefix = prefix;
        this.doorbell = doorbell;
        this.java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        final String classpath = WorkersClasspath.expandWildcards(explicitClasspath != null ? explicitClasspath
            : WorkersClasspath.derive());
        this.jar = WorkerJar.prepare(ClassDataArchive.cacheFolder(), classpath, JvmFlags.forCurrentJvm());
        final List<String> args = new ArrayList<>(jar != null ? jar.commandLineFlags() : JvmFlags.forCurrentJvm());
        args.add("-Dchronicle.analytics.disable=true");
        // the parent reaps dead processes' files; a worker doing it again only slows its first task
        args.add("-Dsharray.reaper.disabled=true");
        args.add("-D" + WorkerMain.MAX_BYTES_PROPERTY + "=" + maxBytes);
        args.add("-D" + WorkerMain.RETAIN_BYTES_PROPERTY + "=" + retainBytes);
        // a task must not install a security manager (JDK 17 still lets code do so at run time): one that forbids
        // exiting makes System.exit and Runtime.halt throw, and the worker could then end neither when its parent
        // dies nor at its exit backstop. JDK 24 and later refuse one anyway, and accept this value.
        args.add("-Djava.security.manager=disallow");
        // workers are short-lived helpers: no hsperfdata file (it would outlive a kill -9 in /tmp)
        args.add("-XX:-UsePerfData");
        // no collector of the pool's own: the JVM's default (G1 on two or more cores) reclaims a task's dead large arrays at once, where
        // the serial one, ~20 ms faster to start a pool on JDK 25, left them in the old generation until the heap
        // was full: each 200 MB array a task made faulted in fresh memory (~0.55 s against ~0.02 s) and a worker's
        // footprint grew to its maximum heap (new-user review 50). JDK 17 maps the archived module graph with G1 only
        if (heapSize != null) {
            args.add("-Xmx" + heapSize);
        }
        if (!reducerClasses.isEmpty()) {
            args.add("-D" + WorkerMain.REDUCERS_PROPERTY + "=" + String.join(",", reducerClasses));
        }
        final List<String> folders = tempFolderOptions(tempRoot);
        args.addAll(folders);
        args.addAll(withAllowedFolders(jvmOptions, SharedArrays.allowedFolders()));
        if (jar == null) {
            args.add("-cp");
            args.add(classpath);
        }
        final StringBuilder sb = new StringBuilder();
        for (String a : args) {
            sb.append(quoteForArgFile(a)).append('\n');
        }
        this.argFileContent = sb.toString().getBytes(StandardCharsets.UTF_8);
        args.removeAll(folders); // no class-data archive depends on them: one archive serves pools of any folder
        if (jar == null) {
            this.cds = ClassDataArchive.forWorkers(java, classpath, args, jvmOptions);
        } else {
            // the archive records the classpath workers start with: the jar, then what its Class-Path names
            final List<String> dumpArgs = new ArrayList<>(args);
            dumpArgs.add("-cp");
            dumpArgs.add(jar.jar().toString());
            final StringBuilder named = new StringBuilder(jar.jar().toString());
            for (Path entry : jar.classpath()) {
                if (Files.exists(entry)) { // a jar's Class-Path may name optional jars that are not there
                    named.append(File.pathSeparator).append(entry);
                }
            }
            this.cds = ClassDataArchive.forWorkers(java, named.toString(), dumpArgs, jvmOptions);
        }
    }

    /**
     * The folders workers make files in, as this JVM's: arrays a worker creates (a large result it shares, arrays a
     * task makes, a nested pool's) go where the parent's would, not to the worker's default ({@code /dev/shm} or
     * {@code /tmp}), which may be small or read-only where the parent's folder is not. And the user name their
     * folder is named after ({@code sharray-<user.name>}): a worker of a parent started with {@code -Duser.name}
     * refused every array of its parent as outside a sharray folder. An option of the user's own, appended later,
     * wins.
     *
     * @param tempRoot the pool's temp folder, or {@code null} for this JVM's {@code sharray.tempFolder}, if set
     */
    static List<String> tempFolderOptions(Path tempRoot) {
        final List<String> options = new ArrayList<>();
        final String configured = System.getProperty("sharray.tempFolder");
        if (tempRoot != null) {
            options.add("-Dsharray.tempFolder=" + tempRoot.toAbsolutePath());
        } else if (configured != null && !configured.isBlank()) {
            options.add("-Dsharray.tempFolder=" + Path.of(configured).toAbsolutePath());
        }
        options.add("-Djava.io.tmpdir=" + Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath());
        options.add("-Duser.name=" + System.getProperty("user.name"));
        return options;
    }

    /**
     * The pool's folder ({@code <root>/sharray-<user>/<this process>}) before a worker's file is made in it, as
     * {@link SharedArrays#processFolder(Path)} gives it: made again (0700) where something removed it, refused once
     * sharray's exit hook has run. Made by {@code createDirectories} instead, a worker started while the JVM exited
     * (a pool starting when SIGINT came) made again the folder the hook had just removed, and it stayed, with the
     * umask's mode (0755).
     *
     * @throws IllegalStateException when this JVM is exiting
     */
    static void ensureFolder(Path folder) {
        SharedArrays.processFolder(folder.getParent().getParent());
    }

    /**
     * @param arg one JVM argument
     * @return it quoted for a {@code java @argfile} line: backslashes and quotes escaped, and line breaks, which
     *     would end the line, written as the launcher's {@code \n} and {@code \r} escapes
     */
    static String quoteForArgFile(String arg) {
        return '"' + arg.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "\\r") + '"';
    }

    /**
     * Starts one worker. Its argument file is written for this launch only, so a pool never depends on
     * a long-lived file; delete it with {@link #argFile(int)} once the worker has said hello.
     *
     * @param workerId the pool's number for it
     * @param ringFile its transport file, already created
     * @return the started process
     * @throws IOException when the JVM cannot be started
     */
    Process launch(int workerId, Path ringFile) throws IOException {
        ensureFolder(folder);
        final Path argFile = argFile(workerId);
        Files.deleteIfExists(argFile);
        // a JVM that exits before the worker's HELLO (SIGTERM while the pool starts) must not leave the file
        try {
            // created and written through one descriptor: never reopened by its path, which something swapped in for
            // the file could lead elsewhere (the worker runs what it says)
            SharedArrays.createDeletedAtExit(argFile, () -> {
                try (FileChannel ch = FileChannel.open(argFile, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                    final ByteBuffer content = ByteBuffer.wrap(argFileContent);
                    while (content.hasRemaining()) {
                        ch.write(content);
                    }
                }
                return null;
            });
        } catch (IOException e) {
            deleteArgFile(workerId);
            // "No space left on device" alone names neither the file nor the folder (by default one the user never named)
            throw new IOException("cannot write its argument file " + argFile + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteArgFile(workerId);
            throw e;
        }
        final List<String> command = new ArrayList<>();
        command.add(java);
        if (cds != null) {
            command.addAll(cds.optionsFor(workerId));
        }
        command.add("@" + argFile);
        if (jar != null) {
            command.add("-jar");
            try {
                command.add(jar.present().toString());
            } catch (IOException | RuntimeException e) {
                deleteArgFile(workerId);
                throw e;
            }
        } else {
            command.add(WorkerMain.class.getName());
        }
        command.add(ringFile.toString());
        command.add(doorbell.toString());
        command.add(Integer.toString(workerId));
        command.add(Long.toString(ProcessHandle.current().pid()));
        final ProcessBuilder pb = new ProcessBuilder(command);
        try {
            DescriptorHeadroom.require("worker " + workerId);
            return pb.start();
        } catch (IOException e) {
            deleteArgFile(workerId);
            throw e;
        }
    }

    /**
     * @param workerId a worker's number
     * @return the path of its argument file
     */
    Path argFile(int workerId) {
        return folder.resolve(prefix + "-worker-" + workerId + ".args");
    }

    /**
     * A worker has exited: the class-data archive it may have written at exit is moved into place.
     *
     * @param workerId its number
     * @param exitCode its exit code, -1 when unknown
     * @param lastStderrLines its last standard error lines once it has ended (may wait for them)
     */
    void workerExited(int workerId, int exitCode, Supplier<List<String>> lastStderrLines) {
        if (cds != null) {
            cds.workerExited(workerId, exitCode, lastStderrLines);
        }
    }

    /**
     * A worker said hello, or was killed from outside before it could: the class-data archive it may have mapped is
     * not at fault.
     */
    void archiveNotAtFault(int workerId) {
        if (cds != null) {
            cds.archiveNotAtFault(workerId);
        }
    }

    /**
     * A worker died before it said hello: a class-data archive it mapped may be damaged, and is dropped.
     *
     * @param workerId its number
     * @return the dropped archive, or {@code null} when the worker mapped none (a relaunch would fail the same way)
     */
    Path dropArchiveAfterFailedStart(int workerId) {
        return cds != null && cds.dropAfterFailedStart(workerId) ? cds.archive() : null;
    }

    /**
     * A worker died before it said hello: if it was training the class-data archive, later launches of this pool
     * run without training.
     *
     * @param workerId its number
     * @return the archive it was training, or {@code null} when it was not the trainer
     */
    Path trainerDiedAtStart(int workerId) {
        return cds != null && cds.trainerDiedAtStart(workerId) ? cds.archive() : null;
    }

    /**
     * @return the class-data archive, when a launch since the last call found it damaged and deleted it (the pool says
     *     so once); otherwise {@code null}
     */
    Path takeDamagedArchive() {
        return cds != null && cds.takeDamaged() ? cds.archive() : null;
    }

    /** Deletes a worker's argument file (the JVM reads it only at start). */
    void deleteArgFile(int workerId) {
        try {
            Files.deleteIfExists(argFile(workerId));
            SharedArrays.forgetAtExit(argFile(workerId));
        } catch (IOException ignored) {
            // the folder is removed at exit or reaped with the process; nothing else to do
        }
    }
}
