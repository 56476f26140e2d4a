package dev.sharray.reducers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.HeapArray;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CopyCacheTest {
    private static double[] filled(int n, double v) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    @Test
    void aSecondSessionCopiesIntoTheFileTheFirstOneUsedAndSeesItsOwnData() {
        try (CopyCache cache = new CopyCache(1 << 20)) {
            Path first;
            try (SharingSession s = new SharingSession(1024, null, cache);
                 SharedArray a = SharedArray.open(s.shareCopy(filled(4096, 1.0)))) {
                first = a.path();
                assertEquals(4096.0, a.sum());
            }
            assertEquals(4096L * 8, cache.keptBytes(), "the copy went back to the cache");
            assertTrue(Files.exists(first));
            try (SharingSession s = new SharingSession(1024, null, cache)) {
                Descriptor d = s.shareCopy(filled(4096, 2.0));
                try (SharedArray b = SharedArray.open(d)) {
                    assertEquals(first, b.path(), "same dtype and shape: the kept file is reused");
                    assertEquals(2 * 4096.0, b.sum(), "with this call's data");
                }
                assertEquals(0, cache.keptBytes(), "taken while the session uses it");
                Descriptor other = s.shareCopy(filled(100, 3.0));
                try (SharedArray c = SharedArray.open(other)) {
                    assertNotEquals(first, c.path(), "another shape gets a new file");
                }
            }
        }
    }

    @Test
    void aCopySomeoneElseStillHoldsIsNeverReused() {
        try (CopyCache cache = new CopyCache(1 << 20)) {
            SharedArray escaped;
            try (SharingSession s = new SharingSession(1024, null, cache)) {
                // what a task returning the copy it received leaves behind: another handle on the file
                escaped = SharedArray.open(s.shareCopy(filled(4096, 1.0)));
            }
            assertEquals(0, cache.keptBytes());
            assertEquals(1, SharedArrays.totalReferences(escaped), "the session let go of its own handle");
            try (SharingSession s = new SharingSession(1024, null, cache);
                 SharedArray next = SharedArray.open(s.shareCopy(filled(4096, 7.0)))) {
                assertNotEquals(escaped.path(), next.path());
            }
            assertEquals(4096.0, escaped.sum(), "the holder's data was not overwritten");
            Path p = escaped.path();
            escaped.release();
            assertFalse(Files.exists(p), "its last holder's release deletes it as usual");
        }
    }

    @Test
    void theBudgetEvictsOldSmallerCopiesAMissFreesTheCacheAndCloseFreesTheRest() {
        CopyCache cache = new CopyCache(3 * 4096 * 8);
        SharedArray a = SharedArray.copyOf(filled(4096, 1));
        SharedArray b = SharedArray.copyOf(filled(4096, 2));
        SharedArray big = SharedArray.copyOf(filled(4 * 4096, 3));
        Path pa = a.path();
        Path pb = b.path();
        Path pBig = big.path();
        assertTrue(cache.give(a));
        assertTrue(cache.give(b));
        assertFalse(cache.give(big), "larger than the whole budget: released at once");
        assertFalse(Files.exists(pBig));
        SharedArray c = SharedArray.copyOf(filled(2 * 4096, 4));
        Path pc = c.path();
        assertTrue(cache.give(c));
        assertFalse(Files.exists(pa), "the oldest copy made room");
        assertTrue(Files.exists(pb));
        assertEquals(3 * 4096 * 8, cache.keptBytes());
        SharedArray small = SharedArray.copyOf(filled(2048, 5));
        Path pSmall = small.path();
        assertFalse(cache.give(small), "a smaller copy never pushes out larger ones");
        assertFalse(Files.exists(pSmall));
        assertEquals(3 * 4096 * 8, cache.keptBytes());
        SharedArray again = cache.take(DType.FLOAT64, new long[] {4096});
        assertSame(b, again);
        assertArrayEquals(filled(4096, 2), again.toDoubleArray());
        assertEquals(2 * 4096 * 8, cache.keptBytes());
        assertNull(cache.take(DType.FLOAT32, new long[] {4096}), "another dtype is not a match");
        assertFalse(Files.exists(pc), "a miss frees the kept copies, so the caller's new copy has their space");
        assertEquals(0, cache.keptBytes());
        cache.close();
        assertTrue(Files.exists(pb), "a taken copy is its taker's");
        assertFalse(cache.give(again), "a closed cache keeps nothing");
        assertFalse(Files.exists(pb));
        assertThrows(IllegalArgumentException.class, () -> new CopyCache(-1));
    }

    @Test
    void heapArraysKeepTheirShapeWhenReused() {
        try (CopyCache cache = new CopyCache(1 << 20)) {
            HeapArray h1 = HeapArray.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
            HeapArray h2 = HeapArray.of(new double[] {6, 5, 4, 3, 2, 1}, 2, 3);
            Path first;
            try (SharingSession s = new SharingSession(8, null, cache);
                 SharedArray a = SharedArray.open(s.shareCopy(h1))) {
                first = a.path();
            }
            try (SharingSession s = new SharingSession(8, null, cache);
                 SharedArray b = SharedArray.open(s.shareCopy(h2))) {
                assertEquals(first, b.path());
                assertArrayEquals(new long[] {2, 3}, b.shape());
                assertEquals(6.0, b.getDouble(0, 0));
                assertEquals(1.0, b.getDouble(1, 2));
            }
        }
    }
}
