package dev.sharray;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Removes what dead processes left behind, without any global lock: references held by dead processes are
 * dropped from refcount files (deleting arrays nobody else holds), and the folder of a dead owner is
 * claimed by an atomic rename to {@code .deleting-*} and then deleted, unless a live process still holds
 * an array in it. A live owner's folder is never touched.
 */
final class Reaper {
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    static final String DELETING_PREFIX = ".deleting-";
    /** Test hook: runs in a pass when it is about to delete an array it found without a live holder. */
    static volatile java.util.function.Consumer<Path> beforeDelete;

    private Reaper() {
    }

    /** Runs one pass the first time this process creates or opens an array. */
    static void onFirstUse() {
        JvmAccess.requireFlags(); // before the pass, which may map reference files
        if (STARTED.compareAndSet(false, true) && !Boolean.getBoolean("sharray.reaper.disabled")) {
            try {
                ReapReport r = reap();
                if (!r.isEmpty()) {
                    Log.get().info("reaper: removed {} folder(s) and {} array(s) of dead processes, {} bytes",
                        r.foldersRemoved().size(), r.arraysDeleted().size(), r.bytesFreed());
                }
            } catch (RuntimeException | InternalError e) { // InternalError: a .ref truncated while mapped (a fault)
                Log.get().warn("reaper pass failed: {}", e.toString());
            }
        }
    }

    static ReapReport reap() {
        final Pass pass = new Pass(false);
        TempFolders.forEachUserFolderEntry(folder -> reapFolder(folder, pass));
        return pass.report();
    }

    /**
     * What {@link #reap()} would remove now, changing nothing: the same pass, whose decisions are taken on private
     * copies of the reference files (what it would reclaim and delete is done to the copy only) and whose deletions
     * are only measured. The answer is as of the moment each file is read; a real pass later may find otherwise.
     */
    static ReapReport reapDryRun() {
        final Pass pass = new Pass(true);
        TempFolders.forEachUserFolderEntry(folder -> reapFolder(folder, pass));
        return pass.report();
    }

    /**
     * As {@link #reap()}, limited to the folders of the process {@code pid}, and in other folders to the arrays it
     * still counted references on or was killed in the middle of deleting: what a supervisor runs once a child
     * process it started has ended (the child cannot clean up after a crash or a kill, and the next process's
     * first-use pass may be hours away). Nothing happens while that process is alive.
     */
    static ReapReport reapProcess(long pid) {
        final Pass pass = new Pass(false);
        TempFolders.forEachUserFolderEntry(folder -> {
            final long[] owner = TempFolders.parseOwner(folder.getFileName().toString());
            if (owner == null || TempFolders.inOtherPidNamespace(folder.getFileName().toString())) {
                return; // another container's: pid names another process there
            }
            if (owner[0] == pid) {
                reapFolder(folder, pass);
            } else if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
                reapReferencesOf(pid, folder, pass);
            }
        });
        return pass.report();
    }

    /**
     * In another process's {@code folder}: finishes the deletions that the ended process {@code pid} began, and
     * drops the references it still counted, deleting the arrays it held last. Those are typically its parent's
     * arrays that a killed worker held after the parent let go; nothing else would touch them again, and a live
     * owner's folder is left to its owner, so they stayed until the owner exited. Runs on every worker death,
     * over every array of every folder: a file is mapped only when its copy shows work for {@code pid}.
     */
    private static void reapReferencesOf(long pid, Path folder, Pass pass) {
        try (DirectoryStream<Path> refPaths = Files.newDirectoryStream(folder, "*.ref")) {
            for (Path refPath : refPaths) {
                final RefCountFile refs;
                try {
                    final RefCountFile copy = RefCountFile.readCopy(refPath, pass.scratch);
                    if (copy == null || !copy.isThisVersion() || !copy.looksCorrupt() && !leavesWorkFor(pid, copy)) {
                        continue;
                    }
                    refs = RefCountFile.open(refPath);
                } catch (RuntimeException e) {
                    continue; // being created or deleted right now, not ours, or unreadable now: a later pass sees it
                }
                try {
                    if (refs.deleterPid() == pid && refs.state() == RefCountFile.DELETING) {
                        pass.referencesReclaimed += refs.reclaimDead();
                        final Path data = dataPathOf(refPath);
                        pass.deleted(Segments.finishAbandonedDelete(refs, data), data);
                    } else if (refs.state() == RefCountFile.LIVE && (refs.hasSlotOf(pid) || refs.deleterPid() == pid)) {
                        pass.referencesReclaimed += refs.reclaimDead(); // leaves pid's slot alone if it is alive (a reused pid)
                        if (!refs.hasLiveHolder()) {
                            final Path data = dataPathOf(refPath);
                            pass.deleted(Segments.deleteIfUnreferenced(refs, data), data);
                        }
                    }
                } finally {
                    refs.unmap();
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            // vanished or unreadable: the next full pass sees it
        }
    }

    /**
     * @return whether {@code pid} began deleting the array (or named itself to, the state still LIVE), or holds or
     *     reclaims a slot in its live reference file
     */
    private static boolean leavesWorkFor(long pid, RefCountFile refs) {
        return refs.deleterPid() == pid && refs.state() != RefCountFile.DELETED
            || refs.state() == RefCountFile.LIVE && refs.hasSlotOf(pid);
    }

    private static void reapFolder(Path folder, Pass pass) {
        String name = folder.getFileName().toString();
        if (TempFolders.inOtherPidNamespace(name)) {
            return; // of a process (or a reaper) of another pid namespace: its pid cannot be checked here
        }
        if (name.startsWith(DELETING_PREFIX)) {
            long[] claimer = TempFolders.parseOwner(name.substring(DELETING_PREFIX.length()));
            if (claimer != null && !ProcessIdentity.isAlive(claimer[0], claimer[1]) && !pass.dryRun) {
                deleteTree(folder); // a reaper died while deleting; finish its job
            }
            return;
        }
        long[] owner = TempFolders.parseOwner(name);
        if (owner == null || !Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) { // a link is not an owner's folder
            return;
        }
        boolean ownerAlive = ProcessIdentity.isAlive(owner[0], owner[1]);
        boolean stillHeld = false;
        try (DirectoryStream<Path> refs = Files.newDirectoryStream(folder, "*.ref")) {
            for (Path refPath : refs) {
                stillHeld |= reapArray(refPath, pass);
            }
        } catch (IOException | DirectoryIteratorException e) {
            return; // vanished or unreadable: leave it
        }
        if (!ownerAlive && stillHeld) {
            removeKilledCreates(folder, pass);
        }
        if (ownerAlive || stillHeld) {
            return;
        }
        if (pass.dryRun) {
            pass.bytesFreed += treeBytes(folder, pass.wouldDelete);
            pass.folders.add(folder);
            return;
        }
        Path claimed = folder.resolveSibling(DELETING_PREFIX + "reaper" + TempFolders.processTag() + "-"
            + TempFolders.randomHex());
        try {
            Files.move(folder, claimed, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return; // another reaper claimed it first
        } catch (AtomicMoveNotSupportedException e) {
            return;
        } catch (IOException e) {
            Log.get().debug("cannot claim {}: {}", folder, e.toString());
            return;
        }
        pass.bytesFreed += deleteTree(claimed);
        pass.folders.add(folder);
    }

    /**
     * In a dead owner's folder kept for an array a live process holds: deletes what creates killed midway left, which
     * went only with the whole folder, after that array's last holder (a data file can be the array's full size, in
     * RAM on a tmpfs). Nobody can finish or open those: only the owner creates in its folder, and an open refuses a
     * data file without a reference file and a reference file without its magic (written last).
     */
    private static void removeKilledCreates(Path folder, Pass pass) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "*.{npy,ref}")) {
            for (Path file : files) {
                final String name = file.getFileName().toString();
                final boolean data = name.endsWith(".npy");
                final Path ref = data ? Segments.refPathFor(file) : file;
                if (data ? Files.notExists(ref, LinkOption.NOFOLLOW_LINKS) : RefCountFile.isUnfinished(ref)) {
                    removeKilledCreate(ref, dataPathOf(ref), pass);
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            // vanished or unreadable: the folder goes whole once nobody holds its arrays
        }
    }

    private static void removeKilledCreate(Path ref, Path data, Pass pass) {
        if (pass.wouldDelete.contains(data)) {
            return; // a dry run counted it already (as its data file, then as its reference file)
        }
        boolean removed = false;
        long freed = 0;
        for (Path file : new Path[] {data, ref}) {
            try {
                final BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!attrs.isRegularFile()) {
                    continue;
                }
                if (pass.dryRun) {
                    pass.wouldDelete.add(file);
                } else {
                    Files.delete(file);
                }
                removed = true;
                freed += freedBy(file, attrs);
            } catch (IOException e) {
                // gone meanwhile (another reaper), or cannot be deleted now: a later pass sees it
            }
        }
        pass.wouldDelete.add(data);
        if (removed) {
            pass.deleted(freed, data);
        }
    }

    /**
     * @return true when a live process still holds the array, or may: a reference file that is there but cannot be
     *     read or mapped now (out of file descriptors or memory, an I/O error) keeps its folder for a later pass
     */
    private static boolean reapArray(Path refPath, Pass pass) {
        final RefCountFile refs;
        try {
            RefCountFile copy = RefCountFile.readCopy(refPath, pass.scratch);
            if (copy == null) {
                return false; // being created or deleted right now, or not ours
            }
            if (!copy.isThisVersion()) {
                return copy.mayBeHeldByAnotherBuild(); // never changed here: its build's own reaper does that
            }
            if (!copy.looksCorrupt() && copy.state() == RefCountFile.LIVE && copy.hasLiveHolder()
                && !copy.hasReclaimableSlot()) {
                return true; // the common case in a live owner's folder: nothing to change, no mapping
            }
            if (pass.dryRun && copy.looksCorrupt()) {
                // as the real pass's open does, judge the file as it is now (a read may catch a slot mid-change),
                // and a corrupt one as that open's refusal is judged below: before, the dry run went on with the
                // corrupt copy, and reported a held folder (an unknown state) or reclaims the real pass never made
                copy = RefCountFile.readCopy(refPath, pass.scratch);
                if (copy == null || !copy.isThisVersion() || copy.looksCorrupt()) {
                    return heldThoughRefused(refPath, pass);
                }
            }
            refs = pass.dryRun ? copy : RefCountFile.open(refPath); // a dry run changes its private copy only
        } catch (java.io.UncheckedIOException e) {
            Log.get().debug("reaper: cannot judge {} now: {}", refPath, e.toString());
            return true;
        } catch (InvalidDescriptorException e) {
            return heldThoughRefused(refPath, pass);
        } catch (RuntimeException e) {
            return false; // gone (released), or being created
        }
        try {
            pass.referencesReclaimed += refs.reclaimDead();
            final Path data = dataPathOf(refPath);
            if (refs.state() != RefCountFile.LIVE) {
                // not finished here: a live deleter is at work, and may yet give the array back to a holder that
                // took its reference just before its CAS (or the deleter cannot be judged, see tryTakeOverDelete)
                return notDeleted(refs, pass.dryRun ? pass.wouldDelete(refs.tryTakeOverDelete(), refPath, data)
                    : Segments.finishAbandonedDelete(refs, data), data, pass);
            }
            if (refs.hasLiveHolder()) {
                return true;
            }
            final java.util.function.Consumer<Path> hook = beforeDelete;
            if (hook != null && !pass.dryRun) {
                hook.accept(refPath);
            }
            // a process may take a reference between the check above and the delete, which it then keeps
            return notDeleted(refs, pass.dryRun ? pass.wouldDelete(refs.tryBeginDelete(), refPath, data)
                : Segments.deleteIfUnreferenced(refs, data), data, pass);
        } finally {
            refs.unmap();
        }
    }

    /**
     * For a reference file that {@link RefCountFile#open} refuses (corrupt: what no sharray process writes), which a
     * pass never changes: whether a live process still counts references in it. Such a holder maps the file from
     * before, and keeps using the array (its release cannot delete a file in an unknown state); judged unheld, the
     * folder of a dead owner was deleted under it. Once no live holder counts one, the folder goes as before.
     *
     * @return whether a live process may hold the array, as a copy read now shows (true when it cannot be read now)
     */
    private static boolean heldThoughRefused(Path refPath, Pass pass) {
        try {
            final RefCountFile now = RefCountFile.readCopy(refPath, pass.scratch);
            return now != null && (now.isThisVersion() ? now.hasLiveHolder() : now.mayBeHeldByAnotherBuild());
        } catch (java.io.UncheckedIOException e) {
            return true;
        }
    }

    /**
     * Counts an attempt to delete an array that has no live holder as of the pass's check.
     *
     * @return whether the array may still be held, which keeps its folder: the attempt failed (a process took a
     *     reference meanwhile, or another is deleting it) and the array is not DELETED
     */
    private static boolean notDeleted(RefCountFile refs, long freed, Path data, Pass pass) {
        pass.deleted(freed, data);
        return freed < 0 && refs.state() != RefCountFile.DELETED;
    }

    private static Path dataPathOf(Path refPath) {
        final String name = refPath.getFileName().toString();
        return refPath.resolveSibling(name.substring(0, name.length() - 4) + ".npy");
    }

    /** @return bytes of the regular files deleted: their sizes, of a {@code .ref} only its first page */
    static long deleteTree(Path dir) {
        long[] bytes = {0};
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    bytes[0] += freedBy(file, attrs);
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            Log.get().debug("cannot fully delete {}: {}", dir, e.toString());
        }
        return bytes[0];
    }

    /**
     * @return the bytes deleting {@code file} frees, as a pass reports them: a .ref is a hole beyond its first page
     *     unless more than 126 processes held the array at once
     */
    private static long freedBy(Path file, BasicFileAttributes attrs) {
        return file.getFileName().toString().endsWith(".ref") ? Math.min(attrs.size(), RefCountFile.CREATED_BYTES)
            : attrs.size();
    }

    /**
     * @param skip files a dry run counted already (the arrays it would delete first)
     * @return what {@link #deleteTree} would count for {@code dir}, deleting nothing
     */
    private static long treeBytes(Path dir, java.util.Set<Path> skip) {
        long[] bytes = {0};
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (!skip.contains(file)) {
                        bytes[0] += freedBy(file, attrs);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    return FileVisitResult.CONTINUE; // vanished meanwhile
                }
            });
        } catch (IOException e) {
            Log.get().debug("cannot fully measure {}: {}", dir, e.toString());
        }
        return bytes[0];
    }

    /** What one pass removed (a dry run: would remove), and the buffer it reads reference files into. */
    private static final class Pass {
        final ByteBuffer scratch = ByteBuffer.allocateDirect(RefCountFile.FILE_SIZE);
        final List<Path> folders = new ArrayList<>();
        final List<Path> arrays = new ArrayList<>();
        /** Deletes nothing: the reference files it judges are private copies, and deletions are only measured. */
        final boolean dryRun;
        /**
         * In a dry run, the files of the arrays it would delete, which its folder's deletion must not count again; in
         * either, the data files of killed creates it counted.
         */
        final java.util.Set<Path> wouldDelete = new java.util.HashSet<>();
        long referencesReclaimed;
        long bytesFreed;

        Pass(boolean dryRun) {
            this.dryRun = dryRun;
        }

        /**
         * A dry run's stand-in for {@link Segments}' deletion of an array's files, counted as it counts them.
         *
         * @param won whether the pass won the deletion on its copy of the reference file
         * @return the bytes the deletion would free, or -1 when it would not delete
         */
        long wouldDelete(boolean won, Path refPath, Path data) {
            if (!won) {
                return -1;
            }
            wouldDelete.add(refPath);
            wouldDelete.add(data);
            try {
                return Files.size(data);
            } catch (IOException e) {
                return 0; // already gone: the deletion would remove its reference file all the same
            }
        }

        /** Counts an array deleted: {@code freed} is its bytes, or negative when it was not deleted. */
        void deleted(long freed, Path data) {
            if (freed >= 0) {
                arrays.add(data);
                bytesFreed += freed;
            }
        }

        ReapReport report() {
            return new ReapReport(folders, arrays, referencesReclaimed, bytesFreed);
        }
    }
}
