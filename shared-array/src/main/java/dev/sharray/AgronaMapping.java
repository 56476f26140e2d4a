package dev.sharray;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** {@link Backing#AGRONA}: one {@link MappedRegion} of at most 2 GiB, read and written through Agrona's buffers. */
final class AgronaMapping implements Mapping {
    /** Largest file a single Agrona mapping covers ({@code int} indices). */
    static final long MAX_LENGTH = MappedRegion.MAX_LENGTH;

    private final MappedRegion region;

    private AgronaMapping(MappedRegion region) {
        this.region = region;
    }

    /** Maps through an already open channel (saves reopening the file the header was read from). */
    static AgronaMapping map(FileChannel channel, Path file, long length) throws java.io.IOException {
        JvmAccess.requireFlags();
        checkLength(file, length);
        try {
            return new AgronaMapping(MappedRegion.map(channel, length));
        } catch (java.io.IOException e) {
            throw Mapping.failed(file, length, e);
        }
    }

    private static void checkLength(Path file, long length) {
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("the AGRONA backing maps at most 2 GiB; " + file + " needs "
                + length + " bytes: use Backing.MAPPED_FILE");
        }
    }

    static AgronaMapping map(Path file, long length) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return map(channel, file, length);
        } catch (java.io.IOException e) {
            throw Mapping.failed(file, length, e);
        }
    }

    @Override
    public long address() {
        return region.address();
    }

    @Override
    public long length() {
        return region.length();
    }

    @Override
    public void unmap() {
        ReleasedRanges.unmap(region);
    }

    @Override
    public Backing backing() {
        return Backing.AGRONA;
    }
}
