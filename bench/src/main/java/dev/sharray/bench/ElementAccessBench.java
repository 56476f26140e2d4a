package dev.sharray.bench;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Element access through {@code getDouble}/{@code setDouble} on a 1-D FLOAT64 {@link SharedArray} against the
 * same loop over a heap {@code double[]}, in the same run. Bar (issue 2): shared within 3x of heap. Each
 * operation is one pass over {@code n} elements (64 K doubles = 512 KiB: in L2, so the loop, not memory,
 * is measured).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ElementAccessBench {
    /** Elements per pass. */
    @Param({"65536"})
    public int n;

    private double[] heap;
    private SharedArray shared;

    /** Creates both arrays with the same values. */
    @Setup
    public void setUp() {
        heap = new double[n];
        shared = SharedArray.create(DType.FLOAT64, n);
        for (int i = 0; i < n; i++) {
            heap[i] = i * 0.5;
            shared.setDouble(i * 0.5, i);
        }
    }

    /** Releases the shared array. */
    @TearDown
    public void tearDown() {
        shared.release();
    }

    /** @return sum over the heap array, element by element */
    @Benchmark
    public double heapGet() {
        double[] a = heap;
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    /** @return sum over the shared array through {@code getDouble(i)} */
    @Benchmark
    public double sharedGet() {
        SharedArray a = shared;
        double s = 0;
        for (long i = 0, len = n; i < len; i++) {
            s += a.getDouble(i);
        }
        return s;
    }

    /** @return the shared array's {@code sum()}: the built-in reduction, against the loops above */
    @Benchmark
    public double sharedSum() {
        return shared.sum();
    }

    /** @return the shared array's {@code dot} with itself: the built-in inner product, against {@link #sharedSum} */
    @Benchmark
    public double sharedDot() {
        return shared.dot(shared);
    }

    /** @return one element, after writing every element of the heap array */
    @Benchmark
    public double heapSet() {
        double[] a = heap;
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 0.25;
        }
        return a[a.length - 1];
    }

    /** @return one element, after writing every element of the shared array through {@code setDouble} */
    @Benchmark
    public double sharedSet() {
        SharedArray a = shared;
        for (long i = 0, len = n; i < len; i++) {
            a.setDouble(i * 0.25, i);
        }
        return a.getDouble(n - 1);
    }
}
