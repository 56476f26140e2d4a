package dev.sharray.cli.ec;

import dev.sharray.codec.Crc32c;
import dev.sharray.codec.MemoryFaultException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
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
     * @return the CRC-32C of {@code [pos, pos+len)} of the channel, read with read calls rather than mapped: a hole
     *     of a sparse file reads as zeros this way, where a mapping of it on a full tmpfs faults (the file system
     *     must give a page to map, and has none)
     * @throws EOFException if the file ends before {@code pos + len}
     */
    static int readCrc(FileChannel ch, long pos, long len) throws IOException {
        final ByteBuffer b = ByteBuffer.allocateDirect((int) Math.min(READ_CHUNK, Math.max(len, 1)));
        try {
            int crc = 0;
            for (long off = 0; off < len; ) {
                b.clear().limit((int) Math.min(b.capacity(), len - off));
                final int n = ch.read(b, pos + off);
                if (n < 0) {
                    throw new EOFException("the file ends before byte " + (pos + len) + ": it shrank");
                }
                crc = Crc32c.update(crc, b.flip());
                off += n;
            }
            return crc;
        } finally {
            BufferUtil.free(b); // as this class's mappings: freed here, never left to the GC
        }
    }

    /** Bytes per read of {@link #readCrc}. */
    private static final int READ_CHUNK = 1 << 20;

    /**
     * Why a file that kept its length faulted under a mapping. Reading a hole (a part of a sparse file never
     * written) through a mapping makes a tmpfs allocate a page for it, which a full tmpfs cannot.
     *
     * @param file   the file
     * @param what   names it at the start of the message ("the input", "shard 3 (path)")
     * @param remedy what to do when its file system is full ("encode a copy without holes")
     * @return the reason, for a message
     */
    static String faultWithoutShrinking(Path file, String what, String remedy) {
        boolean full;
        try {
            full = Files.getFileStore(file).getUsableSpace() == 0;
        } catch (IOException e) {
            full = false;
        }
        return full ? what + " has holes (parts never written) that its file system, which is full, cannot back to read"
            + " them: free space there, or " + remedy
            : what + " faulted while being read, though it did not shrink: its file system could not back a part of it"
            + " (a hole of a sparse file?)";
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
