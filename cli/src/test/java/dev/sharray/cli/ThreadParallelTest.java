package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ThreadParallel}: an interrupted map gives up only once its running tasks have ended. */
class ThreadParallelTest {
    @Test
    @Timeout(30)
    void anInterruptedMapReturnsOnlyAfterItsRunningTasksEnded() throws Exception {
        AtomicInteger ended = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicInteger endedWhenMapReturned = new AtomicInteger(-1);
        try (ThreadParallel threads = new ThreadParallel(2)) {
            Thread caller = new Thread(() -> {
                try {
                    threads.map(i -> {
                        running.countDown();
                        while (release.getCount() > 0) {
                            Thread.onSpinWait(); // uninterruptible work, e.g. reading the caller's memory
                        }
                        ended.incrementAndGet();
                        return i;
                    }, List.of(1, 2));
                } catch (Throwable t) {
                    thrown.set(t);
                }
                endedWhenMapReturned.set(ended.get());
            });
            caller.start();
            running.await();
            caller.interrupt();
            // a map that gave up at once would return now, with no task ended; a correct one cannot return
            // before the tasks are released, however long this takes
            caller.join(500);
            release.countDown();
            caller.join();
            assertTrue(thrown.get() instanceof CliException, String.valueOf(thrown.get()));
            assertEquals(2, endedWhenMapReturned.get(), "both tasks had ended before map() gave up");
        }
    }
}
