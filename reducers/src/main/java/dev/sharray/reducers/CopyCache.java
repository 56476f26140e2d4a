package dev.sharray.reducers;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;

/**
 * Shared copies of heap arrays kept after their tasks, so the next call that passes a heap array of the same
 * dtype and shape copies into memory that is already allocated and mapped: creating, faulting in and
 * freeing a 1 GiB copy costs about three times the copy itself. Owned by one pool and bounded by a byte
 * budget (the oldest copies go first); {@link #close()} releases everything it keeps.
 *
 * <p>A copy is only kept when nothing but its owner's handle holds it
 * ({@link SharedArrays#totalReferences}): a task that returned the copy it received, or kept a reference to
 * it, leaves it with its holders, since writing the next call's data into it would change what they see.
 *
 * <p>Thread-safe.
 */
public final class CopyCache implements AutoCloseable {
    private final long budgetBytes;
    private final Deque<SharedArray> kept = new ArrayDeque<>();
    private long keptBytes;
    private boolean closed;

    /** @param budgetBytes most bytes of copies kept at once; 0 keeps none */
    public CopyCache(long budgetBytes) {
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes must be >= 0, was " + budgetBytes);
        }
        this.budgetBytes = budgetBytes;
    }

    /**
     * Takes a kept copy of exactly this dtype and shape, for the caller to overwrite.
     *
     * @param dtype element type
     * @param shape dimensions
     * @return the copy, now the caller's, or {@code null} when none is kept
     */
    public synchronized SharedArray take(DType dtype, long[] shape) {
        for (Iterator<SharedArray> it = kept.iterator(); it.hasNext(); ) {
            SharedArray a = it.next();
            if (a.dtype() == dtype && Arrays.equals(a.shape(), shape)) {
                it.remove();
                keptBytes -= a.byteSize();
                return a;
            }
        }
        return null;
    }

    /**
     * Offers a copy whose tasks have all finished: keeps it when only {@code copy} holds it and it fits the
     * budget (dropping the oldest kept copies to make room), releases it otherwise.
     *
     * @param copy a copy made for a task, no longer used by it
     * @return true when kept
     */
    public boolean give(SharedArray copy) {
        SharedArray toRelease = copy;
        boolean keep;
        Deque<SharedArray> evicted = new ArrayDeque<>();
        synchronized (this) {
            long size = copy.byteSize();
            keep = !closed && size <= budgetBytes && SharedArrays.totalReferences(copy) == 1;
            if (keep) {
                while (keptBytes + size > budgetBytes) {
                    SharedArray oldest = kept.removeFirst();
                    keptBytes -= oldest.byteSize();
                    evicted.add(oldest);
                }
                kept.addLast(copy);
                keptBytes += size;
                toRelease = null;
            }
        }
        for (SharedArray a : evicted) {
            a.release();
        }
        if (toRelease != null) {
            toRelease.release();
        }
        return keep;
    }

    /** @return bytes of the copies kept now */
    public synchronized long keptBytes() {
        return keptBytes;
    }

    /** Releases every kept copy; later offers are released at once. Idempotent. */
    @Override
    public void close() {
        Deque<SharedArray> all;
        synchronized (this) {
            closed = true;
            all = new ArrayDeque<>(kept);
            kept.clear();
            keptBytes = 0;
        }
        RuntimeException first = null;
        for (SharedArray a : all) {
            try {
                a.release();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
