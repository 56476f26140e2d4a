package dev.sharray.bench;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.util.concurrent.TimeUnit;
import org.agrona.UnsafeApi;
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
 * Bulk copies between a contiguous FLOAT64 {@link SharedArray} and the heap against raw memcpy of the same
 * bytes ({@code Unsafe.copyMemory} through Agrona's {@code UnsafeApi}), in the same run. Bar (issue 2):
 * {@code toDoubleArray}/{@code copyFrom} at 50% of memcpy speed or better.
 *
 * <p>{@code toDoubleArray} allocates its result, so it is compared both with a memcpy into a preallocated
 * array ({@code memcpyOut}, the strict baseline) and with allocate-then-memcpy ({@code memcpyOutAlloc}, the
 * same work done by hand).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class BulkCopyBench {
    private static final long DOUBLE_BASE = UnsafeApi.arrayBaseOffset(double[].class);

    /** Bytes copied per operation: 1 MiB (cache-resident) and 64 MiB (memory-bound). */
    @Param({"1048576", "67108864"})
    public int bytes;

    private SharedArray shared;
    private long address;
    private double[] heap;

    /** Creates the arrays. */
    @Setup
    public void setUp() {
        int n = bytes / 8;
        heap = new double[n];
        for (int i = 0; i < n; i++) {
            heap[i] = i;
        }
        shared = SharedArray.copyOf(heap);
        address = shared.address();
    }

    /** Releases the shared array. */
    @TearDown
    public void tearDown() {
        shared.release();
    }

    /** @return a fresh heap copy of the shared array */
    @Benchmark
    public double[] toDoubleArray() {
        return shared.toDoubleArray();
    }

    /** @return the preallocated heap array after {@code copyTo}: the like-for-like peer of {@link #memcpyOut()} */
    @Benchmark
    public double[] copyTo() {
        shared.copyTo(heap);
        return heap;
    }

    /** Copies the heap array into the shared array. */
    @Benchmark
    public void copyFrom() {
        shared.copyFrom(heap);
    }

    /** @return the preallocated heap array after a raw memcpy from the mapped memory */
    @Benchmark
    public double[] memcpyOut() {
        UnsafeApi.copyMemory(null, address, heap, DOUBLE_BASE, bytes);
        return heap;
    }

    /** @return a new heap array filled by a raw memcpy from the mapped memory */
    @Benchmark
    public double[] memcpyOutAlloc() {
        double[] out = new double[bytes / 8];
        UnsafeApi.copyMemory(null, address, out, DOUBLE_BASE, bytes);
        return out;
    }

    /** Raw memcpy from the heap array into the mapped memory. */
    @Benchmark
    public void memcpyIn() {
        UnsafeApi.copyMemory(heap, DOUBLE_BASE, null, address, bytes);
    }
}
