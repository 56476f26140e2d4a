package dev.sharray;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The files mapped in this process, keyed by real path, so every open of one array shares one mapping and
 * one refcount slot. Mapping, unmapping and deletion happen here, on the thread that opens or releases:
 * never on a finalizer, cleaner or reference-queue thread.
 */
final class Segments {
    private static final Map<Path, Segment> OPEN = new HashMap<>();
    /** Unreferenced mappings kept for reuse (LRU), see {@link #retainMappings(long)}. Guarded by the class lock. */
    private static final java.util.LinkedHashMap<Path, Segment> RETIRED = new java.util.LinkedHashMap<>(16, 0.75f, true);
    private static long retainBudget;
    private static long retainedBytes;
    private static volatile boolean exitHookInstalled;
    /**
     * Set when the exit hook begins (under the class lock): an array created after that would outlive the process
     * until a reaper pass.
     */
    private static volatile boolean exiting;
    /**
     * Data files of creates in progress (guarded by the class lock): the exit hook waits for them to register or
     * roll back, as it sees only registered arrays and the JVM halts, mid-create too, once the hooks end.
     */
    private static final java.util.Set<Path> CREATING = new java.util.HashSet<>();
    /**
     * Left in its folder by an owner whose exit found arrays there that other processes still hold (its pool's
     * workers, ending with it after a Ctrl-C to the process group): the last release of those removes the folder,
     * though the owner may still be running its exit. Only the owner makes files in its folder, and not once its
     * exit has begun, so a folder holding nothing else is done with.
     */
    static final String OWNER_EXITED = ".owner-exited";
    /** How long the exit hook waits for creates in progress; it deletes the files of those still going after. */
    private static final long CREATE_GRACE_MILLIS = 2_000;
    /**
     * Last releases of shared arrays past their close, whose deletion attempt has not ended: the exit hook no longer
     * sees them among the open ones, and waits for them (as for creates) before the JVM halts and ends their thread.
     */
    private static final java.util.Set<Segment> RELEASING =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** Test hook (null in use): runs in a create between making its files and registering them. */
    static volatile Runnable beforeRegister;
    /** Test hook (null in use): runs in a release that dropped this process's last local reference, before its lock. */
    static volatile Runnable afterLastLocalReference;
    /** Test hook (null in use): runs in a last local release between closing the segment and giving its slot back. */
    static volatile Runnable beforeSlotGivenBack;
    /** Test hook (null in use): runs in a last release of a shared array once it is closed, before its deletion attempt. */
    static volatile Runnable afterClosed;
    /** Test hook (null in use): runs in an open of a shared array between taking its reference and mapping its data. */
    static volatile Runnable afterOpenAcquired;

    private Segments() {
    }

    static Path refPathFor(Path dataPath) {
        String name = dataPath.getFileName().toString();
        return dataPath.resolveSibling(name.substring(0, name.length() - ".npy".length()) + ".ref");
    }

    /**
     * Begins a create of {@code dataPath} (and its refcount file); end it with {@link #endCreate} whatever happens.
     *
     * @throws IllegalStateException when the exit hook has begun
     */
    static void beginCreate(Path dataPath) {
        installExitHook(); // before the create makes files: they are deleted at exit even if it never registers
        synchronized (Segments.class) {
            checkNotExiting();
            CREATING.add(dataPath);
        }
    }

    /** Ends a create begun with {@link #beginCreate}: registered, or rolled back with its files deleted. */
    static synchronized void endCreate(Path dataPath) {
        CREATING.remove(dataPath);
        Segments.class.notifyAll();
    }

    /**
     * Registers a freshly created array whose refcount file already records our one reference.
     *
     * @throws IllegalStateException when the exit hook has begun since the create did: the hook did not see this
     *     array, so the create must delete it
     */
    static Segment register(Path dataPath, Mapping mapping, NpyHeader header, RefCountFile refs) {
        runHook(beforeRegister); // outside the lock: a test holds the create here while the exit hook takes it
        return registerLocked(dataPath, mapping, header, refs);
    }

    private static synchronized Segment registerLocked(Path dataPath, Mapping mapping, NpyHeader header, RefCountFile refs) {
        installExitHook();
        checkNotExiting();
        Segment s = new Segment(dataPath, refs.path(), mapping, header, refs, 0, 0);
        OPEN.put(dataPath, s);
        return s;
    }

    /** Undoes {@link #register} for a create that failed before handing out its handle. */
    static synchronized void unregister(Segment s) {
        OPEN.remove(s.dataPath, s);
    }

    /**
     * Opens (or reuses) the mapping of a sharray array file and takes one reference on it.
     *
     * @param refKey the identity of its reference file now ({@link #referenceFileKey}), by which a mapping of it
     *     kept since this process's last release is taken back ({@link IdleReferenceFiles})
     * @throws IllegalStateException when the array has been released everywhere
     */
    static synchronized Segment openShared(Path realDataPath, Object refKey) {
        installExitHook();
        final Segment existing = reuseOpen(realDataPath);
        if (existing != null) {
            return existing;
        }
        final Segment retired = reuseRetired(realDataPath);
        if (retired != null) {
            return retired;
        }
        Path refPath = refPathFor(realDataPath);
        final RefCountFile kept = IdleReferenceFiles.take(refPath, refKey);
        try {
            ensureRoom(kept == null ? 2 : 1, realDataPath + (kept == null ? " (its data and .ref files)" : ""));
        } catch (RuntimeException e) {
            if (kept != null) {
                kept.unmap();
            }
            throw e;
        }
        RefCountFile refs = kept != null ? kept : RefCountFile.open(refPath);
        try {
            int slot = refs.claimSlot();
            refs.reclaimDead();
            if (!refs.tryAcquire(slot)) {
                refs.freeSlot(slot);
                throw released(realDataPath);
            }
            try {
                runHook(afterOpenAcquired);
                Segment s = mapData(realDataPath, refPath, refs, slot);
                s.refKey = refKey;
                OPEN.put(realDataPath, s);
                return s;
            } catch (RuntimeException e) {
                giveBackFailedOpen(refs, slot, realDataPath, e);
                throw e;
            }
        } catch (RuntimeException e) {
            refs.unmap();
            throw e;
        }
    }

    /**
     * Gives back the reference of an open that failed after taking it (a data file that cannot be mapped or read).
     * Every other holder may have released meanwhile, each seeing this reference and leaving the files: the last
     * reference is then this one, and deleting the array falls to this open, as to a last release.
     */
    private static void giveBackFailedOpen(RefCountFile refs, int slot, Path dataPath, RuntimeException failure) {
        refs.decrement(slot);
        boolean deleted = false;
        try {
            deleted = deleteIfUnreferenced(refs, dataPath) >= 0;
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        if (deleted) {
            removeFolderIfOwnerEnded(dataPath.getParent());
        } else {
            refs.freeSlot(slot);
        }
    }

    /**
     * {@link MapEntries#ensureRoom}, first unmapping the reference files kept without a reference when this process
     * is short of map entries. Creates, opens and maps of users' files all ask here; only a refusal takes the lock
     * (a create's count of the entries, a millisecond per thousand, must not hold up other threads' releases).
     */
    static void ensureRoom(int entries, String what) {
        ReleasedRanges.prepare(); // while this process can open files: its releases will need none
        try {
            MapEntries.ensureRoom(entries, what);
        } catch (MapLimitException e) {
            synchronized (Segments.class) {
                if (IdleReferenceFiles.dropAll() == 0) {
                    throw e;
                }
            }
            MapEntries.ensureRoom(entries, what);
        }
    }

    /**
     * @param realDataPath an array file's real path
     * @return the identity of the array's reference file (device and inode), or null when it has none (a user's
     *     {@code .npy} file) or it cannot be told
     */
    static Object referenceFileKey(Path realDataPath) {
        try {
            final Object key = Files.readAttributes(refPathFor(realDataPath),
                java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return key != null ? key : NO_FILE_KEY;
        } catch (IOException e) {
            return null; // as Files.exists says: no reference file (here)
        }
    }

    /** The identity of a reference file where the file system gives none: such a mapping is never kept. */
    static final Object NO_FILE_KEY = new Object();

    /**
     * @param realPath a file's real path
     * @return the file's segment with one more reference when this process has it open, else {@code null}
     * @throws IllegalStateException when it is open here but its last holder anywhere has released it
     */
    static synchronized Segment reuseOpen(Path realPath) {
        final Segment existing = OPEN.get(realPath);
        if (existing == null || existing.closed) {
            return null;
        }
        if (!existing.tryAddRef()) {
            throw released(realPath);
        }
        return existing;
    }

    /**
     * One more reference for a new handle (a view, {@code retain()}) on {@code s}, unless its last handle's
     * release closed it meanwhile: another thread may release that handle between the caller's check and this
     * call, and a reference added to a closed segment would count on unmapped memory.
     *
     * @return false when {@code s} is closed, or its array is being deleted
     */
    static synchronized boolean tryAddRef(Segment s) {
        return !s.closed && s.tryAddRef();
    }

    /**
     * Reuses the mapping of a sharray array file that this process maps now (open or retained) under exactly
     * {@code path}, with one more reference, and without a file system call: a worker opens the same array's
     * chunks task after task, and resolving the path each time was its largest cost per task. Such a path was
     * a real path in a sharray folder when the file was mapped, and nothing new is mapped here; a user's own
     * {@code .npy} file (no refcount file) never qualifies, so a descriptor cannot reach it this way.
     *
     * @param path a descriptor's path, as given
     * @return the segment, or {@code null} when the caller must resolve the path and open it in full
     * @throws IllegalStateException when it is open here but its last holder anywhere has released it
     */
    static synchronized Segment reuseMappedArray(Path path) {
        final Segment open = OPEN.get(path);
        if (open != null) {
            return open.refs == null ? null : reuseOpen(path);
        }
        return reuseRetired(path);
    }

    /** A retained mapping of {@code realPath} taken back into use with one reference, or null (then unmapped if dead). */
    private static Segment reuseRetired(Path realPath) {
        final Segment retired = RETIRED.remove(realPath);
        if (retired == null) {
            return null;
        }
        retainedBytes -= retired.mapping.length();
        retired.refs.reclaimDeadUnlessHeld();
        if (retired.refs.state() == RefCountFile.LIVE) {
            try {
                retired.slot = retired.refs.claimSlot(); // given back when it was retired
            } catch (IllegalStateException e) { // every slot taken by live processes
                unmapRetired(retired);
                throw e;
            }
            if (retired.refs.tryAcquire(retired.slot)) {
                retired.closed = false;
                OPEN.put(realPath, retired);
                return retired;
            }
            retired.refs.freeSlot(retired.slot);
        }
        unmapRetired(retired);
        return null;
    }

    /** Opens (or reuses) a user's {@code .npy} file: mapped and counted in this process only. */
    static synchronized Segment openExternal(Path realPath) {
        installExitHook();
        final Segment existing = reuseOpen(realPath);
        if (existing != null) {
            return existing;
        }
        ensureRoom(1, realPath.toString());
        Segment s = mapData(realPath, null, null, -1);
        OPEN.put(realPath, s);
        return s;
    }

    /** Reads the header and maps the file through one channel (AGRONA) or Chronicle for large files. */
    private static Segment mapData(Path file, Path refPath, RefCountFile refs, int slot) {
        // not through a link: one swapped in for the checked file would map what it names
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            final long size = ch.size(); // asked once: each call is a system call
            final NpyHeader header;
            try {
                header = NpyHeader.read(ch, size);
            } catch (InvalidDescriptorException e) {
                throw new InvalidDescriptorException(file, e);
            } catch (IOException e) {
                // a read, not a mapping: said so, as a user reading "cannot map" would look at the wrong limits
                throw new UncheckedIOException("cannot read the header of " + file + ": " + e.getMessage(), e);
            }
            long length = mappedLength(size, header);
            if (refs == null) {
                // a user's file may have holes (a sparse .npy): reserve them now, as create preallocates sharray's own,
                // so a full file system refuses the open rather than a later write with SIGBUS. Not sharray's own
                // files: create reserved them, and the check's first use loads the C library binding, ~200 ms of
                // a pool worker's first task
                BlockReservation.reserve(file, length);
            }
            // by the length actually mapped (a page-rounded file can be 2 GiB when header + data is just under)
            Mapping mapping = length <= AgronaMapping.MAX_LENGTH ? AgronaMapping.map(ch, file, length)
                : length % 4096 != 0 ? PosixMapping.map(file, length) // Chronicle would grow the file to a page
                : Mapping.map(file, length, Backing.MAPPED_FILE);
            return new Segment(file, refPath, mapping, header, refs, slot, refs == null ? 1 : 0);
        } catch (java.nio.file.NoSuchFileException e) {
            throw released(file);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new UncheckedIOException("no read-write access to " + file, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + file + ": " + e.getMessage(), e);
        }
    }

    /** The whole file when it is a page multiple (sharray's own files), else exactly header plus data. */
    private static long mappedLength(long size, NpyHeader header) {
        long needed = header.dataOffset + header.dataBytes();
        return size % 4096 == 0 && size <= needed + 4096 ? size : needed;
    }

    static NpyHeader readHeader(Path file) {
        // a short read that waits for nobody: an interrupt would close its channel (a listing on an interrupted thread)
        return InterruptsSetAside.call(() -> readHeaderNow(file));
    }

    private static NpyHeader readHeaderNow(Path file) {
        // a FIFO planted under an array's name would block a read-only open until someone writes to it
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new UncheckedIOException(new IOException(file + " is not a regular file"));
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            return NpyHeader.read(ch);
        } catch (java.nio.file.NoSuchFileException e) {
            throw released(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    static IllegalStateException released(Path file) {
        return new IllegalStateException("the array " + file + " has been released by all its holders");
    }

    /**
     * Drops one reference; the last one in this process unmaps (or retires the mapping for reuse, see
     * {@link #retainMappings(long)}), the last one anywhere deletes the files.
     */
    static void release(Segment s) {
        final long left;
        try {
            left = s.dropRef();
        } catch (IllegalStateException e) {
            if (s.droppedAtExit) {
                return; // the exit hook dropped this handle's reference, while this thread still ran
            }
            throw e;
        }
        if (left != 0) {
            return;
        }
        runHook(afterLastLocalReference);
        boolean retire;
        synchronized (Segments.class) {
            if (s.closed || s.localReferences() != 0 || s.droppedAtExit) {
                // reopened meanwhile, or already closed; or the process is exiting: its mappings are left to it,
                // as other threads may still use handles whose references the exit hook dropped
                return;
            }
            s.closed = true;
            OPEN.remove(s.dataPath, s);
            retire = s.refs != null && s.mapping.length() <= retainBudget;
            if (s.refs != null) {
                RELEASING.add(s);
            }
        }
        if (s.refs == null) {
            s.mapping.unmap();
            return;
        }
        try {
            runHook(afterClosed);
            finishLastRelease(s, retire);
        } finally {
            synchronized (Segments.class) {
                RELEASING.remove(s);
                Segments.class.notifyAll(); // the exit hook may wait for it
            }
        }
    }

    /** The rest of a last release of a shared array once closed: the deletion attempt, the slot, the mappings. */
    private static void finishLastRelease(Segment s, boolean retire) {
        s.refs.reclaimDeadUnlessHeld();
        // Deleted while still mapped here, unmapped after: unlinking a file nobody maps frees its pages inside
        // the unlink (~20 ms for 512 MiB of tmpfs), a long window for a kill -9 to leave a half-deleted array.
        final boolean deleted = deleteIfUnreferenced(s.refs, s.dataPath) >= 0;
        if (deleted) {
            removeFolderIfOwnerEnded(s.dataPath.getParent());
        }
        runHook(beforeSlotGivenBack);
        final boolean refsKept;
        synchronized (Segments.class) {
            // The slot (at 0 references) is given back only after the attempt to delete: a process killed before
            // that attempt ends then still has a slot here, by which reapProcess of its pid finds the array (given
            // back first, the array stayed until a full reaper pass). Under the lock, and only when no segment of
            // the file is open here: every segment of this process counts in this one slot, and one opened
            // meanwhile may be at 0 for a moment (its last handle released, its close not yet done). Freed then,
            // a reference taken next on that open segment counted in a free slot, which no total sees: the array
            // was deleted under it by another process's last release.
            if (!deleted && OPEN.get(s.dataPath) == null) {
                s.refs.freeSlot(s.slot);
            }
            // kept for the next open of a live array (an array we deleted is not): that open then neither maps it nor
            // this release unmaps it. It holds no slot, so it keeps no array alive
            refsKept = !retire && !deleted && s.refKey != null && s.refKey != NO_FILE_KEY;
            if (refsKept) {
                IdleReferenceFiles.keep(s.refs, s.refKey);
                referenceFilesKept = true;
            } else if (referenceFilesKept) {
                IdleReferenceFiles.dropDeleted(); // as keep does: its Javadoc promises it at every release
            }
            if (retire) {
                // another thread may have opened and retired the same file between our release and this lock
                final Segment previous = RETIRED.put(s.dataPath, s);
                if (previous != null && previous != s) {
                    retainedBytes -= previous.mapping.length();
                    unmapRetired(previous);
                }
                retainedBytes += s.mapping.length();
                trimLocked();
                return;
            }
        }
        s.mapping.unmap();
        if (!refsKept) {
            s.refs.unmap();
        }
    }

    /**
     * Keeps up to {@code maxBytes} of unreferenced mappings of shared arrays for reuse by a later open of
     * the same file: worker processes that see the same big array task after task then skip the mmap and
     * the page faults. A retained mapping holds no reference (the file is deleted as usual when the last
     * holder releases it); its memory is returned when {@link #trimRetained()} finds the file deleted, when
     * the budget is exceeded, or at exit. 0 (the default) turns it off.
     */
    static synchronized void retainMappings(long maxBytes) {
        retainBudget = Math.max(0, maxBytes);
        trimLocked();
    }

    /** Unmaps retained mappings, and kept reference files, whose file was deleted; call it when idle. */
    static synchronized void trimRetained() {
        trimLocked();
        if (referenceFilesKept) {
            IdleReferenceFiles.dropDeleted();
        }
    }

    /**
     * Whether a release kept a reference file mapped (under the lock): until then nothing is kept, and a release does
     * not load {@link IdleReferenceFiles}, which a first release out of file descriptors could not (OutOfDescriptorsTest).
     */
    private static boolean referenceFilesKept;

    static synchronized long retainedBytes() {
        return retainedBytes;
    }

    private static void trimLocked() {
        java.util.Iterator<Segment> it = RETIRED.values().iterator();
        while (it.hasNext()) {
            Segment r = it.next();
            if (r.refs.state() != RefCountFile.LIVE || retainedBytes > retainBudget) {
                it.remove();
                retainedBytes -= r.mapping.length();
                unmapRetired(r);
            }
        }
    }

    private static void unmapRetired(Segment r) {
        r.mapping.unmap();
        r.refs.unmap();
    }

    /**
     * Deletes the array's files if no process holds a reference (exactly once, across processes).
     *
     * @return bytes freed, or -1 when the array is still held
     */
    static long deleteIfUnreferenced(RefCountFile refs, Path dataPath) {
        return refs.tryBeginDelete() ? deleteFiles(refs, dataPath) : -1;
    }

    /**
     * Finishes the deletion of an array whose deleter was killed midway ({@link RefCountFile#tryTakeOverDelete()}).
     *
     * @return bytes freed, or -1 when there was none to finish (or the array turned out to be held)
     */
    static long finishAbandonedDelete(RefCountFile refs, Path dataPath) {
        return refs.tryTakeOverDelete() ? deleteFiles(refs, dataPath) : -1;
    }

    private static long deleteFiles(RefCountFile refs, Path dataPath) {
        long bytes = 0;
        try {
            bytes = Files.size(dataPath);
        } catch (IOException e) {
            // the data file is already gone (deleted by hand): the reference file must go all the same
        }
        try {
            Files.deleteIfExists(dataPath);
        } catch (IOException e) {
            Log.get().warn("could not delete {}: {}", dataPath, e.toString());
        }
        try {
            Files.deleteIfExists(refs.path());
        } catch (IOException e) {
            Log.get().warn("could not delete {}: {}", refs.path(), e.toString());
        } finally {
            refs.markDeleted();
        }
        return bytes;
    }

    /**
     * After deleting an array: when its folder belongs to a process that has ended (a crashed worker's array its
     * parent held on to), removes the folder if that left it empty, as the reaper would later. An owner's own
     * folder is never touched here: its owner is alive.
     */
    private static void removeFolderIfOwnerEnded(Path folder) {
        final long[] owner = folder == null || folder.getFileName() == null ? null
            : TempFolders.parseOwner(folder.getFileName().toString());
        if (owner == null || ProcessIdentity.isAlive(owner[0], owner[1])
                && !Files.exists(folder.resolve(OWNER_EXITED), LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        removeIfDone(folder);
    }

    /**
     * Removes an owner's folder that is empty, or holds only the {@link #OWNER_EXITED} mark. Each last release looks
     * after its own deletion, so the last of several concurrent ones sees the folder done with.
     *
     * @return whether the folder is gone
     */
    private static boolean removeIfDone(Path folder) {
        try {
            Files.deleteIfExists(folder);
            return true;
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            try (java.util.stream.Stream<Path> entries = Files.list(folder)) {
                if (!entries.allMatch(p -> p.getFileName().toString().equals(OWNER_EXITED))) {
                    return false; // another array of that process is still held
                }
                Files.deleteIfExists(folder.resolve(OWNER_EXITED));
                Files.deleteIfExists(folder);
                return true;
            } catch (IOException | java.io.UncheckedIOException again) {
                return false; // removed meanwhile by another last release or a reaper, or it cannot be now
            }
        } catch (IOException e) {
            return false; // a reaper claimed it first, or it cannot be removed now
        }
    }

    static synchronized List<Segment> snapshot() {
        return new ArrayList<>(OPEN.values());
    }

    /**
     * @throws IllegalStateException once the exit hook has begun, instead of the "0 bytes are free" a create
     *     then met in the folder the hook had removed (or files nothing deleted at exit)
     */
    static void checkNotExiting() {
        if (exiting) {
            throw new IllegalStateException("cannot create a shared array: this JVM is exiting, and sharray's shutdown"
                + " hook has already released this process's arrays and removed its folders");
        }
    }

    /** @return whether the exit hook has begun */
    static boolean exiting() {
        return exiting;
    }

    /**
     * Waits, with the lock held, until no create and no closed last release is in progress, or {@code deadline}
     * ({@link System#nanoTime()}) passes: the JVM halts once the exit hook returns, and ends those threads midway.
     */
    private static void awaitCreatesAndReleases(long deadline) {
        for (long left = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
             (!CREATING.isEmpty() || !RELEASING.isEmpty()) && left > 0;
             left = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
            try {
                Segments.class.wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Registers {@link #onExit()} once: it also removes this process's owner folders, so whoever creates one calls this. */
    static synchronized void installExitHook() {
        if (!exitHookInstalled) {
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(Segments::onExit, "sharray-exit"));
            } catch (IllegalStateException e) { // "Shutdown in progress", which says nothing of what was refused
                throw new IllegalStateException("cannot create a shared array: this JVM is exiting (its shutdown hooks"
                    + " run), and a file made now would outlive it", e);
            }
            exitHookInstalled = true;
        }
    }

    /**
     * At normal exit: drop all of this process's references (leaked ones included) and delete arrays no
     * other process holds, then remove our empty folders. Mappings are left to the dying process.
     */
    static void onExit() {
        ExitActions.runAll(); // first: a pool's workers let go of this process's arrays
        ExitFiles.deleteAll(); // other components' files: the folders below are removed only when empty
        List<Segment> segments;
        List<Path> unfinished;
        final long deadline;
        synchronized (Segments.class) {
            exiting = true; // under the lock: a create registers before this, or is refused and rolls back
            deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(CREATE_GRACE_MILLIS);
            awaitCreatesAndReleases(deadline);
            unfinished = new ArrayList<>(CREATING);
            segments = new ArrayList<>(OPEN.values());
        }
        for (Path data : unfinished) {
            // still creating after the grace (a slow preallocation): the JVM may halt before it rolls back
            try {
                Files.deleteIfExists(data);
                Files.deleteIfExists(refPathFor(data));
            } catch (IOException e) {
                // best effort; the reaper removes the folder with them later
            }
        }
        // a holder verified alive in the last second may have died since (a zombie keeps its /proc entry): judged by
        // the cache, it kept the array this process held last, and nothing here looks again
        ProcessIdentity.forgetVerified();
        for (Segment s : segments) {
            if (s.refs != null) {
                try {
                    synchronized (Segments.class) {
                        if (s.closed) {
                            continue; // released meanwhile: its slot was given back, maybe claimed by another process
                        }
                        s.droppedAtExit = true;
                        s.refs.dropSlot(s.slot);
                    }
                    s.refs.reclaimDead();
                    if (deleteIfUnreferenced(s.refs, s.dataPath) >= 0) {
                        removeFolderIfOwnerEnded(s.dataPath.getParent()); // as a last release does
                    }
                } catch (RuntimeException e) {
                    // best effort at exit; the reaper finishes the job
                }
            }
        }
        synchronized (Segments.class) {
            // a release that closed its segment after the snapshot above (a thread still running) deletes on its own
            awaitCreatesAndReleases(deadline);
        }
        for (Path folder : TempFolders.ownerFolders().values()) {
            if (!removeIfDone(folder)) {
                markExited(folder);
            }
        }
    }

    /**
     * Marks an owner folder whose arrays other processes still hold as done with ({@link #OWNER_EXITED}), for their
     * last release to remove; and removes it now if that release came between the two looks.
     */
    private static void markExited(Path folder) {
        try {
            Files.createFile(folder.resolve(OWNER_EXITED));
        } catch (IOException e) {
            return; // gone meanwhile, or no room for even an empty file: the reaper removes it after this process
        }
        removeIfDone(folder);
    }
}
