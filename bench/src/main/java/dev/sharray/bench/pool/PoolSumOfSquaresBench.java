package dev.sharray.bench.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sum of squares over a 1 GiB float64 SharedArray with 1 and 2 workers, via {@code mapChunks}: each
 * worker reads its chunk in place through the raw address. Throughput = 1 GiB / time per op; the bar
 * is 2 workers >= 1.7x one worker.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PoolSumOfSquaresBench {
    private static final long ROWS = 1024;
    private static final long COLS = 131072; // 1024 x 131072 x 8 B = 1 GiB

    /** Chunks per call: enough to balance, few enough that the per-task cost is noise. */
    private static final long ROWS_PER_CHUNK = ROWS / 16;

    private static final RemoteFunction<SharedArray, Double> SUM_OF_SQUARES = chunk -> {
        final UnsafeBuffer b = new UnsafeBuffer(chunk.address(), (int) chunk.byteSize());
        final int n = (int) chunk.size();
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int i = 0;
        for (; i + 3 < n; i += 4) {
            final double a = b.getDouble(8 * i);
            final double c = b.getDouble(8 * i + 8);
            final double d = b.getDouble(8 * i + 16);
            final double e = b.getDouble(8 * i + 24);
            s0 += a * a;
            s1 += c * c;
            s2 += d * d;
            s3 += e * e;
        }
        for (; i < n; i++) {
            final double a = b.getDouble(8 * i);
            s0 += a * a;
        }
        return s0 + s1 + s2 + s3;
    };

    /** Number of worker JVMs. */
    @Param({"1", "2"})
    public int workers;

    private ProcessPool pool;
    private SharedArray array;

    /** Creates and fills the array, starts the pool. */
    @Setup(Level.Trial)
    public void setUp() {
        array = SharedArray.create(DType.FLOAT64, ROWS, COLS);
        final double[] row = new double[(int) COLS];
        for (int j = 0; j < COLS; j++) {
            row[j] = j % 10;
        }
        for (long i = 0; i < ROWS; i++) {
            try (SharedArray r = array.select(0, i)) {
                r.copyFrom(row);
            }
        }
        pool = ProcessPool.builder().workers(workers).heapSize("256m").build();
    }

    /** Stops the pool and frees the array. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pool.close();
        array.release();
    }

    /** @return the sum of squares */
    @Benchmark
    public double sumOfSquares() {
        final List<Double> parts = pool.mapChunks(array, ROWS_PER_CHUNK, SUM_OF_SQUARES);
        double s = 0;
        for (double p : parts) {
            s += p;
        }
        return s;
    }
}
