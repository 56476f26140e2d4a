package dev.sharray.docs;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Parallel map over a 1 GiB float64 matrix with two worker JVMs, in place, without copying the matrix. */
public final class ParallelMapExample {
    /** Sum of squares of a chunk, scaling it in place by {@code factor}. Runs in a worker JVM. */
    static final class SumOfSquaresAndScale implements RemoteFunction<SharedArray, Double> {
        private static final long serialVersionUID = 1L;
        private final double factor;

        SumOfSquaresAndScale(double factor) {
            this.factor = factor;
        }

        @Override
        public Double apply(SharedArray chunk) {          // a (1024, cols) view of the shared matrix
            long[] shape = chunk.shape();
            double sum = 0;
            for (long r = 0; r < shape[0]; r++) {
                for (long c = 0; c < shape[1]; c++) {
                    double v = chunk.getDouble(r, c);
                    sum += v * v;
                    chunk.setDouble(v * factor, r, c);      // written in place: the parent sees it
                }
            }
            return sum;                                     // only this double travels back
        }
    }

    public static void main(String[] args) throws Exception {
        long rows = 32_768;
        long cols = 4_096;                                  // 32768 * 4096 * 8 bytes = 1 GiB
        try (SharedArray data = SharedArray.create(DType.FLOAT64, rows, cols);
             ProcessPool pool = ProcessPool.create(2)) {
            // 1. Fill in parallel: each task writes its own rows (a serializable lambda).
            pool.mapChunks(data, 1024, chunk -> {
                long[] shape = chunk.shape();
                for (long r = 0; r < shape[0]; r++) {
                    for (long c = 0; c < shape[1]; c++) {
                        chunk.setDouble(1.0 + (c % 7), r, c);
                    }
                }
                return shape[0];
            });

            // 2. Map: sum of squares per chunk, halving the values in place.
            List<Double> partial = pool.mapChunks(data, 1024, new SumOfSquaresAndScale(0.5));
            double total = partial.stream().mapToDouble(Double::doubleValue).sum();
            System.out.printf("sum of squares = %.1f; data[0, 3] is now %.2f%n", total, data.getDouble(0, 3));

            // 3. One task on the whole array: it crosses as a descriptor, not as 1 GiB of bytes.
            CompletableFuture<Double> max = pool.submit(a -> a.max(), data);
            System.out.println("max = " + max.get());

            // 4. Plain heap arrays above 1 MiB are shared automatically, once per call.
            double[] weights = new double[4_000_000];
            Arrays.fill(weights, 0.25);
            List<Double> sums = pool.map(w -> Arrays.stream(w).sum(), List.of(weights, weights));
            System.out.println("weights sum = " + sums);
        }                                                   // pool drained and stopped; array files deleted
    }
}
