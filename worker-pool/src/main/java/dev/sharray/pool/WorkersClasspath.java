package dev.sharray.pool;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The classpath a pool's workers start with: this JVM's {@code java.class.path}, plus the jars and folders of the
 * class loaders that loaded sharray and the calling thread's context class loader. Under {@code mvn exec:java}, a
 * plugin host or JShell the application's classes come from such a child loader, and {@code java.class.path} is the
 * host's: the workers could load neither {@code WorkerMain} nor the tasks' classes.
 */
final class WorkersClasspath {
    /** The class name prefix of Spring Boot's launcher, whose class loader reads nested jars (BOOT-INF/lib). */
    private static final String SPRING_BOOT_LOADER = "org.springframework.boot.loader.";

    private WorkersClasspath() {
    }

    /**
     * @return the workers' classpath, never empty
     * @throws IllegalStateException when sharray's own classes were loaded from somewhere no classpath can name (a
     *     jar nested in another, say): the workers could not start; {@code ProcessPool.Builder.classpath} names one
     */
    static String derive() {
        final String base = System.getProperty("java.class.path", "");
        final Set<String> known = new LinkedHashSet<>();
        for (String e : base.split(File.pathSeparator, -1)) {
            known.add(Path.of(e).toAbsolutePath().normalize().toString()); // "" is the current folder, as for java
        }
        final Set<String> more = new LinkedHashSet<>();
        addLoaders(Thread.currentThread().getContextClassLoader(), more);
        addLoaders(ProcessPool.class.getClassLoader(), more);
        final Path sharray = location(ProcessPool.class);
        if (sharray == null) {
            final ClassLoader loader = ProcessPool.class.getClassLoader();
            throw new IllegalStateException(noJarOrFolder(String.valueOf(loader),
                loader == null ? "" : loader.getClass().getName()));
        }
        more.add(sharray.toString()); // already there unless a loader that is no URLClassLoader holds it
        more.removeAll(known);
        // the parent's own classpath as it is, entry for entry: the workers' java.class.path is the same string
        final StringBuilder classpath = new StringBuilder(base);
        for (String e : more) {
            classpath.append(classpath.length() == 0 ? "" : File.pathSeparator).append(e);
        }
        return classpath.toString();
    }

    /**
     * The message for sharray's classes loaded from no jar or folder a classpath can name. A Spring Boot executable
     * jar is the usual case, and gets its own way out: its loader reads jars nested in the app jar, which no other
     * JVM's classpath can name, so the workers need them as plain files.
     *
     * @param loader      the class loader that loaded sharray, as text
     * @param loaderClass its class's name
     */
    static String noJarOrFolder(String loader, String loaderClass) {
        final String start = "the pool's workers cannot be given sharray's classes: " + loader + " loaded them from no"
            + " jar or folder";
        if (loaderClass.startsWith(SPRING_BOOT_LOADER)) {
            return start + ": this is a Spring Boot executable jar, whose nested jars no classpath can name, and the"
                + " workers need plain jars. Extract it (java -Djarmode=tools -jar app.jar extract, Spring Boot 3.3"
                + " and later) and run the extracted layout (java -jar app/app.jar), or name its BOOT-INF/classes and"
                + " BOOT-INF/lib/* (unzipped) with ProcessPool.Builder.classpath";
        }
        return start + " (a jar nested in another?); give the workers' classpath with ProcessPool.Builder.classpath";
    }

    /**
     * Expands each wildcard entry ({@code dir/*}, or {@code *} for the working folder) into the jars of its folder,
     * as the {@code java} launcher does for {@code -cp}: the folder's files whose names end in {@code .jar} or
     * {@code .JAR}, not those of its subfolders, here sorted by name so that one folder gives one launch jar and one
     * class-data archive key (the launcher takes the directory's order). A missing folder gives nothing; an entry a
     * file by that very name exists for is no wildcard, as for the launcher. Why: the workers start from a launch
     * jar whose manifest names the classpath ({@link WorkerJar}), and a manifest's {@code Class-Path} has no
     * wildcards: {@code BOOT-INF/lib/*} was taken as a file of that name, and the workers found no
     * {@code WorkerMain}. Expanded before the classpath is used at all, the argument file and the archive key
     * name the same jars as the manifest.
     *
     * @param classpath a classpath, entries separated by {@link File#pathSeparator}
     * @return it with every wildcard entry replaced by its jars; other entries, empty ones too, as they are
     */
    static String expandWildcards(String classpath) {
        final List<String> entries = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator, -1)) {
            if (isWildcard(entry)) {
                entries.addAll(jarsOf(entry.substring(0, entry.length() - 1)));
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static boolean isWildcard(String entry) {
        final boolean wildcard = entry.equals("*") || entry.endsWith(File.separator + "*");
        return wildcard && !Files.exists(Path.of(entry));
    }

    /** @param folder a folder as a wildcard entry spells it, with its trailing separator, or "" for the working one */
    private static List<String> jarsOf(String folder) {
        try (Stream<Path> files = Files.list(Path.of(folder.isEmpty() ? "." : folder))) {
            return files.map(f -> f.getFileName().toString())
                .filter(name -> name.endsWith(".jar") || name.endsWith(".JAR"))
                .sorted()
                .map(name -> folder + name)
                .toList();
        } catch (IOException | RuntimeException e) {
            return List.of(); // no such folder, or an unreadable one: the launcher expands it to nothing too
        }
    }

    /** Adds the file URLs of {@code loader} and the loaders above it, the topmost first (as they are searched). */
    private static void addLoaders(ClassLoader loader, Set<String> entries) {
        final Deque<URLClassLoader> chain = new ArrayDeque<>();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                chain.push(u);
            }
        }
        for (URLClassLoader u : chain) {
            for (URL url : u.getURLs()) {
                final Path p = pathOf(url);
                if (p != null) {
                    entries.add(p.toString());
                }
            }
        }
    }

    private static Path location(Class<?> c) {
        final CodeSource source = c.getProtectionDomain().getCodeSource();
        return source == null ? null : pathOf(source.getLocation());
    }

    private static Path pathOf(URL url) {
        if (url == null || !"file".equals(url.getProtocol())) {
            return null;
        }
        try {
            return Path.of(url.toURI()).toAbsolutePath().normalize();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
