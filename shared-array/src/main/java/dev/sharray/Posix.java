package dev.sharray;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/** The few libc calls Java lacks, bound with JNA direct mapping. */
final class Posix {
    private static final int O_RDWR = 2;
    /** Linux 5.14+: populate (prefault) the pages of a range, writable, in one call. */
    private static final int MADV_POPULATE_WRITE = 23;
    private static final long PAGE = 4096;
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

    private static native int madvise(long address, long length, int advice) throws LastErrorException;

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

    /**
     * Faults in {@code [address, address + length)} of a shared mapping, writable, in one system call
     * ({@code madvise(MADV_POPULATE_WRITE)}); the range is widened to whole pages. A kernel without it
     * (EINVAL, before Linux 5.14), another OS or any other failure leaves the pages to be faulted on
     * first touch as before.
     *
     * @return whether the pages are populated
     */
    static boolean populateWrite(long address, long length) {
        if (!AVAILABLE || !Platform.isLinux() || length <= 0) {
            return false;
        }
        final long start = address & -PAGE;
        final long end = (address + length + PAGE - 1) & -PAGE;
        try {
            return madvise(start, end - start, MADV_POPULATE_WRITE) == 0;
        } catch (LastErrorException e) {
            return false;
        }
    }
}
