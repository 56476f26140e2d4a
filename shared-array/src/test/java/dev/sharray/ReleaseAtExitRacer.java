package dev.sharray;

import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for {@link ExitWhileThreadsRunTest}: a thread's last release of an array has closed it and not yet
 * attempted its deletion when another thread calls {@code System.exit}. Prints {@code "path <data file>"} first.
 */
public final class ReleaseAtExitRacer {
    private ReleaseAtExitRacer() {
    }

    public static void main(String[] args) throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        System.out.println("path " + a.path());
        final CountDownLatch closed = new CountDownLatch(1);
        Segments.afterClosed = () -> {
            closed.countDown();
            try {
                Thread.sleep(300); // a slow deletion: a big file on a tmpfs, a loaded machine
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        new Thread(a::release, "releaser").start();
        closed.await();
        System.exit(0);
    }
}
