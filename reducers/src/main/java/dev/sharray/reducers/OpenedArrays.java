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

    /** Forgets the opened arrays without releasing them: the caller owns them now. */
    public void keep() {
        opened.clear();
    }

    /** Releases every array opened so far. */
    @Override
    public void close() {
        for (SharedArray a : opened) {
            a.release();
        }
        opened.clear();
    }
}
