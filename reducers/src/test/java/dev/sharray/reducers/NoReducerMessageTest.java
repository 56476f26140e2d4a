package dev.sharray.reducers;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;

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
    void anArrayOfArraysIsNamedAsJavaSpellsItAndPointsToWhatCrosses() {
        assertEquals("no reducer for double[][]: arrays cross only as arrays of primitives (double[], int[], ...):"
            + " send a List instead (a List<double[]> of rows, a List<String>), a HeapArray or SharedArray for a numeric"
            + " matrix, or register a Reducer<double[][]> with Reducers.defaults().with(...) and give that registry to"
            + " the pool (ProcessPool.Builder.reducers)", refusal(new double[][] {{1}, {2}}));
        assertEquals("no reducer for java.lang.String[]: arrays cross only",
            refusal(new String[] {"a"}).substring(0, "no reducer for java.lang.String[]: arrays cross only".length()));
    }

    @Test
    void aJdkClassIsNotToBeMadeARecord() {
        assertEquals("no reducer for java.time.LocalDate: register a Reducer<LocalDate> with Reducers.defaults().with(...)"
            + " and give that registry to the pool (ProcessPool.Builder.reducers)", refusal(LocalDate.of(2026, 1, 1)));
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
