package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyParallelTest {
    /** Threads that record what ran on them and whether they were closed. */
    private static final class Recording implements Parallel {
        final ThreadParallel threads;
        final List<Object> ran = Collections.synchronizedList(new ArrayList<>());
        volatile boolean closed;

        Recording(int workers) {
            threads = new ThreadParallel(workers);
        }

        @Override
        public int workers() {
            return threads.workers();
        }

        @Override
        public String describe() {
            return "recording";
        }

        @Override
        public <T, R> List<R> map(ParallelTask<T, R> task, List<? extends T> args) {
            ran.addAll(args);
            return threads.map(task, args);
        }

        @Override
        public void close() {
            closed = true;
            threads.close();
        }
    }

    /** @return a factory of {@link Recording}s that adds each one it makes to {@code made} */
    private static java.util.function.IntFunction<Parallel> recording(List<Recording> made) {
        return n -> {
            Recording r = new Recording(n);
            made.add(r);
            return r;
        };
    }

    @Test
    void startEarlyWarmsEveryWorkerOnceBeforeTheFirstMap() {
        List<Recording> made = new ArrayList<>();
        LazyParallel lazy = new LazyParallel(3, recording(made));
        lazy.startEarly(worker -> "warm " + worker);
        lazy.startEarly(worker -> "again"); // already starting: no second pool, no second warm-up
        assertEquals(List.of(20, 40), lazy.map(x -> x * 2, List.of(10, 20)));
        lazy.close();
        assertEquals(1, made.size());
        assertEquals(List.of(0, 1, 2, 10, 20), made.get(0).ran, "one warm-up per worker, then the real tasks");
        assertTrue(made.get(0).closed);
    }

    @Test
    void closeAfterStartEarlyStopsTheWorkersEvenWithoutAMap() {
        List<Recording> made = new ArrayList<>();
        LazyParallel lazy = new LazyParallel(2, recording(made));
        lazy.startEarly(worker -> null);
        lazy.close();
        assertEquals(1, made.size());
        assertTrue(made.get(0).closed);
    }

    @Test
    void aStartFailureIsThrownByTheFirstMapAndCloseIsQuiet() {
        IllegalStateException failure = new IllegalStateException("cannot start workers: no java");
        LazyParallel lazy = new LazyParallel(2, n -> {
            throw failure;
        });
        lazy.startEarly(worker -> null);
        assertSame(failure, assertThrows(IllegalStateException.class, () -> lazy.map(x -> x, List.of(1))));
        lazy.close();
    }

    @Test
    void aFailingWarmUpDoesNotStopTheRealTasks() {
        AtomicInteger warmUps = new AtomicInteger();
        LazyParallel lazy = new LazyParallel(2, Recording::new);
        lazy.startEarly(worker -> {
            warmUps.incrementAndGet();
            throw new IllegalStateException("warm-up failed");
        });
        assertEquals(List.of("a!"), lazy.map(s -> s + "!", List.of("a")));
        assertEquals(2, warmUps.get());
        lazy.close();
    }

    @Test
    void withoutStartEarlyNothingStartsUntilTheFirstMap() {
        AtomicInteger starts = new AtomicInteger();
        LazyParallel lazy = new LazyParallel(2, n -> {
            starts.incrementAndGet();
            return new Recording(n);
        });
        assertEquals(0, starts.get());
        lazy.close();
        assertEquals(0, starts.get(), "close() of an unused pool starts nothing");
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void aWarmUpThatThrowsAnErrorLeavesThePoolUsableAndClosable() {
        List<Recording> made = new ArrayList<>();
        LazyParallel lazy = new LazyParallel(2, recording(made));
        lazy.startEarly(worker -> {
            throw new AssertionError("class initialisation failed");
        });
        assertEquals(List.of(2), lazy.map(x -> x + 1, List.of(1)));
        lazy.close();
        assertTrue(made.get(0).closed);
    }
}
