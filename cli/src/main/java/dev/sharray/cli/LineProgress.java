package dev.sharray.cli;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Plain progress lines on stderr at most every two seconds, for logs and pipes. */
final class LineProgress implements Progress {
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(2);
    private final String task;
    private final long total;
    private final long start = System.nanoTime();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong lastPrint = new AtomicLong(System.nanoTime());

    LineProgress(String task, long total) {
        this.task = task;
        this.total = total;
    }

    @Override
    public void advance(long bytes) {
        long d = done.addAndGet(bytes);
        long now = System.nanoTime();
        long last = lastPrint.get();
        if (now - last >= INTERVAL_NANOS && lastPrint.compareAndSet(last, now)) {
            print(d, now);
        }
    }

    private void print(long d, long now) {
        double secs = (now - start) / 1e9;
        System.err.printf(Locale.ROOT, "sharray: %s %3.0f%% (%s of %s, %s)%n", task, 100.0 * d / total,
            Sizes.format(d), Sizes.format(total), Sizes.rate(d, secs));
    }

    @Override
    public void close() {
        // the command prints its own summary
    }
}
