package dev.sharray;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * A file over 2 GiB whose size is not a page multiple (a NumPy file, typically), mapped with a plain
 * {@code mmap} of exactly its length: Chronicle would first grow the user's file to a whole page.
 */
final class PosixMapping implements Mapping {
    private final long address;
    private final long length;

    private PosixMapping(long address, long length) {
        this.address = address;
        this.length = length;
    }

    static PosixMapping map(Path file, long length) {
        try {
            return new PosixMapping(Posix.mapShared(file.toString(), length), length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + file + ": " + e.getMessage(), e);
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
        ReleasedRanges.unmap(address, length, () -> Posix.unmap(address, length));
    }

    @Override
    public Backing backing() {
        return Backing.MAPPED_FILE;
    }
}
