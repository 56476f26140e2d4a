package dev.sharray;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A child JVM for {@link ReleasedRangesTest}: in each round one thread reads and writes an array through a
 * handle, in a loop, while the main thread releases that same handle (the misuse this guards against). Prints
 * {@code "rounds R released-seen S faulted F"} and exits 0 when every round's reader ended with
 * {@link IllegalStateException} (it saw the release) or {@link InternalError} (its access faulted on the
 * released range). A JVM crash shows as another exit code.
 *
 * <p>Arguments: backing, rounds.
 */
public final class ReleaseRacer {
    private static final long ELEMENTS = 8192;

    private ReleaseRacer() {
    }

    public static void main(String[] args) throws Exception {
        final Backing backing = Backing.valueOf(args[0]);
        final int rounds = Integer.parseInt(args[1]);
        int releasedSeen = 0;
        int faulted = 0;
        for (int round = 0; round < rounds; round++) {
            final Throwable end = race(backing, round);
            if (end instanceof IllegalStateException) {
                releasedSeen++;
            } else if (end instanceof InternalError) {
                faulted++;
            } else {
                System.out.println("round " + round + " ended with " + end);
                if (end != null) {
                    end.printStackTrace(System.out);
                }
                System.exit(3);
            }
        }
        System.out.println("rounds " + rounds + " released-seen " + releasedSeen + " faulted " + faulted);
    }

    private static Throwable race(Backing backing, int round) throws InterruptedException {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, ELEMENTS).backing(backing).create();
        final double[] copy = new double[(int) ELEMENTS];
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicReference<Throwable> end = new AtomicReference<>();
        final Thread user = new Thread(() -> {
            started.countDown();
            long i = 0;
            while (true) {
                // the kinds of access a user thread makes: a bulk read, element reads and writes, copies both ways
                switch ((int) (i++ % 4)) {
                    case 0 -> a.sum();
                    case 1 -> {
                        for (long j = 0; j < ELEMENTS; j++) {
                            a.setDouble(a.getDouble(j) + 1, j);
                        }
                    }
                    case 2 -> a.copyTo(copy);
                    default -> a.copyFrom(copy);
                }
            }
        }, "user-" + round);
        // JDK 17 reports a fault at the thread's next safepoint, which may come after it saw the release
        user.setUncaughtExceptionHandler((t, e) -> end.compareAndSet(null, e));
        user.start();
        started.await();
        final long spins = ThreadLocalRandom.current().nextLong(200_000);
        for (long s = 0; s < spins; s++) {
            Thread.onSpinWait();
        }
        a.release();
        user.join(TimeUnit.SECONDS.toMillis(60));
        if (user.isAlive()) {
            return new AssertionError("the user thread still runs 60 s after the release");
        }
        return end.get();
    }
}
