package dev.sharray.pool;

import dev.sharray.SharedArray;
import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.ReducerException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Values a function captures cross through the reducers: boxes, strings, enums, collections, arrays and
 * shared arrays, in lambdas and in named classes. The values are computed at run time (a compile-time
 * constant would be inlined by javac and never captured).
 */
class CapturedValuesTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).heapSize("128m").build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    enum Mode { PLUS, TIMES }

    /** An instance field of the test class: a lambda that reads it captures the test instance. */
    private final int offset = Integer.parseInt("3");

    @Test
    void aCapturedEnclosingInstanceIsNamedAsSuch() {
        // before: "no reducer for dev.sharray.pool.CapturedValuesTest: make it a record, or register a Reducer",
        // naming a class the user sees no value of
        final ReducerException byLambda = assertThrows(ReducerException.class,
            () -> pool.submit((Integer x) -> x + offset, 1));
        assertTrue(byLambda.getMessage().startsWith("the function captures 'this', an instance of "
            + CapturedValuesTest.class.getName() + " (the lambda uses an instance field or method"), byLambda.getMessage());
        final RemoteFunction<Integer, Integer> anonymous = new RemoteFunction<>() {
            private static final long serialVersionUID = 1L;

            @Override
            public Integer apply(Integer x) {
                return x + 1;
            }
        };
        final ReducerException byInner = assertThrows(ReducerException.class, () -> pool.submit(anonymous, 1));
        assertTrue(byInner.getMessage().startsWith("the function captures 'this', an instance of "
            + CapturedValuesTest.class.getName() + " (" + anonymous.getClass().getName() + " is an inner or anonymous"),
            byInner.getMessage());
        // another value without a reducer keeps the reducers' own message
        final Object plain = new Object();
        final ReducerException byValue = assertThrows(ReducerException.class, () -> pool.submit((Integer x) -> plain.hashCode(), 1));
        assertTrue(byValue.getMessage().startsWith("no reducer for java.lang.Object"), byValue.getMessage());
        // ...and says that the function captures it: before, nothing told it from a bad argument (the argument here is 1)
        assertTrue(byValue.getMessage().endsWith(" (in a value that the lambda in " + CapturedValuesTest.class.getName()
            + ".aCapturedEnclosingInstanceIsNamedAsSuch captures: captured variables and fields cross to the worker"
            + " through the reducers, as arguments do)"), byValue.getMessage());
        final Thread thread = Thread.currentThread();
        final ReducerException byReference = assertThrows(ReducerException.class,
            () -> pool.submit((RemoteFunction<Integer, Boolean>) thread::equals, 1));
        assertTrue(byReference.getMessage().endsWith(" (in a value that the method reference ::equals in "
            + CapturedValuesTest.class.getName() + " captures: captured variables and fields cross to the worker through the reducers, as arguments do)"),
            byReference.getMessage());
        final ReducerException byField = assertThrows(ReducerException.class, () -> pool.submit(new HoldsALock(), 1));
        assertTrue(byField.getMessage().endsWith(" (in a value that " + HoldsALock.class.getName() + " captures: captured"
            + " variables and fields cross to the worker through the reducers, as arguments do)"), byField.getMessage());
    }

    /** A named function with a field no reducer handles. */
    static final class HoldsALock implements RemoteFunction<Integer, Integer> {
        private static final long serialVersionUID = 1L;
        private final Serializable lock = new Serializable() {
            private static final long serialVersionUID = 1L;
        };

        @Override
        public Integer apply(Integer x) {
            return x + lock.hashCode();
        }
    }

    /** A named function whose fields are boxes and a list (not primitives): they cross as values too. */
    static final class Offsets implements RemoteFunction<Integer, List<Long>> {
        private static final long serialVersionUID = 1L;
        private final Integer base;
        private final List<Long> extra;

        Offsets(Integer base, List<Long> extra) {
            this.base = base;
            this.extra = extra;
        }

        @Override
        public List<Long> apply(Integer x) {
            final List<Long> out = new ArrayList<>();
            for (Long e : extra) {
                out.add(e + base + x);
            }
            return out;
        }
    }

    private static <T> T get(java.util.concurrent.Future<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void capturedPrimitivesCross() throws Exception {
        final int i = Integer.parseInt("7");
        final long l = Long.parseLong("10000000000");
        final double d = Double.parseDouble("0.5");
        final float f = Float.parseFloat("1.5");
        final short s = Short.parseShort("3");
        final byte b = Byte.parseByte("-2");
        final char c = "x".charAt(0);
        final boolean z = Boolean.parseBoolean("true");
        assertEquals(8, get(pool.submit((Integer x) -> x + i, 1)));
        assertEquals(10_000_000_001L, get(pool.submit((Integer x) -> x + l, 1)));
        assertEquals(2.5, get(pool.submit((Integer x) -> x + d, 2)));
        assertEquals("1.5 3 -2 x true 7 10000000000 0.5",
            get(pool.submit((Integer x) -> f + " " + s + " " + b + " " + c + " " + z + " " + i + " " + l + " " + d, 0)));
    }

    @Test
    void capturedBoxesStringsEnumsAndCollectionsCross() throws Exception {
        final Integer boxed = Integer.valueOf(String.valueOf(1000)); // not from the small-value cache
        final String prefix = new StringBuilder("p-").toString();
        final Mode mode = Mode.valueOf("TIMES");
        final List<Integer> list = new ArrayList<>(List.of(1, 2, 3));
        final int[] ints = {4, 5, 6};
        final String out = get(pool.submit((Integer x) -> {
            final int k = mode == Mode.TIMES ? x * boxed : x + boxed;
            int sum = 0;
            for (int v : list) {
                sum += v;
            }
            for (int v : ints) {
                sum += v;
            }
            return prefix + k + ":" + sum + ":" + mode.name();
        }, 3));
        assertEquals("p-3000:21:TIMES", out);
        // the same value captured twice (one object, two captured variables) crosses as two values
        final Integer same = boxed;
        assertEquals(2000, get(pool.submit((Integer x) -> boxed + same, 0)));
        assertEquals(List.of(111L, 121L), get(pool.submit(new Offsets(Integer.valueOf(100), List.of(10L, 20L)), 1)));
        // immutable collections reach replaceObject as their serial proxy (java.util.CollSer)
        final List<Integer> immutable = List.copyOf(list);
        final java.util.Map<String, List<Integer>> map = java.util.Map.of(prefix, List.of(boxed, 2));
        final java.util.Set<Mode> set = java.util.Set.of(mode);
        assertEquals("[1, 2, 3] [1000, 2] [TIMES] 1",
            get(pool.submit((Integer x) -> immutable + " " + map.get(prefix) + " " + set + " " + x, 1)));
        final List<Long> nullInList = new ArrayList<>();
        nullInList.add(null);
        assertEquals(1, get(pool.submit((Integer x) -> nullInList.size(), 0)));
    }

    @Test
    void capturedSharedArrayCrossesAsDescriptorAndIsReleased() throws Exception {
        final SharedArray a = SharedArray.copyOf(new double[] {1, 2, 3, 4});
        final Path file = a.path();
        final double scale = Double.parseDouble("2");
        final var f = pool.submit((Integer x) -> {
            double sum = 0;
            for (long j = 0; j < a.size(); j++) {
                a.setDouble(a.getDouble(j) * scale, j); // writes in place: the parent sees them
                sum += a.getDouble(j);
            }
            return sum + x;
        }, 1);
        assertEquals(21.0, get(f));
        assertArrayEquals(new double[] {2, 4, 6, 8}, a.toDoubleArray());
        a.close();
        // the worker's reference ended with the task and the in-flight one with its completion
        for (int k = 0; k < 100 && Files.exists(file); k++) {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(file), "no reference outlives the task");
    }

    @Test
    void aFunctionStillCannotSmuggleASerializableValueClass() {
        // the admission of rebuilt values is for the value the reducers just rebuilt, nothing else:
        // a stream naming java.lang.Integer as a serialized object is still rejected
        final byte[] hostile = javaSerialize(Integer.valueOf(5));
        final MalformedDataException e = assertThrows(MalformedDataException.class, () -> FunctionCodec.decode(
            new org.agrona.concurrent.UnsafeBuffer(hostile), 0, hostile.length, dev.sharray.reducers.Reducers.defaults(),
            new dev.sharray.reducers.OpenedArrays()));
        assertEquals(true, e.getMessage().contains("java.lang.Integer"), e.getMessage());
    }

    private static byte[] javaSerialize(Object o) {
        try (var bytes = new java.io.ByteArrayOutputStream(); var out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(o);
            out.flush();
            return bytes.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
