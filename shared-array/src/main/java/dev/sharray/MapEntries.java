package dev.sharray;

import java.io.FileInputStream;
import java.io.IOException;

/**
 * Keeps the memory map entries sharray adds below the kernel's per-process limit ({@code vm.max_map_count},
 * 65,530 by default), with room left for the JVM.
 *
 * <p>Each array a process holds costs two map entries (its data and its {@code .ref} file). Were the arrays
 * allowed to take the last entries, the JVM's own next {@code mmap} (committing metaspace for a class, growing
 * the code cache, starting a thread) would fail, and HotSpot ends the process on that ("There is insufficient
 * memory for the Java Runtime Environment to continue"): a program that created arrays in a loop was killed in
 * the clean-up of the create that failed. So a create or open that would leave fewer than {@link #HEADROOM}
 * entries is refused up front with {@link MapLimitException}, before any file is made.
 *
 * <p>Counting the entries means reading {@code /proc/self/maps}, which costs about a millisecond per thousand
 * entries: it is read again only after {@link #RECOUNT_EVERY} entries were added since the last count, or when
 * the estimate (last count plus every entry added since, unmaps not subtracted) passes the limit less the
 * headroom. What the JVM maps between two counts comes out of the headroom.
 */
final class MapEntries {
    /** The kernel's limit on this process's map entries, or 0 when unknown (not Linux): no check. */
    static final long LIMIT = readLimit();
    /** Entries left to the JVM and the libraries in it: a sixteenth of the limit, at least 1,024. */
    static final long HEADROOM = Math.max(1024, LIMIT / 16);
    /** Entries sharray may add between two counts while far from the limit. */
    static final int RECOUNT_EVERY = 256;

    /** Entries at the last count, or -1 before the first. */
    private static long counted = -1;
    /** Entries sharray may have added since the last count. */
    private static long addedSince;

    private MapEntries() {
    }

    /**
     * Makes sure this process can map {@code entries} more ranges, first freeing the address ranges kept
     * reserved by earlier releases when it is short of them.
     *
     * @param entries the number of mappings about to be made
     * @param what    what is about to be mapped, for the message
     * @throws MapLimitException when the mappings would leave the JVM fewer than {@link #HEADROOM} entries
     */
    static synchronized void ensureRoom(int entries, String what) {
        if (LIMIT <= 0) {
            return;
        }
        final long allowed = LIMIT - HEADROOM;
        if (counted < 0 || addedSince >= RECOUNT_EVERY || counted + addedSince + entries > allowed) {
            recount();
            if (counted + entries > allowed && ReleasedRanges.freeAll() > 0) {
                recount(); // released arrays' reserved ranges are entries too; freeing them is the first remedy
            }
            if (counted + entries > allowed) {
                throw new MapLimitException("cannot map " + what + ": this process has " + counted
                    + " memory map entries of the kernel's limit of " + LIMIT + " (vm.max_map_count), and sharray"
                    + " leaves " + HEADROOM + " to the JVM, which ends the process when it runs out of them."
                    + " Each array held costs two: release arrays (views of one array cost none), or raise"
                    + " vm.max_map_count (sysctl)");
            }
        }
        addedSince += entries;
    }

    /** @return how many map entries this process has now, from {@code /proc/self/maps} (one line each) */
    static long countNow() {
        long lines = 0;
        final byte[] buffer = new byte[64 * 1024];
        try (FileInputStream maps = new FileInputStream("/proc/self/maps")) {
            for (int n = maps.read(buffer); n >= 0; n = maps.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines++;
                    }
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return lines;
    }

    private static void recount() {
        final long now = countNow();
        counted = now < 0 ? 0 : now; // unreadable now (out of descriptors): the estimate goes on from 0
        addedSince = 0;
    }

    private static long readLimit() {
        return KernelFiles.readLong("/proc/sys/vm/max_map_count", 0);
    }
}
