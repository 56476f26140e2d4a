package dev.sharray.pool;

import dev.sharray.NativeFiles;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * The jar a worker JVM starts from ({@code java -jar}): a manifest and nothing else, naming {@link WorkerMain},
 * the parent's classpath ({@code Class-Path}) and the project's module flags ({@code Add-Opens},
 * {@code Add-Exports}, {@code Enable-Native-Access}).
 *
 * <p>Why a jar: a module option on a JVM's command line ({@code --add-opens}, {@code --add-exports},
 * {@code --add-modules}, {@code --enable-native-access}) switches off the JDK's archived boot-layer module graph,
 * and the JVM then resolves every module at start: 45-80 ms of CPU per worker on this project's machines (JDK 17
 * and 25), against ~2 ms with the archived graph. The {@code java} launcher applies a main jar's {@code Add-Opens}
 * and {@code Add-Exports} after the boot layer is made, so the archive stays in use. {@code jdk.incubator.vector}
 * cannot be named in a manifest: workers run without it (its one user, the codec's Java backend, then runs
 * without the Vector API), unless the pool's JVM options add it.
 *
 * <p>The jar lives in the workers' cache folder (that of their class-data archive), named by a hash of its
 * manifest, so every pool of one classpath and flag set starts workers from the same file, which an archive
 * can record. Class-Path entries are relative to that folder (JDK 25's static archive dump skips the classes of
 * absolute ones). An existing jar is used only when its manifest is exactly the expected one; otherwise it is
 * replaced, atomically. Without a safe cache folder there is no jar and workers start as before: flags on the
 * command line and {@code -cp}.
 */
final class WorkerJar {
    /** A module option of the flag file that a manifest cannot carry, and workers do without. */
    static final String VECTOR_MODULE = "--add-modules=jdk.incubator.vector";
    private static final String ADD_OPENS = "--add-opens=";
    private static final String ADD_EXPORTS = "--add-exports=";
    private static final String TO_UNNAMED = "=ALL-UNNAMED";
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** Jars not written for this long are deleted by the next pool (a configuration not used for a month). */
    private static final long STALE_MILLIS = 30L * 24 * 3_600_000;

    private final Path jar;
    private final List<String> commandLineFlags;

    private WorkerJar(Path jar, List<String> commandLineFlags) {
        this.jar = jar;
        this.commandLineFlags = List.copyOf(commandLineFlags);
    }

    /** @return the jar to start workers with ({@code java -jar}) */
    Path jar() {
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
            final Path safe = NativeFiles.requireSafeFolder(folder).toRealPath();
            final List<String> rest = new ArrayList<>();
            final Manifest manifest = manifest(safe, classpath, flags, rest);
            final Path jar = safe.resolve("worker-" + hash(manifest) + ".jar");
            if (!hasManifest(jar, manifest)) {
                write(jar, manifest);
            }
            pruneStale(safe, jar);
            return new WorkerJar(jar, rest);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The manifest for workers of {@code classpath}; the flags it does not carry are added to {@code rest}.
     *
     * @param folder the jar's folder (a real path), which Class-Path entries are relative to
     */
    static Manifest manifest(Path folder, String classpath, List<String> flags, List<String> rest) throws IOException {
        final StringBuilder opens = new StringBuilder();
        final StringBuilder exports = new StringBuilder();
        boolean nativeAccess = false;
        for (String f : flags) {
            if (f.startsWith(ADD_OPENS) && f.endsWith(TO_UNNAMED)) {
                append(opens, f.substring(ADD_OPENS.length(), f.length() - TO_UNNAMED.length()));
            } else if (f.startsWith(ADD_EXPORTS) && f.endsWith(TO_UNNAMED)) {
                append(exports, f.substring(ADD_EXPORTS.length(), f.length() - TO_UNNAMED.length()));
            } else if (f.equals(NATIVE_ACCESS)) {
                nativeAccess = true; // read by JDK 22 and later; earlier JDKs need no such permission
            } else if (!f.equals(VECTOR_MODULE)) {
                rest.add(f);
            }
        }
        final StringBuilder path = new StringBuilder();
        final String base = folder.toUri().toString();
        for (String entry : classpath.split(File.pathSeparator, -1)) {
            // an empty entry is the working folder, as on a command line
            final Path p = Path.of(entry.isEmpty() ? "." : entry).toAbsolutePath().normalize();
            append(path, relativeUri(base, (Files.exists(p) ? p.toRealPath() : p).toUri().toString()));
        }
        final Manifest m = new Manifest();
        final Attributes a = m.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(Attributes.Name.MAIN_CLASS, WorkerMain.class.getName());
        a.put(Attributes.Name.CLASS_PATH, path.toString());
        if (opens.length() > 0) {
            a.putValue("Add-Opens", opens.toString());
        }
        if (exports.length() > 0) {
            a.putValue("Add-Exports", exports.toString());
        }
        if (nativeAccess) {
            a.putValue("Enable-Native-Access", "ALL-UNNAMED");
        }
        return m;
    }

    private static void append(StringBuilder sb, String token) {
        if (sb.length() > 0) {
            sb.append(' ');
        }
        sb.append(token);
    }

    /**
     * A relative reference from the folder {@code base} to {@code target}, both {@code file:} URIs as
     * {@link Path#toUri()} writes them (escaped alike, so a textual comparison is exact; a folder ends with
     * {@code /}).
     */
    static String relativeUri(String base, String target) {
        final String[] from = base.substring(base.indexOf('/')).split("/", -1);
        final String[] to = target.substring(target.indexOf('/')).split("/", -1);
        // from ends with "" (base is a folder): its last real segment is from.length - 2
        int common = 0;
        while (common < from.length - 1 && common < to.length - 1 && from[common].equals(to[common])) {
            common++;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = common; i < from.length - 1; i++) {
            sb.append("../");
        }
        for (int i = common; i < to.length; i++) {
            sb.append(to[i]);
            if (i < to.length - 1) {
                sb.append('/');
            }
        }
        // no ':' can start a scheme here: a classpath entry holds none
        return sb.length() == 0 ? "./" : sb.toString();
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

    /** @return whether {@code jar} is a readable jar whose manifest is {@code expected} */
    private static boolean hasManifest(Path jar, Manifest expected) {
        if (!Files.isRegularFile(jar)) {
            return false;
        }
        try (JarFile f = new JarFile(jar.toFile(), false)) {
            final Manifest m = f.getManifest();
            return m != null && m.equals(expected);
        } catch (IOException | RuntimeException e) {
            return false; // damaged: replaced
        }
    }

    /** Writes the jar under a private name and renames it into place, so no JVM ever starts from a partial one. */
    private static void write(Path jar, Manifest manifest) throws IOException {
        final Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-"
            + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            try (OutputStream out = Files.newOutputStream(Files.createFile(tmp,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))));
                 JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
                jarOut.flush();
            }
            // rename(2): a JVM starting meanwhile opens the old file or the new one, never a partial one
            Files.move(tmp, jar, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Deletes other worker jars not written for {@link #STALE_MILLIS}, and temporary ones of crashed writers. */
    private static void pruneStale(Path folder, Path keep) {
        final long now = System.currentTimeMillis();
        try (java.util.stream.Stream<Path> files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                final String n = p.getFileName().toString();
                if (n.startsWith("worker-") && (n.endsWith(".jar") || n.contains(".jar.tmp-")) && !p.equals(keep)
                    && now - Files.getLastModifiedTime(p).toMillis() > (n.endsWith(".jar") ? STALE_MILLIS : 3_600_000L)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a jar is ~1 KB
        }
    }
}
