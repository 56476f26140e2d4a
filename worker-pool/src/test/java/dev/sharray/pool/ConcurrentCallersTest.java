package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several caller threads sharing one pool, each mixing every kind of call (single tasks, maps, chunk maps,
 * views, remote exceptions, cancellations, chained calls): every call gets its own right answer, and closing
 * the pool under them ends every call with its answer or a clear refusal, leaving no file or process.
 * Each call's own wait is bounded, so a hang fails the test with the call that hung.
 */
class ConcurrentCallersTest {
    private static final int CALLERS = 4;
    private static final long ROWS = 1 << 16;

    @Test
    void callerThreadsMixingEveryKindOfCallEachGetTheirOwnAnswers() throws Exception {
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        try (ProcessPool pool = ProcessPool.create(2); SharedArray ones = ones()) {
            final List<Thread> callers = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                final Random random = new Random(c);
                callers.add(new Thread(() -> {
                    for (int i = 0; i < 120; i++) {
                        final int kind = random.nextInt(Call.values().length);
                        try {
                            Call.values()[kind].run(pool, ones, random);
                        } catch (Exception | AssertionError e) {
                            problems.add(Call.values()[kind] + ": " + e);
                        }
                    }
                }, "caller-" + c));
            }
            runAll(callers);
        }
        assertEquals(List.of(), List.copyOf(problems));
    }

    @Test
    void closingThePoolUnderBusyCallersEndsEveryCallWithItsAnswerOrARefusal() throws Exception {
        closeUnderBusyCallers(false);
    }

    @Test
    void shutdownNowUnderBusyCallersEndsEveryCallWithItsAnswerOrARefusal() throws Exception {
        closeUnderBusyCallers(true);
    }

    private static void closeUnderBusyCallers(boolean now) throws Exception {
        final List<String> filesBefore = poolFiles();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicInteger refused = new AtomicInteger();
        final ProcessPool pool = ProcessPool.create(2);
        try (SharedArray ones = ones()) {
            final List<Thread> callers = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                final Random random = new Random(100 + c);
                callers.add(new Thread(() -> {
                    // until the first refusal, then a few calls more: all of them must be refused
                    for (int afterClose = 0; afterClose < 5; ) {
                        final Call call = Call.values()[random.nextInt(Call.values().length)];
                        try {
                            call.run(pool, ones, random);
                            answered.incrementAndGet();
                        } catch (IllegalStateException e) { // CancellationException is one too
                            if (!pool.isClosed()) {
                                problems.add(call + " refused before the pool closed: " + e);
                            }
                            refused.incrementAndGet();
                            afterClose++;
                        } catch (Exception | AssertionError e) {
                            final Throwable cause = e instanceof ExecutionException || e instanceof CompletionException ? e.getCause() : e;
                            if (!(pool.isClosed() && (cause instanceof IllegalStateException || cause instanceof CancellationException))) {
                                problems.add(call + ": " + e);
                            } else {
                                refused.incrementAndGet();
                                afterClose++;
                            }
                        }
                    }
                }, "caller-" + c));
            }
            callers.forEach(Thread::start);
            while (answered.get() < 200) {
                Thread.sleep(5);
            }
            if (now) {
                pool.shutdownNow();
            } else {
                pool.close();
            }
            for (Thread t : callers) {
                t.join(TimeUnit.SECONDS.toMillis(120));
                assertFalse(t.isAlive(), t.getName() + " still waits on a call after the pool closed");
            }
        } finally {
            pool.shutdownNow(); // no-op once closed; ends the workers if an assertion above failed first
        }
        assertEquals(List.of(), List.copyOf(problems));
        assertTrue(refused.get() >= CALLERS * 5, "refusals: " + refused.get());
        assertEquals(filesBefore, poolFiles());
        for (int i = 0; i < 100 && ProcessHandle.current().children().anyMatch(ProcessHandle::isAlive); i++) {
            Thread.sleep(20); // a stopped worker's JVM may take a moment to exit
        }
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive)
            .map(ProcessHandle::pid).collect(Collectors.toList()));
    }

    /** The kinds of call a caller mixes; each checks its own answer. */
    private enum Call {
        SUBMIT {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) throws Exception {
                final int x = random.nextInt(1000);
                assertEquals(2 * x, get(pool.submit((Integer v) -> 2 * v, x)));
            }
        },
        MAP {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) {
                final List<Integer> in = new ArrayList<>();
                for (int i = random.nextInt(40); i > 0; i--) {
                    in.add(random.nextInt());
                }
                assertEquals(in.stream().map(v -> v ^ 0x5A5A).collect(Collectors.toList()), pool.map((Integer v) -> v ^ 0x5A5A, in));
            }
        },
        MAP_CHUNKS {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) {
                final List<Double> sums = pool.mapChunks(ones, 1 + random.nextInt((int) ROWS / 2), SharedArray::sum);
                assertEquals(ROWS, sums.stream().mapToDouble(Double::doubleValue).sum());
            }
        },
        VIEW {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) throws Exception {
                final long from = random.nextInt(1000);
                try (SharedArray view = ones.slice(0, from, ROWS, 1)) {
                    assertEquals(ROWS - from, get(pool.submit((SharedArray v) -> v.sum(), view)));
                }
            }
        },
        REMOTE_EXCEPTION {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) throws Exception {
                final int x = random.nextInt(1000);
                try {
                    get(pool.submit((Integer v) -> {
                        throw new IllegalArgumentException("refused " + v);
                    }, x));
                    throw new AssertionError("no exception");
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof RemoteTaskException) || !e.getCause().getMessage().contains("refused " + x)) {
                        throw e;
                    }
                }
            }
        },
        CANCEL {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) throws Exception {
                final CompletableFuture<Integer> f = pool.submit((Integer ms) -> {
                    Thread.sleep(ms);
                    return ms;
                }, random.nextInt(10));
                if (random.nextBoolean()) {
                    f.cancel(true);
                    assertTrue(f.isCancelled() || f.isDone());
                } else {
                    get(f);
                }
            }
        },
        CHAINED {
            @Override
            void run(ProcessPool pool, SharedArray ones, Random random) throws Exception {
                final int x = random.nextInt(1000);
                final RemoteFunction<Integer, Integer> increment = v -> v + 1;
                final int twice = get(pool.submit(increment, x).thenCompose(v -> pool.submit(increment, v)));
                assertEquals(x + 2, twice);
            }
        };

        abstract void run(ProcessPool pool, SharedArray ones, Random random) throws Exception;
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS); // a hang fails its call with a TimeoutException, not the whole run
    }

    private static SharedArray ones() {
        final SharedArray a = SharedArray.create(DType.FLOAT64, ROWS);
        final double[] values = new double[(int) ROWS];
        Arrays.fill(values, 1.0);
        a.copyFrom(values);
        return a;
    }

    private static void runAll(List<Thread> threads) throws InterruptedException {
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(300));
            assertFalse(t.isAlive(), t.getName() + " still waits on a call");
        }
    }

    private static List<String> poolFiles() throws IOException {
        try (Stream<Path> s = Files.list(SharedArrays.processFolder())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("sharray-pool-")).sorted()
                .collect(Collectors.toList());
        }
    }
}
