package dev.sharray;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * Caches of arrays this process keeps only to reuse them (see {@link SharedArrays#registerArrayCache}), released
 * when a new array lacks room: otherwise what a cache keeps would take the space a user's own array needs, and its
 * creation would fail, or leave {@code /dev/shm} for disk, without a word of why. Only arrays whose release can make
 * that room go: those on the new array's file system, and only when they hold enough.
 */
final class ArrayCaches {
    private static final CopyOnWriteArrayList<ArrayCache> CACHES = new CopyOnWriteArrayList<>();
    /**
     * At most this much of an array's files is not its data, for arrays as a cache keeps them (held by the cache
     * alone): the NumPy header and the page rounding of the data file, and the refcount file.
     */
    private static final long FILE_BYTES_BEYOND_DATA = 64 << 10;
    /** Releases that freed something, ever: written under the class lock, read without it by every create. */
    private static volatile long generation;

    private ArrayCaches() {
    }

    static void add(ArrayCache cache) {
        CACHES.addIfAbsent(cache);
    }

    static void remove(ArrayCache cache) {
        CACHES.remove(cache);
    }

    /** @return how many releases have freed something: read before a look at the room, for {@link #releasedSince} */
    static long generation() {
        return generation;
    }

    /**
     * For a new array short of room in {@code folder}: has every cache release what it keeps on that file system (on
     * any tmpfs, when memory is short), when that and the room there make enough; on this thread, one cache's failure
     * not stopping the others. One release at a time: a second thread short of room waits for the first's, and then
     * finds the room it made.
     *
     * @param seen   {@link #generation()} before the caller found too little room
     * @param folder where the new array goes
     * @param needed the bytes it needs there
     * @param room   the bytes it found there, or -1 when unknown
     * @param memory whether the room is memory (the folder is a tmpfs): then kept arrays on any tmpfs help
     * @return whether room was freed since: by this call, or by another thread's since {@code seen} (the caches were
     *     emptied for two threads short of room at once, and only one of them released anything)
     */
    static synchronized boolean releasedSince(long seen, Path folder, long needed, long room, boolean memory) {
        if (!CACHES.isEmpty()) {
            final Predicate<SharedArray> where = memory ? ArrayCaches::onTmpfs : onFileSystemOf(folder);
            final long[] selected = new long[1];
            final Predicate<SharedArray> counted = a -> {
                if (!where.test(a)) {
                    return false;
                }
                selected[0]++;
                return true;
            };
            long kept = 0;
            for (ArrayCache cache : CACHES) {
                kept = saturatedSum(kept, ask(cache, c -> c.keptBytes(counted)));
            }
            // at most what a release frees: their data and, per array, its files' other bytes
            final long freed = saturatedSum(kept, Math.min(selected[0], 1L << 40) * FILE_BYTES_BEYOND_DATA);
            // room + freed >= needed, written so that nothing can overflow; unknown room: the release may be enough
            if (kept > 0 && (room < 0 || freed >= needed - Math.min(room, needed))) {
                long released = 0;
                for (ArrayCache cache : CACHES) {
                    released = saturatedSum(released, ask(cache, c -> c.release(where)));
                }
                if (released > 0) {
                    generation++;
                }
            }
        }
        return generation != seen;
    }

    /** @return {@code a + b} for non-negative values, or {@link Long#MAX_VALUE} where that overflows */
    private static long saturatedSum(long a, long b) {
        final long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static long ask(ArrayCache cache, java.util.function.ToLongFunction<ArrayCache> question) {
        try {
            return Math.max(0, question.applyAsLong(cache));
        } catch (RuntimeException e) {
            Log.get().warn("an array cache failed to tell or release its arrays: {}", e.toString());
            return 0;
        }
    }

    /** @return whether an array's file is memory, on a tmpfs */
    private static boolean onTmpfs(SharedArray array) {
        return TempFolders.isTmpfs(array.path().getParent());
    }

    /** @return whether an array's file is on {@code folder}'s file system (when either cannot be told: yes) */
    private static Predicate<SharedArray> onFileSystemOf(Path folder) {
        final Object device = device(folder);
        return array -> {
            final Object d = device == null ? null : device(array.path());
            return d == null || d.equals(device);
        };
    }

    private static Object device(Path path) {
        try {
            return Files.getAttribute(path, "unix:dev");
        } catch (IOException | RuntimeException e) { // gone, or no unix view: not told
            return null;
        }
    }
}
