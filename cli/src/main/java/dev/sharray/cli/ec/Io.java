package dev.sharray.cli.ec;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Small I/O helpers: full reads and writes. */
final class Io {
    private Io() {
    }

    /**
     * Writes all of {@code b}.
     *
     * @param ch  the channel
     * @param b   the bytes (position..limit)
     * @param pos absolute file position, or -1 for the channel's position
     */
    static void writeFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        long p = pos;
        while (b.hasRemaining()) {
            int n = p < 0 ? ch.write(b) : ch.write(b, p);
            if (p >= 0) {
                p += n;
            }
        }
    }

    /**
     * Reads {@code b}'s remaining bytes from {@code pos} on, and flips it.
     *
     * @param what names the input in the error when it turns out shorter, e.g. "shard 3"
     * @return {@code b}, flipped
     * @throws EOFException when the file ends first (it shrank: its length was checked before)
     */
    static ByteBuffer readFully(FileChannel ch, ByteBuffer b, long pos, String what) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) {
                throw new EOFException(what + " shrank while reading");
            }
        }
        return b.flip();
    }

    /**
     * Appends {@code [pos, pos+len)} of {@code in} to {@code out} by kernel copy.
     *
     * @param what names the input in the error when it turns out shorter, e.g. "shard 3"
     */
    static void transferFully(FileChannel in, long pos, long len, FileChannel out, String what) throws IOException {
        for (long done = 0; done < len; ) {
            long t = in.transferTo(pos + done, len - done, out);
            if (t <= 0) {
                throw new IOException(what + " shrank while reading");
            }
            done += t;
        }
    }

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 << 10).asReadOnlyBuffer();

    /** Appends {@code n} zero bytes to {@code out}. */
    static void writeZeros(FileChannel out, long n) throws IOException {
        for (long left = n; left > 0; ) {
            int chunk = (int) Math.min(left, ZEROS.capacity());
            writeFully(out, ZEROS.duplicate().limit(chunk), -1);
            left -= chunk;
        }
    }
}
