package dev.sharray.pool;

import dev.sharray.Loggers;
import dev.sharray.MappedRegion;
import dev.sharray.SharedArrays;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The transport between the parent and one worker: one mapped 0600 file holding two single-producer
 * single-consumer Agrona ring buffers, parent-to-worker and worker-to-parent. The parent creates the
 * file, the worker maps it by path, and the parent unlinks it once the worker has said hello, so the
 * file never outlives the pair even if both are killed.
 *
 * <p>Layout: a 64-byte header (magic, version, capacity, the worker's and the parent's sleeping flags),
 * then each ring's data and trailer.
 *
 * <p>An idle worker sleeps instead of polling: it raises the sleeping flag, looks at its ring one last
 * time and parks; the parent, after writing to the ring, takes the flag down and rings a doorbell (a byte on
 * the worker's stdin) when it was up. The flag store and the ring check on one side, the ring write and
 * the flag check on the other, are each separated by a full fence, so one of the two always sees the other.
 *
 * <p>The parent's result thread sleeps the same way while a long task runs: it raises the parent's flag, looks
 * at the result ring one last time and waits on its {@link ResultDoorbell}; a worker, after writing to the
 * result ring, takes that flag down and rings the doorbell when it was up.
 */
final class RingFile implements AutoCloseable {
    private static final int MAGIC = 0x53485250; // "SHRP"
    private static final int VERSION = 3;
    private static final int HEADER = 64;
    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int CAPACITY_OFFSET = 8;
    private static final int SLEEPING_OFFSET = 16;
    private static final int PARENT_SLEEPING_OFFSET = 20;

    private final Path path;
    private final MappedRegion mapping;
    private final UnsafeBuffer header;
    private final RingBuffer toWorker;
    private final RingBuffer toParent;
    private boolean closed;

    private RingFile(Path path, MappedRegion mapping, int capacity) {
        this.path = path;
        this.mapping = mapping;
        this.header = new UnsafeBuffer(mapping.address(), HEADER);
        final int ringLength = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        this.toWorker = new OneToOneRingBuffer(new UnsafeBuffer(mapping.address() + HEADER, ringLength));
        this.toParent = new OneToOneRingBuffer(new UnsafeBuffer(mapping.address() + HEADER + ringLength, ringLength));
    }

    /** @return the size of the file of two rings of {@code capacity} bytes each */
    static long fileSize(int capacity) {
        return HEADER + 2L * (capacity + RingBufferDescriptor.TRAILER_LENGTH);
    }

    /**
     * Creates and maps a new ring file (fails if {@code path} exists).
     *
     * @param path     where; the folder must exist
     * @param capacity bytes per ring, a power of two
     * @return the mapped file
     * @throws IOException when the file cannot be created or mapped
     */
    static RingFile create(Path path, int capacity) throws IOException {
        RingBufferDescriptor.checkCapacity(capacity + RingBufferDescriptor.TRAILER_LENGTH, OneToOneRingBuffer.MIN_CAPACITY);
        final long size = fileSize(capacity);
        // a JVM that exits before the worker's HELLO (SIGTERM while the pool starts) must not leave the file
        SharedArrays.createDeletedAtExit(path, () -> Files.createFile(path,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))));
        final MappedRegion mapping;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            writeZeros(ch, size);
            mapping = MappedRegion.map(ch, size);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(path);
            SharedArrays.forgetAtExit(path);
            throw e;
        }
        final UnsafeBuffer header = new UnsafeBuffer(mapping.address(), HEADER);
        header.putInt(CAPACITY_OFFSET, capacity);
        header.putInt(VERSION_OFFSET, VERSION);
        // magic last, with release semantics: a worker that sees it sees a complete header
        header.putIntRelease(MAGIC_OFFSET, MAGIC);
        return new RingFile(path, mapping, capacity);
    }

    /**
     * Writes the whole new file, so that every page of it is allocated before anything maps it: a full file system
     * fails here with an {@link IOException} ("No space left on device"). {@code map} alone leaves the file sparse, and
     * its pages were allocated one at a time as messages went round the rings; once the folder had filled up (with
     * arrays, in a tmpfs) the next new page faulted (SIGBUS): an {@code InternalError} in the parent's submit and in
     * the worker, which died.
     */
    private static void writeZeros(FileChannel ch, long size) throws IOException {
        final java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocate((int) Math.min(size, 64 << 10));
        for (long at = 0; at < size; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
            at += ch.write(zeros, at);
        }
    }

    /**
     * Maps an existing ring file created by {@link #create}.
     *
     * @param path the file
     * @return the mapped file
     * @throws IOException when it cannot be mapped or is not a ring file
     */
    static RingFile open(Path path) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final long size = ch.size();
            if (size < HEADER) {
                throw new IOException("not a ring file (too small): " + path);
            }
            if (size > MappedRegion.MAX_LENGTH) {
                throw new IOException("not a ring file (too large): " + path);
            }
            final MappedRegion mapping = MappedRegion.map(ch, size);
            final UnsafeBuffer header = new UnsafeBuffer(mapping.address(), HEADER);
            final int capacity = header.getInt(CAPACITY_OFFSET);
            if (header.getIntAcquire(MAGIC_OFFSET) != MAGIC || header.getInt(VERSION_OFFSET) != VERSION
                || Integer.bitCount(capacity) != 1
                || size != HEADER + 2L * (capacity + RingBufferDescriptor.TRAILER_LENGTH)) {
                mapping.unmap();
                throw new IOException("not a ring file (bad header): " + path);
            }
            return new RingFile(path, mapping, capacity);
        }
    }

    /** @return the file's path (it may already be unlinked) */
    Path path() {
        return path;
    }

    /** @return the ring the parent writes and the worker reads */
    RingBuffer toWorker() {
        return toWorker;
    }

    /** @return the ring the worker writes and the parent reads */
    RingBuffer toParent() {
        return toParent;
    }

    /**
     * Worker side: raises the sleeping flag before the worker's last look at its ring (the volatile store is
     * a full fence, so that look cannot move before it).
     */
    void markSleeping() {
        header.putIntVolatile(SLEEPING_OFFSET, 1);
    }

    /** Worker side: awake again. */
    void clearSleeping() {
        header.putIntVolatile(SLEEPING_OFFSET, 0);
    }

    /**
     * Parent side, after writing to the worker's ring: takes the sleeping flag down if it is up.
     *
     * @return whether the worker sleeps (or is about to): the caller must ring its doorbell
     */
    boolean takeSleeping() {
        VarHandle.fullFence(); // the ring write (a release store) must not move after this load
        return header.getIntVolatile(SLEEPING_OFFSET) != 0 && header.compareAndSetInt(SLEEPING_OFFSET, 1, 0);
    }

    /**
     * Parent side: raises the parent's sleeping flag before its last look at the result ring (the volatile
     * store is a full fence). The parent leaves it up when it wakes: a worker that then finds it up rings once
     * for nothing and takes it down.
     */
    void markParentSleeping() {
        header.putIntVolatile(PARENT_SLEEPING_OFFSET, 1);
    }

    /**
     * Worker side, after writing to the result ring: takes the parent's sleeping flag down if it is up.
     *
     * @return whether the parent sleeps (or is about to): the caller must ring the parent's doorbell
     */
    boolean takeParentSleeping() {
        VarHandle.fullFence(); // the ring write (a release store) must not move after this load
        return header.getIntVolatile(PARENT_SLEEPING_OFFSET) != 0 && header.compareAndSetInt(PARENT_SLEEPING_OFFSET, 1, 0);
    }

    /** @return whether the worker's sleeping flag is up (for tests) */
    boolean sleeping() {
        return header.getIntVolatile(SLEEPING_OFFSET) != 0;
    }

    /** Unlinks the file; the mappings stay valid. */
    void unlink() {
        try {
            Files.deleteIfExists(path);
            SharedArrays.forgetAtExit(path);
        } catch (IOException e) {
            // the pool's folder is removed at close, at exit and by the reaper; said as for an array's file
            Loggers.get("dev.sharray.pool").warn("could not delete {}: {}", path, e.toString());
        }
    }

    /**
     * Unmaps. The caller guarantees no thread touches either ring any more: unmapped memory faults.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            mapping.unmap();
        }
    }
}
