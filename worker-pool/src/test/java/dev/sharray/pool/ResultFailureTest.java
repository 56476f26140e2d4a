package dev.sharray.pool;

import dev.sharray.ArrayInfo;
import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A result whose writing fails after some of its arrays were already written: the worker releases every
 * array the result would have carried (the function's own ones included) before it answers, and the caller
 * gets the writing failure.
 */
class ResultFailureTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).heapSize("128m")
            .reducers(Reducers.defaults().with(new RefusingReducer())).build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** A value whose registered reducer refuses to write it, naming the array file it was put beside. */
    public record Refusing(String path) {
    }

    /** Throws on write: the realistic case of a user reducer failing in the middle of a result. */
    public static final class RefusingReducer implements Reducer<Refusing> {
        public RefusingReducer() {
        }

        @Override
        public Class<Refusing> type() {
            return Refusing.class;
        }

        @Override
        public void write(Refusing value, ValueWriter out) {
            throw new IllegalStateException("refusing to write a result beside " + value.path());
        }

        @Override
        public Refusing read(ValueReader in) {
            throw new IllegalStateException("never written");
        }
    }

    private static boolean listedLive(Path file) {
        for (ArrayInfo info : SharedArrays.list()) {
            if (info.path().equals(file)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void arraysOfAResultThatFailsToWriteAreReleasedByTheWorker() throws Exception {
        final SharedArray argument = SharedArray.copyOf(new double[] {1, 2, 3});
        final Path argumentFile = argument.path();
        // the function creates an array, then returns it (and its argument) inside a list whose last element
        // cannot be written: the created array has been written (shared) by then
        final var failed = pool.submit((SharedArray a) -> {
            final SharedArray made = SharedArray.create(DType.INT32, 1000);
            made.setInt(7, 0);
            return List.of(a, made, new Refusing(made.path().toString()));
        }, argument);
        final ExecutionException e = assertThrows(ExecutionException.class, () -> failed.get(60, TimeUnit.SECONDS));
        final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, e.getCause());
        // the reducer's own exception, as the cause of the registry's one naming the reducer
        assertEquals(dev.sharray.reducers.ReducerException.class.getName(), remote.remoteClassName());
        assertTrue(remote.remoteMessage().startsWith("reducer '" + Refusing.class.getName() + "'"), remote.remoteMessage());
        final RemoteTaskException cause = assertInstanceOf(RemoteTaskException.class, remote.getCause());
        assertEquals(IllegalStateException.class.getName(), cause.remoteClassName());
        final String message = cause.remoteMessage();
        assertTrue(message.startsWith("refusing to write a result beside "), message);
        final Path made = Path.of(message.substring("refusing to write a result beside ".length()));

        // released by the worker before it answered: no wait needed
        assertFalse(Files.exists(made), "the function's own array was released with the failed result: " + made);
        assertFalse(listedLive(made), "no live entry for " + made);
        // the argument was not over-released: the caller's handle still works and its file lives on
        assertArrayEquals(new double[] {1, 2, 3}, argument.toDoubleArray());
        assertTrue(Files.exists(argumentFile));
        argument.close();
        assertFalse(Files.exists(argumentFile), "nobody else holds the argument any more");

        // the pool is still usable, for arrays created by the function too
        final SharedArray back = pool.submit((Integer n) -> {
            final SharedArray s = SharedArray.create(DType.INT32, n);
            s.setInt(5, 1);
            return s;
        }, 3).get(60, TimeUnit.SECONDS);
        try (back) {
            assertArrayEquals(new int[] {0, 5, 0}, back.toIntArray());
        }
    }

    @Test
    void aResultNoReducerHandlesIsNamedAsTheResult() {
        // before: only "no reducer for ...", which a caller could not tell from a failure of the function itself
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> pool.submit((Integer n) -> new Thread[n], 2).get(60, TimeUnit.SECONDS));
        final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, e.getCause());
        assertEquals(dev.sharray.reducers.ReducerException.class.getName(), remote.remoteClassName());
        assertTrue(remote.remoteMessage().startsWith("no reducer for java.lang.Thread[]: "), remote.remoteMessage());
        assertTrue(remote.remoteMessage().endsWith(" (writing the task's result, a java.lang.Thread[], to send it back)"),
            remote.remoteMessage());
        // a failing reducer of the result: the same words after its own message
        final ExecutionException refused = assertThrows(ExecutionException.class,
            () -> pool.submit((String p) -> new Refusing(p), "x").get(60, TimeUnit.SECONDS));
        final RemoteTaskException byReducer = assertInstanceOf(RemoteTaskException.class, refused.getCause());
        assertTrue(byReducer.remoteMessage().endsWith(" (writing the task's result, a " + Refusing.class.getName()
            + ", to send it back)"), byReducer.remoteMessage());
    }
}
