package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The table both sides of the map-function protocol keep: least-recently-used eviction decided only by the
 * sequence of operations, so the parent's copy and the worker's agree without acknowledgements.
 */
class FunctionCacheTest {
    @Test
    void evictsTheLeastRecentlyUsedAndOnlyGetAndPutCountAsUse() {
        FunctionCache<String> c = new FunctionCache<>();
        for (int id = 1; id <= FunctionCache.CAPACITY; id++) {
            c.put(id * 1000, "f" + id); // ids above the boxing cache, as long-running pools reach
        }
        assertEquals("f1", c.get(1000)); // 1000 is now the most recent; 2000 the least
        assertTrue(c.contains(2000)); // contains() does not count as use
        c.put(9000, "f9");
        assertFalse(c.contains(2000), "the least recently used entry was evicted");
        assertTrue(c.contains(1000));
        c.put(3000, "f3 again"); // replacing counts as use
        c.put(10_000, "f10");
        assertFalse(c.contains(4000));
        assertEquals("f3 again", c.get(3000));
        assertEquals(FunctionCache.CAPACITY, c.size());
        assertEquals("f9", c.remove(9000));
        assertNull(c.remove(9000));
        assertNull(c.get(9000));
        assertEquals(FunctionCache.CAPACITY - 1, c.size());
        c.put(11_000, "f11"); // room again: nothing evicted
        assertTrue(c.contains(1000) && c.contains(3000) && c.contains(10_000) && c.contains(11_000));
    }

    @Test
    void twoTablesFedTheSameOperationsAgree() {
        FunctionCache<Boolean> parent = new FunctionCache<>();
        FunctionCache<String> worker = new FunctionCache<>();
        java.util.Random rnd = new java.util.Random(5);
        for (int step = 0; step < 10_000; step++) {
            int id = 1 + rnd.nextInt(20);
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    parent.put(id, true);
                    worker.put(id, "fn" + id);
                }
                case 1 -> assertEquals(parent.get(id) != null, worker.get(id) != null);
                default -> assertEquals(parent.remove(id) != null, worker.remove(id) != null);
            }
            for (int probe = 1; probe <= 20; probe++) {
                assertEquals(parent.contains(probe), worker.contains(probe), "step " + step + " id " + probe);
            }
        }
    }
}
