package dev.sharray.cli.ec;

import dev.sharray.codec.Crc32c;
import dev.sharray.codec.MemoryFaultException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import org.agrona.BufferUtil;

/** Read-only file mappings that are unmapped explicitly (never left to the GC), and checksums over them. */
final class Mapped {
    /** Largest single mapping used for checksums. */
    static final long CHUNK = 64L << 20;

    private Mapped() {
    }

    /** Test hook: runs after every mapping, to truncate a file under it (null: nothing). */
    static volatile Runnable afterMapping;

    /**
     * Maps {@code [pos, pos+len)} read-only; release it with {@link #unmap}.
     *
     * @throws EOFException if the file no longer reaches {@code pos + len} (it shrank)
     */
    static MappedByteBuffer map(FileChannel ch, long pos, long len) throws IOException {
        MappedByteBuffer b;
        try {
            b = ch.map(FileChannel.MapMode.READ_ONLY, pos, len);
        } catch (IOException e) { // read-only past the end: "Channel not open for writing - cannot extend ..."
            if (ch.size() < pos + len) {
                EOFException shrank = new EOFException("the file ends before byte " + (pos + len) + ": it shrank");
                shrank.initCause(e);
                throw shrank;
            }
            throw e;
        }
        Runnable hook = afterMapping;
        if (hook != null) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                unmap(b); // the caller never gets it to unmap
                throw e;
            }
        }
        return b;
    }

    /** Unmaps a buffer returned by {@link #map} (not a slice of it). */
    static void unmap(ByteBuffer b) {
        if (b != null && b.isDirect()) {
            BufferUtil.free(b);
        }
    }

    /**
     * @return the CRC-32C of {@code [pos, pos+len)} of the channel
     * @throws EOFException if the file shrank before a part of it was mapped
     * @throws MemoryFaultException if the file shrank under a mapped part
     */
    static int crc(FileChannel ch, long pos, long len) throws IOException {
        int crc = 0;
        for (long off = 0; off < len; off += CHUNK) {
            long n = Math.min(CHUNK, len - off);
            MappedByteBuffer b = map(ch, pos + off, n);
            try {
                crc = Crc32c.update(crc, b); // not the JDK's CRC32C: a fault in it ends the JVM
            } finally {
                unmap(b);
            }
        }
        return crc;
    }
}
