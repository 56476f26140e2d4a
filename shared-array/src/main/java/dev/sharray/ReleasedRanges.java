package dev.sharray;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import java.util.ArrayDeque;

/**
 * Unmaps a file's mapping in two steps, so a thread that still reads or writes a released array cannot end
 * the JVM or touch another array.
 *
 * <p>Handles are not thread-safe for release, and checking on every element access that another thread has
 * not released the memory would cost every access. So a release that races a reader cannot be refused; what
 * can be chosen is what that reader's late access meets. After a plain {@code munmap} it meets nothing
 * (SIGSEGV, which ends the JVM) or, once the kernel reuses the addresses, another array's memory. Here the
 * range is first mapped over, in place and atomically ({@code MAP_FIXED}), by an empty memory file sealed
 * against growing: the data pages leave this process at once, and a late access faults with SIGBUS, which
 * HotSpot turns into an {@link InternalError} ("a fault occurred in an unsafe memory access operation") for
 * memory reached through {@code Unsafe}, as all of this library's accesses are. The address range itself (one
 * kernel map entry, no memory) stays reserved, so no later mapping can take it, until {@link #MAX_RANGES}
 * later ranges or {@link #MAX_BYTES} of them (less under {@code ulimit -v}) push it out; then, once every thread
 * has passed two safepoints (see {@link #letLateAccessesFail}), the mapping's own unmap frees it.
 *
 * <p>Where the memory file cannot be made (no JNA, not Linux, a kernel before 3.17) every unmap is
 * immediate, as before; so is a release while the process is out of file descriptors before the file was made.
 */
final class ReleasedRanges {
    /** Ranges kept reserved before the oldest is freed: well below Linux's default 65,530 map entries. */
    static final int MAX_RANGES = 1024;
    /** Address space kept reserved before the oldest range is freed (x86-64 user space is 128 TiB). */
    static final long MAX_BYTES = 256L << 30;
    private static final long PAGE = 4096;
    /**
     * {@link #MAX_BYTES}, or an eighth of this process's address-space limit ({@code ulimit -v}) when that is
     * lower: reserved ranges count against the limit, and must not make the next array's mapping fail.
     */
    private static final long BYTE_BUDGET = Math.min(MAX_BYTES, addressSpaceLimit() / 8);

    /** Loaded with this class rather than at the first release (see {@link #prepare}). */
    @SuppressWarnings("unused")
    private static final Class<?>[] RELEASE_CLASSES = {Range.class, EmptyFile.class};
    private static final ArrayDeque<Range> RESERVED = new ArrayDeque<>();
    private static long reservedBytes;

    private ReleasedRanges() {
    }

    private record Range(long address, long length, Runnable unmap) {
    }

    /**
     * Readies the release path before this process maps an array, while it can still open files: a process that
     * has run out of file descriptors must still be able to release its arrays, and its first release would
     * otherwise load this class and the ones it needs (from a class path folder, a file each). The empty memory
     * file is not made here: that binds the C library, ~0.1 s of a pool worker's first task, which most workers
     * never unmap in; one that a process out of descriptors cannot make is tried again at the next release.
     */
    static void prepare() {
        // nothing more: the call ran this class's initialization, which loaded the classes of a release
    }

    /**
     * Takes {@code [address, address + length)} (widened to whole pages) out of use and frees it later by
     * running {@code unmap}, which must unmap exactly that range. {@code unmap} runs now when the range
     * cannot be reserved.
     */
    static void unmap(long address, long length, Runnable unmap) {
        unmap(address, length, unmap, unmap);
    }

    /**
     * {@link #unmap(long, long, Runnable)} for a {@link MappedRegion}: a range kept reserved is freed through the C
     * library, which reserving it has loaded, rather than by closing the region's arena (a handshake with every
     * thread, ~80 µs).
     */
    static void unmap(MappedRegion region) {
        unmap(region.address(), region.length(), region::unmap, region::unmapReserved);
    }

    /** Runs {@code unmapNow} when the range cannot be reserved, else keeps it to be freed by {@code unmapReserved}. */
    private static void unmap(long address, long length, Runnable unmapNow, Runnable unmapReserved) {
        final long pages = (length + PAGE - 1) & -PAGE;
        if (!mapOver(address, pages)) {
            unmapNow.run();
            return;
        }
        keep(new Range(address, pages, unmapReserved));
    }

    private static boolean mapOver(long address, long pages) {
        if ((address & (PAGE - 1)) != 0) {
            return false;
        }
        final int fd = EmptyFile.fd();
        return fd >= 0 && Posix.mapOver(address, pages, fd);
    }

    private static void keep(Range range) {
        synchronized (ReleasedRanges.class) {
            RESERVED.addLast(range);
            reservedBytes += range.length;
            if (RESERVED.size() <= MAX_RANGES && reservedBytes <= BYTE_BUDGET) {
                return;
            }
            // a quarter at a time, so the safepoints before the frees cost little per range
            letLateAccessesFail();
            while (!RESERVED.isEmpty()
                && (RESERVED.size() > MAX_RANGES - MAX_RANGES / 4 || reservedBytes > BYTE_BUDGET - BYTE_BUDGET / 4)) {
                final Range oldest = RESERVED.removeFirst();
                reservedBytes -= oldest.length;
                freeQuietly(oldest);
            }
        }
    }

    /**
     * Brings every thread to a safepoint twice before reserved ranges are freed. On JDK 17 a thread whose access
     * faults on a released range is told so ({@link InternalError}) only at its next safepoint, and until then
     * each of its accesses faults again; freed before that, the range made its next access meet unmapped memory
     * (SIGSEGV, the end of the JVM) or another array's. After two, every thread that was inside an access of a
     * range released before the first has had its error: one that faulted before the first at that one, one whose
     * first access came after at the second. A thread dump of the threads' stacks is such a safepoint
     * ({@code ThreadDump}: tens of microseconds here), in {@code java.base}.
     */
    private static void letLateAccessesFail() {
        Thread.getAllStackTraces();
        Thread.getAllStackTraces();
    }

    /**
     * Frees every reserved range now: their map entries are wanted when the process nears its limit on them
     * ({@link MapEntries}), as ranges pushed out by later ones are.
     *
     * @return how many ranges were freed
     */
    static synchronized int freeAll() {
        final int freed = RESERVED.size();
        if (freed > 0) {
            letLateAccessesFail();
        }
        while (!RESERVED.isEmpty()) {
            final Range oldest = RESERVED.removeFirst();
            reservedBytes -= oldest.length;
            freeQuietly(oldest);
        }
        return freed;
    }

    /** @return whether unmapped ranges are kept reserved in this process */
    static boolean reserving() {
        return EmptyFile.fd() >= 0;
    }

    /** @return how many ranges are reserved now */
    static synchronized int reservedRanges() {
        return RESERVED.size();
    }

    /** @return how many bytes of address space are reserved now */
    static synchronized long reservedBytes() {
        return reservedBytes;
    }

    /** @return the soft limit on this process's address space in bytes, {@link Long#MAX_VALUE} when none */
    static long addressSpaceLimit() {
        try (java.io.BufferedReader limits = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of("/proc/self/limits"))) {
            for (String line = limits.readLine(); line != null; line = limits.readLine()) {
                if (line.startsWith("Max address space")) {
                    final String soft = line.substring("Max address space".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or an unexpected format: no limit known
        }
        return Long.MAX_VALUE;
    }

    private static void freeQuietly(Range r) {
        try {
            r.unmap.run();
        } catch (RuntimeException e) {
            // the range stays mapped to the empty file: harmless, and the caller's release has nothing to undo
            Log.get().warn("could not free the released address range {} (+{} bytes): {}",
                Long.toHexString(r.address), r.length, e.toString());
        }
    }

    /**
     * The process's one empty memory file that released ranges are mapped to. Its two libc calls are bound here,
     * not in {@link Posix}: JNA binds a class's native methods all at once, and a C library without
     * {@code memfd_create} (glibc before 2.27) would then take every other {@code Posix} call down with it.
     */
    private static final class EmptyFile {
        private static final int MFD_CLOEXEC = 1;
        private static final int MFD_ALLOW_SEALING = 2;
        private static final int F_ADD_SEALS = 1033;
        private static final int F_SEAL_SEAL = 1;
        private static final int F_SEAL_SHRINK = 2;
        private static final int F_SEAL_GROW = 4;
        private static final int ENFILE = 23;
        private static final int EMFILE = 24;
        /** {@link #descriptor} before the file is made, and after a try that found the process out of descriptors. */
        private static final int NOT_MADE = -2;

        /** The memory file's descriptor, -1 when this process can have none, or {@link #NOT_MADE}. */
        private static volatile int descriptor = NOT_MADE;
        /** Whether the two libc calls are bound (guarded by the class lock). */
        private static boolean bound;

        private EmptyFile() {
        }

        private static native int memfd_create(String name, int flags) throws LastErrorException;

        private static native int fcntl(int fd, int command, int argument) throws LastErrorException;

        /** @return the memory file's descriptor, made at the first call that can; -1 while there is none */
        static int fd() {
            final int made = descriptor;
            return made != NOT_MADE ? made : make();
        }

        private static synchronized int make() {
            if (descriptor == NOT_MADE) {
                descriptor = create();
            }
            return Math.max(-1, descriptor);
        }

        /** @return the new file's descriptor; -1 for good, or {@link #NOT_MADE} when out of descriptors now */
        private static int create() {
            if (!Posix.available() || !Platform.isLinux()) {
                return -1;
            }
            try {
                if (!bound) {
                    Native.register(EmptyFile.class, Platform.C_LIBRARY_NAME);
                    bound = true;
                }
                final int made = memfd_create("sharray-released", MFD_CLOEXEC | MFD_ALLOW_SEALING);
                sealEmpty(made);
                return made;
            } catch (LastErrorException e) {
                // out of descriptors: this release unmaps at once, and the next tries again
                return e.getErrorCode() == EMFILE || e.getErrorCode() == ENFILE ? NOT_MADE : -1;
            } catch (UnsatisfiedLinkError e) {
                return -1;
            }
        }

        /** Seals the file at size 0 for good, so no one can grow it and turn faults into reads of real pages. */
        private static void sealEmpty(int fd) {
            try {
                fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
            } catch (LastErrorException e) {
                // a kernel without seals: only this user could grow the file, through /proc/<pid>/fd
            }
        }
    }
}
