package dev.sharray.reducers;

import dev.sharray.ArrayCache;
import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.function.Predicate;

/**
 * Shared copies of heap arrays kept after their tasks, so the next call that passes a heap array of the same
 * dtype and shape copies into memory that is already allocated and mapped: creating, faulting in and
 * freeing a 1 GiB copy costs about three times the copy itself. This serves loops that pass the same arrays
 * call after call. Owned by one pool and bounded by a byte budget; {@link #close()} releases everything it
 * keeps.
 *
 * <p>Kept copies never stand in the way of a new one: a call that needs a copy the cache does not have
 * first releases what the cache keeps, so the new copy finds the space (in {@code /dev/shm}, or wherever the
 * pool's copies go) that the kept ones held. Within the budget, a copy may only push out copies no larger
 * than itself, oldest first, so one big array passed with small ones stays kept.
 *
 * <p>Nor do they stand in the way of other arrays of this process: the cache is registered with {@link
 * SharedArrays#registerArrayCache} from its first kept copy until {@link #close()}, so a create that lacks room has it
 * release its copies on that file system, when they and the room there are enough.
 *
 * <p>A copy is only kept when nothing but its owner's handle holds it
 * ({@link SharedArrays#totalReferences}): a task that returned the copy it received, or kept a reference to
 * it, leaves it with its holders, since writing the next call's data into it would change what they see.
 *
 * <p>Thread-safe.
 */
public final class CopyCache implements ArrayCache, AutoCloseable {
    private final long budgetBytes;
    private final Deque<SharedArray> kept = new ArrayDeque<>();
    private long keptBytes;
    private boolean closed;
    private boolean registered;

    /** @param budgetBytes most bytes of copies kept at once; 0 keeps none */
    public CopyCache(long budgetBytes) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes must be >= 0, was " + budgetBytes);
        }
        this.budgetBytes = budgetBytes;
    }

    /**
     * Takes a kept copy of exactly this dtype and shape, for the caller to overwrite. When there is none,
     * releases every kept copy first, so the caller's new copy has their space.
     *
     * @param dtype element type
     * @param shape dimensions
     * @return the copy, now the caller's, or {@code null} when none was kept
     */
    public SharedArray take(DType dtype, long[] shape) {
        synchronized (this) {
            for (Iterator<SharedArray> it = kept.iterator(); it.hasNext(); ) {
                SharedArray a = it.next();
                if (a.dtype() == dtype && Arrays.equals(a.shape(), shape)) {
                    it.remove();
                    keptBytes -= a.byteSize();
                    return a;
                }
            }
        }
        release(a -> true);
        return null;
    }

    /** @return whether nothing but {@code copy} holds it; false when its refcount cannot be read (not reused then) */
    private static boolean onlyCacheHolds(SharedArray copy) {
        try {
            return SharedArrays.totalReferences(copy) == 1;
        } catch (RuntimeException e) {
            return false; // released below instead of leaking
        }
    }

    /**
     * Offers a copy whose tasks have all finished: keeps it when only {@code copy} holds it and it fits the
     * budget once kept copies no larger than it are dropped (oldest first); releases it otherwise.
     *
     * @param copy a copy made for a task, no longer used by it
     * @return true when kept
     */
    public boolean give(SharedArray copy) {
        Deque<SharedArray> released = new ArrayDeque<>();
        boolean keep;
        synchronized (this) {
            long size = copy.byteSize();
            keep = !closed && size <= budgetBytes && onlyCacheHolds(copy) && roomAfterDroppingSmaller(size) >= size;
            if (keep) {
                for (Iterator<SharedArray> it = kept.iterator(); it.hasNext() && keptBytes + size > budgetBytes; ) {
                    SharedArray a = it.next();
                    if (a.byteSize() <= size) {
                        it.remove();
                        keptBytes -= a.byteSize();
                        released.add(a);
                    }
                }
                kept.addLast(copy);
                keptBytes += size;
                if (!registered) {
                    SharedArrays.registerArrayCache(this);
                    registered = true;
                }
            } else {
                released.add(copy);
            }
        }
        OpenedArrays.releaseAll(released);
        return keep;
    }

    /** @return the budget left if every kept copy no larger than {@code size} were dropped */
    private long roomAfterDroppingSmaller(long size) {
        long larger = 0;
        for (SharedArray a : kept) {
            if (a.byteSize() > size) {
                larger += a.byteSize();
            }
        }
        return budgetBytes - larger;
    }


    /** @return bytes of the copies kept now */
    public synchronized long keptBytes() {
        return keptBytes;
    }

    /**
     * @param where selects kept copies
     * @return bytes of the copies kept now that {@code where} selects
     */
    @Override
    public synchronized long keptBytes(Predicate<SharedArray> where) {
        long bytes = 0;
        for (SharedArray a : kept) {
            if (where.test(a)) {
                bytes += a.byteSize();
            }
        }
        return bytes;
    }

    /**
     * Releases the kept copies {@code where} selects (for an array that needs their room); later offers may be kept
     * again.
     *
     * @param where selects kept copies
     * @return the bytes released
     */
    @Override
    public long release(Predicate<SharedArray> where) {
        final Deque<SharedArray> released = new ArrayDeque<>();
        long bytes = 0;
        synchronized (this) {
            for (Iterator<SharedArray> it = kept.iterator(); it.hasNext(); ) {
                final SharedArray a = it.next();
                if (where.test(a)) {
                    it.remove();
                    keptBytes -= a.byteSize();
                    bytes += a.byteSize();
                    released.add(a);
                }
            }
        }
        OpenedArrays.releaseAll(released);
        return bytes;
    }

    /** Releases every kept copy; later offers are released at once. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        SharedArrays.unregisterArrayCache(this);
        release(a -> true);
    }
}
