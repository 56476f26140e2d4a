package dev.sharray.pool;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
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
 * them over and releases them on RELEASE too, or at once when the result cannot be written.
 *
 * <p>Single-threaded (the worker loop). Nothing is allocated for tasks without arrays.
 */
final class TaskArrays implements ArraySharing {
    /** Nanoseconds between two trims of retained mappings while the worker idles. */
    private static final long TRIM_INTERVAL_NANOS = 2_000_000;
    private final long maxBytes;
    private final long retainBytes;
    private final OpenedArrays opened = new OpenedArrays();
    private final ArrayOpening opening = this::open;
    private boolean retaining;
    private long lastTrim;

    private SharedArray open(Descriptor descriptor) {
        if (!retaining && retainBytes > 0) {
            // first array of this worker: from now on, mappings outlive the task that opened them
            // (without a reference), so the next task on the same array maps nothing and takes no
            // page faults. Set here, not at start, so a worker that never sees an array never loads
            // the array classes.
            SharedArrays.retainMappings(retainBytes);
            retaining = true;
        }
        return opened.open(descriptor);
    }

    private final Long2ObjectHashMap<Runnable> held = new Long2ObjectHashMap<>();
    private SharingSession session;

    /**
     * @param maxBytes    heap arrays in results above this size are shared
     * @param retainBytes budget of unreferenced mappings kept between tasks (0: unmap at each task's end)
     */
    TaskArrays(long maxBytes, long retainBytes) {
        this.maxBytes = maxBytes;
        this.retainBytes = retainBytes;
    }

    /**
     * While idle: returns the memory of retained mappings whose files have been deleted (the parent released
     * the array), at most every {@value #TRIM_INTERVAL_NANOS} ns; a check reads one word per mapping.
     */
    void trimWhenIdle() {
        if (retaining) {
            final long now = System.nanoTime();
            if (now - lastTrim > TRIM_INTERVAL_NANOS) {
                lastTrim = now;
                SharedArrays.trimRetainedMappings();
            }
        }
    }

    void beginTask() {
        // never throws: the task's function must still be decoded (and a map call's cached) so this
        // worker's function table stays in step with the parent's copy of it
        try {
            opened.close();
        } catch (RuntimeException e) {
            System.err.println("sharray worker: cannot release the previous task's arrays: " + e);
        }
        abandonResult();
    }

    /** @return how many arrays the current task has opened so far (argument and function) */
    int openedCount() {
        return opened.size();
    }

    ArrayOpening opening() {
        return opening;
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

    /**
     * Drops a result that will not be sent (writing it failed, or the task is being torn down): every
     * array it would have carried is released now, exactly as the parent's RELEASE would have done, so
     * the function's own arrays (created and returned by it) do not live on until the worker exits.
     *
     * @param error the task's failure, which release failures are attached to (suppressed) so the
     *              caller still gets the original cause; {@code null} to ignore them
     */
    void abandonResult(Throwable error) {
        if (session == null) {
            return;
        }
        final SharingSession s = session;
        session = null;
        final RuntimeException failure = release(s, ownedBy(s));
        if (failure != null) {
            suppress(error, failure);
        }
    }

    /**
     * Releases what a result carried: the session's shared copies, then the function's own arrays. Every
     * release is attempted, so one failing release cannot keep the others alive until the worker exits.
     *
     * @param owned taken before the session closes: close() forgets the originals
     * @return the first failure (later ones suppressed in it), or null
     */
    private static RuntimeException release(SharingSession s, List<SharedArray> owned) {
        RuntimeException first = null;
        try {
            s.close();
        } catch (RuntimeException e) {
            first = e;
        }
        try {
            OpenedArrays.releaseAll(owned);
        } catch (RuntimeException e) {
            if (first == null) {
                first = e;
            } else {
                first.addSuppressed(e);
            }
        }
        return first;
    }

    void abandonResult() {
        abandonResult(null);
    }

    private static void suppress(Throwable error, RuntimeException e) {
        if (error != null && error != e) {
            error.addSuppressed(e);
        }
    }

    /**
     * The handles a result refers to that no argument opened: the function created them (or views of
     * them), so they are handed over with the result and the pool releases them in the function's place.
     */
    private List<SharedArray> ownedBy(SharingSession s) {
        final List<SharedArray> owned = new ArrayList<>();
        for (SharedArray a : s.sharedOriginals()) {
            if (!opened.contains(a)) {
                owned.add(a);
            }
        }
        return owned;
    }

    /** Ends a task: its argument arrays are released; result arrays wait for RELEASE when {@code holdResult}. */
    void endTask(long taskId, boolean holdResult) {
        if (holdResult && session != null) {
            final SharingSession s = session;
            final List<SharedArray> owned = ownedBy(s);
            session = null;
            held.put(taskId, () -> {
                final RuntimeException failure = release(s, owned);
                if (failure != null) { // the parent has its answer already: say it on the forwarded stderr
                    System.err.println("sharray worker: cannot release the arrays of result " + taskId + ": " + failure);
                }
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

    /** Drops every retained mapping (the worker is stopping). */
    void releaseAll() {
        for (Runnable r : new ArrayList<>(held.values())) {
            r.run();
        }
        held.clear();
        abandonResult();
        opened.close();
    }
}
