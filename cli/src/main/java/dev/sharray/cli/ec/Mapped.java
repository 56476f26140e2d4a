package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;
import org.agrona.BufferUtil;

/** Read-only file mappings that are unmapped explicitly (never left to the GC), and checksums over them. */
final class Mapped {
    /** Largest single mapping used for checksums. */
    static final long CHUNK = 64L << 20;

    private Mapped() {
    }

    /** Maps {@code [pos, pos+len)} read-only; release it with {@link #unmap}. */
    static MappedByteBuffer map(FileChannel ch, long pos, long len) throws IOException {
        return ch.map(FileChannel.MapMode.READ_ONLY, pos, len);
    }

    /** Unmaps a buffer returned by {@link #map} (not a slice of it). */
    static void unmap(ByteBuffer b) {
        if (b != null && b.isDirect()) {
            BufferUtil.free(b);
        }
    }

    /** Updates {@code crc} with {@code [pos, pos+len)} of the channel. */
    static void crc(FileChannel ch, long pos, long len, CRC32C crc) throws IOException {
        for (long off = 0; off < len; off += CHUNK) {
            long n = Math.min(CHUNK, len - off);
            MappedByteBuffer b = map(ch, pos + off, n);
            try {
                crc.update(b);
            } finally {
                unmap(b);
            }
        }
    }
}
