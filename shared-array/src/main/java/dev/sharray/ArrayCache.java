package dev.sharray;

import java.util.function.Predicate;

/**
 * Arrays a process keeps only to reuse them (a {@code ProcessPool}'s copies of heap arguments), which give way to a new
 * array that lacks room: see {@link SharedArrays#registerArrayCache}. Both methods run on the creating thread, so they
 * must neither create arrays nor wait for another thread.
 */
public interface ArrayCache {
    /**
     * @param where selects the kept arrays whose release would make the room (those on the new array's file system)
     * @return the bytes ({@link SharedArray#byteSize()}) of the kept arrays {@code where} selects
     */
    long keptBytes(Predicate<SharedArray> where);

    /**
     * Releases the kept arrays {@code where} selects; the cache may keep others again later.
     *
     * @param where selects the kept arrays to release
     * @return the bytes ({@link SharedArray#byteSize()}) released, 0 when none was kept
     */
    long release(Predicate<SharedArray> where);
}
