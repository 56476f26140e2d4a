package dev.sharray;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The options of the mount a path is on, from {@code /proc/self/mountinfo}: a library in a folder on a {@code noexec}
 * mount extracts fine and then fails to load ("failed to map segment from shared object"), as in a hardened container
 * whose home or cache volume is mounted so.
 */
final class MountOptions {
    private static final String MOUNT_INFO = "/proc/self/mountinfo";

    private MountOptions() {
    }

    /**
     * @param path a file or folder, which need not exist yet (its nearest existing parent tells its mount)
     * @return whether its mount forbids running code from it ({@code noexec}); false when that cannot be told
     */
    static boolean isNoExec(Path path) {
        final Path real = nearestExistingRealPath(path);
        final byte[] info = readMountInfo();
        if (real == null || info == null) {
            return false;
        }
        // mountinfo's fields: id, parent id, major:minor, root, mount point, mount options, ...; the mount of a path is
        // the one with the longest mount point above it, the latest mounted (the later line) of equals
        int bestLength = -1;
        boolean noexec = false;
        for (String line : new String(info, StandardCharsets.ISO_8859_1).split("\n")) {
            final String[] fields = line.split(" ");
            if (fields.length < 6) {
                continue;
            }
            final Path mountPoint = Path.of(unescape(fields[4]));
            final int length = mountPoint.getNameCount();
            if (real.startsWith(mountPoint) && length >= bestLength) {
                bestLength = length;
                noexec = (',' + fields[5] + ',').contains(",noexec,");
            }
        }
        return noexec;
    }

    private static Path nearestExistingRealPath(Path path) {
        for (Path p = path.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                try {
                    return p.toRealPath();
                } catch (IOException | SecurityException e) {
                    return null;
                }
            }
        }
        return null;
    }

    private static byte[] readMountInfo() {
        try (FileInputStream in = new FileInputStream(MOUNT_INFO)) {
            return in.readAllBytes();
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /**
     * @param field a mountinfo path field, its bytes as ISO-8859-1 characters, with space, tab, newline and backslash
     *     written as octal escapes ({@code \040})
     * @return the path, its bytes decoded as this JVM decodes file names
     */
    static String unescape(String field) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(field.length());
        for (int i = 0; i < field.length(); i++) {
            final char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && isOctal(field, i + 1)) {
                bytes.write(Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(fileNameCharset());
    }

    private static boolean isOctal(String s, int from) {
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }

    private static Charset fileNameCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }
}
