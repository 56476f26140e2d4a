package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.cli.CliException;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.MemoryFaultException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file cut short while the ec commands have it mapped (a log rotated by truncation, a shard rewritten in place)
 * fails the command with a message and removes its partial output. Before, its memory's SIGBUS in the codec's
 * native code or the JDK's CRC-32C ended the JVM, leaving an hs_err file and a half-written shard directory.
 */
@ExtendWith(OnMapping.class)
class TruncatedWhileMappedTest {
    /** k = 4 shards of 75,000 bytes: every data shard is a mapping of the input, none a padded copy. */
    private static final int SIZE = 300_000;

    @TempDir
    Path dir;

    @Test
    void encodeFailsAndRemovesItsOutputWhenTheInputIsTruncatedUnderIt() throws Exception {
        Path shards = dir.resolve("shards");
        // one task codes the one window: it maps the 4 data shards of the input, in order, then codes them
        for (int cutAfter : new int[] {4, 1}) { // cut under all four mappings, or before the next mapping
            Path input = randomFile("input.bin"); // whole again
            truncateOnMapping(input, cutAfter);
            try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(2)) {
                CliException e = assertThrows(CliException.class,
                    () -> FileEncoder.encode(input, shards, 4, 2, Matrix.VANDERMONDE, false, compute, io));
                assertEquals("cannot encode " + input + " into " + shards + ": the input shrank while encoding",
                    e.getMessage(), "cut after mapping " + cutAfter);
                if (cutAfter == 4) {
                    MemoryFaultException fault = assertInstanceOf(MemoryFaultException.class,
                        e.getCause().getCause().getCause(), "CliException <- task <- IOException <- the coding's fault");
                    assertTrue(fault.shard() >= 0 && fault.shard() < 4, "a data shard (the input): " + fault.getMessage());
                }
                assertFalse(Files.exists(shards), "the shard directory it created is removed");
            }
        }
    }

    @Test
    void aShardTruncatedWhileVerifiedIsReportedTruncated() throws Exception {
        Path shards = encode();
        Path lonely = Files.createDirectory(dir.resolve("lonely"));
        Path shard2 = Files.copy(shards.resolve("shard-02.sre"), lonely.resolve("shard-02.sre"));
        truncateOnMapping(shard2, 1); // the scan maps only the body of the one shard there
        try (Parallel io = Parallels.local(2)) {
            ShardEntry entry = ShardSet.scan(lonely, io).entries().get(2);
            assertEquals(ShardStatus.TRUNCATED, entry.status());
            assertEquals("shrank while it was being read", entry.detail());
        }
    }

    @Test
    void aShardCutShortBetweenTheMappingsOfItsChecksumIsReportedTruncated() throws Exception {
        // a body over Mapped.CHUNK is checksummed one mapping at a time: cut at the end of the first, the
        // second mapping finds the file too short (it said "cannot read: Channel not open for writing")
        Path input = dir.resolve("big.bin");
        Files.write(input, new byte[(int) Mapped.CHUNK + 1000]);
        Path shards = dir.resolve("big-shards");
        try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(1)) {
            FileEncoder.encode(input, shards, 1, 1, Matrix.VANDERMONDE, false, compute, io);
            Files.delete(shards.resolve("shard-01.sre")); // the scan maps only the data shard's body
            truncateOnMapping(shards.resolve("shard-00.sre"), 1, ShardHeader.SIZE + Mapped.CHUNK);
            ShardEntry entry = ShardSet.scan(shards, io).entries().get(0);
            assertEquals(ShardStatus.TRUNCATED, entry.status());
            assertEquals("shrank while it was being read", entry.detail());
        }
    }

    @Test
    void decodeFailsAndLeavesNoOutputWhenASurvivorIsTruncatedUnderIt() throws Exception {
        Path shards = encode();
        Files.delete(shards.resolve("shard-01.sre"));
        try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(2)) {
            ShardSet needed = ShardSet.scanForDecoding(shards, io);
            assertEquals(ShardStatus.MISSING, needed.entries().get(1).status());
            // one task rebuilds the window; it maps the survivors in order, shard 0 first
            truncateOnMapping(shards.resolve("shard-00.sre"), 1);
            Path output = dir.resolve("output.bin");
            CliException e = assertThrows(CliException.class, () -> FileDecoder.decode(needed, output, false, compute, io));
            assertEquals("cannot write " + output + ": shard 0 (" + shards.resolve("shard-00.sre")
                + ") shrank while decoding", e.getMessage());
            MemoryFaultException fault = assertInstanceOf(MemoryFaultException.class, e.getCause().getCause().getCause(),
                "CliException <- task <- IOException <- fault");
            assertEquals(0, fault.shard());
            assertFalse(Files.exists(output), "no partial output is left");
        }
    }

    private Path encode() throws IOException {
        Path shards = dir.resolve("shards");
        try (Parallel compute = Parallels.local(2); Parallel io = Parallels.local(2)) {
            FileEncoder.encode(randomFile("input.bin"), shards, 4, 2, Matrix.VANDERMONDE, false, compute, io);
        }
        return shards;
    }

    private Path randomFile(String name) throws IOException {
        return OnMapping.randomFile(dir, name, SIZE, 5);
    }

    /** Right after the {@code n}-th mapping of any file from now, cuts {@code file} to its first page. */
    private static void truncateOnMapping(Path file, int n) {
        truncateOnMapping(file, n, 4096);
    }

    /** Right after the {@code n}-th mapping of any file from now, cuts {@code file} to {@code length} bytes. */
    private static void truncateOnMapping(Path file, int n, long length) {
        OnMapping.change(n, () -> {
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
