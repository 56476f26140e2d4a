package dev.sharray;

import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The {@code .ref} mappings of arrays this process let go of while another process still holds them, kept for the
 * next open of the same array: a process that opens and releases an array another one holds, again and again (a
 * child handed the array trip after trip), then skips the open, read, map and close of the reference file, and its
 * unmap (a map-over and a later unmap, see {@link ReleasedRanges}): a third of such a trip on a VM that is slow at
 * changing mappings.
 *
 * <p>A kept mapping holds nothing: this process gave its slot back as ever ({@link Segments#release}), so the array
 * is deleted when its last holder releases it, by whichever process that is. It is taken back only for the file it
 * was made from: same path, same file identity (device and inode, from the {@code stat} that tells whether the array
 * has a reference file at all) and a state still {@link RefCountFile#LIVE}, and its header and slots are checked
 * again as {@link RefCountFile#open} checks them. Mappings of arrays since deleted (whose unlinked file they keep,
 * 4 KiB) are unmapped at the next open, or last release here, of any shared array that has a reference file, or at
 * {@link SharedArrays#trimRetainedMappings()}
 * (a pool's close calls it), and at most {@link #MAX} are kept (the
 * least recently released goes first). Unmaps go through {@link Mapping#unmap()} as always, so a stale access
 * faults rather than reaching another mapping. Guarded by {@link Segments}' lock.
 */
final class IdleReferenceFiles {
    /** The most reference files kept mapped without a reference: as many map entries, 64 KiB of addresses each. */
    static final int MAX = 32;

    private static final LinkedHashMap<Path, Idle> KEPT = new LinkedHashMap<>(16, 0.75f, true);

    static {
        // loaded now, by the first open: the release that keeps one may run out of file descriptors (EMFILE), and
        // then cannot read a class from its jar (OutOfDescriptorsTest)
        new Idle(null, null).getClass();
    }

    private IdleReferenceFiles() {
    }

    private record Idle(RefCountFile refs, Object fileKey) {
    }

    /**
     * @param refPath the reference file's path
     * @param fileKey its identity now ({@link java.nio.file.attribute.BasicFileAttributes#fileKey()})
     * @return the kept mapping of exactly that file, checked again, or null (then any kept one of that path is
     *     unmapped): the caller maps the file itself
     */
    static RefCountFile take(Path refPath, Object fileKey) {
        assert Thread.holdsLock(Segments.class);
        final Idle idle = KEPT.remove(refPath);
        dropDeleted();
        if (idle == null) {
            return null;
        }
        if (fileKey != null && fileKey.equals(idle.fileKey) && idle.refs.state() == RefCountFile.LIVE) {
            try {
                idle.refs.checkAgain();
                return idle.refs;
            } catch (RuntimeException e) {
                // corrupt since: unmapped below, and the caller's own open says why
            }
        }
        idle.refs.unmap();
        return null;
    }

    /**
     * Keeps {@code refs} mapped after this process's last release of its array, while the array is live; else, or
     * when its identity is unknown, unmaps it.
     */
    static void keep(RefCountFile refs, Object fileKey) {
        assert Thread.holdsLock(Segments.class);
        if (fileKey == null || refs.state() != RefCountFile.LIVE) {
            refs.unmap();
            return;
        }
        final Idle previous = KEPT.put(refs.path(), new Idle(refs, fileKey));
        if (previous != null && previous.refs != refs) {
            previous.refs.unmap(); // another open mapped the same file meanwhile: one is enough
        }
        dropDeleted();
        final Iterator<Idle> oldest = KEPT.values().iterator();
        while (KEPT.size() > MAX) {
            final Idle gone = oldest.next();
            oldest.remove();
            gone.refs.unmap();
        }
    }

    /** @return how many were unmapped: all of them (their map entries are wanted, see {@link MapEntries}) */
    static int dropAll() {
        assert Thread.holdsLock(Segments.class);
        final int n = KEPT.size();
        for (Idle i : KEPT.values()) { // no lambda: a new class wants memory (map entries) just when they are short
            i.refs.unmap();
        }
        KEPT.clear();
        return n;
    }

    /** @return how many are kept now */
    static int size() {
        synchronized (Segments.class) {
            return KEPT.size();
        }
    }

    /** Unmaps the kept files of arrays that are being or have been deleted since. */
    static void dropDeleted() {
        assert Thread.holdsLock(Segments.class);
        final Iterator<Idle> it = KEPT.values().iterator();
        while (it.hasNext()) {
            final Idle i = it.next();
            if (i.refs.state() != RefCountFile.LIVE) {
                it.remove();
                i.refs.unmap();
            }
        }
    }
}
