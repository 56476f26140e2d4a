package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PopulatedBlocks}: what is populated once is not populated again, and only whole blocks count. */
class PopulatedBlocksTest {
    private static final long B = PopulatedBlocks.BLOCK;

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
        final PopulatedBlocks blocks = new PopulatedBlocks(10 * B);
        final Calls c = new Calls();
        assertTrue(blocks.populate(0, 6 * B, c));
        assertEquals(1, c.calls.size());
        assertEquals(0, c.calls.get(0)[0]);
        assertEquals(6 * B, c.calls.get(0)[1]);
        assertEquals(6 * B, blocks.populatedBytes());
        assertTrue(blocks.populate(B / 2, 5 * B, c));
        assertEquals(1, c.calls.size(), "already populated: no call");
    }

    @Test
    void partlyCoveredBlocksAreNotRecordedAndGapsArePopulatedInRuns() {
        final PopulatedBlocks blocks = new PopulatedBlocks(10 * B);
        final Calls c = new Calls();
        blocks.populate(3 * B / 2, 5 * B / 2, c); // covers no block whole: [1, 2) and [2, 3) only in part
        assertEquals(0, blocks.populatedBytes());
        blocks.populate(4 * B, 5 * B, c); // block 4 whole
        assertEquals(B, blocks.populatedBytes());
        c.calls.clear();
        blocks.populate(B / 2, 15 * B / 2, c); // [0.5, 4) and [5, 7.5): two runs around the recorded block
        assertEquals(2, c.calls.size());
        assertEquals(B / 2, c.calls.get(0)[0]);
        assertEquals(4 * B - B / 2, c.calls.get(0)[1]);
        assertEquals(5 * B, c.calls.get(1)[0]);
        assertEquals(5 * B / 2, c.calls.get(1)[1]);
        assertEquals(6 * B, blocks.populatedBytes(), "blocks 1 to 6");
    }

    @Test
    void unrecordedBytesCountsWhatAPopulateWouldStillDo() {
        final PopulatedBlocks blocks = new PopulatedBlocks(10 * B);
        assertEquals(5 * B / 2, blocks.unrecordedBytes(B / 2, 3 * B));
        blocks.populate(B / 2, 3 * B, new Calls()); // records blocks 1 and 2; block 0 was covered in part
        assertEquals(B / 2, blocks.unrecordedBytes(B / 2, 3 * B));
        assertEquals(3 * B, blocks.unrecordedBytes(0, 5 * B), "blocks 0, 3 and 4");
    }

    /** Whole words of 64 recorded blocks are skipped at once, around runs that still need populating. */
    @Test
    void recordedWordsAreSkippedAndRunsAroundThemStillPopulated() {
        final PopulatedBlocks blocks = new PopulatedBlocks(200 * B);
        final Calls c = new Calls();
        blocks.populate(64 * B, 128 * B, c); // exactly the second word
        c.calls.clear();
        blocks.populate(10 * B, 150 * B, c);
        assertEquals(2, c.calls.size());
        assertEquals(10 * B, c.calls.get(0)[0]);
        assertEquals(54 * B, c.calls.get(0)[1]);
        assertEquals(128 * B, c.calls.get(1)[0]);
        assertEquals(22 * B, c.calls.get(1)[1]);
        blocks.populate(0, 200 * B, c);
        c.calls.clear();
        assertEquals(0, blocks.unrecordedBytes(B / 2, 199 * B + B / 2));
        assertTrue(blocks.populate(B / 2, 199 * B + B / 2, c));
        assertEquals(0, c.calls.size(), "everything recorded: no call");
    }

    @Test
    void theLastShortBlockCountsWhenCoveredToTheEndOfTheMapping() {
        final PopulatedBlocks blocks = new PopulatedBlocks(4 * B + B / 2);
        blocks.populate(4 * B, 4 * B + B / 2, new Calls());
        assertEquals(B / 2, blocks.populatedBytes());
    }

    @Test
    void aFailedCallRecordsNothing() {
        final PopulatedBlocks blocks = new PopulatedBlocks(8 * B);
        final Calls c = new Calls();
        c.fail = true;
        assertFalse(blocks.populate(0, 8 * B, c));
        assertEquals(0, blocks.populatedBytes());
        c.fail = false;
        assertTrue(blocks.populate(0, 8 * B, c));
        assertEquals(8 * B, blocks.populatedBytes());
    }
}
