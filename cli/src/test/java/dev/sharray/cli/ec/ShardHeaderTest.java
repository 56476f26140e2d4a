package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sharray.codec.Matrix;
import org.junit.jupiter.api.Test;

/** A header's shard length must be {@code ceil(original length / k)}; an empty file's shards have no body. */
class ShardHeaderTest {
    private static ShardHeader header(int k, long shardLength, long originalLength) {
        return new ShardHeader(ShardHeader.VERSION, k, 2, Matrix.VANDERMONDE, 0, shardLength, originalLength, 7L, 0);
    }

    private static ShardHeader roundTrip(ShardHeader h) throws BadShardException {
        return ShardHeader.parse(h.toBuffer().array());
    }

    @Test
    void theShardLengthIsTheOneTheOriginalLengthGives() throws Exception {
        assertEquals(0, ShardHeader.shardLengthOf(0, 4));
        assertEquals(1, ShardHeader.shardLengthOf(1, 4));
        assertEquals(1, ShardHeader.shardLengthOf(4, 4));
        assertEquals(2, ShardHeader.shardLengthOf(5, 4));
        assertEquals(Long.MAX_VALUE / 3 + 1, ShardHeader.shardLengthOf(Long.MAX_VALUE, 3), "no overflow");
        for (long[] ok : new long[][] {{0, 0}, {1, 1}, {1, 4}, {2, 5}, {250_000, 1_000_000}}) {
            ShardHeader h = header(4, ok[0], ok[1]);
            assertEquals(h, roundTrip(h));
        }
    }

    @Test
    void anyOtherShardLengthIsInconsistent() {
        // {shard length, original length}: 244 KiB for an empty file passed before (no check when the length was 0)
        for (long[] bad : new long[][] {{250_000, 0}, {1, 0}, {0, 1}, {2, 4}, {250_001, 1_000_000}, {249_999, 1_000_000},
            {-1, 0}, {0, -1}}) {
            BadShardException e = assertThrows(BadShardException.class, () -> roundTrip(header(4, bad[0], bad[1])),
                bad[0] + " for " + bad[1]);
            assertEquals("inconsistent header fields", e.getMessage());
        }
    }

    @Test
    void anIndexPastTheLastShardIsInconsistent() throws Exception {
        ShardHeader last = header(4, 1, 4).withIndex(5); // k + m = 6: indices 0 .. 5
        assertEquals(last, roundTrip(last));
        BadShardException e = assertThrows(BadShardException.class, () -> roundTrip(last.withIndex(6)));
        assertEquals("inconsistent header fields", e.getMessage());
    }
}
