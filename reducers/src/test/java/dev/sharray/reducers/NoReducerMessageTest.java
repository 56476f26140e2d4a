package dev.sharray.reducers;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A value no reducer handles is refused with advice that fits its type. Before, every type got "make it a record,
 * or register a Reducer<...> with Reducers.defaults().with(...)": a {@code double[][]} was named {@code [[D}, a JDK
 * class was to be made a record, and nothing said the registry must then be given to the pool.
 */
class NoReducerMessageTest {
    /** A user class that is not a record. */
    static final class Point {
        final double x;

        Point(double x) {
            this.x = x;
        }
    }

    private static String refusal(Object value) {
        return assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(value)).getMessage();
    }

    @Test
    void anArrayIsNamedAsJavaSpellsItAndRefusedOnlyForAnElementClassThatCannotCross() {
        // double[][] and String[] cross now: an array is refused only when its element class is
        assertEquals("no reducer for " + Point.class.getTypeName() + "[][]: an array crosses when its element class"
            + " does, and no reducer handles " + Point.class.getTypeName() + ": make it a record, or register a"
            + " Reducer<Point> with Reducers.defaults().with(...) and give that registry to the pool"
            + " (ProcessPool.Builder.reducers)", refusal(new Point[][] {{new Point(1)}}));
        assertEquals("no reducer for java.lang.Thread[]: an array crosses when its element class does, and no reducer"
            + " handles java.lang.Thread: register a Reducer<Thread> with Reducers.defaults().with(...) and give that"
            + " registry to the pool (ProcessPool.Builder.reducers)", refusal(new Thread[0]));
    }

    @Test
    void aJdkClassIsNotToBeMadeARecord() {
        // LocalDate, UUID, BigDecimal, Optional... cross now; a JDK class that is no value still gets this advice
        assertEquals("no reducer for java.util.concurrent.atomic.AtomicLong: register a Reducer<AtomicLong> with"
            + " Reducers.defaults().with(...) and give that registry to the pool (ProcessPool.Builder.reducers)",
            refusal(new java.util.concurrent.atomic.AtomicLong()));
    }

    /** A subclass of File: File itself crosses, this would lose what it adds. */
    static final class TrackedFile extends java.io.File {
        TrackedFile(String path) {
            super(path);
        }
    }

    @Test
    void aSubclassOfDateOrFileIsRefusedForWhatItWouldLose() {
        // java.util.Date and java.io.File cross now; a subclass would arrive as one, losing its own state
        assertEquals("no reducer for java.sql.Timestamp: only java.util.Date itself crosses built in; a subclass would"
            + " arrive as a plain Date, without what it adds: register a Reducer<Timestamp> with Reducers.defaults()"
            + ".with(...) and give that registry to the pool (ProcessPool.Builder.reducers)",
            refusal(new java.sql.Timestamp(0)));
        assertEquals("no reducer for " + TrackedFile.class.getName() + ": only java.io.File itself crosses built in; a"
            + " subclass would arrive as a plain File, without what it adds: register a Reducer<TrackedFile> with"
            + " Reducers.defaults().with(...) and give that registry to the pool (ProcessPool.Builder.reducers)",
            refusal(new TrackedFile("x")));
    }

    @Test
    void aLambdaIsToBeARemoteFunctionCapturedByTheTasksFunction() {
        final java.util.function.Function<Integer, Integer> f = x -> x + 1;
        final String message = refusal(f);
        assertEquals("no reducer for the lambda " + f.getClass().getName() + ": a lambda or method reference crosses"
            + " only inside the task's function: declare it as a RemoteFunction and capture it in the function you"
            + " submit, which then carries it along", message);
    }

    @Test
    void aUserClassMayBeMadeARecord() {
        assertEquals("no reducer for " + Point.class.getName() + ": make it a record, or register a Reducer<Point> with"
            + " Reducers.defaults().with(...) and give that registry to the pool (ProcessPool.Builder.reducers)",
            refusal(new Point(1)));
    }
}
