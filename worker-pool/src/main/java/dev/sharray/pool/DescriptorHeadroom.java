package dev.sharray.pool;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Refuses to start a process when this one has too few file descriptors left to do it safely. Starting a JVM takes
 * ten (its stdin, stdout and stderr pipes and two pipes of the JDK's own). When one of them cannot be made, the
 * JDK's {@code forkAndExec} (JDK 17.0.15 and 25.0.3, {@code ProcessImpl_md.c}) fails half way and then closes two
 * descriptors it never set, whatever its allocation held: this process's stdin, a stream of the application's, or a
 * class-path jar, after which every class load from that jar failed (resources review 47); and it leaks a pipe. So
 * the pool checks first, and says why in words the user can act on.
 */
final class DescriptorHeadroom {
    /** Free descriptors a start needs: the JDK's ten, and a margin for this process's other threads. */
    static final int NEEDED = 24;
    private static final Path OPEN = Path.of("/proc/self/fd");
    private static final Path LIMITS = Path.of("/proc/self/limits");
    private static final String LIMIT_LINE = "Max open files";

    private DescriptorHeadroom() {
    }

    /**
     * @param what what is to start, for the message ("worker 3")
     * @throws IOException when fewer than {@value #NEEDED} descriptors are free, or they cannot be counted because
     *     none is
     */
    static void require(String what) throws IOException {
        final long limit = softLimit();
        if (limit < 0) {
            return; // unlimited, or no /proc: nothing to count against
        }
        final long open = open();
        if (limit - open < NEEDED) {
            throw new IOException("too few free file descriptors to start " + what + ": " + open + " of the limit "
                + limit + " are open (ulimit -n; starting a JVM takes ten, and " + NEEDED + " are kept free)");
        }
    }

    /** @return this process's soft limit of open files, or -1 when unlimited or unknown */
    static long softLimit() throws IOException {
        if (!Files.isReadable(LIMITS)) {
            return -1;
        }
        for (String line : Files.readAllLines(LIMITS)) {
            if (line.startsWith(LIMIT_LINE)) {
                final String soft = line.substring(LIMIT_LINE.length()).trim().split("\\s+")[0];
                return soft.chars().allMatch(Character::isDigit) ? Long.parseLong(soft) : -1;
            }
        }
        return -1;
    }

    /** @return how many descriptors this process has open, but the one the count itself takes */
    static long open() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(OPEN)) {
            for (Path ignored : fds) {
                n++;
            }
        }
        return n - 1;
    }
}
