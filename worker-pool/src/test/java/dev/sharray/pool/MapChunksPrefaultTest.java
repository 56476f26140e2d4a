package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker populates a {@code mapChunks} chunk's pages before running the function on it; a plain {@code map}
 * over the same kind of views leaves its arguments as they are.
 */
@EnabledOnOs(OS.LINUX)
class MapChunksPrefaultTest {
    private static final long ROW_BYTES = 4L << 20;

    /** Worker side: this process's resident kilobytes of the chunk's file, read before touching any element. */
    static long residentKbOfFile(SharedArray chunk) throws IOException {
        final String name = chunk.path().toString();
        long kb = 0;
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                inside = line.endsWith(name);
            } else if (inside && line.startsWith("Rss:")) {
                kb += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kb;
    }

    @Test
    void eachChunkIsResidentInItsWorkerBeforeTheFunctionRuns() {
        try (ProcessPool pool = ProcessPool.create(2);
             SharedArray a = SharedArray.create(DType.FLOAT64, 6, ROW_BYTES / 8)) {
            final List<Long> kb = pool.mapChunks(a, 1, MapChunksPrefaultTest::residentKbOfFile);
            assertEquals(6, kb.size());
            for (int i = 0; i < kb.size(); i++) {
                // at least the chunk's 4 MiB, less a page at each end (the .npy header shifts rows off pages)
                assertTrue(kb.get(i) >= ROW_BYTES / 1024 - 8, "chunk " + i + ": " + kb.get(i) + " kB resident");
            }
        }
    }

    @Test
    void plainMapLeavesItsArgumentsUntouched() {
        try (ProcessPool pool = ProcessPool.create(2);
             SharedArray a = SharedArray.create(DType.FLOAT64, 6, ROW_BYTES / 8)) {
            final List<SharedArray> rows = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    rows.add(a.slice(0, i, i + 1, 1));
                }
                final List<Long> kb = pool.map(MapChunksPrefaultTest::residentKbOfFile, rows);
                for (int i = 0; i < kb.size(); i++) {
                    assertTrue(kb.get(i) < 64, "row " + i + ": " + kb.get(i) + " kB resident without prefault");
                }
            } finally {
                rows.forEach(SharedArray::release);
            }
        }
    }
}
