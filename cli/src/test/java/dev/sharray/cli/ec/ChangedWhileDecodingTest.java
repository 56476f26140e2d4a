package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sharray.cli.CliException;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.codec.Matrix;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard written to after the scan checked it, while {@code ec decode} or {@code ec repair} runs, fails the command,
 * which writes nothing. Before, the decode copied the changed bytes into its output and exited 0, and the repair
 * rebuilt a shard from them and gave it a checksum of its wrong bytes. The change is made by a test hook at the
 * scan's last mapping: with one thread the scan checks the shards in order, so shard 0 is checked by then.
 */
@ExtendWith(OnMapping.class)
class ChangedWhileDecodingTest {
    /** k = 4 shards of 75,000 bytes and m = 2: one mapping per shard checked. */
    private static final int SIZE = 300_000;

    @TempDir
    Path dir;

    @Test
    void aShardWrittenWhileDecodingFailsTheDecodeAndLeavesNoOutput() throws Exception {
        final Path shards = encode();
        final Path out = dir.resolve("out.bin");
        OnMapping.change(4, () -> overwrite(ShardFiles.shard(shards, 0))); // the data shards' scan
        final CliException e = assertThrows(CliException.class, () -> {
            try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(1)) {
                FileDecoder.decode(ShardSet.scanForDecoding(shards, io), out, false, compute, io);
            }
        });
        assertEquals("cannot write " + out + ": shard 0 (" + ShardFiles.shard(shards, 0) + ") changed while decoding"
            + " (it was modified); nothing was written: run it again once the shards are no longer being written",
            e.getMessage());
        assertFalse(Files.exists(out));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("in.bin"), shards), files.sorted().toList(), "no partial output is left");
        }
    }

    @Test
    void aShardWrittenWhileRepairingFailsTheRepairAndRewritesNothing() throws Exception {
        final Path shards = encode();
        Files.delete(ShardFiles.shard(shards, 5));
        OnMapping.change(5, () -> overwrite(ShardFiles.shard(shards, 0))); // the scan of shards 0 to 4
        final CliException e = assertThrows(CliException.class, () -> {
            try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(1)) {
                ShardRepairer.repair(ShardSet.scan(shards, io), compute, io);
            }
        });
        assertEquals("cannot repair " + shards + ": shard 0 (" + ShardFiles.shard(shards, 0) + ") changed while"
            + " repairing (it was modified); nothing was written: run it again once the shards are no longer being"
            + " written", e.getMessage());
        try (var files = Files.list(shards)) {
            assertEquals(5, files.count(), "shard 5 was not rebuilt, and no partial file is left");
        }
    }

    private Path encode() throws IOException {
        final Path input = OnMapping.randomFile(dir, "in.bin", SIZE, 11);
        final Path shards = dir.resolve("shards");
        try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(1)) {
            FileEncoder.encode(input, shards, 4, 2, Matrix.VANDERMONDE, false, compute, io);
        }
        // an old mtime: the overwrite moves it even where timestamps are coarse
        Files.setLastModifiedTime(ShardFiles.shard(shards, 0), FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
        return shards;
    }

    /** Writes other bytes over the end of the shard's body, in place: its size stays. */
    private static void overwrite(Path shard) {
        try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
            f.seek(f.length() - 1000);
            f.write(new byte[1000]);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }
}
