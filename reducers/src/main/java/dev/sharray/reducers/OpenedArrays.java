package dev.sharray.reducers;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;

import java.util.ArrayList;
import java.util.List;

/**
 * Arrays opened while reading one message, released together once its work is done (a worker
 * releases a task's arguments after the task). With {@link #keep()} the caller takes them over
 * instead (a parent hands result arrays to the user).
 *
 * <p>Not thread-safe.
 */
public final class OpenedArrays implements ArrayOpening, AutoCloseable {
    private final List<SharedArray> opened = new ArrayList<>();

    @Override
    public SharedArray open(Descriptor descriptor) {
        final SharedArray a = SharedArray.open(descriptor);
        opened.add(a);
        return a;
    }

    /** @return how many arrays are held */
    public int size() {
        return opened.size();
    }

    /**
     * @param array an array
     * @return whether {@code array} is one of the handles this object opened
     */
    public boolean contains(SharedArray array) {
        for (SharedArray a : opened) {
            if (a == array) {
                return true;
            }
        }
        return false;
    }

    /**
     * Forgets the opened arrays without releasing them: the caller owns them now.
     *
     * @return the arrays handed over (empty when none), for a caller that must release them after all
     */
    public List<SharedArray> keep() {
        if (opened.isEmpty()) {
            return List.of();
        }
        final List<SharedArray> kept = List.copyOf(opened);
        opened.clear();
        return kept;
    }

    /** Releases every array opened so far (all of them, even if one release fails). */
    @Override
    public void close() {
        final List<SharedArray> all = keep();
        releaseAll(all);
    }

    /**
     * Releases every array, even when some release throws; the first failure is rethrown afterwards with the
     * others suppressed.
     *
     * @param arrays the arrays
     */
    public static void releaseAll(Iterable<SharedArray> arrays) {
        RuntimeException first = null;
        for (SharedArray a : arrays) {
            try {
                a.release();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
