package dev.sharray;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One array file mapped into this process, shared by every handle (base array and views) on it. Holds
 * this process's references: in the refcount file's slot for sharray arrays, or in a local counter for a
 * user's own {@code .npy} file (which sharray never deletes).
 */
final class Segment {
    final Path dataPath;
    final Path refPath;
    final Mapping mapping;
    final NpyHeader header;
    final RefCountFile refs;
    /**
     * This process's slot in {@link #refs} while the segment is open: given back when its last reference goes,
     * claimed again when a retained mapping is reused. Written under {@link Segments}' lock, before the segment
     * is handed out.
     */
    int slot;
    /**
     * The identity of {@link #refPath}'s file when it was opened ({@link java.nio.file.attribute.BasicFileAttributes#fileKey()}),
     * by which {@link IdleReferenceFiles} may keep its mapping after the last release; null when not known (a create).
     */
    Object refKey;
    /** Blocks of {@link #mapping} this process has populated, created on the first {@link SharedArray#prefault()}. */
    private volatile PopulatedBlocks populated;
    private final AtomicLong localCount;
    /** Guarded by {@link Segments}' lock. */
    boolean closed;
    /**
     * Set by the exit hook before it drops this process's references on the file ({@link Segments#onExit()}):
     * threads that still run then release handles whose references are gone already.
     */
    volatile boolean droppedAtExit;

    Segment(Path dataPath, Path refPath, Mapping mapping, NpyHeader header, RefCountFile refs, int slot, long initialLocal) {
        this.dataPath = dataPath;
        this.refPath = refPath;
        this.mapping = mapping;
        this.header = header;
        this.refs = refs;
        this.slot = slot;
        this.localCount = refs == null ? new AtomicLong(initialLocal) : null;
    }

    /** @return the record of this mapping's populated blocks, created on first use */
    PopulatedBlocks populated() {
        PopulatedBlocks p = populated;
        if (p == null) {
            synchronized (this) {
                p = populated;
                if (p == null) {
                    p = new PopulatedBlocks(mapping.length());
                    populated = p;
                }
            }
        }
        return p;
    }

    boolean isShared() {
        return refs != null;
    }

    /** Adds a reference (a new open, a view: see {@link Segments#tryAddRef}); fails if the array is being deleted. */
    boolean tryAddRef() {
        if (refs != null) {
            return refs.tryAcquire(slot);
        }
        localCount.incrementAndGet();
        return true;
    }

    /** @return this process's remaining references after dropping one */
    long dropRef() {
        return refs != null ? refs.decrement(slot) : localCount.decrementAndGet();
    }

    long localReferences() {
        return refs != null ? refs.count(slot) : localCount.get();
    }

    /** @return references of every process that holds a slot (dead ones until reclaimed: an upper bound) */
    long totalReferences() {
        return refs != null ? refs.total() : localCount.get();
    }
}
