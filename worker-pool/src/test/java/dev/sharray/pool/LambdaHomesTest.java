package dev.sharray.pool;

import dev.sharray.reducers.Reducers;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lambda crosses whatever class its code is written in. A lambda's serial form names that class; it used to
 * travel as a class reference, which the worker's filter refuses for every {@code Serializable} class that is
 * not a function, so lambdas written in a {@code Serializable} class, an enum or a {@code Serializable} record
 * failed with "function rejected". Now the class travels by name ({@link EncodedLambda}).
 */
class LambdaHomesTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.create(1);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** A job class of the kind Spark users write: Serializable, handing out its functions. */
    static final class Job implements Serializable {
        private static final long serialVersionUID = 1L;

        RemoteFunction<Integer, Integer> plusOne() {
            return x -> x + 1;
        }

        RemoteFunction<Integer, Integer> plus(int n) {
            return x -> x + n;
        }
    }

    enum Op {
        DOUBLE;

        RemoteFunction<Integer, Integer> fn() {
            return x -> 2 * x;
        }
    }

    record Settings(int step) implements Serializable {
        RemoteFunction<Integer, Integer> fn() {
            final int s = step;
            return x -> x + s;
        }
    }

    @Test
    void lambdasWrittenInSerializableClassesEnumsAndRecordsRun() throws Exception {
        assertEquals(8, run(new Job().plusOne(), 7));
        assertEquals(12, run(new Job().plus(5), 7));
        assertEquals(14, run(Op.DOUBLE.fn(), 7));
        assertEquals(10, run(new Settings(3).fn(), 7));
        assertEquals(List.of(2, 3, 4), pool.map(new Job().plusOne(), List.of(1, 2, 3)));
    }

    @Test
    void aLambdaCapturedByAnotherCrossesToo() throws Exception {
        final RemoteFunction<Integer, Integer> inner = Op.DOUBLE.fn();
        final RemoteFunction<Integer, Integer> outer = x -> inner.apply(x) + 1;
        assertEquals(15, run(outer, 7));
    }

    @Test
    void aRawSerializedLambdaInFunctionBytesIsRefusedByName() throws Exception {
        final RemoteFunction<Integer, Integer> fn = x -> x + 1;
        final Method writeReplace = fn.getClass().getDeclaredMethod("writeReplace");
        writeReplace.setAccessible(true);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(writeReplace.invoke(fn)); // what plain Java serialization writes for a lambda
        }
        final byte[] b = bytes.toByteArray();
        final var e = assertThrows(dev.sharray.reducers.MalformedDataException.class,
            () -> FunctionCodec.decode(new UnsafeBuffer(b), 0, b.length, Reducers.defaults(), null));
        assertTrue(e.getMessage().contains("java.lang.invoke.SerializedLambda"), e.getMessage());
    }

    @Test
    void anEncodedLambdaNamingAClassWithoutLambdasIsRefusedClearly() {
        final RemoteFunction<Integer, Integer> fn = x -> x + 1;
        final byte[] good = FunctionCodec.encode(fn, Reducers.defaults(), null).bytes;
        final byte[] hostile = replace(good, "dev/sharray/pool/LambdaHomesTest", "dev/sharray/pool/OutputForwarder");
        final var e = assertThrows(dev.sharray.reducers.MalformedDataException.class,
            () -> FunctionCodec.decode(new UnsafeBuffer(hostile), 0, hostile.length, Reducers.defaults(), null));
        assertTrue(e.getMessage().contains("lambda of class dev.sharray.pool.OutputForwarder, which holds no serializable lambda"), e.getMessage());
    }

    /**
     * A lambda its capturing class does not hold (another build of the class in the workers, or a shaded jar that
     * relocated dev.sharray: maven-shade leaves the descriptors $deserializeLambda$ compares unrelocated) failed with
     * "Invalid lambda deserialization" alone; the message now says what to check.
     */
    @Test
    void aLambdaItsClassDoesNotHoldNamesTheLikelyCauses() {
        final RemoteFunction<Integer, Integer> fn = x -> x + 1;
        final byte[] good = FunctionCodec.encode(fn, Reducers.defaults(), null).bytes;
        final byte[] other = replace(good, "lambda$", "lambdX$"); // its implementation method's name
        final var e = assertThrows(dev.sharray.reducers.MalformedDataException.class,
            () -> FunctionCodec.decode(new UnsafeBuffer(other), 0, other.length, Reducers.defaults(), null));
        assertTrue(e.getMessage().startsWith("lambda of class dev.sharray.pool.LambdaHomesTest refused:"
            + " java.lang.IllegalArgumentException: Invalid lambda deserialization (")
            && e.getMessage().contains("another build") && e.getMessage().contains("do not relocate dev.sharray"),
            e.getMessage());
    }

    private static int run(RemoteFunction<Integer, Integer> fn, int x) throws Exception {
        return pool.submit(fn, x).get(30, TimeUnit.SECONDS);
    }

    /** {@code bytes} with the first occurrence of {@code from} replaced by {@code to} (same length). */
    private static byte[] replace(byte[] bytes, String from, String to) {
        final byte[] f = from.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final byte[] t = to.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(f.length, t.length);
        outer:
        for (int i = 0; i + f.length <= bytes.length; i++) {
            for (int j = 0; j < f.length; j++) {
                if (bytes[i + j] != f[j]) {
                    continue outer;
                }
            }
            final byte[] out = bytes.clone();
            System.arraycopy(t, 0, out, i, t.length);
            return out;
        }
        throw new AssertionError(from + " not in the bytes");
    }
}
