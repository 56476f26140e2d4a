package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagedFilesTest {
    private static final String[] NAMES = {"shard-00", "shard-01", "shard-02"};

    @TempDir
    Path dir;

    @Test
    void commitReplacesEveryTargetAndLeavesNoHiddenFile() throws IOException {
        writeOldSet();
        try (StagedFiles staged = new StagedFiles()) {
            stageNewSet(staged);
            staged.commit();
        }
        assertEquals(Map.of("shard-00", "new 0", "shard-01", "new 1", "shard-02", "new 2"), contents());
    }

    /** @return a mover whose second rename of a new file fails, as a full or failing disk would */
    private static StagedFiles.Mover failsOnTheSecondNewFile() {
        AtomicInteger newPlaced = new AtomicInteger();
        return (from, to) -> {
            if (from.getFileName().toString().contains(".partial-") && newPlaced.incrementAndGet() == 2) {
                throw new IOException("injected: rename failed");
            }
            StagedFiles.Mover.ATOMIC.move(from, to);
        };
    }

    @Test
    void aRenameThatFailsHalfwayPutsEveryOldFileBack() throws IOException {
        writeOldSet();
        StagedFiles.Mover failsOnTheSecondNewFile = failsOnTheSecondNewFile();
        try (StagedFiles staged = new StagedFiles(failsOnTheSecondNewFile)) {
            stageNewSet(staged);
            IOException e = assertThrows(IOException.class, staged::commit);
            assertEquals("injected: rename failed", e.getMessage());
        }
        // without the roll-back, shard-00 would hold the new set and the others the old one
        assertEquals(Map.of("shard-00", "old 0", "shard-01", "old 1", "shard-02", "old 2"), contents());
    }

    @Test
    void aRenameThatFailsHalfwayTakesBackANewFileThatReplacedNothing() throws IOException {
        writeOldSet();
        Files.delete(dir.resolve("shard-00")); // the new set has a shard the old one lacked
        StagedFiles.Mover failsOnTheSecondNewFile = failsOnTheSecondNewFile();
        try (StagedFiles staged = new StagedFiles(failsOnTheSecondNewFile)) {
            stageNewSet(staged);
            assertThrows(IOException.class, staged::commit);
        }
        // no old file was put back over shard-00: only the roll-back of the new one removes it
        assertEquals(Map.of("shard-01", "old 1", "shard-02", "old 2"), contents());
    }

    @Test
    void aDirectoryWhereATargetGoesIsRefusedBeforeAnyRename() throws IOException {
        writeOldSet();
        Files.delete(dir.resolve("shard-02"));
        Files.createDirectory(dir.resolve("shard-02"));
        Files.writeString(dir.resolve("shard-02").resolve("keep"), "user data");
        try (StagedFiles staged = new StagedFiles()) {
            stageNewSet(staged);
            IOException e = assertThrows(IOException.class, staged::commit);
            assertEquals(dir.resolve("shard-02") + " is a directory", e.getMessage());
        }
        assertEquals(Map.of("shard-00", "old 0", "shard-01", "old 1", "shard-02", "<dir>"), contents());
        assertEquals("user data", Files.readString(dir.resolve("shard-02").resolve("keep")));
    }

    @Test
    void closingWithoutCommitDeletesThePartialFilesOnly() throws IOException {
        writeOldSet();
        try (StagedFiles staged = new StagedFiles()) {
            stageNewSet(staged);
        }
        assertEquals(Map.of("shard-00", "old 0", "shard-01", "old 1", "shard-02", "old 2"), contents());
    }

    private void writeOldSet() throws IOException {
        for (int i = 0; i < NAMES.length; i++) {
            Files.writeString(dir.resolve(NAMES[i]), "old " + i);
        }
    }

    private void stageNewSet(StagedFiles staged) throws IOException {
        for (int i = 0; i < NAMES.length; i++) {
            FileChannel ch = staged.create(dir.resolve(NAMES[i]));
            ch.write(ByteBuffer.wrap(("new " + i).getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /** Every entry of the folder, hidden ones included, with its text ({@code <dir>} for a folder). */
    private Map<String, String> contents() throws IOException {
        Map<String, String> found = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                found.put(p.getFileName().toString(), Files.isDirectory(p) ? "<dir>" : Files.readString(p));
            }
        }
        return found;
    }
}
