package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PopulatedBlocks}: what is populated once is not populated again, and only whole blocks count. */
class PopulatedBlocksTest {
    private static final long MIB = 1L << 20;

    /** Records each populate call as {offset, length}. */
    private static final class Calls implements PopulatedBlocks.Populator {
        final List<long[]> calls = new ArrayList<>();
        boolean fail;

        @Override
        public boolean populate(long offset, long length) {
            calls.add(new long[] {offset, length});
            return !fail;
        }
    }

    @Test
    void aRangeIsPopulatedInOneCallAndNotAgain() {
        final PopulatedBlocks blocks = new PopulatedBlocks(10 * MIB);
        final Calls c = new Calls();
        assertTrue(blocks.populate(0, 6 * MIB, c));
        assertEquals(1, c.calls.size());
        assertEquals(0, c.calls.get(0)[0]);
        assertEquals(6 * MIB, c.calls.get(0)[1]);
        assertEquals(6 * MIB, blocks.populatedBytes());
        assertTrue(blocks.populate(1 * MIB, 5 * MIB, c));
        assertEquals(1, c.calls.size(), "already populated: no call");
    }

    @Test
    void partlyCoveredBlocksAreNotRecordedAndGapsArePopulatedInRuns() {
        final PopulatedBlocks blocks = new PopulatedBlocks(10 * MIB);
        final Calls c = new Calls();
        blocks.populate(3 * MIB, 5 * MIB, c); // covers no 2 MiB block whole: [2, 4) and [4, 6) only in part
        assertEquals(0, blocks.populatedBytes());
        blocks.populate(4 * MIB, 6 * MIB, c); // block [4, 6) whole
        assertEquals(2 * MIB, blocks.populatedBytes());
        c.calls.clear();
        blocks.populate(1 * MIB, 9 * MIB, c); // [1, 4) and [6, 9): two runs around the recorded block
        assertEquals(2, c.calls.size());
        assertEquals(1 * MIB, c.calls.get(0)[0]);
        assertEquals(3 * MIB, c.calls.get(0)[1]);
        assertEquals(6 * MIB, c.calls.get(1)[0]);
        assertEquals(3 * MIB, c.calls.get(1)[1]);
        assertEquals(6 * MIB, blocks.populatedBytes(), "[2, 4), [4, 6), [6, 8)");
    }

    @Test
    void theLastShortBlockCountsWhenCoveredToTheEndOfTheMapping() {
        final PopulatedBlocks blocks = new PopulatedBlocks(5 * MIB);
        blocks.populate(4 * MIB, 5 * MIB, new Calls());
        assertEquals(1 * MIB, blocks.populatedBytes());
    }

    @Test
    void aFailedCallRecordsNothing() {
        final PopulatedBlocks blocks = new PopulatedBlocks(8 * MIB);
        final Calls c = new Calls();
        c.fail = true;
        assertFalse(blocks.populate(0, 8 * MIB, c));
        assertEquals(0, blocks.populatedBytes());
        c.fail = false;
        assertTrue(blocks.populate(0, 8 * MIB, c));
        assertEquals(8 * MIB, blocks.populatedBytes());
    }
}
