package dev.sharray;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The cross-process reference count of one array: a small mapped file beside the data, updated with
 * atomic instructions on shared memory (Agrona {@link UnsafeBuffer} as an {@code AtomicBuffer}).
 *
 * <pre>
 *   0  int magic "SREF"   4 int version   8 int state (LIVE, DELETING, DELETED)   12 int slot count (2046)
 *   16 long deleter: its identity word ({@link ProcessWords}), 0 when none
 *   24 int slots in use: only slots below it are ever claimed; 126, then one page (128 slots) more at a time
 *   64 + 32 i: slot i = long holder pid (0 free, a negative reclaim mark while being reclaimed),
 *              long holder start time, long count, pad
 * </pre>
 *
 * <p>The file is {@value #FILE_SIZE} bytes long, of which only the first page is allocated at first: the rest is
 * a hole, never touched, until 126 live processes hold the array and a 127th wants to. That process allocates the
 * next page ({@code fallocate}, so that a full file system refuses it there and then rather than with a SIGBUS on
 * a write into the hole) and only then raises the slots in use with a CAS. Readers scan the slots in use, which
 * they read after any CAS of their own: an acquirer raises the slots in use before it claims a slot there, so a
 * deleter that reads the slots in use after its state CAS scans every slot whose count it must see.
 *
 * <p>Each holding process owns one slot; its count is the number of references (handles) that process
 * holds. The total is the sum over slots. Deletion is Dekker-style: the deleter CASes LIVE to DELETING and
 * then rereads the counts; an acquirer increments its count and then rereads the state. With both sides
 * using full fences, either the deleter sees the new count (and reverts to LIVE) or the acquirer sees
 * DELETING (and backs out). So the data is deleted exactly once, only when no process holds it.
 *
 * <p>Whoever takes a role in the file names itself in the same CAS: a deleter writes its identity into the
 * deleter word before it moves the state, and a reclaimer writes a mark naming itself and the holder over the
 * holder's pid. So a process killed at any instant of a deletion or a reclaim leaves a role whose taker can be
 * judged dead, and the next process that looks takes it over and finishes it (the reaper, a release, an open).
 */
final class RefCountFile {
    private static final int PAGE = 4096;
    /** The file's length; only the pages of the slots in use are allocated. */
    static final int FILE_SIZE = 16 * PAGE;
    /** The bytes a new file allocates: its first page. */
    static final int CREATED_BYTES = PAGE;
    static final int MAGIC = 0x46455253; // "SREF"
    /**
     * 4: slots beyond the first page, as many holders need (3 had 126 slots in one page; 3 and 2 the same layout
     * within it). 3: the deleter and reclaimers are named in the word they CAS (2 named them in later stores).
     */
    static final int VERSION = 4;
    static final int LIVE = 1;
    static final int DELETING = 2;
    static final int DELETED = 3;

    private static final int STATE_OFFSET = 8;
    private static final int DELETER_OFFSET = 16;
    private static final int SLOTS_IN_USE_OFFSET = 24;
    private static final int SLOTS_OFFSET = 64;
    private static final int SLOT_SIZE = 32;
    /** The most processes that can hold one array at once. */
    static final int SLOTS = (FILE_SIZE - SLOTS_OFFSET) / SLOT_SIZE;
    /** The slots of the first page, in use from the start. */
    static final int INITIAL_SLOTS = (PAGE - SLOTS_OFFSET) / SLOT_SIZE;
    private static final int SLOTS_PER_PAGE = PAGE / SLOT_SIZE;
    /** Versions 2 and 3: one page of {@value #INITIAL_SLOTS} slots laid out as in this one. */
    private static final int EARLIER_FILE_SIZE = PAGE;
    private static final long DELETING_TIMEOUT_NANOS = 2_000_000_000L;
    /** The identity this process writes into the deleter word. */
    private static final long SELF = ProcessWords.identity(ProcessIdentity.PID, ProcessIdentity.START);

    /** Test hook: runs between the two reads of a slot that decide whether it may be reclaimed. */
    static volatile Runnable betweenSlotReads;
    /** Test hook: runs when a reclaimer has judged a slot reclaimable, before its CAS takes the slot. */
    static volatile Runnable beforeReclaimCas;
    /** Test hook: runs once a reclaimer's mark holds a slot, before it judges the slot again. */
    static volatile Runnable afterReclaimMark;
    /** Test hook: runs once a deleter has named itself in the deleter word, before it moves the state. */
    static volatile Runnable afterDeleterNamed;
    /** Test hook: runs before a reference file is read or mapped; it may throw as a failing read or map would. */
    static volatile java.util.function.Consumer<Path> beforeAccess;
    /** Test hook: runs once {@link #open} has mapped a reference file, before it checks and claims anything. */
    static volatile java.util.function.Consumer<Path> afterMapped;

    private final Path path;
    private final Mapping mapping;
    private final UnsafeBuffer buffer;
    /**
     * The length of a copy's file of this version when it is not {@link #FILE_SIZE} (grown or cut short by something
     * else: open refuses it, while processes that mapped it before use it as ever, or until they touch a page it
     * lost), else -1.
     */
    private final long wrongSize;

    private RefCountFile(Path path, Mapping mapping) {
        this.path = path;
        this.mapping = mapping;
        this.buffer = new UnsafeBuffer(mapping.address(), FILE_SIZE);
        this.wrongSize = -1;
    }

    private RefCountFile(Path path, ByteBuffer copy, long size) {
        this.path = path;
        this.mapping = null;
        this.buffer = new UnsafeBuffer(copy);
        this.wrongSize = size != FILE_SIZE && isThisVersion() ? size : -1;
    }

    /** Creates the file (0600, already existing as an empty file) with the caller holding one reference. */
    static RefCountFile create(Path path) {
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(0);
            file.write(new byte[CREATED_BYTES]); // written, so allocated: a full file system fails here
            file.setLength(FILE_SIZE); // the rest a hole, allocated a page at a time as holders need it
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the reference file " + path + ": " + e.getMessage(), e);
        }
        RefCountFile f = new RefCountFile(path, AgronaMapping.map(path, FILE_SIZE));
        f.buffer.putInt(4, VERSION);
        f.buffer.putInt(12, SLOTS);
        f.buffer.putInt(SLOTS_IN_USE_OFFSET, INITIAL_SLOTS);
        f.buffer.putLong(SLOTS_OFFSET + 8, ProcessIdentity.START);
        f.buffer.putLong(SLOTS_OFFSET + 16, 1);
        f.buffer.putLong(SLOTS_OFFSET, ProcessIdentity.PID);
        f.buffer.putIntVolatile(STATE_OFFSET, LIVE);
        f.buffer.putIntVolatile(0, MAGIC);
        return f;
    }

    /** Maps an existing reference file, validating its header; refuses a file of another kind (a link, a FIFO). */
    static RefCountFile open(Path path) {
        // short, waits for nobody: not interruptible (the reaper maps the files it changes on the caller's thread)
        return InterruptsSetAside.call(() -> openNow(path));
    }

    private static RefCountFile openNow(Path path) {
        Mapping mapped;
        runAccessHook(path);
        final String kind = otherKindOfFile(path);
        if (kind != null) {
            throw new InvalidDescriptorException("refcount", path + " is " + kind + ", not a reference file");
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = ch.size();
            if (size != FILE_SIZE) {
                throw new InvalidDescriptorException("refcount", path + " has " + size + " bytes, expected " + FILE_SIZE);
            }
            // read, not through the mapping: a first page someone punched out is a hole, read as zeros here without
            // allocating; through the mapping, a tmpfs allocates a page for it, and when full faults (SIGBUS)
            if (!startsWithMagic(ch)) {
                throw notAReferenceFile(path);
            }
            mapped = AgronaMapping.map(ch, path, FILE_SIZE);
        } catch (java.nio.file.NoSuchFileException e) {
            throw gone(path, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map the reference file " + path + ": " + e.getMessage(), e);
        }
        final RefCountFile f = new RefCountFile(path, mapped);
        try {
            final java.util.function.Consumer<Path> hook = afterMapped;
            if (hook != null) {
                hook.accept(path);
            }
            f.checkHeaderAndSlots();
            return f;
        } catch (RuntimeException e) {
            f.unmap(); // whatever refused the file, the mapping goes with it
            throw e;
        }
    }

    /**
     * Checks a mapping kept since an earlier open again, as {@link #open} checks a file it maps ({@link IdleReferenceFiles}).
     *
     * @throws RuntimeException what {@link #open} would throw for the file as it is now
     */
    void checkAgain() {
        checkHeaderAndSlots();
    }

    /** Throws what {@link #open} refuses a mapped file for. */
    private void checkHeaderAndSlots() {
        if (buffer.getIntVolatile(0) != MAGIC || buffer.getInt(4) != VERSION || buffer.getInt(12) != SLOTS) {
            throw notAReferenceFile(path);
        }
        final int inUse = buffer.getIntVolatile(SLOTS_IN_USE_OFFSET);
        if (!isValidSlotsInUse(inUse)) {
            throw new InvalidDescriptorException("refcount", path + " is corrupt: " + inUse + " slots in use");
        }
        // the process that raised the slots in use allocated their pages first; make sure of it (a no-op then), or
        // a corrupt count would have us touch a hole that a full file system cannot fill: a SIGBUS
        final int errno = inUse == INITIAL_SLOTS ? 0 : Posix.allocateInPlace(path.toString(), 0, bytesOf(inUse));
        if (errno == Posix.ENOENT) {
            throw gone(path, null); // deleted since we mapped it
        }
        if (errno > 0) {
            throw new UncheckedIOException(new IOException("cannot allocate the " + inUse + " holder slots of " + path
                + ": errno " + errno));
        }
        final String corrupt = corruption();
        if (corrupt != null) {
            throw new InvalidDescriptorException("refcount", path + " is corrupt: " + corrupt);
        }
    }

    /**
     * Says what a file at a reference file's name is when it is not a regular file, which sharray never makes
     * there: opening a FIFO blocks until someone writes to it, and a symbolic link may lead out of the sharray
     * folders. The check and a later open are two steps; the open adds {@code NOFOLLOW_LINKS} for the link.
     *
     * @return "a symbolic link", "a directory" or "a special file (FIFO, socket or device)"; null for a regular
     *     file or none at all
     */
    static String otherKindOfFile(Path path) {
        final java.nio.file.attribute.BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null; // gone, or cannot be told: the open that follows says which
        }
        return attributes.isRegularFile() ? null : attributes.isSymbolicLink() ? "a symbolic link"
            : attributes.isDirectory() ? "a directory" : "a special file (FIFO, socket or device)";
    }

    private static InvalidDescriptorException notAReferenceFile(Path path) {
        return new InvalidDescriptorException("refcount", path + " is not a sharray reference file of version " + VERSION);
    }

    private static IllegalStateException gone(Path path, Exception cause) {
        return new IllegalStateException("the array was released: its reference file " + path + " is gone", cause);
    }

    private static boolean isValidSlotsInUse(int inUse) {
        return inUse >= INITIAL_SLOTS && inUse <= SLOTS && (inUse - INITIAL_SLOTS) % SLOTS_PER_PAGE == 0;
    }

    /** @return the bytes from the start of the file to the end of the last of {@code slots} slots: whole pages */
    private static int bytesOf(int slots) {
        return SLOTS_OFFSET + slots * SLOT_SIZE;
    }

    /**
     * @return how many slots may be claimed ({@code [0, n)}), to be read after the caller's own CAS on the file,
     *     as every scan does; kept within the mapping whatever the file says
     */
    private int slotsInUse() {
        return Math.max(INITIAL_SLOTS, Math.min(buffer.getIntVolatile(SLOTS_IN_USE_OFFSET), SLOTS));
    }

    /**
     * Reads the file into {@code scratch} with one read call instead of mapping it: a scan over many arrays maps
     * only those it must change (a map, its first-touch fault and the unmap cost several times the read). The
     * copy answers the readers ({@link #state()}, {@link #hasSlotOf}, {@link #hasReclaimableSlot()}, ...) with
     * what each word held when the read passed it, while other processes may be changing the file; it must not be
     * changed. It is fit to decide to leave a file alone: what a dead process wrote no longer changes, and what
     * live processes change concerns them. A read is not atomic per word, so a copy that {@link #looksCorrupt()}
     * may have caught a slot mid-change: map the file to judge it.
     *
     * @param scratch a direct buffer of {@link #FILE_SIZE} bytes, reused from one call to the next
     * @return the copy, or null when the file is gone, not a regular file ({@link #otherKindOfFile}), shorter than its
     *     header page or without its magic (being created, or not one: {@link #open} refuses those too). A file
     *     of this version that is longer or shorter than {@value #FILE_SIZE} bytes (changed by something else) gives a
     *     copy that {@link #looksCorrupt()}: open refuses it, while processes that mapped it before may still hold
     *     the array. A copy of another build's file (another
     *     {@link #VERSION}) says only {@link #isThisVersion()} and {@link #mayBeHeldByAnotherBuild()}.
     * @throws UncheckedIOException when the file is there but cannot be read (out of file descriptors, an I/O
     *     error): the caller cannot tell whether the array is held, and must not judge it unheld
     */
    static RefCountFile readCopy(Path path, ByteBuffer scratch) {
        // a read that waits for nobody: an interrupt (a listing or reap on an interrupted thread) would close the
        // channel, and the array be judged unreadable: left out of a listing, kept by the reaper as maybe held
        return InterruptsSetAside.call(() -> readCopyNow(path, scratch));
    }

    private static RefCountFile readCopyNow(Path path, ByteBuffer scratch) {
        scratch.clear();
        runAccessHook(path);
        if (otherKindOfFile(path) != null) {
            return null; // not one sharray made: a FIFO would block this read, a link might lead out of the folder
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            final long size = ch.size();
            // the first page holds the header and the slots every version has; the rest only the slots in use
            if (size < PAGE || !readUpTo(ch, scratch, PAGE)) {
                return null;
            }
            final RefCountFile copy = new RefCountFile(path, scratch, size);
            if (copy.buffer.getInt(0) != MAGIC) {
                return null; // being created (the magic is written last, after the length), or not one
            }
            if (!copy.isThisVersion()) {
                return size == FILE_SIZE || size == EARLIER_FILE_SIZE ? copy : null;
            }
            // a file of this version that has been cut short or grown looks corrupt: open refuses it, but its holders,
            // who mapped it before, may live. Its slots past a shorter end read as free.
            final int slotBytes = bytesOf(copy.slotsInUse());
            final int present = (int) Math.min(slotBytes, size);
            if (!readUpTo(ch, scratch, present)) {
                return null; // cut shorter meanwhile: a later look judges it
            }
            copy.buffer.setMemory(present, slotBytes - present, (byte) 0);
            return copy;
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the reference file " + path, e);
        }
    }

    /**
     * @return whether {@code path} is a regular file without a reference file's magic: what a create killed before
     *     it wrote its header's last word leaves (empty, a page of zeros, or the full length); no open accepts it
     */
    static boolean isUnfinished(Path path) {
        if (otherKindOfFile(path) != null) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            return !startsWithMagic(ch);
        } catch (IOException e) {
            return false; // gone, or cannot be read now: not judged
        }
    }

    /** @return whether the file's first four bytes, read (not mapped), are a reference file's magic */
    private static boolean startsWithMagic(FileChannel ch) throws IOException {
        final ByteBuffer magic = ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder());
        while (magic.hasRemaining() && ch.read(magic, magic.position()) > 0) {
            // the four bytes, or up to the end of a shorter file
        }
        return !magic.hasRemaining() && magic.getInt(0) == MAGIC;
    }

    /** @return whether {@code scratch} holds the file's bytes up to {@code end}, read from its position on */
    private static boolean readUpTo(FileChannel ch, ByteBuffer scratch, int end) throws IOException {
        scratch.limit(end);
        int read = 1;
        while (read > 0 && scratch.hasRemaining()) {
            read = ch.read(scratch, scratch.position());
        }
        return !scratch.hasRemaining();
    }

    /** @return the file's version word: {@link #VERSION} for this build's files */
    int version() {
        return buffer.getInt(4);
    }

    /** @return whether this file is of this build's {@link #VERSION}: no other may be judged or changed here */
    boolean isThisVersion() {
        return buffer.getInt(4) == VERSION && buffer.getInt(12) == SLOTS;
    }

    /**
     * For a file of another version, written by a process of another sharray build on this machine (an older one
     * still running beside a newer one): whether a live process may hold the array, so that a reaper keeps its
     * dead owner's folder. Versions 2 and 3 laid out their {@value #INITIAL_SLOTS} slots as this one does, naming
     * each holder by a positive pid and its start time: such a file is held while a holder with references lives,
     * or while version 3 reclaims a slot (a negative mark; its references count until the reclaim ends). Of any
     * other version nothing is known: it is left to its own build.
     */
    boolean mayBeHeldByAnotherBuild() {
        final int version = buffer.getInt(4);
        if (version != 2 && version != 3 || buffer.getInt(12) != INITIAL_SLOTS) {
            return true;
        }
        for (int i = 0; i < INITIAL_SLOTS; i++) {
            final int o = ownerOffset(i);
            final long pid = buffer.getLongVolatile(o);
            if (pid < 0 || pid > 0 && buffer.getLongVolatile(o + 16) > 0
                && ProcessIdentity.isAlive(pid, buffer.getLongVolatile(o + 8))) {
                return true;
            }
        }
        return false;
    }

    private static void runAccessHook(Path path) {
        final java.util.function.Consumer<Path> hook = beforeAccess;
        if (hook != null) {
            hook.accept(path);
        }
    }

    /** @return whether the state or a slot holds what no sharray process writes (what {@link #open} refuses) */
    boolean looksCorrupt() {
        return corruption() != null;
    }

    /**
     * @return what no sharray process ever writes, found in the state or a slot, or null when there is none: a
     *     corrupt file must not make one process delete an array another holds, or keep an array forever
     */
    private String corruption() {
        if (wrongSize >= 0) {
            return wrongSize + " bytes, expected " + FILE_SIZE;
        }
        final int state = state();
        if (state != LIVE && state != DELETING && state != DELETED) {
            return "unknown state " + state;
        }
        final int claimed = buffer.getIntVolatile(SLOTS_IN_USE_OFFSET);
        if (!isValidSlotsInUse(claimed)) {
            // open refuses it too: a copy that did not say so was judged (and reclaimed, in a dry run) as a file a
            // real pass then could not open
            return claimed + " slots in use";
        }
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final int o = ownerOffset(i);
            final long pid = buffer.getLongVolatile(o);
            final long count = buffer.getLongVolatile(o + 16);
            // a free slot's count is left alone: a claim resets it, and total() skips it
            if (pid < 0 && !ProcessWords.isReclaimMark(pid) || pid > ProcessWords.MAX_PID || pid != 0 && count < 0) {
                return "holder slot " + i + " has pid " + pid + " and count " + count;
            }
            if (countsWithoutIdentity(pid, buffer.getLongVolatile(o + 8), count)) {
                return "holder slot " + i + " counts " + count + " references of pid " + pid + " without a start time";
            }
        }
        return null;
    }

    /**
     * A claim writes its start time before its first reference, so a slot that counts references with no start
     * time is corrupt (where start times exist at all): it must neither count as a live holder nor live forever.
     */
    private static boolean countsWithoutIdentity(long pid, long start, long count) {
        return pid > 0 && count > 0 && start == 0 && ProcessIdentity.START != 0;
    }

    Path path() {
        return path;
    }

    int state() {
        return buffer.getIntVolatile(STATE_OFFSET);
    }

    private static int ownerOffset(int slot) {
        return SLOTS_OFFSET + slot * SLOT_SIZE;
    }

    private static int countOffset(int slot) {
        return SLOTS_OFFSET + slot * SLOT_SIZE + 16;
    }

    /**
     * Finds this process's slot or claims a free one, reclaiming dead holders' slots and then allocating a page of
     * slots more when live processes hold all in use. The caller serialises claims within the process.
     *
     * @throws IllegalStateException when all {@value #SLOTS} slots are held by live processes, or no more can be
     *     allocated (a full file system)
     */
    int claimSlot() {
        final int inUse = slotsInUse();
        int firstFree = -1;
        for (int i = 0; i < inUse; i++) {
            int o = ownerOffset(i);
            final long word = buffer.getLongVolatile(o);
            if (word == 0 && firstFree < 0) {
                firstFree = i;
            } else if (word == ProcessIdentity.PID) {
                final long start = buffer.getLongVolatile(o + 8);
                if (start == ProcessIdentity.START) {
                    return i;
                }
                if (start == 0) {
                    // our pid without a start is no other process's claim in progress (our claims are serialised):
                    // a slot a reclaimer gave back to us after our freeSlot stopped waiting for it, or the claim of
                    // an earlier process with our pid killed midway. No other process frees it while we live: ours.
                    buffer.putLongVolatile(o + 16, 0);
                    buffer.putLongVolatile(o + 8, ProcessIdentity.START);
                    return i;
                }
                reclaimIfDead(i); // an earlier process with our pid
            }
        }
        // none is ours: the first free slot the scan passed, unless another process took it meanwhile
        if (firstFree >= 0 && takeIfFree(firstFree)) {
            return firstFree;
        }
        for (boolean reclaimed = false; ; reclaimed = true) {
            final int scanned = slotsInUse();
            for (int i = 0; i < scanned; i++) {
                if (takeIfFree(i)) {
                    return i;
                }
            }
            if (!reclaimed) {
                reclaimDead(); // dead holders' slots first: a page more is for live ones
            } else {
                addSlots(scanned);
            }
        }
    }

    private boolean takeIfFree(int slot) {
        final int o = ownerOffset(slot);
        if (buffer.getLongVolatile(o) != 0 || !buffer.compareAndSetLong(o, 0, ProcessIdentity.PID)) {
            return false;
        }
        // a free slot's count is 0 (reclaiming zeroes it before freeing the slot) unless the file is corrupt; a
        // stale count would keep the array alive forever or make our release go negative. Nobody else writes a
        // slot we own, so resetting it is safe.
        buffer.putLongVolatile(o + 16, 0);
        buffer.putLongVolatile(o + 8, ProcessIdentity.START);
        return true;
    }

    /**
     * Raises the slots in use from {@code inUse} by one page, allocating that page first: nobody touches it before
     * the CAS publishes it. A process that lost the CAS to another one, or was killed between the two steps, leaves
     * at most an allocated page that the next one to grow allocates again (a no-op) and publishes.
     */
    private void addSlots(int inUse) {
        if (inUse >= SLOTS) {
            throw new IllegalStateException("all " + SLOTS + " holder slots of " + path + " are taken by live"
                + " processes: at most " + SLOTS + " processes can hold one array at once");
        }
        final int errno = Posix.allocateInPlace(path.toString(), bytesOf(inUse), PAGE);
        if (errno == Posix.ENOENT) {
            throw gone(path, null); // its last holder released it while we looked for a slot
        }
        if (errno != 0) {
            throw new IllegalStateException("the " + inUse + " holder slots of " + path + " in use are taken by live"
                + " processes, and no more can be allocated: " + (errno == Posix.ENOSPC ? "no space left on its file"
                + " system" : errno < 0 ? "that takes fallocate, from the C library, which JNA could not load here"
                : "fallocate failed with errno " + errno));
        }
        buffer.compareAndSetInt(SLOTS_IN_USE_OFFSET, inUse, inUse + SLOTS_PER_PAGE);
    }

    /**
     * Adds one reference in {@code slot} if the array is still live.
     *
     * @return false when the array has been (or is being) deleted
     */
    boolean tryAcquire(int slot) {
        long deadline = 0;
        while (true) {
            buffer.getAndAddLong(countOffset(slot), 1);
            int state = state();
            if (state == LIVE) {
                return true;
            }
            buffer.getAndAddLong(countOffset(slot), -1);
            if (state != DELETING || deleterEnded()) {
                // DELETED, or no state of the protocol (a file written over since it was mapped): waiting on it would
                // spin a core for the whole timeout
                return false;
            }
            // DELETING: the deleter either reverts to LIVE (it saw a holder) or finishes.
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + DELETING_TIMEOUT_NANOS;
            } else if (now > deadline) {
                return false; // a deleter died mid-way; the array is gone for our purposes
            }
            Thread.onSpinWait();
        }
    }

    /** @return this slot's count after dropping one reference */
    long decrement(int slot) {
        long after = buffer.getAndAddLong(countOffset(slot), -1) - 1;
        if (after < 0) {
            buffer.getAndAddLong(countOffset(slot), 1);
            throw new IllegalStateException("reference count of " + path + " would go negative");
        }
        return after;
    }

    long count(int slot) {
        return buffer.getLongVolatile(countOffset(slot));
    }

    /**
     * Gives back this process's slot once it counts no reference: a long-lived process that let go of the array
     * (a worker that retains its mapping for the next task, a service that opened it once) must not keep one of
     * one of the file's slots, or the array could not be opened by more processes over time than it has
     * slots. The caller serialises claims and frees within the process; another process writes a live process's
     * slot only while it judges whether to reclaim it, and then gives it back (see {@link #reclaimDead()}).
     */
    void freeSlot(int slot) {
        final int o = ownerOffset(slot);
        if (buffer.getLongVolatile(o) != ProcessIdentity.PID || buffer.getLongVolatile(o + 16) != 0) {
            return;
        }
        // the start first: our pid without a start reads as a claim in progress, which no reclaimer frees; the
        // other order would let a new claimer's pid pair with our start for a moment and be judged dead
        buffer.putLongVolatile(o + 8, 0);
        // a reclaimer in another process may hold the slot for a moment (see reclaimIfDead) and give it back to us;
        // if it died holding it, whoever takes its reclaim over gives the slot back to us, and claimSlot takes it
        for (int spins = 0; !buffer.compareAndSetLong(o, ProcessIdentity.PID, 0)
            && buffer.getLongVolatile(o) < 0 && spins < 1_000_000; spins++) {
            Thread.onSpinWait();
        }
    }

    /** Drops every reference of this process at once (process exit). */
    void dropSlot(int slot) {
        buffer.putLongVolatile(countOffset(slot), 0);
    }

    /** @return the sum of the counts of all claimed slots */
    long total() {
        long total = 0;
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final long pid = buffer.getLongVolatile(ownerOffset(i));
            // a slot being reclaimed counts until its count is taken: a reclaimer may yet give it back to its owner
            if (pid != 0) {
                // a negative count (written by no sharray process) holds nothing and must not cancel a real one
                total += Math.max(0, buffer.getLongVolatile(countOffset(i)));
            }
        }
        return total;
    }

    /**
     * @return whether {@link #total()} is above 0, stopping at the first slot that counts a reference: a deleter
     *     asks only that, on every release that drops a process's last reference
     */
    private boolean isReferenced() {
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            if (buffer.getLongVolatile(ownerOffset(i)) != 0 && buffer.getLongVolatile(countOffset(i)) > 0) {
                return true;
            }
        }
        return false;
    }

    /** @return holders as {pid, count} pairs for claimed slots with a positive count, plus whether alive */
    java.util.Map<Long, Long> holders() {
        java.util.Map<Long, Long> result = new java.util.TreeMap<>();
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            long pid = buffer.getLongVolatile(ownerOffset(i));
            long count = buffer.getLongVolatile(countOffset(i));
            if (pid > 0 && count > 0) {
                result.merge(pid, count, Long::sum);
            }
        }
        return result;
    }

    /**
     * @return the pids among {@link #holders()} of which no slot with references belongs to a running process: their
     *     references count until a live holder's release or a reaper pass takes them back
     */
    java.util.Set<Long> deadHolders() {
        final java.util.Set<Long> dead = new java.util.TreeSet<>();
        final java.util.Set<Long> alive = new java.util.HashSet<>();
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final int o = ownerOffset(i);
            final long pid = buffer.getLongVolatile(o);
            final long count = buffer.getLongVolatile(o + 16);
            final long start = buffer.getLongVolatile(o + 8);
            if (pid > 0 && count > 0) {
                (countsAsLive(pid, start, count) ? alive : dead).add(pid);
            }
        }
        dead.removeAll(alive);
        return dead;
    }

    /** @return whether a slot of {@code pid} counting references is a running holder's (one listing and releases agree on) */
    private static boolean countsAsLive(long pid, long start, long count) {
        return !countsWithoutIdentity(pid, start, count) && ProcessIdentity.isAlive(pid, start);
    }

    /** @return true when some slot with references belongs to a live process */
    boolean hasLiveHolder() {
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            int o = ownerOffset(i);
            long pid = buffer.getLongVolatile(o);
            long count = buffer.getLongVolatile(o + 16);
            long start = buffer.getLongVolatile(o + 8);
            if (pid > 0 && count > 0 && countsAsLive(pid, start, count)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #reclaimDead()}, unless a live process holds a reference ({@link #hasLiveHolder()}): then the array
     * stays whatever dead holders counted, and the last live holder to release reclaims them, finding none.
     * On the path of every release and reuse, this checks holders until the first live one where
     * {@link #reclaimDead()} checks them all.
     */
    void reclaimDeadUnlessHeld() {
        if (!hasLiveHolder()) {
            reclaimDead();
        }
    }

    /**
     * Frees the slots of dead processes, dropping their references.
     *
     * @return number of references reclaimed
     */
    long reclaimDead() {
        long reclaimed = 0;
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final long pid = buffer.getLongVolatile(ownerOffset(i));
            if (pid > 0 && pid != ProcessIdentity.PID) {
                reclaimed += reclaimIfDead(i);
            } else if (pid < 0) {
                reclaimed += takeOverReclaim(i, pid);
            }
        }
        return reclaimed;
    }

    /** @return whether {@link #reclaimDead()} would free a slot now */
    boolean hasReclaimableSlot() {
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final long pid = buffer.getLongVolatile(ownerOffset(i));
            if (pid > 0 && pid != ProcessIdentity.PID && isReclaimable(i, pid)
                || pid < 0 && ProcessWords.isReclaimMark(pid) && !ProcessWords.isReclaimerAlive(pid)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A start of 0 is a claim in progress (its count still 0), which is left alone, unless references are counted
     * without it: that slot is corrupt and reclaimed like a dead process's.
     */
    private boolean isReclaimable(int slot, long pid) {
        final int o = ownerOffset(slot);
        // the count before the start: a claimer stores its start before its first reference, so a count read first
        // that is positive comes with the start. Read the other way round, a claim in progress (start 0 when read)
        // whose holder then took its reference (count 1 when read) looked corrupt, and a live holder's slot was freed.
        // (That holds within one holder's tenure of the slot; see reclaimIfDead for a slot that changes hands.)
        final long count = buffer.getLongVolatile(o + 16);
        final Runnable hook = betweenSlotReads;
        if (hook != null) {
            hook.run();
        }
        final long start = buffer.getLongVolatile(o + 8);
        return pid > 0 && pid <= ProcessWords.MAX_PID
            && (countsWithoutIdentity(pid, start, count) || !ProcessIdentity.isAlive(pid, start));
    }

    private long reclaimIfDead(int slot) {
        final int o = ownerOffset(slot);
        final long pid = buffer.getLongVolatile(o);
        if (!isReclaimable(slot, pid)) {
            return 0;
        }
        final Runnable hook = beforeReclaimCas;
        if (hook != null) {
            hook.run();
        }
        if (!buffer.compareAndSetLong(o, pid, ProcessWords.reclaimMark(pid))) {
            return 0; // another reclaimer won
        }
        return reclaimMarked(slot, pid);
    }

    /**
     * Takes over the reclaim of a slot whose reclaimer died holding it under its mark: the slot would otherwise
     * stay taken for ever, and the references it counts would keep the array alive for ever.
     */
    private long takeOverReclaim(int slot, long mark) {
        if (!ProcessWords.isReclaimMark(mark) || ProcessWords.isReclaimerAlive(mark)) {
            return 0; // at work, ours included
        }
        final long pid = ProcessWords.holderOf(mark);
        if (!buffer.compareAndSetLong(ownerOffset(slot), mark, ProcessWords.reclaimMark(pid))) {
            return 0; // another process took it over
        }
        return reclaimMarked(slot, pid);
    }

    /**
     * Finishes a reclaim once this process's mark holds the slot of {@code pid}: nobody can claim or give the slot
     * back now, and only a claim in progress of that pid still writes it.
     *
     * <p>The CAS checks the pid only, and since processes give their slots back, the slot may have changed hands
     * while we judged it: its live holder gave it back and claimed it again, or another process had it in between,
     * so that our reads of its count and start belonged to different tenures (a count of the previous one and no
     * start yet of the next looks corrupt; another process's start looks like a dead one's). A reclaimer that died
     * under its mark may have left the slot anywhere between judged and reset. So judge it again: if it is no longer
     * reclaimable, give it back untouched (total() counts a marked slot, so its holder's references never vanish
     * from a deleter's view meanwhile). Reset in this order (count, start, pid), a slot is never freed with a count.
     */
    private long reclaimMarked(int slot, long pid) {
        final Runnable hook = afterReclaimMark;
        if (hook != null) {
            hook.run();
        }
        final int o = ownerOffset(slot);
        if (!isReclaimable(slot, pid)) {
            buffer.putLongVolatile(o, pid);
            return 0;
        }
        final long count = buffer.getAndSetLong(o + 16, 0);
        buffer.putLongVolatile(o + 8, 0);
        buffer.putLongVolatile(o, 0);
        return count;
    }

    /**
     * Begins the deletion when no references remain: names this process in the deleter word, moves LIVE to
     * DELETING and rereads the total (a holder that acquired meanwhile keeps the array: LIVE again).
     *
     * <p>A live process that holds the deleter word moves the state on or gives the word back within a few
     * instructions, and a release must not give up on it meanwhile: that process may be reverting because of the
     * very reference this release dropped, and then nobody else would delete. So a release waits (at most
     * {@value #DELETING_TIMEOUT_NANOS} ns) until the word and state settle. A deleter that died at any point is
     * taken over.
     *
     * @return true when the caller won and must delete the files, then call {@link #markDeleted()}
     */
    boolean tryBeginDelete() {
        long deadline = 0;
        while (!isReferenced()) {
            final int state = state();
            final long deleter = buffer.getLongVolatile(DELETER_OFFSET);
            if (state == DELETED) {
                return false;
            }
            if (deleter == 0 || !ProcessWords.isAlive(deleter)) {
                if (buffer.compareAndSetLong(DELETER_OFFSET, deleter, SELF)) {
                    return settleDeletion();
                }
                continue;
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + DELETING_TIMEOUT_NANOS;
            } else if (now > deadline) {
                return false; // a live deleter stopped in its tracks (SIGSTOP): it finishes when it resumes
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /**
     * Takes over a deletion whose deleter ended (killed at any point after naming itself) and finishes what it
     * began: it rereads the total as the deleter would have (a holder that took its reference just before the
     * deleter's CAS keeps the array LIVE), else the caller deletes. Call it after {@link #reclaimDead()}.
     *
     * @return true when the caller took it over and must delete the files, then call {@link #markDeleted()}
     */
    boolean tryTakeOverDelete() {
        final long deleter = buffer.getLongVolatile(DELETER_OFFSET);
        if (state() != DELETING || !deleterEnded(deleter) || !buffer.compareAndSetLong(DELETER_OFFSET, deleter, SELF)) {
            return false;
        }
        return settleDeletion();
    }

    /**
     * Holding the deleter word: moves LIVE to DELETING (unless a deleter whose word we took over already had), then
     * rereads the total. Only the holder of the word moves the state, and it reverts state first, word second:
     * a release that waits on the word then finds the array LIVE.
     */
    private boolean settleDeletion() {
        final Runnable hook = afterDeleterNamed;
        if (hook != null) {
            hook.run();
        }
        if (!buffer.compareAndSetInt(STATE_OFFSET, LIVE, DELETING) && state() != DELETING) {
            return false; // DELETED: the deleter whose word we took over had finished
        }
        if (isReferenced()) {
            buffer.putIntVolatile(STATE_OFFSET, LIVE); // an acquirer raced in: it keeps the array alive
            buffer.putLongVolatile(DELETER_OFFSET, 0);
            return false;
        }
        return true;
    }

    /**
     * @return whether a slot belongs to {@code pid}, or is being reclaimed by it or from it (whatever it counts,
     *     and whether that process is alive)
     */
    boolean hasSlotOf(long pid) {
        final int inUse = slotsInUse();
        for (int i = 0; i < inUse; i++) {
            final long word = buffer.getLongVolatile(ownerOffset(i));
            if (word == pid || ProcessWords.isReclaimMark(word)
                && (ProcessWords.holderOf(word) == pid || ProcessWords.reclaimerOf(word) == pid)) {
                return true;
            }
        }
        return false;
    }

    /** @return the pid of the process named in the deleter word (0 when none): it began or is about to delete */
    long deleterPid() {
        return ProcessWords.pidOf(buffer.getLongVolatile(DELETER_OFFSET));
    }

    private boolean deleterEnded() {
        return deleterEnded(buffer.getLongVolatile(DELETER_OFFSET));
    }

    private static boolean deleterEnded(long deleter) {
        return deleter != 0 && !ProcessWords.isAlive(deleter);
    }

    void markDeleted() {
        buffer.putIntVolatile(STATE_OFFSET, DELETED);
    }

    /** Unmaps the file; a copy from {@link #readCopy} has nothing to unmap. */
    void unmap() {
        if (mapping != null) {
            mapping.unmap();
        }
    }
}
