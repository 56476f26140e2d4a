package dev.sharray.pool;

import dev.sharray.reducers.ReducerException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolBasicsTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.create(2);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** A named function class with state: crosses through the reducers field by field. */
    static final class Scale implements RemoteFunction<double[], double[]> {
        private static final long serialVersionUID = 1L;
        private final double factor;

        Scale(double factor) {
            this.factor = factor;
        }

        @Override
        public double[] apply(double[] xs) {
            final double[] out = xs.clone();
            for (int i = 0; i < out.length; i++) {
                out[i] *= factor;
            }
            return out;
        }
    }

    enum Color { RED, GREEN }

    record Point(int x, double y, String label, Color color, List<Integer> tags) { }

    @Test
    void statelessLambdaRunsInAnotherJvm() throws Exception {
        final long parent = ProcessHandle.current().pid();
        final long pid = pool.submit((RemoteFunction<Integer, Long>) x -> ProcessHandle.current().pid(), 1).get(30, TimeUnit.SECONDS);
        assertNotEquals(parent, pid);
        assertTrue(pool.workerPids().contains(pid));
        assertEquals(42, pool.submit((Integer x) -> x * 2, 21).get());
    }

    @Test
    void namedClassAndCapturedValuesCross() throws Exception {
        assertArrayEquals(new double[] {2, 4, 6}, pool.submit(new Scale(2), new double[] {1, 2, 3}).get());
        final String prefix = "p-";
        final Point captured = new Point(1, 2.5, "a", Color.GREEN, List.of(7, 8));
        final String s = pool.submit((Integer x) -> prefix + x + captured, 5).get();
        assertEquals(prefix + 5 + captured, s);
    }

    @Test
    void valuesRoundTrip() throws Exception {
        final Point p = new Point(3, -1.5, "héllo", Color.RED, List.of(1, 2, 3));
        assertEquals(p, pool.submit((Point x) -> x, p).get());
        final Map<String, List<Long>> m = Map.of("k", List.of(1L, 2L));
        assertEquals(m, pool.submit((Map<String, List<Long>> x) -> x, m).get());
        assertEquals(null, pool.submit((Object x) -> x, null).get());
    }

    @Test
    void mapKeepsOrder() {
        final List<Integer> args = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            args.add(i);
        }
        final List<Integer> out = pool.map((Integer x) -> x * x, args);
        for (int i = 0; i < 200; i++) {
            assertEquals(i * i, out.get(i));
        }
    }

    @Test
    void largeInlineValuesAreFragmented() throws Exception {
        final double[] big = new double[100_000]; // 800 KB: several ring frames, below maxBytes
        for (int i = 0; i < big.length; i++) {
            big[i] = i;
        }
        final double[] back = pool.submit((double[] x) -> x, big).get();
        assertArrayEquals(big, back);
    }

    @Test
    void remoteExceptionKeepsTypeMessageAndStack() {
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> pool.submit((Integer x) -> Thrower.fail(x), 7).get());
        final RemoteTaskException r = assertInstanceOf(RemoteTaskException.class, e.getCause());
        assertEquals("java.lang.IllegalStateException", r.remoteClassName());
        assertEquals("bad 7", r.remoteMessage());
        assertTrue(r.getStackTrace().length > 0);
        assertEquals(Thrower.class.getName(), r.getStackTrace()[0].getClassName());
        assertEquals("fail", r.getStackTrace()[0].getMethodName());
        final RemoteTaskException cause = assertInstanceOf(RemoteTaskException.class, r.getCause());
        assertEquals("java.io.IOException", cause.remoteClassName());
        // the pool keeps working
        assertEquals(1, pool.submit((Integer x) -> x, 1).join());
    }

    /**
     * A failed map's exception ended in the worker's frames: a log of it named neither the call nor its caller (the
     * new-user review). The caller's frames now follow the remote ones, after a marker frame, as RMI does.
     */
    @Test
    void aFailedMapsExceptionShowsItsCallersFrames() {
        final RemoteTaskException r = assertThrows(RemoteTaskException.class,
            () -> pool.map((Integer x) -> Thrower.fail(x), List.of(1, 2)));
        final List<StackTraceElement> frames = List.of(r.getStackTrace());
        assertEquals("fail", frames.get(0).getMethodName(), "the remote frames come first");
        final int marker = frames.indexOf(new StackTraceElement(ProcessPool.class.getName(), "rethrownToTheCaller", null,
            -1));
        assertTrue(marker > 0, frames.toString());
        assertTrue(frames.subList(marker, frames.size()).stream().anyMatch(f -> f.getClassName()
            .equals(PoolBasicsTest.class.getName()) && f.getMethodName().equals("aFailedMapsExceptionShowsItsCallersFrames")),
            frames.toString());
        assertEquals(1, r.getSuppressed().length, "the other task's failure, and nothing more");
    }

    /**
     * Every task failing alike gives one exception and a count, not one stack trace per task (new-user review 50:
     * ~90 lines for a 4-chunk call refused the same way; a 10,000-task call printed 10,000 traces).
     */
    @Test
    void aCallWhoseTasksAllFailAlikeThrowsOneFailureAndACount() {
        final RemoteTaskException r = assertThrows(RemoteTaskException.class,
            () -> pool.map((Integer x) -> Integer.parseInt("not a number"), java.util.Collections.nCopies(300, 1)));
        assertEquals(1, r.getSuppressed().length, java.util.Arrays.toString(r.getSuppressed()));
        assertTrue(r.getSuppressed()[0].getMessage().startsWith("299 more tasks of this call failed: each alike"),
            r.getSuppressed()[0].getMessage());
    }

    /**
     * A remote failure prints as RemoteTaskException, then the remote type: it printed as the remote type alone, and a
     * catch clause written from a log ("java.lang.IllegalStateException") caught nothing (new-user review 50, L1).
     */
    @Test
    void aRemoteFailurePrintsAsTheClassToCatchThenTheRemoteOne() {
        final RemoteTaskException r = assertThrows(RemoteTaskException.class,
            () -> pool.map((Integer x) -> Thrower.fail(x), List.of(1, 2)));
        assertEquals(RemoteTaskException.class.getName() + ": java.lang.IllegalStateException: bad 1", r.toString());
        final java.io.StringWriter trace = new java.io.StringWriter();
        r.printStackTrace(new java.io.PrintWriter(trace));
        assertTrue(trace.toString().contains("Caused by: " + RemoteTaskException.class.getName()
            + ": java.io.IOException: root"), trace.toString());
    }

    static final class Thrower {
        static int fail(int x) {
            throw new IllegalStateException("bad " + x, new java.io.IOException("root"));
        }
    }

    @Test
    void aCollectionThatWouldArriveAsAClassItsParameterCannotHoldIsRefusedAtSubmit() throws Exception {
        final java.util.TreeMap<String, Integer> sorted = new java.util.TreeMap<>(Map.of("b", 1, "a", 2));
        // before: sent, then a ClassCastException in the worker (a TreeMap arrives as a LinkedHashMap)
        final ReducerException byTree = assertThrows(ReducerException.class,
            () -> pool.submit((java.util.TreeMap<String, Integer> m) -> m.firstKey(), sorted));
        assertTrue(byTree.getMessage().contains("is declared java.util.TreeMap, but a java.util.TreeMap is rebuilt as a"
            + " java.util.LinkedHashMap") && byTree.getMessage().contains("declare it as Map"), byTree.getMessage());
        final ReducerException byList = assertThrows(ReducerException.class, () -> pool.map(
            (java.util.LinkedList<Integer> l) -> l.getFirst(), List.of(new java.util.LinkedList<>(List.of(1, 2)))));
        assertTrue(byList.getMessage().contains("declare it as List"), byList.getMessage());
        // declared as the interface, the same values cross (in their order)
        assertEquals("a", pool.submit((Map<String, Integer> m) -> m.keySet().iterator().next(), sorted)
            .get(30, TimeUnit.SECONDS));
        assertEquals(List.of(1), pool.map((List<Integer> l) -> l.get(0), List.of(new java.util.LinkedList<>(List.of(1, 2)))));
    }

    @Test
    void unsupportedCaptureFailsAtSubmit() {
        final Object notReducible = new Object();
        assertThrows(IllegalArgumentException.class, () -> pool.submit((Integer x) -> notReducible.hashCode(), 1));
    }
}
