package dev.sharray.pool;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends a worker whose parent is gone, within about a quarter of a second: the parent holds the write
 * end of the worker's stdin, so the kernel closes it when the parent dies for any reason (even
 * {@code kill -9}) and a blocked read sees end-of-file; as a second line of defence the parent pid is
 * polled, since a reparented worker sees another parent.
 */
final class ParentWatch {
    private static final long POLL_MILLIS = 250;

    private ParentWatch() {
    }

    /**
     * Starts the two daemon watch threads.
     *
     * @param parentPid the pid of the JVM that launched this worker
     * @param loop      the worker's task loop, woken by the parent's doorbell (any bytes on stdin)
     * @param in        the worker's stdin (not {@code System.in}, which tasks see empty)
     */
    static void start(long parentPid, Thread loop, InputStream in) {
        final Thread stdin = new Thread(() -> {
            try {
                final byte[] sink = new byte[64];
                while (in.read(sink) >= 0) {
                    LockSupport.unpark(loop); // the doorbell: the parent wrote to a sleeping worker's ring
                }
            } catch (IOException ignored) {
                // a broken pipe means the same as end-of-file
            }
            if (ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L) == parentPid) {
                // a live parent closes stdin right after sending STOP: end this thread so the normal exit
                // does not wait for it (a JVM exit waits up to 300 ms for threads blocked in native reads);
                // if the parent is in fact dying, the pid poll below sees the reparenting
                return;
            }
            exit("stdin closed: the parent is gone");
        }, "sharray-parent-stdin");
        final Thread poll = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
                final long now = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                if (now != parentPid) {
                    exit("parent " + parentPid + " is gone");
                }
            }
        }, "sharray-parent-pid");
        for (Thread t : new Thread[] {stdin, poll}) {
            t.setDaemon(true);
            t.start();
        }
    }

    /** Exits through shutdown hooks (they release this worker's array references), with a hard stop as backstop. */
    private static void exit(String why) {
        final Thread halt = new Thread(() -> {
            try {
                Thread.sleep(Long.getLong("sharray.pool.haltMillis", 1000));
            } catch (InterruptedException ignored) {
                // halt now
            }
            Runtime.getRuntime().halt(3);
        }, "sharray-parent-halt");
        halt.setDaemon(true);
        halt.start();
        System.err.println("sharray worker exiting: " + why);
        System.exit(3);
    }
}
