package dev.sharray.pool;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A worker's side of the parent's {@link ResultDoorbell}. Connects on the first ring, not at start: a
 * pool that only runs short tasks never sleeps, and the socket classes would only slow the worker's start.
 * A doorbell that cannot be reached (the parent is closing it, or binding it again after it failed) is left
 * alone for a while, and the connection closed: the parent, which counts the connected workers, then keeps its
 * sleeps short, so this worker's results are still seen, a few milliseconds later. Then the ringer connects
 * again, to the parent's new doorbell at the same path if there is one.
 */
final class DoorbellRinger implements AutoCloseable {
    static final long RETRY_MIN_NANOS = 1_000_000_000L;
    private static final long RETRY_MAX_NANOS = 60_000_000_000L;
    private final Path path;
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);
    private SocketChannel channel;
    /** Whether the last connection or ring failed: no try before {@link #retryAt}. */
    private boolean broken;
    private long retryAt;
    private long backoffNanos = RETRY_MIN_NANOS;

    /** @param path the parent's doorbell socket */
    DoorbellRinger(Path path) {
        this.path = path;
    }

    /** Rings once. Never blocks: a full socket means the parent has bytes to read already. */
    void ring() {
        if (broken && System.nanoTime() - retryAt < 0) {
            return;
        }
        try {
            if (channel == null) {
                channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
                channel.configureBlocking(false);
            }
            one.clear();
            channel.write(one);
            if (broken) {
                broken = false;
                backoffNanos = RETRY_MIN_NANOS;
            }
        } catch (IOException | RuntimeException e) {
            close();
            broken = true;
            retryAt = System.nanoTime() + backoffNanos;
            backoffNanos = Math.min(2 * backoffNanos, RETRY_MAX_NANOS); // a doorbell gone for good costs ~nothing
        }
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // already gone
            }
            channel = null;
        }
    }
}
