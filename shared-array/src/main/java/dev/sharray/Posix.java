package dev.sharray;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/** The few libc calls Java lacks, bound with JNA direct mapping. */
final class Posix {
    private static final int O_RDWR = 2;
    private static final int SEEK_END = 2;
    private static final int SEEK_DATA = 3;
    private static final int SEEK_HOLE = 4;
    /** fallocate: allocate without changing the file's size, even past its end. */
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    /** Linux 5.14+: populate (prefault) the pages of a range, writable, in one call. */
    private static final int MADV_POPULATE_WRITE = 23;
    private static final long PAGE = 4096;
    /** errno of a full filesystem. */
    static final int ENOSPC = 28;
    /** errno of a path that names no file (any more). */
    static final int ENOENT = 2;
    /** errno of a system call interrupted by a signal before it did anything lasting. */
    private static final int EINTR = 4;
    /** errno of a user's disk quota exhausted: for a file's blocks, a full file system as far as the user can tell. */
    static final int EDQUOT = 122;
    /** errno of a file system (or file) that cannot allocate blocks without writing them. */
    static final int EOPNOTSUPP = 95;
    /** errno of a kernel or C library without the call. */
    static final int ENOSYS = 38;

    private static final boolean AVAILABLE;

    static {
        final Throwable failure = NativeFiles.prepareJna() || Boolean.getBoolean("jna.debug_load") ? register()
            : registerQuietly();
        if (failure != null) {
            // also where a library folder was named (by sharray or the user) and loading from it still failed
            final String named = System.getProperty("jna.boot.library.path");
            Log.get().warn("sharray: JNA cannot load its native library ({}): file calls fall back to slower pure"
                + " Java; name a folder it can write and run from with -Dsharray.nativeCache or XDG_CACHE_HOME{}",
                failure.getMessage(), named == null ? "" : " (it looked in jna.boot.library.path " + named + ")");
        }
        AVAILABLE = failure == null;
    }

    private Posix() {
    }

    /**
     * Binds while JNA extracts its library itself: where it cannot, it logs 15 lines of warning and stack trace
     * before failing, for a fallback said in one line by the caller.
     *
     * @return null when bound, else why not
     */
    private static Throwable registerQuietly() {
        final java.util.logging.Logger jnaLog = java.util.logging.Logger.getLogger("com.sun.jna.Native");
        final java.util.logging.Level level = jnaLog.getLevel();
        jnaLog.setLevel(java.util.logging.Level.OFF);
        try {
            return register();
        } finally {
            jnaLog.setLevel(level);
        }
    }

    /** @return null when bound, else why not */
    private static Throwable register() {
        try {
            Native.register(Posix.class, Platform.C_LIBRARY_NAME);
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    private static native int open(String path, int flags) throws LastErrorException;

    private static native int close(int fd) throws LastErrorException;

    private static native long lseek(int fd, long offset, int whence) throws LastErrorException;

    private static native int geteuid();

    /** @return this process's effective uid, or null when the C library is not available */
    static Integer euid() {
        return AVAILABLE ? geteuid() : null;
    }

    private static native int posix_fallocate(int fd, long offset, long length);

    /** The system call itself: unlike posix_fallocate, it never falls back to writing bytes into the file. */
    private static native int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

    private static native int madvise(long address, long length, int advice) throws LastErrorException;

    private static native long mmap(long address, long length, int prot, int flags, int fd, long offset)
        throws LastErrorException;

    private static native int munmap(long address, long length) throws LastErrorException;

    private static native int statfs(String path, long[] buf) throws LastErrorException;

    /** {@code struct statfs} on 64-bit Linux, as longs: f_type, f_bsize, f_blocks, f_bfree, f_bavail, ... */
    private static final int STATFS_LONGS = 15;
    private static final int F_TYPE = 0;
    private static final int F_BSIZE = 1;
    private static final int F_BAVAIL = 4;
    private static final int F_FRSIZE = 9;
    /** f_type of a tmpfs (linux/magic.h). */
    static final long TMPFS_MAGIC = 0x01021994L;

    /**
     * A file system's type and free space, from one {@code statfs(2)} of a path. {@code Files.getFileStore} gives
     * both too, but first looks the path's mount up in the mount table (~150-250 us here, twice per create).
     *
     * @param type        the file system's magic number, e.g. {@link #TMPFS_MAGIC}
     * @param usableBytes bytes an unprivileged process may still allocate there
     */
    record FileSystemSpace(long type, long usableBytes) {
    }

    /**
     * @return the file system of {@code path}, or null when it cannot be asked here (no C library; not x86-64 or
     *     AArch64 Linux, whose {@code struct statfs} layout this reads, as {@code Stat} does) or the call fails (the
     *     path is gone, say)
     */
    static FileSystemSpace fileSystemOf(String path) {
        if (!AVAILABLE || !Platform.isLinux() || !Platform.is64Bit() || !(Platform.isIntel() || Platform.isARM())) {
            return null;
        }
        final long[] buf = new long[STATFS_LONGS];
        try {
            statfs(path, buf);
        } catch (LastErrorException e) {
            return null;
        }
        final long blockSize = buf[F_FRSIZE] > 0 ? buf[F_FRSIZE] : buf[F_BSIZE];
        return new FileSystemSpace(buf[F_TYPE], saturatedProduct(buf[F_BAVAIL], blockSize));
    }

    private static long saturatedProduct(long blocks, long blockSize) {
        return blocks < 0 || blockSize <= 0 ? 0 : blocks > Long.MAX_VALUE / blockSize ? Long.MAX_VALUE : blocks * blockSize;
    }

    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_SHARED = 0x01;
    private static final int MAP_FIXED = 0x10;

    /** @return whether the C library is bound (JNA loaded) */
    static boolean available() {
        return AVAILABLE;
    }

    /**
     * Maps exactly {@code [0, length)} of a file read-write and shared. Unlike Chronicle, which maps whole
     * pages and first extends the file to a page multiple, this never changes the file.
     *
     * @return the address
     * @throws java.io.IOException when the file cannot be opened or mapped
     */
    static long mapShared(String path, long length) throws java.io.IOException {
        if (!AVAILABLE) {
            throw new java.io.IOException("the C library is not available through JNA");
        }
        final int fd;
        try {
            fd = open(path, O_RDWR);
        } catch (LastErrorException e) {
            throw new java.io.IOException("open failed, errno " + e.getErrorCode());
        }
        try {
            // the file was checked through another descriptor: it may have been swapped or cut since, and a
            // mapping past its end would fault (SIGBUS) on first touch
            long size = lseek(fd, 0, SEEK_END);
            if (size < length) {
                throw new java.io.IOException("the file is " + size + " bytes now, " + length + " expected");
            }
            return mmap(0, length, PROT_READ_WRITE, MAP_SHARED, fd, 0);
        } catch (LastErrorException e) {
            throw new java.io.IOException("mmap failed, errno " + e.getErrorCode());
        } finally {
            closeQuietly(fd); // the mapping keeps the file; a failing close must not lose the mapping
        }
    }

    private static void closeQuietly(int fd) {
        try {
            close(fd);
        } catch (LastErrorException ignored) {
            // nothing to undo: the descriptor is gone either way on Linux
        }
    }

    /**
     * Replaces the mapping of {@code [address, address + length)} in place, atomically, by a shared mapping of
     * {@code fd} from offset 0 ({@code MAP_FIXED}).
     *
     * @param length a whole number of pages
     * @return whether the range is mapped to {@code fd} now; when false the caller unmaps it as it would have
     *         (a failed {@code MAP_FIXED} may already have removed part of the old mapping)
     */
    static boolean mapOver(long address, long length, int fd) {
        try {
            return mmap(address, length, PROT_READ_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == address;
        } catch (LastErrorException e) {
            return false; // e.g. ENOMEM at the map-entry limit: the caller unmaps at once instead
        }
    }

    /** Unmaps what {@link #mapShared} mapped. */
    static void unmap(long address, long length) {
        munmap(address, length);
    }

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
        final int fd = openReadWrite(path); // an errno, never JNA's exception naming no file (fault review 49)
        if (fd < 0) {
            return -fd;
        }
        try {
            return posix_fallocate(fd, 0, length);
        } finally {
            closeQuietly(fd);
        }
    }

    /**
     * Allocates the blocks of {@code [offset, offset + length)} of a file without changing a byte of it, so that
     * a shared mapping may touch that range at once while other processes write it. posix_fallocate would not
     * do: on a file system without fallocate, glibc emulates it by writing a zero into each block, over what
     * another process may have just written there.
     *
     * @return 0 on success, else the errno (e.g. {@link #ENOSPC}, or EOPNOTSUPP where the file system cannot);
     *     -1 when the C library is not available here
     */
    static int allocateInPlace(String path, long offset, long length) {
        if (!AVAILABLE) {
            return -1;
        }
        final int fd = openReadWrite(path);
        if (fd < 0) {
            return -fd;
        }
        try {
            fallocate(fd, 0, offset, length);
            return 0;
        } catch (LastErrorException e) {
            return e.getErrorCode();
        } finally {
            closeQuietly(fd);
        }
    }

    /** @return a descriptor of {@code path} open for reading and writing, or minus the errno when it cannot be */
    private static int openReadWrite(String path) {
        try {
            return open(path, O_RDWR);
        } catch (LastErrorException e) {
            return -e.getErrorCode();
        }
    }

    /**
     * The bytes of a range of a file that have no blocks (holes), as far as can be told before allocating them.
     *
     * @param bytes at least this many bytes of the range are holes, exactly this many when {@code exact}; -1 when
     *              nothing can be told here
     * @param exact whether {@code bytes} is exact: in a tmpfs, whose block count is exact; elsewhere a lower bound,
     *              as a disk file system's count also holds metadata blocks, and blocks outside the range
     */
    record Holes(long bytes, boolean exact) {
    }

    /**
     * Allocates the blocks of {@code [0, length)} of a file that have none yet, without changing a byte of it or its
     * size ({@code fallocate} with {@code FALLOC_FL_KEEP_SIZE}), so that a shared mapping of that range cannot fault
     * later on a full file system (SIGBUS). {@code check} is given the range's holes first and may refuse them. In a
     * tmpfs they are counted exactly, and a range without holes is left alone, as the call would walk every page
     * (~35 ms per GiB here). Elsewhere the call is made whatever the file: on extent-based disk file systems it costs
     * microseconds.
     *
     * @param path   the file
     * @param length bytes from the start of the file to allocate, at most its size
     * @param check  called before any allocation, on the same descriptor; it may throw to refuse, and nothing is
     *               allocated then
     * @return 0 when the range is allocated (or already was), else the errno: {@link #ENOSPC}, {@link #EDQUOT},
     *     {@link #EOPNOTSUPP} where the file system cannot, ...; -1 when the C library is not available here
     */
    static int allocateMissing(String path, long length, java.util.function.Consumer<Holes> check) {
        if (!AVAILABLE) {
            return -1;
        }
        final int fd = openReadWrite(path);
        if (fd < 0) {
            return -fd;
        }
        try {
            final Holes holes = Stat.holes(fd, length);
            check.accept(holes);
            if ((holes.exact() && holes.bytes() == 0) || length <= 0) {
                return 0;
            }
            for (int attempt = 0; ; attempt++) {
                try {
                    // KEEP_SIZE: the same as mode 0 within the file, and a file cut short meanwhile is not grown back
                    fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, length);
                    return 0;
                } catch (LastErrorException e) {
                    // a tmpfs gives up on a pending signal (and undoes what it allocated): try again
                    if (e.getErrorCode() != EINTR || attempt == 100) {
                        return e.getErrorCode();
                    }
                }
            }
        } finally {
            closeQuietly(fd);
        }
    }

    /**
     * {@code fstat} and {@code fstatfs}, bound apart from the other calls: {@code fstat} is a symbol of the C library
     * only since glibc 2.33, and a failed binding here must not take the others with it. The two structures are
     * read at the offsets of 64-bit Linux on x86-64 and AArch64 only.
     */
    private static final class Stat {
        private static final boolean BOUND;
        private static final int ST_SIZE = 48;
        private static final int ST_BLOCKS = 64;
        private static final int BUFFER = 256; // more than struct stat (144 or 128 bytes) and struct statfs (120)

        static {
            boolean ok = false;
            if (Platform.isLinux() && Platform.is64Bit() && (Platform.isIntel() || Platform.isARM())) {
                try {
                    Native.register(Stat.class, Platform.C_LIBRARY_NAME);
                    ok = true;
                } catch (Throwable e) {
                    ok = false; // an older C library: every allocation is then made, as on a disk file system
                }
            }
            BOUND = ok;
        }

        private Stat() {
        }

        private static native int fstat(int fd, byte[] buffer) throws LastErrorException;

        private static native int fstatfs(int fd, byte[] buffer) throws LastErrorException;

        /** @return the holes of {@code [0, length)} of the open file {@code fd}, as {@link Holes} says */
        static Holes holes(int fd, long length) {
            if (!BOUND) {
                return new Holes(-1, false);
            }
            final byte[] buffer = new byte[BUFFER];
            final java.nio.ByteBuffer st = java.nio.ByteBuffer.wrap(buffer).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            try {
                fstatfs(fd, buffer);
                final boolean tmpfs = st.getLong(0) == TMPFS_MAGIC;
                fstat(fd, buffer);
                final long size = st.getLong(ST_SIZE);
                final long allocated = st.getLong(ST_BLOCKS) * 512;
                if (!tmpfs) {
                    // the range's whole blocks less every block allocated to the file: holes there are at least that
                    return new Holes(Math.max(0, (length & -PAGE) - allocated), false);
                }
                if (allocated >= (size + PAGE - 1) / PAGE * PAGE) {
                    return new Holes(0, true); // every page of the file is there: the common case, two calls
                }
                // some page is missing, maybe past the range: find the range's holes (SEEK_HOLE walks the pages)
                long holes = 0;
                for (long at = 0; at < length; ) {
                    final long hole = lseek(fd, at, SEEK_HOLE);
                    if (hole >= length) {
                        break;
                    }
                    long data;
                    try {
                        data = lseek(fd, hole, SEEK_DATA);
                    } catch (LastErrorException e) {
                        data = length; // ENXIO: no data after the hole
                    }
                    holes += Math.min(data, length) - hole;
                    at = Math.max(data, hole + PAGE); // onwards even while another process fills the hole
                }
                return new Holes(holes, true);
            } catch (LastErrorException e) {
                return new Holes(-1, false);
            }
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
