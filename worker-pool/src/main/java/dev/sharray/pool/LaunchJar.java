package dev.sharray.pool;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A jar holding only a manifest, to start a JVM with {@code java -jar}: it names the main class, the classpath
 * ({@code Class-Path}) and the project's module flags ({@code Add-Opens}, {@code Add-Exports},
 * {@code Enable-Native-Access}).
 *
 * <p>Why: a module option on a JVM's command line ({@code --add-opens}, {@code --add-exports},
 * {@code --add-modules}, {@code --enable-native-access}) switches off the JDK's archived boot-layer module graph,
 * and the JVM then resolves every module as it starts: 45-80 ms of CPU on this project's machines (JDK 17 and 25)
 * against ~2 ms with the archive ({@code -Xlog:startuptime}, "Initialize module system"). The {@code java}
 * launcher applies a main jar's {@code Add-Opens} and {@code Add-Exports} (from JDK 22 also
 * {@code Enable-Native-Access}) once the archived boot layer is in place. A manifest cannot name a module to add
 * ({@code --add-modules}) nor a qualified export: such flags stay on the command line.
 *
 * <p>{@code Class-Path} entries are relative to the jar's folder: JDK 25's static class-data dump skips the
 * classes of absolute {@code file:} entries ("Unsupported location").
 *
 * <p>The pool's workers start from one ({@link WorkerJar}).
 */
final class LaunchJar {
    private static final String ADD_OPENS = "--add-opens=";
    private static final String ADD_EXPORTS = "--add-exports=";
    private static final String TO_UNNAMED = "=ALL-UNNAMED";
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private LaunchJar() {
    }

    /**
     * The manifest that starts {@code mainClass} on {@code classpath} with the module flags among {@code flags}.
     *
     * @param folder    the jar's folder, a real path: Class-Path entries are relative to it
     * @param mainClass the class to run
     * @param classpath the classpath, as {@link #expand} lists it
     * @param flags     JVM flags; those the manifest carries are taken, the others added to {@code rest}
     * @param rest      receives, in order, the flags that must stay on the command line
     * @return the manifest
     */
    static Manifest manifest(Path folder, String mainClass, List<Path> classpath, List<String> flags, List<String> rest) {
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
            } else {
                rest.add(f);
            }
        }
        final StringBuilder path = new StringBuilder();
        final String base = folder.toUri().toString();
        for (Path p : classpath) {
            append(path, relativeUri(base, p.toUri().toString()));
        }
        final Manifest m = new Manifest();
        final Attributes a = m.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(Attributes.Name.MAIN_CLASS, mainClass);
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

    /**
     * The classpath as the class loader reads it, in its order: each entry, and right after a jar the entries its
     * own {@code Class-Path} names (relative to it), recursively, each once. A launch jar lists them flat, and
     * the workers' class-data archive is keyed by every one of them: a parent started with {@code -jar app.jar}
     * (or {@code -cp} with such a jar) reads its classes, and so do its workers, from the jars behind it.
     *
     * @param classpath a classpath as {@code java.class.path} spells it (an empty entry is the working folder)
     * @return absolute paths, real where the file exists
     * @throws IOException when an existing entry's real path cannot be read
     */
    static List<Path> expand(String classpath) throws IOException {
        final Set<Path> entries = new LinkedHashSet<>();
        for (String entry : classpath.split(File.pathSeparator, -1)) {
            add(Path.of(entry.isEmpty() ? "." : entry), entries);
        }
        return List.copyOf(entries);
    }

    private static void add(Path entry, Set<Path> entries) throws IOException {
        final Path p = entry.toAbsolutePath().normalize();
        final Path real = Files.exists(p) ? p.toRealPath() : p;
        if (!entries.add(real) || !Files.isRegularFile(real)) {
            return;
        }
        final String classPath;
        try (JarFile jar = new JarFile(real.toFile(), false)) {
            final Manifest m = jar.getManifest();
            classPath = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        } catch (IOException | RuntimeException e) {
            return; // not a jar: the class loader skips it the same way
        }
        if (classPath == null) {
            return;
        }
        final URI base = real.getParent().toUri();
        for (String token : classPath.trim().split("\\s+")) {
            if (token.isEmpty()) {
                continue;
            }
            try {
                final URI u = base.resolve(token);
                if ("file".equals(u.getScheme())) {
                    add(Path.of(u), entries);
                }
            } catch (IllegalArgumentException e) {
                // a malformed entry: the class loader ignores it too
            }
        }
    }

    private static void append(StringBuilder sb, String token) {
        if (sb.length() > 0) {
            sb.append(' ');
        }
        sb.append(token);
    }

    /**
     * A relative reference from the folder {@code base} to {@code target}, both {@code file:} URIs as
     * {@link Path#toUri()} writes them (escaped alike, so comparing their text is exact; a folder ends with {@code /}).
     */
    static String relativeUri(String base, String target) {
        final String[] from = base.substring(base.indexOf('/')).split("/", -1);
        final String[] to = target.substring(target.indexOf('/')).split("/", -1);
        // from ends with "" (base is a folder)
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

    /**
     * @param jar      a file
     * @param expected a manifest
     * @return whether {@code jar} is a readable jar whose manifest is {@code expected}
     */
    static boolean hasManifest(Path jar, Manifest expected) {
        if (!Files.isRegularFile(jar)) {
            return false;
        }
        try (JarFile f = new JarFile(jar.toFile(), false)) {
            final Manifest m = f.getManifest();
            return m != null && m.equals(expected);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Writes the jar under a private name and renames it into place ({@code rename(2)}): a JVM starting meanwhile
     * opens the old file or the new one, never a partial one.
     *
     * @param jar      where the jar goes, readable and writable by this user only
     * @param manifest its manifest
     * @throws IOException when it cannot be written
     */
    static void write(Path jar, Manifest manifest) throws IOException {
        final Set<PosixFilePermission> permissions = PosixFilePermissions.fromString("rw-------");
        final Path tmp = CacheFiles.writingName(jar);
        try {
            try (OutputStream out = Files.newOutputStream(Files.createFile(tmp, PosixFilePermissions.asFileAttribute(permissions)));
                 JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
                jarOut.flush();
            }
            Files.setPosixFilePermissions(tmp, permissions); // the umask may have narrowed the create mode
            Files.move(tmp, jar, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
