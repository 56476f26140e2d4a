package dev.sharray;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * Caches of arrays this process keeps only to reuse them (see {@link SharedArrays#registerArrayCache}), released
 * when a new array lacks room: otherwise what a cache keeps would take the space a user's own array needs, and its
 * creation would fail, or leave {@code /dev/shm} for disk, without a word of why.
 */
final class ArrayCaches {
    private static final CopyOnWriteArrayList<LongSupplier> CACHES = new CopyOnWriteArrayList<>();

    private ArrayCaches() {
    }

    static void add(LongSupplier releaseAll) {
        CACHES.addIfAbsent(releaseAll);
    }

    static void remove(LongSupplier releaseAll) {
        CACHES.remove(releaseAll);
    }

    /**
     * Has every cache release what it keeps, on this thread; one's failure does not stop the others.
     *
     * @return bytes released in all (0 when no cache kept anything, so there is nothing to try again for)
     */
    static long releaseAll() {
        long released = 0;
        for (LongSupplier cache : CACHES) {
            try {
                released += Math.max(0, cache.getAsLong());
            } catch (RuntimeException e) {
                Log.get().warn("an array cache failed to release its arrays: {}", e.toString());
            }
        }
        return released;
    }
}
