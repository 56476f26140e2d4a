package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Workers keep an array's mapping between tasks without holding a reference: the file is deleted when the
 * parent releases the array, and the worker unmaps the deleted file soon after (its memory is returned).
 */
class RetainedMappingsPoolTest {
    private static String mapsOf(long pid) throws Exception {
        return Files.readString(Path.of("/proc/" + pid + "/maps"));
    }

    @Test
    void mappingKeptBetweenTasksButNeverKeepsTheFile() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("128m").build()) {
            final long pid = pool.workerPids().get(0);
            final SharedArray a = SharedArray.copyOf(new double[] {1, 2, 3, 4});
            final Path file = a.path();
            final RemoteFunction<SharedArray, Double> sum = SharedArray::sum;
            assertEquals(10.0, pool.submit(sum, a).get());
            // between tasks: no reference held (the parent is the only holder), yet still mapped in the worker
            assertTrue(mapsOf(pid).contains(file.getFileName().toString()), "mapping retained between tasks");
            assertEquals(List.of(10.0, 10.0), pool.map(sum, List.of(a, a)));
            a.close();
            for (int i = 0; i < 100 && Files.exists(file); i++) {
                Thread.sleep(10);
            }
            assertFalse(Files.exists(file), "a retained mapping never keeps the file alive");
            // the idle worker unmaps the deleted file within milliseconds
            boolean unmapped = false;
            for (int i = 0; i < 200 && !unmapped; i++) {
                unmapped = !mapsOf(pid).contains(file.getFileName().toString());
                if (!unmapped) {
                    Thread.sleep(10);
                }
            }
            assertTrue(unmapped, "the worker returned the deleted file's memory");
        }
    }

    @Test
    void retentionCanBeTurnedOff() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).heapSize("128m").retainMappingBytes(0).build()) {
            final long pid = pool.workerPids().get(0);
            try (SharedArray a = SharedArray.copyOf(new double[] {1, 2})) {
                assertEquals(3.0, pool.submit((SharedArray x) -> x.sum(), a).get());
                assertFalse(mapsOf(pid).contains(a.path().getFileName().toString()));
            }
        }
    }

    /**
     * A worker stopping with retained mappings leaves them to its exit: unmapping them first loaded the C library
     * binding (released ranges are mapped over), which made every pool's close() ~60-130 ms slower per worker.
     * The class-loading log of each worker shows what it loaded; no archive, so no worker trains one.
     */
    @Test
    void aStoppingWorkerLeavesItsRetainedMappingsToTheExit(@TempDir Path logs) throws Exception {
        final long[] pids;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 1 << 16)) {
            try (ProcessPool pool = ProcessPool.builder().workers(2).heapSize("128m")
                .jvmOptions("-Xshare:off", "-Xlog:class+load=info:file=" + logs.resolve("worker-%p.log")).build()) {
                pids = pool.workerPids().stream().mapToLong(Long::longValue).toArray();
                assertEquals(8, pool.mapChunks(a, 1 << 13, (SharedArray chunk) -> chunk.sum()).size());
                for (long pid : pids) {
                    assertTrue(mapsOf(pid).contains(a.path().getFileName().toString()), "worker " + pid + " retained the mapping");
                }
            }
        }
        for (long pid : pids) {
            final String loaded = Files.readString(logs.resolve("worker-" + pid + ".log"));
            assertTrue(loaded.contains("dev.sharray.SharedArray "), "the log of worker " + pid + " shows its array classes");
            assertFalse(loaded.contains("com.sun.jna.Native "), "worker " + pid + " loaded the C library binding");
        }
    }
}
