package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@link SharedArray#prefault()}: the pages of a fresh array become resident in one call, contents unchanged. */
class PrefaultTest {

    /** Resident kilobytes of this process's mapping(s) of {@code file}, from /proc/self/smaps. */
    private static long residentKb(Path file) throws Exception {
        final List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        final String name = file.toString();
        long kb = 0;
        boolean inside = false;
        for (String line : lines) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                inside = line.endsWith(name);
            } else if (inside && line.startsWith("Rss:")) {
                kb += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kb;
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void prefaultMakesTheWholeArrayResidentWithoutChangingIt() throws Exception {
        final int n = 1 << 20; // 8 MiB
        try (SharedArray a = SharedArray.create(DType.FLOAT64, n)) {
            final long before = residentKb(a.path());
            assertTrue(a.prefault(), "MADV_POPULATE_WRITE is available on Linux 5.14+");
            final long after = residentKb(a.path());
            assertTrue(before < 1024, "fresh mapping not resident yet: " + before + " kB");
            assertTrue(after >= 8 * 1024, "resident after prefault: " + after + " kB");
            assertEquals(0.0, a.sum());
            final double[] ones = new double[n];
            java.util.Arrays.fill(ones, 1.0);
            a.copyFrom(ones);
            assertEquals(n, a.sum());
            try (SharedArray strided = a.slice(0, 0, n, 2)) {
                assertTrue(strided.prefault(), "a non-contiguous view populates its whole file");
            }
            assertEquals(n, a.sum(), "prefault never changes the contents");
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aLargeViewStartingMidPageIsPopulatedInEveryChunk() throws Exception {
        // past the parallel threshold, with a short last chunk, and a view that starts mid-page
        final long bytes = ParallelChunks.MIN_BYTES + (3L << 20) + 4096 + 8;
        try (SharedArray a = SharedArray.create(DType.UINT8, bytes);
             SharedArray view = a.slice(0, 4097, bytes, 1)) {
            final long before = residentKb(a.path());
            assertTrue(view.prefault());
            final long after = residentKb(a.path());
            assertTrue(before < 1024, "fresh mapping not resident yet: " + before + " kB");
            assertTrue(after >= (bytes - 4097) / 1024, "resident after prefault: " + after + " kB of " + bytes / 1024);
            // every whole block of the view is recorded, those at the parallel chunks' seams too
            final long b = PopulatedBlocks.BLOCK;
            final long wholeBlocks = Math.floorDiv(a.offset() + bytes, b) - Math.floorDiv(view.offset() + b - 1, b);
            assertEquals(wholeBlocks * b, view.populatedBytes());
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aViewPopulatesItsOwnSpanOnlyAndIsRememberedForTheMapping() throws Exception {
        final long mib = 1L << 20;
        try (SharedArray a = SharedArray.create(DType.UINT8, 4, 16 * mib);
             SharedArray rows = a.slice(0, 1, 3, 1);
             SharedArray column = a.slice(1, 0, 1, 1)) {
            assertTrue(rows.prefault());
            final long kb = residentKb(a.path());
            assertTrue(kb >= 32 * 1024 && kb < 40 * 1024, "rows 1 and 2 (32 MiB) resident, not the file: " + kb + " kB");
            // the .npy header shifts the rows off block boundaries: the blocks they cover in part at either end
            // are not recorded, so one block fewer than 32 MiB holds is
            assertEquals(32 * mib - PopulatedBlocks.BLOCK, rows.populatedBytes());
            // a strided view: the span from its first element (row 0) to its last (row 3)
            assertTrue(column.prefault());
            assertTrue(residentKb(a.path()) >= 48 * 1024, "the column's span (rows 0 to 3, 48 MiB and a byte) resident");
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aBigCopyIntoAFreshArrayPopulatesItFirst() {
        final int n = (int) (ParallelChunks.MIN_BYTES / 8);
        final double[] data = new double[n];
        data[n - 1] = 7;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, n)) {
            a.copyFrom(data);
            // every block the data covers whole, recorded by prefault(): the pages came in one call per chunk
            assertTrue(a.populatedBytes() >= ParallelChunks.MIN_BYTES - 2 * PopulatedBlocks.BLOCK, "populated: " + a.populatedBytes());
            assertEquals(7.0, a.getDouble(n - 1));
        }
        try (SharedArray small = SharedArray.create(DType.FLOAT64, 1024)) {
            small.copyFrom(new double[1024]);
            assertEquals(0, small.populatedBytes(), "a small copy just writes");
        }
    }

    @Test
    void prefaultOfAReleasedHandleThrows() {
        final SharedArray a = SharedArray.create(DType.INT32, 16);
        a.release();
        assertThrows(IllegalStateException.class, a::prefault);
    }
}
