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
    /** Releases that freed something, ever: written under the class lock, read without it by every create. */
    private static volatile long generation;

    private ArrayCaches() {
    }

    static void add(LongSupplier releaseAll) {
        CACHES.addIfAbsent(releaseAll);
    }

    static void remove(LongSupplier releaseAll) {
        CACHES.remove(releaseAll);
    }

    /** @return how many releases have freed something: read before a look at the room, for {@link #releasedSince} */
    static long generation() {
        return generation;
    }

    /**
     * Has every cache release what it keeps, on this thread; one's failure does not stop the others. One release at a
     * time: a second thread short of room waits for the first's, and then finds the room it made.
     *
     * @param seen {@link #generation()} before the caller found too little room
     * @return whether room was freed since: by this call, or by another thread's since {@code seen} (the caches were
     *     emptied for two threads short of room at once, and only one of them released anything)
     */
    static synchronized boolean releasedSince(long seen) {
        long released = 0;
        for (LongSupplier cache : CACHES) {
            try {
                released += Math.max(0, cache.getAsLong());
            } catch (RuntimeException e) {
                Log.get().warn("an array cache failed to release its arrays: {}", e.toString());
            }
        }
        if (released > 0) {
            generation++;
        }
        return generation != seen;
    }
}
