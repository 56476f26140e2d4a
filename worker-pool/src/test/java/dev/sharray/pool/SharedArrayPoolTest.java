package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.HeapArray;
import dev.sharray.NdArray;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SharedArrayPoolTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(2).heapSize("256m").build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @Test
    void parallelMapChunksOver256MiBWritesInPlace() {
        final long rows = 4096;
        final long cols = 8192; // 4096 x 8192 float64 = 256 MiB
        try (SharedArray a = SharedArray.create(DType.FLOAT64, rows, cols)) {
            final double[] row = new double[(int) cols];
            double expected = 0;
            try (SharedArray r0 = a.select(0, 0)) {
                for (int j = 0; j < cols; j++) {
                    row[j] = j % 97;
                    expected += row[j];
                }
                r0.copyFrom(row);
            }
            // every row gets i + (j % 97): filled by the workers themselves, then summed
            final List<Double> sums = pool.mapChunks(a, 512, (SharedArray chunk) -> {
                final long n = chunk.shape()[0];
                final long m = chunk.shape()[1];
                final long first = chunk.offset();
                double s = 0;
                for (long i = 0; i < n; i++) {
                    for (long j = 0; j < m; j++) {
                        final double v = (j % 97) + 1.0;
                        chunk.setDouble(v, i, j);
                        s += v;
                    }
                }
                return s + 0 * first;
            });
            assertEquals(8, sums.size());
            // single-threaded reference over the parent's view of the same memory
            double total = 0;
            for (long i = 0; i < rows; i++) {
                for (long j = 0; j < cols; j += 1) {
                    total += a.getDouble(i, j);
                }
            }
            double fromWorkers = 0;
            for (double s : sums) {
                fromWorkers += s;
            }
            assertEquals(total, fromWorkers, 1e-6 * total);
            assertEquals((expected + cols) * rows, total, 1e-6 * total);
            assertEquals(2.0, a.getDouble(rows - 1, 1));
        }
    }

    @Test
    void arrayClosedRightAfterSubmitStaysAliveForTheTask() throws Exception {
        final SharedArray a = SharedArray.copyOf(new double[] {1, 2, 3, 4});
        final Path file = a.path();
        final var f = pool.submit((SharedArray x) -> {
            Thread.sleep(300);
            return x.sum();
        }, a);
        a.close();
        assertTrue(Files.exists(file), "the in-flight reference keeps the file");
        assertEquals(10.0, f.get());
        // the parent drops its in-flight reference when the task completes: the file goes
        for (int i = 0; i < 50 && Files.exists(file); i++) {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void viewsCrossExactly() throws Exception {
        try (SharedArray a = SharedArray.copyOf(new double[][] {{1, 2, 3}, {4, 5, 6}});
             SharedArray t = a.transpose();
             SharedArray rev = t.slice(0, 2, -1, -1)) {
            final double[] seen = pool.submit((SharedArray x) -> x.toDoubleArray(), rev).get();
            assertArrayEquals(rev.toDoubleArray(), seen);
            assertArrayEquals(new double[] {3, 6, 2, 5, 1, 4}, seen);
        }
    }

    @Test
    void largeHeapArraysAreSharedAndSmallOnesInline() throws Exception {
        final double[] big = new double[300_000]; // 2.4 MB > maxBytes: copied once into shared memory
        for (int i = 0; i < big.length; i++) {
            big[i] = i;
        }
        final List<Double> sums = pool.map((double[] x) -> {
            double s = 0;
            for (double v : x) {
                s += v;
            }
            return s;
        }, List.of(big, big, big));
        final double expected = (big.length - 1.0) * big.length / 2;
        assertEquals(List.of(expected, expected, expected), sums);
        final HeapArray h = HeapArray.of(big, 600, 500);
        assertEquals(h, pool.submit((HeapArray x) -> x, h).get());
        final HeapArray small = HeapArray.of(new float[] {1, 2, 3, 4}, 2, 2);
        assertEquals(small, pool.submit((HeapArray x) -> x, small).get());
    }

    /** A named function on NdArray: its apply's parameter type decides, as a lambda's instantiated type does. */
    static final class DescribeNd implements RemoteFunction<NdArray, String> {
        @Override
        public String apply(NdArray a) {
            return a.getClass().getName();
        }
    }

    @Test
    void largeHeapArgumentsReachNdArrayFunctionsAsTheSharedCopy() throws Exception {
        final double[] data = new double[1 << 18]; // 2 MiB > maxBytes
        data[0] = 1;
        data[data.length - 1] = 2;
        final HeapArray h = HeapArray.of(data);
        // typed on NdArray: the pool's shared copy itself, no copy back to the heap
        final String seen = pool.submit((NdArray a) -> a.getClass().getName() + "|" + ((SharedArray) a).path()
            + "|" + (a.getDouble(0) + a.getDouble(a.size() - 1)), h).get();
        final String[] parts = seen.split("\\|");
        assertEquals(SharedArray.class.getName(), parts[0]);
        assertEquals("3.0", parts[2]);
        final Path file = Path.of(parts[1]);
        // the worker released it after the task; the parent keeps only the copy cache's one reference
        // (CopyCachePoolTest: reused by the next call of this shape, freed by close())
        final long me = ProcessHandle.current().pid();
        java.util.Map<Long, Long> holders = java.util.Map.of();
        for (int i = 0; i < 100; i++) {
            holders = SharedArrays.list().stream().filter(info -> info.path().equals(file)).findFirst()
                .map(dev.sharray.ArrayInfo::holders).orElse(java.util.Map.of());
            if (holders.equals(java.util.Map.of(me, 1L))) {
                break;
            }
            Thread.sleep(10);
        }
        assertEquals(java.util.Map.of(me, 1L), holders, "after the task only the pool's cache holds the copy");
        assertEquals(SharedArray.class.getName(), pool.submit((Object a) -> a.getClass().getName(), data).get());
        assertEquals(SharedArray.class.getName(), pool.submit(new DescribeNd(), h).get());
        // typed on double[] / HeapArray: the type contract holds, the worker gets its own heap copy
        assertEquals(double[].class.getName(), pool.submit((double[] a) -> a.getClass().getName(), data).get());
        assertEquals(HeapArray.class.getName(), pool.submit((HeapArray a) -> a.getClass().getName(), h).get());
        // small arrays still travel inline, as heap arrays
        assertEquals(HeapArray.class.getName(),
            pool.submit((NdArray a) -> a.getClass().getName(), HeapArray.of(new double[] {1, 2})).get());
        // a nested large array is rebuilt on the heap, whatever the function's type
        assertEquals(double[].class.getName(),
            pool.submit((Object a) -> ((List<?>) a).get(0).getClass().getName(), List.of(data)).get());
    }

    @Test
    void arraysCreatedByWorkersReachTheParent() throws Exception {
        final SharedArray made = pool.submit((Integer n) -> {
            final SharedArray s = SharedArray.create(DType.INT32, n);
            for (int i = 0; i < n; i++) {
                s.setInt(i * 3, i);
            }
            return s;
        }, 5).get();
        try (made) {
            assertArrayEquals(new int[] {0, 3, 6, 9, 12}, made.toIntArray());
        }
        final double[] bigBack = pool.submit((Integer n) -> new double[n], 400_000).get();
        assertEquals(400_000, bigBack.length);
    }

    /** start + rowsPerChunk wrapped past Long.MAX_VALUE: an IndexOutOfBoundsException naming a negative start. */
    @Test
    void chunksOfAnArrayWithAlmostLongMaxValueRowsDoNotOverflow() {
        try (SharedArray empty = SharedArray.create(DType.UINT8, Long.MAX_VALUE, 0)) {
            final List<Long> rows = pool.mapChunks(empty, Long.MAX_VALUE - 1, c -> c.shape()[0]);
            assertEquals(List.of(Long.MAX_VALUE - 1, 1L), rows);
        }
    }

    /**
     * The chunks were never counted: a small rowsPerChunk over an array with 2^40 rows made views until the heap ran
     * out (bigsizes review 48), though no list could hold that many results.
     */
    @Test
    void moreChunksThanAListCanHoldAreRefusedBeforeAnyView() {
        try (SharedArray empty = SharedArray.create(DType.UINT8, 1L << 40, 0)) {
            final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> pool.mapChunks(empty, 1, c -> 0));
            assertTrue(e.getMessage().contains("mapChunks would make 1099511627776 chunks of 1 rows from 1099511627776"
                + " rows; a call makes at most 2147483639"), e.getMessage());
            assertEquals(1, SharedArrays.totalReferences(empty), "no view was left holding the array");
        }
    }

    /** Without rows no chunk touched the released handle, and the call returned [] where submit throws. */
    @Test
    void mapChunksOfAReleasedArrayWithoutRowsIsRefusedAsSubmitIs() {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 0, 5);
        a.release();
        final IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
            () -> pool.mapChunks(a, 1, c -> 0));
        assertTrue(e.getMessage().contains("was released"), e.getMessage());
    }
}
