package dev.sharray;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

/** {@link Backing#AGRONA}: one {@link MappedByteBuffer} through Agrona, at most 2 GiB. */
final class AgronaMapping implements Mapping {
    /** Largest file a single Agrona mapping covers ({@code int} indices). */
    static final long MAX_LENGTH = Integer.MAX_VALUE;

    private final MappedByteBuffer buffer;
    private final long address;
    private final long length;

    private AgronaMapping(MappedByteBuffer buffer, long length) {
        this.buffer = buffer;
        this.address = BufferUtil.address(buffer);
        this.length = length;
    }

    /** Maps through an already open channel (saves reopening the file the header was read from). */
    static AgronaMapping map(FileChannel channel, Path file, long length) throws java.io.IOException {
        JvmAccess.requireFlags();
        checkLength(file, length);
        final MappedByteBuffer buffer;
        try {
            buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        } catch (java.io.IOException e) {
            throw Mapping.failed(file, length, e);
        }
        return new AgronaMapping(buffer, length);
    }

    private static void checkLength(Path file, long length) {
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("the AGRONA backing maps at most 2 GiB; " + file + " needs "
                + length + " bytes: use Backing.MAPPED_FILE");
        }
    }

    static AgronaMapping map(Path file, long length) {
        JvmAccess.requireFlags();
        checkLength(file, length);
        final MappedByteBuffer buffer;
        try {
            buffer = IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_WRITE, file.getFileName().toString(),
                0, length);
        } catch (Exception e) { // Agrona rethrows the channel's IOException undeclared
            throw Mapping.failed(file, length, e);
        }
        return new AgronaMapping(buffer, length);
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
        ReleasedRanges.unmap(address, length, () -> IoUtil.unmap(buffer));
    }

    @Override
    public Backing backing() {
        return Backing.AGRONA;
    }
}
