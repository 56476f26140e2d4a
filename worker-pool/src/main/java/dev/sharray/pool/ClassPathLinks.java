package dev.sharray.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Links, in the launch jar's folder, to the classpath entries a manifest's {@code Class-Path} could name only
 * %-escaped (a path with a blank or a non-ASCII letter). The JVM's class loader decodes such an entry, but HotSpot's
 * class-data sharing does not: it looks for a file named with the escapes, finds none, and the workers of such a
 * classpath loaded none of the application's classes from their archive (0 of 80 measured, 73 of 80 from the same
 * jars under a plain path). A link's name needs no escaping; it is named by a hash of its target, so every pool of
 * one classpath names the same link and their workers share one archive.
 *
 * <p>The links live in the cache folder beside the jars, which no other user can change ({@code WorkerJar}); a link
 * gives no access its target's path does not: the classpath is the user's own. {@link ClassDataArchive#prune}
 * deletes links not made for a month, as it does jars; a pool makes its links again before each worker starts.
 */
final class ClassPathLinks {
    /** Starts a link's name in the cache folder. */
    static final String PREFIX = "link-";
    private static final int MAX_NAME_TAIL = 64;

    private ClassPathLinks() {
    }

    /**
     * @param folder  the launch jar's folder, which no other user can change, as a real path
     * @param entries the classpath, as {@link LaunchJar#expand} lists it
     * @return the entries to name in the jar's manifest: each that would need escaping replaced by its link in
     *     {@code folder}, which this makes or mends
     * @throws IOException when a link cannot be made
     */
    static List<Path> named(Path folder, List<Path> entries) throws IOException {
        final List<Path> named = new ArrayList<>(entries.size());
        for (Path entry : entries) {
            if (needsEscaping(entry)) {
                final Path link = folder.resolve(linkName(entry));
                ensure(link, entry);
                named.add(link);
            } else {
                named.add(entry);
            }
        }
        return named;
    }

    /**
     * Makes {@code link} point to {@code target}, unless it does already; a link of another target (or any other
     * file) by that name is replaced in one rename, so a JVM starting meanwhile finds the old one or the new one.
     *
     * @throws IOException when the link cannot be made
     */
    static void ensure(Path link, Path target) throws IOException {
        if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) {
            return;
        }
        final Path temp = CacheFiles.writingName(link);
        Files.createSymbolicLink(temp, target);
        try {
            Files.move(temp, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** @return whether a {@code file:} URI of {@code entry} has an escaped character */
    static boolean needsEscaping(Path entry) {
        return entry.toUri().getRawPath().indexOf('%') >= 0;
    }

    /** @return {@value #PREFIX}, a hash of the entry's path, then its file name in characters that need no escaping */
    static String linkName(Path entry) {
        final ClassDataArchive.Fnv64 h = new ClassDataArchive.Fnv64();
        h.add(entry.toString());
        final Path fileName = entry.getFileName();
        final String name = fileName == null ? "" : fileName.toString();
        final StringBuilder tail = new StringBuilder();
        for (int i = 0; i < name.length() && tail.length() < MAX_NAME_TAIL; i++) {
            final char c = name.charAt(i);
            tail.append(c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_') ? c : '_');
        }
        return PREFIX + h.hex() + "-" + tail;
    }

    /** @return whether {@code p}, a link, was made more than {@code maxAgeMillis} ago (its own time, not its target's) */
    static boolean olderThan(Path p, long maxAgeMillis, long now) throws IOException {
        return now - Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis() > maxAgeMillis;
    }
}
