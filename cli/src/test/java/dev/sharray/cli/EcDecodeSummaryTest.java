package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ec decode} says what it decoded from, counted right. Before, a set of 14 intact shards was "decoded ...
 * from 10 intact shards" (the parity is not read when every data shard is intact, and was counted as not intact),
 * a single shard was "1 intact shards", and a missing parity shard was "rebuilt" though nothing was.
 */
class EcDecodeSummaryTest {
    @TempDir
    Path dir;

    @Test
    void theSummaryCountsTheShardsItUsedAndItsPluralsAreRight() throws Exception {
        final Path input = EcEndToEndTest.randomFile(dir.resolve("in.bin"), 100_000, 7);
        final Path wide = dir.resolve("wide");
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "10", "-m", "4", "-o",
            wide.toString(), "-q").exit());
        assertEquals("from its 10 data shards, all intact (parity not read)", decodedFrom(wide));
        Files.delete(EcEndToEndTest.shard(wide, 12));
        assertEquals("from its 10 data shards, all intact (parity not read); 1 parity shard missing or damaged",
            decodedFrom(wide));
        Files.delete(EcEndToEndTest.shard(wide, 0));
        assertEquals("from 12 intact shards of 14 (2 missing or damaged)", decodedFrom(wide));

        final Path narrow = dir.resolve("narrow");
        assertEquals(0, Cli.runThreads(null, "ec", "encode", input.toString(), "-k", "1", "-m", "2", "-o",
            narrow.toString(), "-q").exit());
        assertEquals("from its 1 data shard, intact (parity not read)", decodedFrom(narrow));
        Files.delete(EcEndToEndTest.shard(narrow, 0));
        Files.delete(EcEndToEndTest.shard(narrow, 1));
        assertEquals("from 1 intact shard of 3 (2 missing or damaged)", decodedFrom(narrow));
    }

    /** Decodes {@code shards}, checks the output is the input, and returns the summary between the size and the time. */
    private String decodedFrom(Path shards) throws Exception {
        final Path out = dir.resolve("out.bin");
        final Cli.Result r = Cli.runThreads(null, "ec", "decode", shards.toString(), "-o", out.toString(), "-f");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(EcEndToEndTest.sha256(dir.resolve("in.bin")), EcEndToEndTest.sha256(out));
        final String line = r.errLines().stream().filter(l -> l.startsWith("sharray: decoded ")).findFirst().orElseThrow();
        final int from = line.indexOf(") from ");
        final int time = line.lastIndexOf(": ");
        assertTrue(from > 0 && time > from, line);
        return line.substring(from + 2, time);
    }
}
