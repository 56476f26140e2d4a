package dev.sharray;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads the kernel's small text files ({@code /proc}, {@code /sys}). Not with {@code Files.readString}: a sysctl file
 * stats as size 0, so the JDK reads it a byte at a time, and the kernel answers a read past offset 0 of a numeric
 * sysctl with end-of-file: {@code /proc/sys/kernel/overflowuid} came back as "6" for 65534.
 */
final class KernelFiles {
    private KernelFiles() {
    }

    /** @return the whole file as text, or null when it cannot be read */
    static String read(String path) {
        final byte[] bytes = readBytes(path);
        return bytes == null ? null : new String(bytes, StandardCharsets.US_ASCII);
    }

    /** @return the whole file's bytes (for text that may hold file names in any encoding), or null when unreadable */
    static byte[] readBytes(String path) {
        try (FileInputStream in = new FileInputStream(path)) {
            return in.readAllBytes();
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** @return the number the file holds, or {@code otherwise} when it cannot be read or is not a number */
    static long readLong(String path, long otherwise) {
        final String text = read(path);
        if (text == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }
}
