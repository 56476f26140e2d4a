package dev.sharray;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/** Process-level operations on shared arrays: the reaper, listing, folders and leak reports. */
public final class SharedArrays {
    private static final Set<Path> ALLOWED = new CopyOnWriteArraySet<>();

    static {
        String allowed = System.getProperty("sharray.allowedFolders", System.getenv("SHARRAY_ALLOWED_FOLDERS"));
        if (allowed != null) {
            for (String p : allowed.split(java.io.File.pathSeparator)) {
                if (!p.isBlank()) {
                    allowFolder(Path.of(p));
                }
            }
        }
    }

    private SharedArrays() {
    }

    /**
     * Removes what dead processes left behind: their references in refcount files (deleting arrays no live
     * process holds) and their folders. Never touches a live process's folder or an array a live process
     * holds. Runs automatically once per process on first use.
     *
     * @return what was freed
     */
    public static ReapReport reap() {
        return Reaper.reap();
    }

    /**
     * What {@link #reap()} would remove now, deleting and changing nothing (for {@code sharray clean --dry-run}): the
     * same pass and decisions, taken on private copies of the reference files. A process may start or stop holding
     * an array meanwhile, so a real pass later may remove less or more.
     *
     * @return the folders, arrays, references and bytes a pass would free now
     */
    public static ReapReport reapDryRun() {
        return Reaper.reapDryRun();
    }

    /**
     * As {@link #reap()}, for one process only: for a supervisor whose child process has ended (a worker pool
     * whose worker crashed or was killed), so that the arrays the child created, and its folder, are freed now
     * rather than at the next process's first use, and so are arrays elsewhere (the supervisor's own, typically)
     * that the child was the last to hold. Arrays a live process still holds stay, and their folder with them;
     * nothing happens while {@code pid} is alive.
     *
     * @param pid the process id of the ended process
     * @return what was freed
     * @throws IllegalArgumentException when {@code pid} is not a process id (0 or negative): 0 is the word of "no
     *     process" in reference files, so such a pass took every array without a deleter for one of that process's
     */
    public static ReapReport reapProcess(long pid) {
        if (pid <= 0) {
            throw new IllegalArgumentException("not a process id: " + pid);
        }
        return Reaper.reapProcess(pid);
    }

    /**
     * The live arrays in the sharray folders of this user under every known root. Array files that cannot be read
     * as one are left out: {@link #listAll()} says which, and why.
     *
     * @return one entry per array file, with holders per pid
     */
    public static List<ArrayInfo> list() {
        return listAll().arrays();
    }

    /**
     * The live arrays in the sharray folders of this user under every known root, and the array files there that
     * cannot be listed, with the reason: a data or reference file that cannot be read, is missing or damaged, the
     * files a process killed while creating an array left, another sharray build's array, an array of a process in
     * another pid namespace (whose pids name no process here). Reads only: nothing is changed. Arrays being created
     * or deleted meanwhile are in neither list.
     *
     * @return what was found
     */
    public static ArrayListing listAll() {
        final List<ArrayInfo> arrays = new ArrayList<>();
        final List<ArrayListing.Unlisted> unlisted = new ArrayList<>();
        final ByteBuffer scratch = ByteBuffer.allocateDirect(RefCountFile.FILE_SIZE);
        TempFolders.forEachUserFolderEntry(folder -> {
            final String name = folder.getFileName().toString();
            final long[] owner = TempFolders.parseOwner(name);
            if (owner == null || name.startsWith(Reaper.DELETING_PREFIX)
                || !Files.isDirectory(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                return; // not an owner's folder, or one a reaper is deleting
            }
            final java.util.SortedSet<String> refs = new java.util.TreeSet<>();
            final java.util.SortedSet<String> data = new java.util.TreeSet<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path entry : entries) {
                    final String file = entry.getFileName().toString();
                    if (file.endsWith(".ref")) {
                        refs.add(file.substring(0, file.length() - 4));
                    } else if (file.endsWith(".npy")) {
                        data.add(file.substring(0, file.length() - 4));
                    }
                }
            } catch (IOException | java.nio.file.DirectoryIteratorException e) {
                if (Files.exists(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) { // else it vanished while listing
                    unlisted.add(unreadableFolder(folder, e));
                }
                return;
            }
            if (TempFolders.inOtherPidNamespace(name)) {
                for (String base : data) {
                    unlisted.add(new ArrayListing.Unlisted(folder.resolve(base + ".npy"), "its owner, pid " + owner[0]
                        + ", runs in another pid namespace (another container, or the host), whose pids name no"
                        + " process here: list it from there"));
                }
                return;
            }
            final boolean alive = ProcessIdentity.isAlive(owner[0], owner[1]);
            final Listed listed = new Listed(arrays, unlisted, owner[0], alive);
            for (String base : refs) {
                describe(folder.resolve(base + ".ref"), folder.resolve(base + ".npy"), listed, scratch);
            }
            for (String base : data) {
                if (!refs.contains(base) && !alive && Files.exists(folder.resolve(base + ".npy"))) {
                    listed.unlisted(folder.resolve(base + ".npy"), "it has no reference file (its owner was killed"
                        + " while creating it, or the file was deleted)");
                } // else being created by its live owner (its reference file comes next), or a user's own file
            }
        }, (userFolder, e) -> unlisted.add(unreadableFolder(userFolder, e)));
        return new ArrayListing(arrays, unlisted, TempFolders.knownRoots());
    }

    /** A folder whose arrays could not all be seen: listed in their place, rather than silently fewer arrays. */
    private static ArrayListing.Unlisted unreadableFolder(Path folder, Exception e) {
        final Throwable cause = e instanceof java.nio.file.DirectoryIteratorException ? e.getCause() : e;
        return new ArrayListing.Unlisted(folder, "the folder could not be read (" + cause + "): the arrays in it, if"
            + " any, are not listed");
    }

    /** Where {@link #describe} puts what it finds in one owner's folder. */
    private record Listed(List<ArrayInfo> arrays, List<ArrayListing.Unlisted> unlisted, long ownerPid,
                          boolean ownerAlive) {
        void unlisted(Path data, String reason) {
            unlisted.add(new ArrayListing.Unlisted(data, reason + (ownerAlive ? ""
                : " (its owner, pid " + ownerPid + ", has ended: 'sharray clean' removes it unless a live process"
                + " holds it)")));
        }
    }

    /**
     * Reads a copy of the reference file: listing changes nothing, so it maps only what the copy cannot settle. An
     * array that cannot be listed is added to the unlisted ones with the reason, unless it is being created or deleted
     * right now.
     */
    private static void describe(Path refPath, Path data, Listed listed, ByteBuffer scratch) {
        RefCountFile refs;
        try {
            refs = RefCountFile.readCopy(refPath, scratch);
        } catch (java.io.UncheckedIOException e) {
            listed.unlisted(data, "its reference file cannot be read: " + e.getCause());
            return;
        }
        if (refs == null) {
            final String kind = RefCountFile.otherKindOfFile(refPath);
            if (kind != null) {
                listed.unlisted(data, "its reference file is " + kind + ", which sharray never makes: not sharray's");
                return;
            }
            final long size = sizeOf(refPath);
            // a create writes the file empty, then its first page of zeros, then its length, then the header: all
            // of that is a create in progress while the owner lives
            if (size >= 0 && !(listed.ownerAlive() && (size == 0 || size == RefCountFile.CREATED_BYTES
                || size == RefCountFile.FILE_SIZE))) {
                listed.unlisted(data, size == RefCountFile.FILE_SIZE || size == 0 || size == RefCountFile.CREATED_BYTES
                    ? "its reference file has no valid header (" + size + " bytes): a create killed midway, or damaged"
                    : "its reference file has " + size + " bytes, expected " + RefCountFile.FILE_SIZE
                    + ": damaged, or not sharray's");
            }
            return; // else gone (released meanwhile), or being created
        }
        if (!refs.isThisVersion()) {
            listed.unlisted(data, "its reference file is of another sharray build (version " + refs.version()
                + "): that build lists it");
            return;
        }
        try {
            if (refs.looksCorrupt()) {
                refs = RefCountFile.open(refPath); // a slot caught mid-change, or corrupt indeed: then open refuses
            }
        } catch (InvalidDescriptorException e) {
            listed.unlisted(data, "its reference file is corrupt: " + e.getMessage());
            return;
        } catch (java.io.UncheckedIOException e) {
            listed.unlisted(data, "its reference file cannot be read: " + e.getCause());
            return;
        } catch (RuntimeException e) {
            return; // gone: released meanwhile
        }
        try {
            if (refs.state() != RefCountFile.LIVE) {
                return; // being deleted
            }
            final Map<Long, Long> holders = refs.holders();
            final java.util.Set<Long> deadHolders = refs.deadHolders();
            final NpyHeader h;
            final long bytes;
            try {
                h = Segments.readHeader(data);
                bytes = Files.size(data);
            } catch (IllegalStateException | java.nio.file.NoSuchFileException e) {
                // the data file is gone: deleted with the array meanwhile (the state is no longer LIVE), or by hand
                final RefCountFile now = RefCountFile.readCopy(refPath, scratch);
                if (now != null && now.state() == RefCountFile.LIVE) {
                    listed.unlisted(data, "its data file is missing, while its reference file says it is live");
                }
                return;
            } catch (InvalidDescriptorException e) {
                listed.unlisted(data, "its data file is not a readable .npy file: " + e.getMessage());
                return;
            } catch (IOException | java.io.UncheckedIOException e) {
                listed.unlisted(data, "its data file cannot be read: "
                    + (e instanceof java.io.UncheckedIOException u ? u.getCause() : e));
                return;
            }
            listed.arrays().add(new ArrayInfo(data, h.dtype, h.shape, bytes, holders, deadHolders, listed.ownerPid(),
                listed.ownerAlive()));
        } catch (java.io.UncheckedIOException e) {
            listed.unlisted(data, "its reference file cannot be read: " + e.getCause());
        } finally {
            refs.unmap(); // nothing for a copy
        }
    }

    /** @return the size of {@code file}, or -1 when it is gone (or cannot be told) */
    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * This process's own folder under the default root, created (mode 0700) on first use. Other
     * components put their private files here (mode 0600) so the reaper cleans them after a crash.
     *
     * @return the folder
     */
    public static Path processFolder() {
        return TempFolders.ownerFolder(TempFolders.selectRoot(null, 0));
    }

    /**
     * This process's own folder under {@code root}, created on first use.
     *
     * @param root a root folder
     * @return the folder
     */
    public static Path processFolder(Path root) {
        return TempFolders.ownerFolder(TempFolders.selectRoot(root, 0));
    }

    /**
     * Has a normal exit of this JVM (end of {@code main}, {@code System.exit}, SIGTERM, SIGINT) delete {@code file},
     * a private file of another component in a {@link #processFolder()}, before sharray's exit hook removes the
     * process's emptied folders: without it a JVM that ends while the file exists leaves it, and the folder, until
     * another process's reaper pass. Call it right after creating the file, and {@link #forgetAtExit} once the
     * file is deleted otherwise.
     *
     * @param file the file
     * @throws NullPointerException when {@code file} is null (refused here: at exit it stopped the hook that releases
     *     this process's arrays)
     * @throws IllegalStateException when the JVM is exiting and the hook has already deleted such files: the caller
     *     must delete this one itself
     */
    public static void deleteAtExit(Path file) {
        ExitFiles.add(Objects.requireNonNull(file, "file"));
    }

    /**
     * @return whether this JVM has begun to exit (its shutdown hooks run: {@code System.exit}, the end of {@code
     *     main}, SIGTERM, Ctrl-C); other threads still run meanwhile, and what they report then is usually
     *     the exit's doing (a command line tool's error message, say, is noise after a Ctrl-C)
     */
    public static boolean jvmExiting() {
        if (Segments.exiting()) {
            return true;
        }
        final Thread probe = new Thread(() -> { }, "sharray-exit-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe); // refused once the exit has begun
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException exiting) {
            return true;
        }
    }

    /**
     * Has a normal exit of this JVM (as for {@link #deleteAtExit}) run {@code action} before sharray's exit hook
     * releases this process's arrays and removes its folders: for a component whose child processes hold arrays of
     * this process (a pool's workers), which must have let go of them by then. Keep it short: the exit waits for it.
     * Call {@link #forgetAtExit(Runnable)} once it is no longer needed.
     *
     * @param action what to run
     * @throws NullPointerException when {@code action} is null
     */
    public static void runAtExit(Runnable action) {
        ExitActions.add(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action given to {@link #runAtExit}, no longer to run */
    public static void forgetAtExit(Runnable action) {
        ExitActions.remove(action);
    }

    /**
     * Registers a cache of arrays this process keeps only to reuse them (a {@code ProcessPool}'s copies of heap
     * arguments). When a new array lacks room where it goes, or would leave {@code /dev/shm} for {@code
     * java.io.tmpdir} for want of room there, {@link SharedArray.Builder#create()} has every registered cache release
     * the arrays it keeps on that file system (on any tmpfs, when what lacks is the memory a tmpfs file takes), when
     * they and the room there are enough, then looks again: a cache never costs a user's own array its place, nor its
     * own arrays when their release would not help.
     *
     * @param cache the cache; its methods run on the creating thread
     */
    public static void registerArrayCache(ArrayCache cache) {
        ArrayCaches.add(Objects.requireNonNull(cache, "cache"));
    }

    /** @param cache a cache given to {@link #registerArrayCache}, no longer to ask */
    public static void unregisterArrayCache(ArrayCache cache) {
        ArrayCaches.remove(cache);
    }

    /**
     * Creates {@code file} with {@code creation} and has a normal exit of this JVM delete it, as
     * {@link #deleteAtExit}, with no moment between the two at which an exit could leave it: the exit's deletion
     * waits for a creation under way, and a creation after it is refused before it runs. Created first and
     * registered after, a file made by a thread that ran on while the JVM exited (a pool's result thread binding
     * its doorbell socket) outlived the JVM when it halted between the two steps.
     *
     * @param file     the file {@code creation} makes, in a {@link #processFolder()}
     * @param creation makes the file; keep it short, as an exit waits for it
     * @param <T>      what {@code creation} returns
     * @return what {@code creation} returned
     * @throws IOException when {@code creation} throws it (nothing is registered then)
     * @throws NullPointerException when {@code file} or {@code creation} is null (nothing is created)
     * @throws IllegalStateException when the JVM is exiting and the hook has already deleted such files: nothing
     *     was created
     */
    public static <T> T createDeletedAtExit(Path file, FileCreation<T> creation) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(creation, "creation");
        return ExitFiles.create(file, creation);
    }

    /**
     * Makes a file, for {@link #createDeletedAtExit}.
     *
     * @param <T> what it returns
     */
    @FunctionalInterface
    public interface FileCreation<T> {
        /**
         * @return anything the caller needs
         * @throws IOException when the file cannot be made
         */
        T create() throws IOException;
    }

    /**
     * Undoes {@link #deleteAtExit} for a file deleted otherwise.
     *
     * @param file the file
     */
    public static void forgetAtExit(Path file) {
        ExitFiles.remove(file);
    }

    /**
     * Lets {@link SharedArray#open(Descriptor)} map {@code .npy} files under {@code folder} (for example
     * files shared with {@link SharedArray#openNpy}); by default only sharray's own folders are allowed.
     * Also settable with {@code -Dsharray.allowedFolders} or {@code SHARRAY_ALLOWED_FOLDERS}.
     *
     * <p>It allows the folder in this process: the process that opens a descriptor must allow the folder itself. A
     * {@code ProcessPool}'s workers allow the folders this process allowed when the pool was built (so a
     * {@code mapChunks} over a file opened with {@code openNpy} works once its folder is allowed here); allow a
     * folder before building the pool.
     *
     * @param folder a folder whose files descriptors may name
     */
    public static void allowFolder(Path folder) {
        try {
            ALLOWED.add(folder.toRealPath());
        } catch (IOException e) {
            ALLOWED.add(folder.toAbsolutePath().normalize());
        }
    }

    /**
     * A descriptor's file is checked by its real path, then opened by path again: another user who could rename an
     * entry of a folder on that path (one of theirs, or one writable by others without the sticky bit) could swap it
     * for a link to this user's own files in between, and this process would map those read-write. Such a folder is
     * refused, and so is another user's file in a folder others can write (sticky: its owner may still replace it).
     *
     * @param realFile a file in an allowed folder, as a real path
     * @throws InvalidDescriptorException naming the folder or file another user could change
     */
    static void requireOthersCannotReplace(Path realFile) {
        try {
            FolderSafety.requireOthersCannotReplace(realFile, "to map " + realFile + " for a descriptor");
        } catch (IOException e) {
            throw new InvalidDescriptorException("path", e.getMessage());
        }
    }

    static boolean isAllowedFolder(Path realFile) {
        for (Path p : ALLOWED) {
            if (realFile.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** @return the folders allowed with {@link #allowFolder(Path)} */
    public static Set<Path> allowedFolders() {
        return Set.copyOf(ALLOWED);
    }

    /**
     * @return how many unreleased, unreachable handles this process has reported so far
     */
    public static long leaksReported() {
        return LeakDetector.leaksReported();
    }

    /**
     * @param level how to track handles from now on
     */
    public static void setLeakDetection(LeakDetection level) {
        LeakDetector.level(level);
    }

    /** @return the current leak detection level */
    public static LeakDetection leakDetection() {
        return LeakDetector.level();
    }

    /**
     * Lets this process keep up to {@code maxBytes} of mappings of shared arrays after their last local
     * release, so that reopening the same array (task after task in a worker) costs no mmap and no page
     * faults. Retained mappings hold no reference: files are deleted exactly as before; the memory of a
     * deleted file is returned by {@link #trimRetainedMappings()}, by eviction or at exit. Default 0 (off).
     *
     * @param maxBytes budget in bytes; 0 turns retention off and unmaps what is retained
     */
    public static void retainMappings(long maxBytes) {
        Segments.retainMappings(maxBytes);
    }

    /**
     * Unmaps retained mappings whose files have been deleted, and the small reference-file mappings this process
     * keeps of arrays another process held at its last release here, once those arrays are deleted; cheap, call it
     * when idle.
     */
    public static void trimRetainedMappings() {
        Segments.trimRetained();
    }

    /** @return bytes of retained, unreferenced mappings in this process */
    public static long retainedMappingBytes() {
        return Segments.retainedBytes();
    }

    /**
     * References this process holds on the array behind {@code array} (all handles on the same file).
     *
     * @param array an open handle on the array
     * @return the count in this process
     * @throws IllegalStateException when {@code array} was released
     */
    public static long localReferences(SharedArray array) {
        return array.segmentReferences();
    }

    /**
     * References all processes hold on the array behind {@code array}, from its reference-count file: this
     * process's handles plus every other JVM's. A process that died without releasing still counts until
     * the reaper or the next open reclaims its slot, so the figure is an upper bound. {@code 1} while only
     * {@code array} itself holds the file tells its owner that no one else can see the memory.
     *
     * @param array an open handle on the array
     * @return the count across processes, at least 1
     * @throws IllegalStateException when {@code array} was released
     */
    public static long totalReferences(SharedArray array) {
        return array.segmentTotalReferences();
    }
}
