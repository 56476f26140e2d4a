package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.pool.RemoteFunction;
import sun.misc.Unsafe;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The worker functions of the pool workloads, written for speed: contiguous FLOAT64 chunks are read
 * through their raw address with independent accumulators (C2 does not vectorise a floating-point
 * reduction, whose order it must keep, but it pipelines independent chains; the loop runs near memory
 * bandwidth), and scaled in place with a plain loop C2 unrolls. Other views fall back to element access.
 */
public final class Kernels {
    private static final Unsafe U = unsafe();

    private static Unsafe unsafe() {
        try {
            final java.lang.reflect.Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Kernels() {
    }

    /** Sum of squares of a chunk, read in place. */
    public static final RemoteFunction<SharedArray, Double> SUM_OF_SQUARES = Kernels::sumOfSquares;

    /** {@code x *= 1.0000001} over a chunk, in place; returns the element count. */
    public static final RemoteFunction<SharedArray, Long> SCALE = chunk -> scale(chunk, 1.0000001);

    /** The first element of an array (a task that touches the mapped memory). */
    public static final RemoteFunction<SharedArray, Long> TOUCH = chunk -> {
        final double v = chunk.getDouble(new long[chunk.ndim()]);
        return ProcessHandle.current().pid() + (v == v ? 0 : 1);
    };

    /**
     * @param chunk a FLOAT64 array
     * @return the sum of its squared elements
     */
    public static double sumOfSquares(SharedArray chunk) {
        if (!chunk.isContiguous()) {
            double s = 0;
            for (double v : chunk.toDoubleArray()) {
                s += v * v;
            }
            return s;
        }
        return sumOfSquares(chunk.address(), chunk.size());
    }

    /**
     * Four independent accumulators over a counted {@code long} loop of four elements per step. The same sum
     * with eight accumulators and a pointer-bumping loop ran 2.2x slower on JDK 25's C2 (89-97 against
     * 40-41 ms for 1 GiB on one thread), for ~10 % more speed on JDK 17 (33-39 against 40-44 ms); this form
     * is the fastest that holds on both (scratch probe, 2026-12-01).
     *
     * @param address first element
     * @param n element count
     * @return the sum of squares of {@code n} doubles at {@code address}
     */
    public static double sumOfSquares(long address, long n) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        final long n4 = n & ~3L;
        for (long i = 0; i < n4; i += 4) {
            final long p = address + i * 8;
            final double a0 = U.getDouble(p);
            final double a1 = U.getDouble(p + 8);
            final double a2 = U.getDouble(p + 16);
            final double a3 = U.getDouble(p + 24);
            s0 += a0 * a0;
            s1 += a1 * a1;
            s2 += a2 * a2;
            s3 += a3 * a3;
        }
        for (long i = n4; i < n; i++) {
            final double a = U.getDouble(address + i * 8);
            s0 += a * a;
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * The same sum on {@code threads} threads of {@code executor}, each over its own view of a run of rows, with
     * no pool: the machine's own ceiling for the pool's sum-of-squares rows. Each part holds its view until it
     * ends, so a part still running after this method failed never reads an array its caller has released.
     *
     * @param executor runs the parts
     * @param array a C-order FLOAT64 array
     * @param threads parts, one per thread
     * @return the sum of squares
     * @throws Exception when a part fails
     */
    public static double sumOfSquaresOnThreads(ExecutorService executor, SharedArray array, int threads)
        throws Exception {
        final long rows = array.shape()[0];
        final long perPart = (rows + threads - 1) / threads;
        final List<Future<Double>> parts = new ArrayList<>();
        for (long from = 0; from < rows; from += perPart) {
            final SharedArray part = array.slice(0, from, Math.min(rows, from + perPart), 1);
            try {
                parts.add(executor.submit(() -> {
                    try (part) {
                        return sumOfSquares(part);
                    }
                }));
            } catch (RuntimeException e) {
                part.close(); // never submitted
                throw e;
            }
        }
        double s = 0;
        for (Future<Double> f : parts) {
            s += f.get();
        }
        return s;
    }

    /**
     * @param chunk a FLOAT64 array
     * @param factor the factor
     * @return the element count
     */
    public static long scale(SharedArray chunk, double factor) {
        if (!chunk.isContiguous()) {
            final double[] v = chunk.toDoubleArray();
            for (int i = 0; i < v.length; i++) {
                v[i] *= factor;
            }
            chunk.copyFrom(v);
            return v.length;
        }
        final long n = chunk.size();
        long p = chunk.address();
        final long end = p + n * 8;
        for (; p < end; p += 8) {
            U.putDouble(p, U.getDouble(p) * factor);
        }
        return n;
    }
}
