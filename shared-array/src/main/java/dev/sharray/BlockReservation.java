package dev.sharray;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reserves, before a file is mapped writable, the storage of the range that will be mapped: the blocks of a file
 * with holes (a user's {@code .npy} made with {@code truncate} or NumPy's {@code open_memmap}, a copy made sparse)
 * are allocated only when a page is first touched, and on a full file system
 * that touch is a SIGBUS, which HotSpot turns into an {@link InternalError} at some later access in Java code (on
 * JDK 17 possibly at a later safepoint) and which ends the JVM in native code (JNA, the codec). On a tmpfs even a
 * read of a hole allocates a page. So the open fails instead, with {@link InsufficientSpaceException}, as
 * {@code create} does, and changes nothing in the file: allocating a range ({@code fallocate}, keeping the size)
 * never changes a byte, and a tmpfs that runs out midway gives back what it allocated. A disk file system keeps it
 * (ext4, XFS), so holes that the file's block count shows cannot fit the free space are refused before allocating;
 * only holes within a few metadata blocks of the free space can still take some of it before the refusal.
 */
final class BlockReservation {
    private BlockReservation() {
    }

    /**
     * Allocates the blocks of {@code [0, length)} of {@code file} that have none, or refuses.
     *
     * @param file   the file, about to be mapped writable
     * @param length the bytes that will be mapped, at most the file's size
     * @throws InsufficientSpaceException when its file system (or, for a tmpfs, the memory left) cannot back the range;
     *     the file's bytes are unchanged
     * @throws NoSuchFileException when the file is gone meanwhile
     * @throws IOException when the allocation failed otherwise (the errno is in the message)
     */
    static void reserve(Path file, long length) throws IOException {
        final long[] found = {-1, -1}; // the holes (a lower bound unless exact) and the free bytes, before allocating
        final boolean[] exact = {false};
        final int errno = Posix.allocateMissing(file.toString(), length, holes -> {
            if (holes.bytes() == 0 && holes.exact() || holes.bytes() < 0) {
                return; // none (in a tmpfs), or nothing known here: the allocation tells
            }
            found[0] = holes.bytes();
            exact[0] = holes.exact();
            found[1] = TempFolders.usableSpace(folderOf(file));
            if (found[1] >= 0 && found[1] < holes.bytes()) {
                // refused before allocating: a disk file system keeps what an allocation that runs out took, so
                // trying would fill it (a tmpfs gives it back). Said before the memory left, as create does
                throw InsufficientSpaceException.toBack(file, holes.bytes(), holes.exact() ? "" : "at least ",
                    found[1], false);
            }
            if (holes.exact() && holes.bytes() >= TempFolders.MEMORY_CHECK_BYTES) {
                // a tmpfs's pages are memory: allocating past what is left has the OOM killer end a process
                // (typically this one) rather than fail, as create's check says
                final long memory = MemoryRoom.available();
                if (memory < holes.bytes()) {
                    throw InsufficientSpaceException.toBack(file, holes.bytes(), "", memory, true);
                }
            }
        });
        if (errno == 0 || errno == Posix.EOPNOTSUPP || errno == Posix.ENOSYS || errno == -1) {
            // done; or this file system (or the C library) cannot allocate without writing, and writing a zero into
            // each hole now could overwrite what another process writes there meanwhile: mapped as before
            return;
        }
        if (errno == Posix.ENOSPC || errno == Posix.EDQUOT) {
            // the free bytes seen before: a disk file system keeps what the failed allocation took
            throw exact[0] ? InsufficientSpaceException.toBack(file, found[0], "", found[1], false)
                : InsufficientSpaceException.toBack(file, length, "up to ", found[1], false);
        }
        if (errno == Posix.ENOENT) {
            throw new NoSuchFileException(file.toString());
        }
        throw new IOException("cannot reserve the storage of its " + length + " bytes: errno " + errno);
    }

    private static Path folderOf(Path file) {
        final Path parent = file.toAbsolutePath().getParent();
        return parent != null ? parent : file;
    }
}
