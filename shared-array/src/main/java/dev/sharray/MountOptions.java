package dev.sharray;

import java.io.ByteArrayOutputStream;
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
        final byte[] info = KernelFiles.readBytes(MOUNT_INFO);
        if (real == null || info == null) {
            return false;
        }
        final String target = real.toString();
        // mountinfo's fields: id, parent id, major:minor, root, mount point, mount options, ...; the mount of a path is
        // the one with the longest mount point above it, the latest mounted (the later line) of equals. Plain string
        // work: this runs early in a JVM's life (a library's first extraction), before anything is compiled.
        final String text = new String(info, StandardCharsets.ISO_8859_1);
        int bestLength = -1;
        boolean noexec = false;
        for (int line = 0; line < text.length(); ) {
            int end = text.indexOf('\n', line);
            end = end < 0 ? text.length() : end;
            final int point = nthField(text, line, end, 4);
            final int pointEnd = point < 0 ? -1 : text.indexOf(' ', point);
            if (pointEnd > point && pointEnd < end) {
                final String mountPoint = unescape(text.substring(point, pointEnd));
                if (mountPoint.length() >= bestLength && isUnder(target, mountPoint)) {
                    bestLength = mountPoint.length();
                    final int optionsEnd = text.indexOf(' ', pointEnd + 1);
                    final String options = text.substring(pointEnd + 1, optionsEnd < 0 || optionsEnd > end ? end : optionsEnd);
                    noexec = (',' + options + ',').contains(",noexec,");
                }
            }
            line = end + 1;
        }
        return noexec;
    }

    /** @return where the {@code n}th space-separated field (from 0) of the line begins, or -1 */
    private static int nthField(String text, int from, int end, int n) {
        int at = from;
        for (int i = 0; i < n; i++) {
            at = text.indexOf(' ', at);
            if (at < 0 || at >= end) {
                return -1;
            }
            at++;
        }
        return at;
    }

    private static boolean isUnder(String path, String mountPoint) {
        return mountPoint.equals("/") || path.equals(mountPoint)
            || path.startsWith(mountPoint) && path.charAt(mountPoint.length()) == '/';
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

    /**
     * @param field a mountinfo path field, its bytes as ISO-8859-1 characters, with space, tab, newline and backslash
     *     written as octal escapes ({@code \040})
     * @return the path, its bytes decoded as this JVM decodes file names
     */
    static String unescape(String field) {
        if (field.indexOf('\\') < 0 && isAscii(field)) {
            return field;
        }
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

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7f) {
                return false;
            }
        }
        return true;
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
