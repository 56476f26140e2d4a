package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The codecs {@link SharedStripes} shares are never closed: each kept a full plan cache (up to 64 MiB of tables), and
 * a worker that met many geometries grew by ~60 MB per geometry for good (the soak review: 20 geometries, 41 MB to
 * 1.2 GB). Their plans now share one 64 MiB budget.
 */
class SharedPlanBudgetTest {
    private static final long BUDGET = 64L << 20;

    @Test
    void theSharedCodecsCachePlansWithinOneBudget() {
        final int[][] geometries = {{120, 120}, {121, 119}};
        // what other tests' shared codecs left of the budget in this JVM
        final long free = BUDGET - ErasureCodec.sharedPlanBytes();
        try {
            long cached = 0;
            for (int[] g : geometries) {
                final ErasureCodec codec = SharedStripes.codec(g[0], g[1], Matrix.CAUCHY);
                final int n = g[0] + g[1];
                for (int missing = 0; missing < n; missing++) {
                    final boolean[] present = new boolean[n];
                    Arrays.fill(present, true);
                    present[missing] = false;
                    codec.planTableBytes(present);
                }
                cached += codec.cachedPlanCount() * codec.planBytes();
                assertTrue(codec.cachedPlanCount() > 0 || cached > BUDGET - codec.planBytes(), "nothing cached");
            }
            // each alone may cache BUDGET / planBytes plans: the two of them had twice the budget
            assertTrue(cached <= free, cached + " bytes of plans cached, " + free + " free");
            assertTrue(cached > free / 2, "the budget was not used: " + cached + " of " + free);
            assertTrue(ErasureCodec.sharedPlanBytes() <= BUDGET, ErasureCodec.sharedPlanBytes() + " bytes counted");
        } finally {
            final long before = ErasureCodec.sharedPlanBytes();
            long given = 0;
            for (int[] g : geometries) {
                final ErasureCodec codec = SharedStripes.codec(g[0], g[1], Matrix.CAUCHY);
                given += codec.cachedPlanCount() * codec.planBytes();
                SharedStripes.forget(g[0], g[1], Matrix.CAUCHY);
            }
            assertEquals(before - given, ErasureCodec.sharedPlanBytes(), "forgotten codecs gave their budget back");
        }
    }
}
