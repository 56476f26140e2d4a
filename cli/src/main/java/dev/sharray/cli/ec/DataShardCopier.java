package dev.sharray.cli.ec;

import dev.sharray.cli.TaskFailedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Writes the data shard bodies on a thread of its own, straight from the input file by kernel copy. Data
 * shards need no coding, so this starts at once and runs ahead of the parity: the worker JVMs' start-up
 * then overlaps writing the data instead of delaying it.
 *
 * <p>{@link #close()} stops the copy after its current chunk and waits for it, so close it before the
 * output channels: no write can reach a file that has been closed or deleted.
 */
final class DataShardCopier implements AutoCloseable {
    /** Bytes per kernel copy call: large enough to amortise the call, small enough to stop quickly. */
    private static final long CHUNK = 16L << 20;
    private static final int ZEROS = 64 << 10;

    private final FileChannel in;
    private final long length;
    private final long shardLength;
    private final FileChannel[] out;
    private final Thread thread;
    private volatile boolean stop;
    /** Why the copy stopped early, set by the copy thread. */
    private volatile Throwable failure;

    /**
     * Starts copying.
     *
     * @param in          the input file
     * @param length      its length
     * @param shardLength bytes per shard; the last data shards are zero-padded to it
     * @param out         one channel per data shard, positioned after the header
     */
    DataShardCopier(FileChannel in, long length, long shardLength, FileChannel[] out) {
        this.in = in;
        this.length = length;
        this.shardLength = shardLength;
        this.out = out.clone();
        this.thread = new Thread(this::run, "sharray-data-copy");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            for (int i = 0; i < out.length && !stop; i++) {
                long start = i * shardLength;
                long avail = Math.max(0, Math.min(shardLength, length - start));
                for (long done = 0; done < avail && !stop; ) {
                    long t = in.transferTo(start + done, Math.min(CHUNK, avail - done), out[i]);
                    if (t <= 0) {
                        throw new IOException("the input shrank while encoding");
                    }
                    done += t;
                }
                if (avail < shardLength) { // the zero padding of the last data shards
                    ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(ZEROS, shardLength - avail));
                    for (long pad = shardLength - avail; pad > 0 && !stop; ) {
                        int n = (int) Math.min(pad, zeros.capacity());
                        Io.writeFully(out[i], zeros.duplicate().limit(n), -1);
                        pad -= n;
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    /** Waits for every data shard to be written, rethrowing the copy's failure. */
    void await() throws IOException {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        check();
    }

    /** Rethrows the copy's failure if it has failed already (a full disk), so the caller can stop early. */
    void check() throws IOException {
        Throwable f = failure;
        if (f instanceof IOException io) {
            throw io;
        }
        if (f instanceof RuntimeException re) {
            throw re;
        }
        if (f != null) {
            throw new TaskFailedException(f);
        }
    }

    /** Stops the copy after its current chunk and waits for it (its failure, if any, is dropped). */
    @Override
    public void close() {
        stop = true;
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true; // the copy writes into channels the caller closes next: wait for it
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
