package dev.sharray.bench.peers;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A row's parameters as each side sees them, and how many runs a row takes. */
class ParamsTest {
    @Test
    void peerOnlyKeysReplaceTheirKeyForThePeerAndVanishForSharray() {
        final Params row = Params.parse("bytes=1024,workers=2,chunks=2,peer.chunks=1,peer.extra=x");
        assertEquals(Map.of("bytes", "1024", "workers", "2", "chunks", "1", "extra", "x"), row.forSide(true).values());
        assertEquals(Map.of("bytes", "1024", "workers", "2", "chunks", "2"), row.forSide(false).values());
        assertEquals(1, row.forSide(true).getLong("chunks", 8));
        assertEquals(2, row.forSide(false).getLong("chunks", 8));
    }

    @Test
    void paramsWithoutPeerKeysAreTheSameForBothSides() {
        final Params row = Params.parse("bytes=1024,workers=2");
        assertEquals(row.values(), row.forSide(true).values());
        assertEquals(row.values(), row.forSide(false).values());
        assertEquals("bytes=1024,workers=2", row.forSide(true).toString());
    }

    @Test
    void aRowTakesAtLeastItsMinimumOfMeasuredRuns() {
        final Row plain = new Row("r", "t", Params.parse(""), 0, "peer", "java:A", "java:B", "bar");
        final Row cheap = plain.measuredAtLeast(15);
        assertEquals(5, plain.measuredRuns(5));
        assertEquals(15, cheap.measuredRuns(5));
        assertEquals(20, cheap.measuredRuns(20));
        assertEquals(plain.id(), cheap.id());
    }
}
