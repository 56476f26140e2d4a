package dev.sharray.pool;

import dev.sharray.NativeFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Manifest;

/**
 * The {@link LaunchJar} a worker JVM starts from ({@code java -jar}): it names {@link WorkerMain}, the parent's
 * classpath and the project's module flags, so workers keep the JDK's archived module graph (45-80 ms of CPU
 * each at start otherwise). {@code jdk.incubator.vector} cannot be named in a manifest: workers run without it
 * (its one user, the codec's Java backend, then runs its scalar engine), unless the pool's JVM options add it.
 *
 * <p>The jar lives in the workers' cache folder (that of their class-data archive), named by a hash of its
 * manifest, so every pool of one classpath and flag set starts workers from the same file, which an archive
 * can record. An existing jar is used only when its manifest is exactly the expected one; otherwise it is
 * replaced, atomically; {@link ClassDataArchive#prune} deletes jars not written for a month. Without a cache folder no other user can write there is no jar and workers start as
 * before: flags on the command line and {@code -cp}.
 */
final class WorkerJar {
    /** What a folder others can change is refused for, in the message. */
    private static final String LAUNCH_JAR_USE = "to start worker JVMs from a launch jar in";

    /** A module option of the flag file that a manifest cannot carry, and workers do without. */
    static final String VECTOR_MODULE = "--add-modules=jdk.incubator.vector";

    /** The last classpath expanded and its expansion: a JVM's classpath does not change, and pools reuse it. */
    private static volatile Expanded lastExpanded;

    private record Expanded(String classpath, List<Path> entries) {
    }

    private final Path jar;
    private final Manifest manifest;
    private final List<Path> classpath;
    /** The entries the manifest names: {@link #classpath}'s, or {@link ClassPathLinks} to them. */
    private final List<Path> named;
    private final List<String> commandLineFlags;

    private WorkerJar(Path jar, Manifest manifest, List<Path> classpath, List<Path> named, List<String> commandLineFlags) {
        this.jar = jar;
        this.manifest = manifest;
        this.classpath = classpath;
        this.named = named;
        this.commandLineFlags = List.copyOf(commandLineFlags);
    }

    /** @return the classpath the jar names, jar by jar (see {@link LaunchJar#expand}) */
    List<Path> classpath() {
        return classpath;
    }

    /** @return the jar to start workers with ({@code java -jar}) */
    Path jar() {
        return jar;
    }

    /**
     * @return the jar, written again first when it is gone: another configuration's training prunes jars not
     *     written for a month ({@link ClassDataArchive#prune}), and a long-running pool still replaces workers
     * @throws IOException when it cannot be written again
     */
    Path present() throws IOException {
        // checked again at each launch, not only when the pool began: a replacement worker starts much later, and runs
        // whatever jar is there by then
        NativeFiles.requireSafeFolder(jar.getParent(), LAUNCH_JAR_USE);
        if (!Files.isRegularFile(jar, LinkOption.NOFOLLOW_LINKS)) {
            LaunchJar.write(jar, manifest);
        }
        NativeFiles.requireSafeFile(jar);
        for (int i = 0; i < named.size(); i++) {
            if (named.get(i) != classpath.get(i)) { // pruned as the jar may be
                ClassPathLinks.ensure(named.get(i), classpath.get(i));
            }
        }
        return jar;
    }

    /** @return the flags the manifest does not carry: they stay on the workers' command line */
    List<String> commandLineFlags() {
        return commandLineFlags;
    }

    /**
     * Finds or writes the jar for {@code classpath} and {@code flags}.
     *
     * @param folder    the cache folder, or {@code null} when there is none
     * @param classpath the parent's classpath
     * @param flags     the project's JVM flags for this JDK
     * @return the jar, or {@code null} when it cannot be made safely (workers then start from the command line)
     */
    static WorkerJar prepare(Path folder, String classpath, List<String> flags) {
        if (folder == null) {
            return null;
        }
        try {
            Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            final Path safe = NativeFiles.requireSafeFolder(folder, LAUNCH_JAR_USE).toRealPath();
            Expanded expanded = lastExpanded;
            if (expanded == null || !expanded.classpath.equals(classpath)) {
                expanded = new Expanded(classpath, LaunchJar.expand(classpath));
                lastExpanded = expanded;
            }
            final List<String> rest = new ArrayList<>();
            final List<Path> named = ClassPathLinks.named(safe, expanded.entries);
            final Manifest manifest = manifest(safe, named, flags, rest);
            final Path jar = safe.resolve("worker-" + hash(manifest) + ".jar");
            if (!LaunchJar.hasManifest(jar, manifest)) { // missing, damaged or another: replaced
                LaunchJar.write(jar, manifest);
            }
            return new WorkerJar(jar, manifest, expanded.entries, named, rest);
        } catch (IOException | RuntimeException e) {
            CacheFolderNotice.unusable(folder, "a launch jar", e);
            return null;
        }
    }

    /**
     * The manifest for workers of {@code classpath} (see {@link LaunchJar}); the flags it does not carry, but for
     * the vector module, are added to {@code rest}.
     *
     * @param folder the jar's folder (a real path), which Class-Path entries are relative to
     */
    static Manifest manifest(Path folder, List<Path> classpath, List<String> flags, List<String> rest) {
        final Manifest m = LaunchJar.manifest(folder, WorkerMain.class.getName(), classpath, flags, rest);
        rest.remove(VECTOR_MODULE);
        return m;
    }

    private static String hash(Manifest m) throws IOException {
        final ClassDataArchive.Fnv64 h = new ClassDataArchive.Fnv64();
        h.add(text(m));
        return h.hex();
    }

    private static String text(Manifest m) throws IOException {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        m.write(out);
        return out.toString(StandardCharsets.UTF_8);
    }
}
