package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;

/** Small I/O helpers: full writes and readable reasons. */
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

    /** @return the OS reason of an I/O error, e.g. "No space left on device" */
    static String reason(Exception ex) {
        Throwable e = ex instanceof dev.sharray.cli.TaskFailedException && ex.getCause() != null ? ex.getCause() : ex;
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
