package dev.sharray.pool;

import dev.sharray.SharedArrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code String[]} and a {@code double[][]} (numeric code's usual first argument) go to a worker and come back as
 * themselves. Before, both were refused when submitted: "no reducer for double[][]".
 */
class ObjectArrayArgumentsTest {
    /** Rows of this many doubles are above the pool's maxBytes below, so each crosses as a shared copy. */
    private static final int BIG_ROW = 512;
    private static final long MAX_BYTES = 1024;

    /** @return how many shared arrays' data files are in {@code folder} */
    private static long arraysIn(Path folder) throws IOException {
        try (Stream<Path> s = Files.walk(folder)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".npy")).count();
        }
    }

    @Test
    @Timeout(120)
    void stringAndDoubleMatrixArgumentsCrossToAWorkerAndBack(@TempDir Path folder) throws Exception {
        final double[] big = new double[BIG_ROW];
        Arrays.setAll(big, i -> i * 0.5);
        final double[][] matrix = {big, {1, 2, 3}, big, null, new double[BIG_ROW]};
        try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m").maxBytes(MAX_BYTES).tempFolder(folder)
                .build()) {
            final String[] words = {"a", null, "ünï ✓"};
            final String[] reversed = pool.submit((String[] w) -> {
                final String[] r = new String[w.length];
                for (int i = 0; i < w.length; i++) {
                    r[w.length - 1 - i] = w[i];
                }
                return r;
            }, words).join();
            assertArrayEquals(new String[] {"ünï ✓", null, "a"}, reversed);

            final long before = arraysIn(SharedArrays.processFolder(folder));
            // the worker returns its argument (big rows go back as the worker's own shared copies) and a row sum
            final List<double[][]> back = pool.map((double[][] m) -> {
                final double[][] r = Arrays.copyOf(m, m.length + 1);
                r[m.length] = new double[] {Arrays.stream(m[0]).sum()};
                return r;
            }, List.of(matrix, matrix, matrix));
            final double[][] expected = Arrays.copyOf(matrix, matrix.length + 1);
            expected[matrix.length] = new double[] {Arrays.stream(big).sum()};
            for (double[][] m : back) {
                assertTrue(Arrays.deepEquals(expected, m), Arrays.deepToString(m));
            }
            // the two big rows (one instance twice, one other) were copied into shared memory once for the whole
            // call, not once per task or per appearance: the pool keeps those two copies for its next call. Counted
            // in this process's folder only: the workers' shared copies of their results, under the same root, go
            // when the worker reads the release this process sent for each
            assertEquals(2, arraysIn(SharedArrays.processFolder(folder)) - before, "shared copies made by the call");
        }
        assertEquals(0, arraysIn(folder), "close() frees the kept copies");
    }
}
