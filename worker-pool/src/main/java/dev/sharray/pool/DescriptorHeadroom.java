package dev.sharray.pool;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Refuses to start a process when this one has too few file descriptors left to do it safely. Starting a JVM takes
 * ten (its stdin, stdout and stderr pipes and two pipes of the JDK's own). When one of them cannot be made, the
 * JDK's {@code forkAndExec} (JDK 17.0.15 and 25.0.3, {@code ProcessImpl_md.c}) fails half way and then closes two
 * descriptors it never set, whatever its allocation held: this process's stdin, a stream of the application's, or a
 * class-path jar, after which every class load from that jar failed (resources review 47); and it leaks a pipe. So
 * the pool checks first, before each process it starts (a worker, JDK 25's class-data dump), and says why in words
 * the user can act on.
 */
final class DescriptorHeadroom {
    /** Free descriptors a start needs: the JDK's ten, and a margin for this process's other threads. */
    static final int NEEDED = 24;
    private static final File OPEN = new File("/proc/self/fd");
    private static final Path LIMITS = Path.of("/proc/self/limits");
    private static final String LIMIT_LINE = "Max open files";
    private static final long UNREAD = -2;
    /**
     * The soft limit, read once: only setrlimit or prlimit change it in a running process (-1: unlimited or unknown).
     * Read at each start, it cost ~70 us, and ~7 ms of class loading in the first.
     */
    private static volatile long softLimit = UNREAD;

    private DescriptorHeadroom() {
    }

    /**
     * @param what what is to start, for the message ("worker 3")
     * @throws IOException when fewer than {@value #NEEDED} descriptors are free, or none is left to count them with
     */
    static void require(String what) throws IOException {
        final long limit = softLimit();
        if (limit < 0) {
            return; // unlimited, or no /proc: nothing to count against
        }
        final long open = open();
        if (limit - open < NEEDED) {
            throw new IOException("too few free file descriptors to start " + what + ": " + Math.min(open, limit)
                + " of the limit " + limit + " are open (ulimit -n; starting a JVM takes ten, and " + NEEDED
                + " are kept free)");
        }
    }

    /** @return this process's soft limit of open files, or -1 when unlimited or unknown */
    static long softLimit() {
        long limit = softLimit;
        if (limit == UNREAD) {
            limit = readSoftLimit();
            softLimit = limit;
        }
        return limit;
    }

    private static long readSoftLimit() {
        try {
            final String limits = new String(Files.readAllBytes(LIMITS), StandardCharsets.ISO_8859_1);
            final int line = limits.indexOf(LIMIT_LINE);
            if (line >= 0) { // "Max open files            1024                 1048576              files"
                int at = line + LIMIT_LINE.length();
                while (at < limits.length() && limits.charAt(at) == ' ') {
                    at++;
                }
                long soft = 0;
                int digits = 0;
                for (; at < limits.length() && Character.isDigit(limits.charAt(at)) && digits < 18; at++, digits++) {
                    soft = 10 * soft + (limits.charAt(at) - '0');
                }
                return digits > 0 ? soft : -1; // "unlimited"
            }
        } catch (IOException | RuntimeException e) {
            // no /proc, or out of descriptors right now: told again at the next start
            return UNREAD;
        }
        return -1;
    }

    /**
     * @return how many descriptors this process has open, but the one the count itself takes ({@link Long#MAX_VALUE}
     *     when none was left to take)
     */
    static long open() {
        final String[] fds = OPEN.list(); // ~17 us; a DirectoryStream took ten times that
        if (fds == null) {
            return OPEN.isDirectory() ? Long.MAX_VALUE : 0;
        }
        return fds.length - 1L;
    }
}
