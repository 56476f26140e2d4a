package dev.sharray.pool;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import dev.sharray.reducers.ArrayOpening;
import dev.sharray.reducers.ArraySharing;
import dev.sharray.reducers.OpenedArrays;
import dev.sharray.reducers.SharingSession;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * The worker's bookkeeping of shared arrays: those a task's argument opened (released when the task
 * ends) and those its result refers to (held until the parent has opened them and says RELEASE).
 * Shared arrays a function returns that it did not receive are the function's own: the pool takes
 * them over and releases them on RELEASE too.
 *
 * <p>Single-threaded (the worker loop). Nothing is allocated for tasks without arrays.
 */
final class TaskArrays implements ArraySharing {
    private final long maxBytes;
    private final OpenedArrays opened = new OpenedArrays();
    private final Long2ObjectHashMap<Runnable> held = new Long2ObjectHashMap<>();
    private SharingSession session;

    TaskArrays(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    void beginTask() {
        opened.close();
        abandonResult();
    }

    ArrayOpening opening() {
        return opened;
    }

    ArraySharing resultSharing() {
        return this;
    }

    @Override
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public Descriptor share(SharedArray array) {
        return session().share(array);
    }

    @Override
    public Descriptor shareCopy(Object array) {
        return session().shareCopy(array);
    }

    private SharingSession session() {
        if (session == null) {
            session = new SharingSession(maxBytes, null);
        }
        return session;
    }

    boolean resultHoldsArrays() {
        return session != null && session.size() > 0;
    }

    void abandonResult() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    /** Ends a task: its argument arrays are released; result arrays wait for RELEASE when {@code holdResult}. */
    void endTask(long taskId, boolean holdResult) {
        if (holdResult && session != null) {
            final SharingSession s = session;
            final List<SharedArray> owned = new ArrayList<>();
            for (SharedArray a : s.sharedOriginals()) {
                if (!opened.contains(a)) {
                    owned.add(a);
                }
            }
            session = null;
            held.put(taskId, () -> {
                s.close();
                owned.forEach(SharedArray::release);
            });
        } else {
            abandonResult();
        }
        opened.close();
    }

    void releaseResult(long taskId) {
        final Runnable r = held.remove(taskId);
        if (r != null) {
            r.run();
        }
    }

    void releaseAll() {
        for (Runnable r : new ArrayList<>(held.values())) {
            r.run();
        }
        held.clear();
        abandonResult();
        opened.close();
    }
}
