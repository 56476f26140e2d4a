package dev.sharray.pool;

import dev.sharray.SharedArrays;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Consumer;

/**
 * The parent's result doorbell: a Unix domain socket in the pool's folder on which the result thread sleeps
 * while long tasks run, instead of waking every 0.1 ms to poll the result rings. On a machine with as many
 * cores as workers those wake-ups take CPU from the workers. A worker that answers while the parent's
 * sleeping flag is up ({@link RingFile#takeParentSleeping()}) connects, once, and writes a byte
 * ({@link DoorbellRinger}); the bytes mean nothing beyond "look at the rings".
 *
 * <p>Used by the result thread only, except {@link #wakeup()}.
 */
final class ResultDoorbell implements AutoCloseable {
    private final Path path;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final ByteBuffer drain = ByteBuffer.allocateDirect(256);
    /** Handles one ready channel; a field so a wait allocates nothing. */
    private final Consumer<SelectionKey> onReady = this::onReady;
    private boolean closed;
    /** Workers connected now: each connects on its first ring, and one whose ringing fails hangs up. */
    private int connected;

    private ResultDoorbell(Path path, ServerSocketChannel server, Selector selector) {
        this.path = path;
        this.server = server;
        this.selector = selector;
    }

    /** Test hook (null in use): runs in {@link #open} right after the socket file is bound. */
    static volatile Runnable afterBind;
    /** Test hook (null in use): runs in {@link #open} in place of the bind, when it returns the path (its failure). */
    static volatile java.util.function.UnaryOperator<Path> failedBind;

    private static void runHook(Runnable hook) {
        if (hook != null) {
            hook.run();
        }
    }

    /**
     * Binds the doorbell at {@code path}.
     *
     * @param path the socket file, in the pool's private folder; at most ~100 bytes long (the kernel's limit)
     * @return the doorbell
     * @throws IOException when the socket cannot be bound (the path is too long, or exists)
     */
    static ResultDoorbell open(Path path) throws IOException {
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        Selector selector = null;
        final boolean[] bound = {false};
        // a file already there is not this attempt's to delete should it fail (a live doorbell: EADDRINUSE)
        final boolean there = Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        try {
            // a JVM that exits with the pool open must not leave the socket file: bound and registered as one step, as
            // this runs on the binder thread, which goes on while the JVM exits (and halts)
            SharedArrays.createDeletedAtExit(path, () -> {
                if (failedBind != null && failedBind.apply(path) != null) {
                    throw new IOException("bind failed (test hook)");
                }
                server.bind(UnixDomainSocketAddress.of(path));
                bound[0] = true;
                runHook(afterBind);
                return null;
            });
            // bound with the umask's mode (0755): only this user's workers connect, as every file of the pool is 0600.
            // After the bind's step, not in it: a failure there is then deleted below, where in it the file stayed
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
            return new ResultDoorbell(path, server, selector);
        } catch (IOException | RuntimeException e) {
            if (selector != null) {
                selector.close();
            }
            server.close();
            // the file would stay (past the JVM's exit, too), and a later bind, once the failure has passed, find it in
            // its way. Also when the bind itself failed: the JDK's bind is bind(2) and listen(2) in one, and a failed
            // listen leaves the socket file
            if (bound[0] || !there) {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException deleting) {
                    e.addSuppressed(deleting);
                }
            }
            if (bound[0]) {
                SharedArrays.forgetAtExit(path);
            }
            throw e;
        }
    }

    /**
     * Sleeps until a worker rings, {@link #wakeup()} is called, or {@code timeoutNanos} pass; takes in new
     * workers' connections and drains what was rung.
     *
     * @param timeoutNanos the longest sleep; rounded up to whole milliseconds
     * @throws IOException when the selector fails
     */
    void await(long timeoutNanos) throws IOException {
        selector.select(onReady, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
    }

    /** Ends a sleep in {@link #await} now, or makes the next one return at once. Any thread. */
    void wakeup() {
        selector.wakeup();
    }

    private void onReady(SelectionKey key) {
        if (key.isAcceptable()) {
            accept();
            return;
        }
        try {
            if (key.isReadable()) {
                final SocketChannel worker = (SocketChannel) key.channel();
                int n;
                do {
                    drain.clear();
                    n = worker.read(drain);
                } while (n > 0);
                if (n < 0) {
                    // the worker closed its end (it exited, or gave up ringing): its exit is handled elsewhere
                    hangUp(key);
                }
            }
        } catch (IOException e) {
            // one broken connection: drop it; its worker's results are still read by the timed wake-ups
            hangUp(key);
        }
    }

    /**
     * Takes in a worker's connection. A failure concerns that connection only (or is transient, such as a full
     * file table): the listening socket stays open for the others.
     */
    private void accept() {
        SocketChannel worker = null;
        try {
            worker = server.accept();
            if (worker != null) {
                worker.configureBlocking(false);
                worker.register(selector, SelectionKey.OP_READ);
                connected++;
            }
        } catch (IOException | RuntimeException e) {
            if (worker != null) {
                try {
                    worker.close();
                } catch (IOException ignored) {
                    // nothing more to release
                }
            }
        }
    }

    /**
     * @return how many workers are connected now (result thread only). A connected worker rings whenever it
     *         answers a sleeping parent; one that never connected may be unable to.
     */
    int connectedWorkers() {
        return connected;
    }

    private void hangUp(SelectionKey key) {
        key.cancel();
        closeQuietly(key);
        connected--;
    }

    /** Closes the socket and every worker's connection and removes the socket file. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (SelectionKey key : selector.keys()) {
            closeQuietly(key);
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
        try {
            Files.deleteIfExists(path);
            SharedArrays.forgetAtExit(path);
        } catch (IOException ignored) {
            // the pool's folder is removed at close, at exit and by the reaper
        }
    }

    private static void closeQuietly(SelectionKey key) {
        try {
            key.channel().close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
