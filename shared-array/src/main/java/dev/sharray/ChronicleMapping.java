package dev.sharray;

import java.io.FileNotFoundException;
import java.nio.file.Path;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;
import net.openhft.chronicle.core.shutdown.PriorityHook;

/**
 * {@link Backing#MAPPED_FILE}: one Chronicle Bytes single mapping of the whole file, any size. We hold
 * Chronicle's reference explicitly and release it ourselves; the object stays strongly reachable until
 * then, so Chronicle's finalizer-based leak release never frees memory we still use.
 */
final class ChronicleMapping implements Mapping, ReferenceOwner {
    static {
        NativeFiles.prepareJffi(); // before Chronicle's first use, which loads jffi
    }

    private final MappedFile file;
    private final MappedBytesStore store;
    private final long address;
    private final long length;

    private ChronicleMapping(MappedFile file, MappedBytesStore store, long length) {
        this.file = file;
        this.store = store;
        this.address = store.addressForRead(0);
        this.length = length;
    }

    /** Chronicle's hooklet priorities run 0-100, lowest first: ours does nothing, so last. */
    private static final int PRIORITY_AT_EXIT = 100;
    /** Whether Chronicle's classes have mapped a file in this JVM (their static set-up is done). */
    private static volatile boolean started;

    /** Does nothing at exit: registered only to have Chronicle's own shutdown hook in place (see {@link #map}). */
    private static final Runnable NOTHING_AT_EXIT = () -> { };

    static ChronicleMapping map(Path path, long length) {
        if (!started) {
            // Chronicle's first use registers its shutdown hook deep in a few hundred milliseconds of class set-up,
            // which the JVM refuses once its exit has begun (a Ctrl-C while the first array of over 2 GiB is made): its
            // releaser class then fails to initialize, and its thread prints that failure. Registered here first, with
            // nothing of Chronicle's set up yet, the hook is in before the exit, or its refusal is this create's.
            try {
                PriorityHook.add(PRIORITY_AT_EXIT, NOTHING_AT_EXIT);
            } catch (IllegalStateException exiting) {
                throw new IllegalStateException("cannot create a shared array: this JVM is exiting", exiting);
            }
        }
        MappedFile file;
        try {
            file = MappedFile.ofSingle(path.toFile(), length, false); // maps the file, here
        } catch (FileNotFoundException | RuntimeException e) {
            throw Mapping.failed(path, length, e);
        }
        started = true;
        file.singleThreadedCheckDisabled(true);
        ChronicleMapping[] result = new ChronicleMapping[1];
        try {
            ReferenceOwner owner = ReferenceOwner.temporary("sharray");
            MappedBytesStore store = file.acquireByteStore(owner, 0);
            store.singleThreadedCheckDisabled(true);
            result[0] = new ChronicleMapping(file, store, length);
            store.reserveTransfer(owner, result[0]);
            return result[0];
        } catch (java.io.IOException | RuntimeException e) {
            file.releaseLast(); // whatever failed, the MappedFile (and its descriptor) must not stay open
            throw Mapping.failed(path, length, e);
        }
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public void unmap() {
        closeFileQuietly(); // the open descriptor would keep a deleted file's memory until the range is freed
        // the store's capacity is what Chronicle mapped and will unmap: the range to reserve
        ReleasedRanges.unmap(address, store.realCapacity(), this::releaseChronicle);
    }

    private void releaseChronicle() {
        store.release(this);
        file.releaseLast();
        if (store.refCount() > 0) {
            // Chronicle's file keeps its own reservation of the store unless -DmappedFile.retain=true: without this
            // the mapping, and a deleted file's memory, stayed in the process after the last release
            store.release(file);
        }
        // Chronicle unmaps on its background releaser thread, soon after: not waited for, as waiting costs at
        // least a millisecond, and the range holds only the empty file or, unreserved, no longer-used pages
    }

    private void closeFileQuietly() {
        try {
            file.raf().close();
        } catch (java.io.IOException e) {
            // the descriptor is gone either way on Linux; Chronicle's own release closes it again, harmlessly
        }
    }

    @Override
    public Backing backing() {
        return Backing.MAPPED_FILE;
    }
}
