package dev.sharray.reducers;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.HeapArray;
import dev.sharray.InsufficientSpaceException;
import dev.sharray.SharedArray;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arrays pinned or copied for one unit of work (one submitted task, or all tasks of one
 * {@code map} call): each shared array instance is retained once, each large heap array instance is
 * copied once, whatever the number of times it is written; {@link #close()} releases all of it.
 *
 * <p>Thread-safe: a map call encodes from one thread, but the release comes from another.
 */
public final class SharingSession implements ArraySharing, AutoCloseable {
    private final long maxBytes;
    private final Path root;
    private final CopyCache cache;
    // Each made on first use: most tasks share no array at all, and a session is made per task.
    /** Arrays already shared, by identity. */
    private Map<Object, Descriptor> seen = Map.of();
    /** The references this session took on shared arrays ({@link #share}), in order. */
    private List<SharedArray> held = List.of();
    /** The arrays as the caller passed them, in the order of {@link #held}. */
    private List<SharedArray> originals = List.of();
    /** The copies of heap arrays this session made or took from the cache. */
    private List<SharedArray> copies = List.of();
    private boolean closed;

    /**
     * @param maxBytes heap arrays above this size are copied into shared memory
     * @param root     root folder for those copies, or {@code null} for the default
     */
    public SharingSession(long maxBytes, Path root) {
        this(maxBytes, root, null);
    }

    /**
     * @param maxBytes heap arrays above this size are copied into shared memory
     * @param root     root folder for those copies, or {@code null} for the default
     * @param cache    where copies come from when one of the same dtype and shape is kept, and go back to
     *                 on {@link #close()}; {@code null} to create and release every copy
     */
    public SharingSession(long maxBytes, Path root, CopyCache cache) {
        this.maxBytes = maxBytes;
        this.root = root;
        this.cache = cache;
    }

    @Override
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public synchronized Descriptor share(SharedArray array) {
        checkOpen();
        Descriptor d = seen.get(array);
        if (d == null) {
            final SharedArray pinned = array.retain();
            if (held.isEmpty()) {
                held = new ArrayList<>(2);
                originals = new ArrayList<>(2);
            }
            held.add(pinned);
            originals.add(array);
            d = pinned.descriptor();
            remember(array, d);
        }
        return d;
    }

    private void remember(Object array, Descriptor d) {
        if (seen.isEmpty()) {
            seen = new IdentityHashMap<>(4);
        }
        seen.put(array, d);
    }

    @Override
    public synchronized Descriptor shareCopy(Object array) {
        checkOpen();
        Descriptor d = seen.get(array);
        if (d == null) {
            final SharedArray copy = copy(array);
            if (copies.isEmpty()) {
                copies = new ArrayList<>(2);
            }
            copies.add(copy);
            d = copy.descriptor();
            remember(array, d);
        }
        return d;
    }

    private SharedArray copy(Object array) {
        final Object data;
        final DType dtype;
        final long[] shape;
        if (array instanceof HeapArray) {
            final HeapArray h = (HeapArray) array;
            data = h.data();
            dtype = h.dtype();
            shape = h.shape();
        } else {
            data = array;
            dtype = dtypeOf(array);
            shape = new long[] {java.lang.reflect.Array.getLength(array)};
        }
        SharedArray s = cache == null ? null : cache.take(dtype, shape);
        if (s == null) {
            try {
                s = SharedArray.builder(dtype, shape).folder(root).create();
            } catch (InsufficientSpaceException e) {
                // the user named neither this folder nor this array: the advice for their own creates would mislead
                throw e.withRemedy("a pool copies heap arrays above its maxBytes into its temp folder: name another with"
                    + " ProcessPool.Builder.tempFolder, or free space there");
            }
        }
        try {
            // copyFrom populates a big fresh copy's pages before it writes them
            PrimitiveArrays.copyInto(s, data);
            return s;
        } catch (RuntimeException e) {
            s.release();
            throw e;
        }
    }

    static DType dtypeOf(Object primitiveArray) {
        if (primitiveArray instanceof double[]) {
            return DType.FLOAT64;
        } else if (primitiveArray instanceof float[]) {
            return DType.FLOAT32;
        } else if (primitiveArray instanceof long[]) {
            return DType.INT64;
        } else if (primitiveArray instanceof int[]) {
            return DType.INT32;
        } else if (primitiveArray instanceof short[]) {
            return DType.INT16;
        } else if (primitiveArray instanceof byte[]) {
            return DType.INT8;
        }
        throw new IllegalArgumentException("no dtype for " + primitiveArray.getClass().getSimpleName());
    }

    /** @return how many arrays this session pins or owns */
    public synchronized int size() {
        return held.size() + copies.size();
    }

    /**
     * @return whether this session pins a caller's shared array ({@link #share}); its copies of heap arrays do not
     *     count: a reader rebuilds those on its heap and holds no mapping of them (unless a user reducer reads one
     *     with {@link ValueReader#readValueKeepingShared()}, which a pool worker sees as it decodes)
     */
    public synchronized boolean pinsSharedArrays() {
        return !held.isEmpty();
    }

    /** @return the bytes of the heap arrays this session copied into shared memory (or took copies of from the cache) */
    public synchronized long copiedBytes() {
        long bytes = 0;
        for (SharedArray copy : copies) {
            bytes += copy.size() * copy.dtype().byteSize();
        }
        return bytes;
    }

    /** @return the shared array handles written through {@link #share}, as passed in (not the pinned copies) */
    public synchronized List<SharedArray> sharedOriginals() {
        return new ArrayList<>(originals);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("sharing session already released");
        }
    }

    /** Releases every pinned reference, and every copy (or hands it back to the cache). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException first = null;
        try {
            OpenedArrays.releaseAll(held);
        } catch (RuntimeException e) {
            first = e;
        }
        for (SharedArray a : copies) {
            try {
                if (cache != null) {
                    cache.give(a);
                } else {
                    a.release();
                }
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        held = List.of();
        copies = List.of();
        originals = List.of();
        seen = Map.of();
        if (first != null) {
            throw first;
        }
    }
}
