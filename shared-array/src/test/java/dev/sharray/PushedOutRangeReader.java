package dev.sharray;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A child JVM for {@link ReleasedRangesTest}: a thread sums a strided view in a loop while the main thread
 * releases the view's last reference, then releases enough other arrays at once that the view's range is pushed
 * out of the reserved ones and freed. On JDK 17 the reader is told of its faults only at its next safepoint: freed
 * before that, its next read met unmapped memory and the JVM ended (SIGSEGV). Prints {@code "reader ended with
 * <class>"} and exits 0 when every round's reader ended with {@link InternalError} or {@link IllegalStateException};
 * a crash shows as another exit code.
 *
 * <p>Arguments: rounds.
 */
public final class PushedOutRangeReader {
    private PushedOutRangeReader() {
    }

    public static void main(String[] args) throws Exception {
        final int rounds = Integer.parseInt(args[0]);
        churn(3 * ReleasedRanges.MAX_RANGES); // compiled, so the release below and the churn run without safepoints
        Thread.sleep(1500);
        for (int round = 0; round < rounds; round++) {
            final Throwable end = race();
            if (!(end instanceof InternalError) && !(end instanceof IllegalStateException)) {
                System.out.println("reader ended with " + end);
                System.exit(3);
            }
            System.out.println("reader ended with " + end.getClass().getName());
        }
    }

    private static Throwable race() throws InterruptedException {
        final SharedArray view;
        try (SharedArray base = SharedArray.create(DType.FLOAT64, 1 << 22)) {
            view = base.slice(0, 0, 1 << 22, 2); // strided: the element-by-element path, ~10 ms a pass
        }
        final CountDownLatch summed = new CountDownLatch(1);
        final AtomicReference<Throwable> end = new AtomicReference<>();
        final Thread reader = new Thread(() -> {
            while (true) {
                view.sum();
                summed.countDown();
            }
        }, "reader");
        reader.setUncaughtExceptionHandler((t, e) -> end.set(e));
        reader.start();
        summed.await();
        view.release();
        churn(2 * ReleasedRanges.MAX_RANGES);
        reader.join(TimeUnit.SECONDS.toMillis(60));
        return reader.isAlive() ? new AssertionError("the reader still runs 60 s after the release") : end.get();
    }

    /** Creates and releases {@code n} small arrays: each release reserves its ranges, pushing out older ones. */
    private static void churn(int n) {
        for (int i = 0; i < n; i++) {
            SharedArray.create(DType.FLOAT64, 64).release();
        }
    }
}
