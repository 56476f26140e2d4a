package dev.sharray.pool;

import dev.sharray.SharedArrays;
import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User code the pool runs on its own threads, or in a worker's reply, that misbehaves: a reducer that throws an
 * Error or reads other than it wrote, an exception whose accessors throw or answer null. Each fails only its own
 * task or call, clearly, and the pool goes on with the same workers and without leftover files.
 */
class MisbehavingUserCodeTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).heapSize("128m").copyCacheBytes(0)
            .reducers(Reducers.defaults().with(new FragileReducer()).with(new LopsidedReducer()).with(new UnwritableReducer()))
            .build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    private static <T> T get(java.util.concurrent.Future<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(java.util.concurrent.Future<?> f) {
        return assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS)).getCause();
    }

    /** Written fine; reading it fails with an AssertionError in the parent only (workers have the property). */
    public record Fragile(int value) {
    }

    public static final class FragileReducer implements Reducer<Fragile> {
        public FragileReducer() {
        }

        @Override
        public Class<Fragile> type() {
            return Fragile.class;
        }

        @Override
        public void write(Fragile v, ValueWriter out) {
            out.writeInt(v.value());
        }

        @Override
        public Fragile read(ValueReader in) {
            final int v = in.readInt();
            if (System.getProperty(WorkerMain.MAX_BYTES_PROPERTY) == null) {
                throw new AssertionError("the parent cannot read Fragile " + v);
            }
            return new Fragile(v);
        }
    }

    /** Its reducer writes two ints and reads one. */
    public record Lopsided(int value) {
    }

    public static final class LopsidedReducer implements Reducer<Lopsided> {
        public LopsidedReducer() {
        }

        @Override
        public Class<Lopsided> type() {
            return Lopsided.class;
        }

        @Override
        public void write(Lopsided v, ValueWriter out) {
            out.writeInt(v.value());
            out.writeInt(7);
        }

        @Override
        public Lopsided read(ValueReader in) {
            return new Lopsided(in.readInt());
        }
    }

    /** Its reducer's write throws an AssertionError. */
    public record Unwritable() {
    }

    public static final class UnwritableReducer implements Reducer<Unwritable> {
        public UnwritableReducer() {
        }

        @Override
        public Class<Unwritable> type() {
            return Unwritable.class;
        }

        @Override
        public void write(Unwritable v, ValueWriter out) {
            throw new AssertionError("cannot write an Unwritable");
        }

        @Override
        public Unwritable read(ValueReader in) {
            return new Unwritable();
        }
    }

    /** An exception whose stack trace is null. */
    static final class NullTrace extends RuntimeException {
        private static final long serialVersionUID = 1L;

        @Override
        public StackTraceElement[] getStackTrace() {
            return null;
        }
    }

    /** An exception whose message throws. */
    static final class ThrowingMessage extends RuntimeException {
        private static final long serialVersionUID = 1L;

        @Override
        public String getMessage() {
            throw new IllegalStateException("no message today");
        }
    }

    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // the failure this guards against is a hang
    void aResultReducerThatThrowsAnErrorFailsItsTaskAndThePoolGoesOn() throws Exception {
        final List<Long> workers = pool.workerPids();
        // before: the Error ended the pool's result thread; this get, and every call after it, waited forever
        final Throwable failure = failureOf(pool.submit((Integer x) -> new Fragile(x), 1));
        assertInstanceOf(MalformedDataException.class, failure);
        assertInstanceOf(AssertionError.class, failure.getCause());
        assertEquals(2, get(pool.submit((Integer x) -> x + 1, 1)));
        final RuntimeException inMap = assertThrows(RuntimeException.class,
            () -> pool.map((Integer x) -> new Fragile(x), List.of(1, 2, 3)));
        assertTrue(inMap instanceof MalformedDataException || inMap.getCause() instanceof MalformedDataException,
            String.valueOf(inMap));
        assertEquals(List.of(2, 3, 4), pool.map((Integer x) -> x + 1, List.of(1, 2, 3)));
        assertEquals(workers, pool.workerPids(), "no worker was replaced");
    }

    @Test
    void aReducerThatReadsLessThanItWroteFailsItsTaskInsteadOfGarblingTheValuesAfterIt() throws Exception {
        // before: [Lopsided[5], 21575499776]: the second int of the reducer read as the next value
        final Throwable failure = failureOf(pool.submit((Integer x) -> List.of(new Lopsided(x), (long) x), 5));
        assertInstanceOf(MalformedDataException.class, failure);
        assertTrue(failure.getMessage().contains("reducer '" + Lopsided.class.getName() + "' read 4 of the 8 bytes"),
            failure.getMessage());
        assertEquals(6, get(pool.submit((Integer x) -> x + 1, 5)));
    }

    @Test
    void anErrorWritingAnArgumentLeavesNoSharedCopyBehind() throws Exception {
        final List<Path> before = arrayFiles();
        final double[] big = new double[400_000]; // past maxBytes: copied into shared memory before the failure
        // before: the AssertionError skipped the clean-up; the copy's files stayed until the JVM exited
        assertThrows(AssertionError.class, () -> pool.submit((List<Object> x) -> x.size(), List.of(big, new Unwritable())));
        assertThrows(AssertionError.class, () -> pool.map((List<Object> x) -> x.size(), List.of(List.of(big, new Unwritable()))));
        assertEquals(before, arrayFiles());
        assertEquals(2, get(pool.submit((List<Object> x) -> x.size(), List.of(big, 1))));
    }

    @Test
    void exceptionsWhoseAccessorsMisbehaveReachTheCallerAndTheWorkerLives() throws Exception {
        final List<Long> workers = pool.workerPids();
        // before: the worker died writing them (NullPointerException, IllegalStateException) and the caller got a
        // WorkerCrashedException
        final Throwable nullTrace = failureOf(pool.submit((RemoteFunction<Integer, Integer>) x -> {
            throw new NullTrace();
        }, 1));
        assertInstanceOf(RemoteTaskException.class, nullTrace);
        assertEquals(NullTrace.class.getName(), ((RemoteTaskException) nullTrace).remoteClassName());
        final Throwable throwingMessage = failureOf(pool.submit((RemoteFunction<Integer, Integer>) x -> {
            throw new ThrowingMessage();
        }, 1));
        assertInstanceOf(RemoteTaskException.class, throwingMessage);
        assertEquals(ThrowingMessage.class.getName(), ((RemoteTaskException) throwingMessage).remoteClassName());
        assertTrue(((RemoteTaskException) throwingMessage).remoteMessage().contains("getMessage() threw"),
            ((RemoteTaskException) throwingMessage).remoteMessage());
        assertEquals(workers, pool.workerPids(), "no worker died");
    }

    @Test
    void anExceptionWhoseMessageHasAnUnpairedSurrogateArrivesWithItsMessageStackAndCause() throws Exception {
        final Throwable t = failureOf(pool.submit((RemoteFunction<Integer, Integer>) x -> {
            // a message quoting text cut in the middle of a surrogate pair (an emoji), as substring does
            throw new IllegalArgumentException("bad input: " + "ok \uD83D\uDE00".substring(0, 4),
                new IllegalStateException("the root \uDE00"));
        }, 1));
        // before: the message could not be encoded (UTF-8 has no unpaired surrogates), and the whole report was
        // replaced by "<the exception could not be written: ReducerException>": no message, stack trace or cause
        final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, t);
        assertEquals(IllegalArgumentException.class.getName(), remote.remoteClassName());
        assertEquals("bad input: ok \uFFFD", remote.remoteMessage());
        assertTrue(remote.getStackTrace().length > 0, "the stack trace crossed");
        final RemoteTaskException cause = assertInstanceOf(RemoteTaskException.class, remote.getCause());
        assertEquals(IllegalStateException.class.getName(), cause.remoteClassName());
        assertEquals("the root \uFFFD", cause.remoteMessage());
        assertEquals("ok \uD83D\uDE00", get(pool.submit((Integer x) -> "ok \uD83D\uDE00", 1)), "a pair crosses unchanged");
    }

    @Test
    @Timeout(120)
    void aLongCauseChainArrivesWithItsRootCause() throws Exception {
        final Throwable t = failureOf(pool.submit((RemoteFunction<Integer, Integer>) depth -> {
            Throwable e = new java.io.FileNotFoundException("the root: /data/part-7 is missing");
            for (int i = depth - 1; i >= 1; i--) {
                e = new IllegalStateException("wrapper " + i, e);
            }
            throw (IllegalStateException) e;
        }, 20));
        // before: the first 8 of the 20 crossed, and the root cause, the one that says what went wrong, was lost
        final List<RemoteTaskException> chain = chainOf(t);
        assertEquals(RemoteErrors.MAX_CAUSES, chain.size());
        for (int i = 0; i < RemoteErrors.MAX_CAUSES - 2; i++) {
            assertEquals("wrapper " + (i + 1), chain.get(i).remoteMessage());
        }
        final RemoteTaskException gap = chain.get(RemoteErrors.MAX_CAUSES - 2);
        assertEquals(RemoteErrors.OMITTED_CAUSES, gap.remoteClassName());
        assertEquals("13 more causes left out; the next is the root cause", gap.remoteMessage());
        final RemoteTaskException root = chain.get(RemoteErrors.MAX_CAUSES - 1);
        assertEquals(java.io.FileNotFoundException.class.getName(), root.remoteClassName());
        assertEquals("the root: /data/part-7 is missing", root.remoteMessage());
        assertTrue(root.getStackTrace().length > 0, "the root's stack trace crossed");
    }

    @Test
    @Timeout(120)
    void aCyclicCauseChainArrivesOnceRound() throws Exception {
        final Throwable t = failureOf(pool.submit((RemoteFunction<Integer, Integer>) x -> {
            final IllegalStateException a = new IllegalStateException("a");
            final IllegalArgumentException b = new IllegalArgumentException("b", a);
            a.initCause(b);
            throw a;
        }, 1));
        final List<RemoteTaskException> chain = chainOf(t);
        assertEquals(List.of("a", "b"), chain.stream().map(RemoteTaskException::remoteMessage).toList());
        // a short chain keeps every exception, with no entry for left-out causes
        final Throwable shortOne = failureOf(pool.submit((RemoteFunction<Integer, Integer>) x -> {
            Throwable e = new ArithmeticException("root");
            for (int i = 1; i < RemoteErrors.MAX_CAUSES; i++) {
                e = new IllegalStateException("w" + i, e);
            }
            throw (IllegalStateException) e;
        }, 1));
        final List<RemoteTaskException> all = chainOf(shortOne);
        assertEquals(RemoteErrors.MAX_CAUSES, all.size());
        assertEquals(ArithmeticException.class.getName(), all.get(all.size() - 1).remoteClassName());
    }

    private static List<RemoteTaskException> chainOf(Throwable t) {
        final List<RemoteTaskException> chain = new java.util.ArrayList<>();
        for (Throwable e = t; e != null; e = e.getCause()) {
            chain.add(assertInstanceOf(RemoteTaskException.class, e));
        }
        return chain;
    }

    private static List<Path> arrayFiles() throws Exception {
        try (Stream<Path> s = Files.list(SharedArrays.processFolder())) {
            return s.filter(p -> p.toString().endsWith(".npy")).sorted().toList();
        }
    }
}
