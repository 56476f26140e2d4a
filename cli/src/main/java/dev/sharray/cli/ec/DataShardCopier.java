package dev.sharray.cli.ec;

import dev.sharray.cli.TaskFailedException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.LongConsumer;

/**
 * Writes the data shard bodies on a thread of its own, straight from the input file by kernel copy. Data
 * shards need no coding, so this starts at once and runs ahead of the parity: the worker JVMs' start-up
 * then overlaps writing the data instead of delaying it. It goes window by window across the k shards, in
 * the order the workers read the input, so the pages one side reads are still cached for the other.
 *
 * <p>{@link #close()} stops the copy after its current window and waits for it, so close it before the
 * output channels: no write can reach a file that has been closed or deleted.
 */
final class DataShardCopier implements AutoCloseable {
    private static final int ZEROS = 64 << 10;

    private final FileChannel in;
    private final long length;
    private final long shardLength;
    private final int window;
    private final FileChannel[] out;
    private final LongConsumer copied;
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
     * @param window      columns per window (the coders' window)
     * @param out         one channel per data shard, positioned after the header
     * @param copied      told the bytes of each window once all its data shards are written
     */
    DataShardCopier(FileChannel in, long length, long shardLength, int window, FileChannel[] out, LongConsumer copied) {
        this.in = in;
        this.length = length;
        this.shardLength = shardLength;
        this.window = window;
        this.out = out.clone();
        this.copied = copied;
        this.thread = new Thread(this::run, "sharray-data-copy");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            ByteBuffer zeros = null;
            for (long c0 = 0; c0 < shardLength && !stop; c0 += window) {
                int w = (int) Math.min(window, shardLength - c0);
                for (int i = 0; i < out.length; i++) {
                    long pos = i * shardLength + c0;
                    long avail = Math.max(0, Math.min(w, length - pos));
                    for (long done = 0; done < avail; ) {
                        long t = in.transferTo(pos + done, avail - done, out[i]);
                        if (t <= 0) {
                            throw new IOException("the input shrank while encoding");
                        }
                        done += t;
                    }
                    if (avail < w) { // the zero padding of the last data shards
                        zeros = zeros != null ? zeros : ByteBuffer.allocateDirect(ZEROS);
                        for (long pad = w - avail; pad > 0; ) {
                            int n = (int) Math.min(pad, ZEROS);
                            Io.writeFully(out[i], zeros.duplicate().limit(n), -1);
                            pad -= n;
                        }
                    }
                }
                copied.accept((long) out.length * w);
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

    /** Stops the copy after its current window and waits for it (its failure, if any, is dropped). */
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
