package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.codec.Matrix;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan {@code ec decode} uses: parity bodies are read only when a data shard is not intact; {@code ec
 * verify}'s full scan still reads and reports everything.
 */
class DecodingScanTest {
    @TempDir
    Path dir;

    @Test
    void parityIsCheckedOnlyWhenADataShardIsNotIntact() throws Exception {
        Path input = dir.resolve("input.bin");
        byte[] bytes = new byte[100_003];
        new Random(3).nextBytes(bytes);
        Files.write(input, bytes);
        Path shards = dir.resolve("shards");
        try (Parallel compute = Parallels.local(2); Parallel io = Parallels.local(2)) {
            FileEncoder.encode(input, shards, 4, 2, Matrix.VANDERMONDE, false, compute, io);
            flipByte(shards.resolve("shard-05.sre"), ShardHeader.SIZE + 10); // a damaged parity shard

            ShardSet lazy = ShardSet.scanForDecoding(shards, io);
            assertEquals(List.of(ShardStatus.INTACT, ShardStatus.INTACT, ShardStatus.INTACT, ShardStatus.INTACT,
                ShardStatus.UNCHECKED, ShardStatus.UNCHECKED), statuses(lazy));
            assertEquals(4, lazy.intactCount());
            assertEquals(0, lazy.damagedCount());

            ShardSet full = ShardSet.scan(shards, io);
            assertEquals(ShardStatus.CORRUPTED, full.entries().get(5).status());
            assertEquals(1, full.damagedCount());

            Files.delete(shards.resolve("shard-01.sre")); // now a data shard is missing: parity is read
            ShardSet needed = ShardSet.scanForDecoding(shards, io);
            assertEquals(List.of(ShardStatus.INTACT, ShardStatus.MISSING, ShardStatus.INTACT, ShardStatus.INTACT,
                ShardStatus.INTACT, ShardStatus.CORRUPTED), statuses(needed));
            assertEquals(2, needed.damagedCount());

            Path output = dir.resolve("output.bin");
            FileDecoder.decode(needed, output, false, compute, io);
            assertEquals(java.util.Arrays.toString(bytes), java.util.Arrays.toString(Files.readAllBytes(output)));
        }
    }

    private static List<ShardStatus> statuses(ShardSet set) {
        return set.entries().stream().map(ShardEntry::status).toList();
    }

    private static void flipByte(Path file, long pos) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(pos);
            int b = f.read();
            f.seek(pos);
            f.write(b ^ 0xff);
        }
    }
}
