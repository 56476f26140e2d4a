package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Overlapping map calls, each capturing its own large heap array, on workers whose heap holds one copy at a time (and
 * its garbage): each call's last task runs long, so a worker that went on to the next call still caches its function.
 */
class ConcurrentCapturedArraysTest {
    @Test
    @Timeout(300)
    void concurrentCallsCapturingLargeArraysFitAHeapThatHoldsOneCopy() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("150m").build()) {
            final ExecutorService callers = Executors.newFixedThreadPool(3);
            try {
                final List<Future<List<Double>>> calls = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    final double[] big = new double[10_000_000]; // 80 MB, shared: above maxBytes
                    java.util.Arrays.fill(big, c);
                    final RemoteFunction<Integer, Double> f = x -> {
                        Thread.sleep(x == 29 ? 4000 : 20); // the call's last task holds it open meanwhile
                        return big[x];
                    };
                    final List<Integer> args = new ArrayList<>();
                    for (int i = 0; i < 30; i++) {
                        args.add(i);
                    }
                    calls.add(callers.submit(() -> pool.map(f, args)));
                    Thread.sleep(1000); // the previous call's tasks but its last are done: its function stays cached
                }
                for (int c = 0; c < 3; c++) {
                    final List<Double> r = calls.get(c).get();
                    assertEquals((double) c, r.get(29));
                }
            } finally {
                callers.shutdownNow();
            }
        }
    }
}
