package dev.sharray.pool;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * A worker's side of the parent's {@link ResultDoorbell}. Connects on the first ring, not at start: a
 * pool that only runs short tasks never sleeps, and the socket classes would only slow the worker's start.
 * A doorbell that cannot be reached (the parent is closing it, or never bound it) is given up on for good,
 * and the connection closed: the parent, which counts the connected workers, then keeps its sleeps short, so
 * this worker's results are still seen, a few milliseconds later.
 */
final class DoorbellRinger implements AutoCloseable {
    private final Path path;
    private final ByteBuffer one = ByteBuffer.allocateDirect(1);
    private SocketChannel channel;
    private boolean broken;

    /** @param path the parent's doorbell socket */
    DoorbellRinger(Path path) {
        this.path = path;
    }

    /** Rings once. Never blocks: a full socket means the parent has bytes to read already. */
    void ring() {
        if (broken) {
            return;
        }
        try {
            if (channel == null) {
                channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
                channel.configureBlocking(false);
            }
            one.clear();
            channel.write(one);
        } catch (IOException | RuntimeException e) {
            broken = true;
            close();
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
