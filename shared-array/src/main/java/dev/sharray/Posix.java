package dev.sharray;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/** The few libc calls Java lacks, bound with JNA direct mapping. */
final class Posix {
    private static final int O_RDWR = 2;
    /** errno of a full filesystem. */
    static final int ENOSPC = 28;

    private static final boolean AVAILABLE;

    static {
        boolean ok;
        try {
            Native.register(Posix.class, Platform.C_LIBRARY_NAME);
            ok = true;
        } catch (Throwable e) {
            ok = false;
        }
        AVAILABLE = ok;
    }

    private Posix() {
    }

    private static native int open(String path, int flags) throws LastErrorException;

    private static native int close(int fd) throws LastErrorException;

    private static native int posix_fallocate(int fd, long offset, long length);

    /**
     * Reserves the blocks of {@code [0, length)} so later page faults on a mapping cannot hit a full
     * filesystem (which would be SIGBUS).
     *
     * @return 0 on success, else the errno (e.g. {@link #ENOSPC}); -1 when fallocate is unavailable here
     */
    static int fallocate(String path, long length) {
        if (!AVAILABLE) {
            return -1;
        }
        int fd = open(path, O_RDWR);
        try {
            return posix_fallocate(fd, 0, length);
        } finally {
            close(fd);
        }
    }
}
