package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.cli.CliException;
import dev.sharray.cli.Main;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.codec.Matrix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An input written to while {@code ec encode} reads it fails the encode, which leaves no shard set. Before, an input
 * that grew gave exit 0 and a set of its first bytes only, and a same-size overwrite could give a set whose data
 * shard failed its own checksum. The change is made by a test hook right after the workers mapped the input, so it
 * always lands between the encode's start and its commit.
 */
@ExtendWith(OnMapping.class)
class ChangedWhileEncodingTest {
    /** k = 4 shards of 75,000 bytes, one window, one part: the workers map the input 4 times. */
    private static final int SIZE = 300_000;

    @TempDir
    Path dir;

    @Test
    void anInputThatGrowsWhileEncodedFailsAndLeavesNoSet() throws Exception {
        Path input = randomFile("grows.bin");
        Path shards = dir.resolve("shards");
        onFirstMapping(() -> append(input, 100_000));
        CliException e = assertThrows(CliException.class, () -> encode(input, shards, false));
        assertEquals("cannot encode " + input + " into " + shards + ": the input changed while encoding (it grew from "
            + "300000 to 400000 bytes); nothing was written: encode it again once it is no longer being written",
            e.getMessage());
        assertFalse(Files.exists(shards), "the shard directory it created is removed");
    }

    @Test
    void aSameSizeOverwriteWhileEncodedFailsAndKeepsTheOldSet() throws Exception {
        Path input = randomFile("rewritten.bin");
        Path shards = dir.resolve("shards");
        encode(input, shards, false); // the set a --force re-encode would replace
        List<byte[]> old = contents(shards);
        // an old mtime: the overwrite moves it even where timestamps are coarse
        Files.setLastModifiedTime(input, FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
        onFirstMapping(() -> {
            try (RandomAccessFile f = new RandomAccessFile(input.toFile(), "rw")) {
                f.write(new byte[1000]); // same size, other bytes
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        });
        CliException e = assertThrows(CliException.class, () -> encode(input, shards, true));
        assertEquals("cannot encode " + input + " into " + shards + ": the input changed while encoding (it was "
            + "modified); nothing was written: encode it again once it is no longer being written", e.getMessage());
        assertEquals(SIZE, Files.size(input));
        List<byte[]> now = contents(shards);
        assertEquals(old.size(), now.size());
        for (int i = 0; i < old.size(); i++) {
            assertTrue(java.util.Arrays.equals(old.get(i), now.get(i)), "shard " + i + " of the old set was replaced");
        }
        try (var files = Files.list(shards)) {
            assertEquals(6, files.count(), "no partial file is left");
        }
    }

    @Test
    void theCommandExitsOneWithOneLine() throws Exception {
        Path input = randomFile("cli.bin");
        Path shards = dir.resolve("cli-shards");
        onFirstMapping(() -> append(input, 1));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int exit;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            exit = Main.run("ec", "encode", input.toString(), "-k", "4", "-m", "2", "-o", shards.toString(), "--threads",
                "--workers", "1");
        } finally {
            System.setErr(saved);
        }
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines()
            .filter(l -> !l.isBlank() && !l.startsWith("sharray: encode:")).toList(); // the progress lines
        assertEquals(1, exit, () -> String.join("\n", lines));
        assertEquals(List.of("sharray: cannot encode " + input + " into " + shards + ": the input changed while encoding "
            + "(it grew from 300000 to 300001 bytes); nothing was written: encode it again once it is no longer being "
            + "written"), lines);
        assertFalse(Files.exists(shards), "no shard set is left");
    }

    private static void encode(Path input, Path shards, boolean force) {
        try (Parallel compute = Parallels.local(1); Parallel io = Parallels.local(2)) {
            FileEncoder.encode(input, shards, 4, 2, Matrix.VANDERMONDE, force, compute, io);
        }
    }

    private Path randomFile(String name) throws IOException {
        return OnMapping.randomFile(dir, name, SIZE, 9);
    }

    private static void append(Path file, int bytes) {
        try {
            Files.write(file, new byte[bytes], java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<byte[]> contents(Path shards) throws IOException {
        try (var files = Files.list(shards)) {
            return files.sorted().map(p -> {
                try {
                    return Files.readAllBytes(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
    }

    /** Runs {@code change} once, right after the first mapping of any file from now (a worker's of the input). */
    private static void onFirstMapping(Runnable change) {
        OnMapping.change(1, change);
    }
}
