package dev.sharray.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checksum a worker class-data archive is written with, and checked against before workers map it. */
class ArchiveSealTest {
    private static final int SIZE = 3 << 20 | 12345; // several read buffers, and a partial one

    @Test
    void aSealedArchiveIsIntactAndMovedIntoPlace(@TempDir Path dir) throws Exception {
        final byte[] bytes = randomBytes(1);
        final Path written = Files.write(dir.resolve("a.jsa.tmp-1"), bytes);
        final Path archive = dir.resolve("a.jsa");
        ArchiveSeal.seal(written, archive);
        assertFalse(Files.exists(written));
        assertArrayEquals(bytes, Files.readAllBytes(archive));
        assertTrue(Files.exists(ArchiveSeal.sealOf(archive)));
        assertTrue(ArchiveSeal.isIntact(archive));
        assertTrue(ArchiveSeal.isIntact(archive), "checked again from the cache");
        try (var files = Files.list(dir)) {
            assertTrue(files.allMatch(p -> p.equals(archive) || p.equals(ArchiveSeal.sealOf(archive))), "a temporary file was left");
        }
    }

    /** Each damage on a copy this JVM never checked: a flipped byte anywhere, a truncation, an appended block. */
    @Test
    void anyChangedByteIsFound(@TempDir Path dir) throws Exception {
        final Path pristine = sealedArchive(dir, "pristine");
        final Random random = new Random(3);
        for (int i = 0; i < 12; i++) {
            final Path archive = copyWithSeal(pristine, dir.resolve("flip" + i + ".jsa"));
            final long at = i == 0 ? 0 : i == 1 ? SIZE - 1 : random.nextInt(SIZE);
            try (RandomAccessFile f = new RandomAccessFile(archive.toFile(), "rw")) {
                f.seek(at);
                final int b = f.read();
                f.seek(at);
                f.write(b ^ (1 << random.nextInt(8)));
            }
            assertFalse(ArchiveSeal.isIntact(archive), "a bit flipped at " + at);
        }
        final Path truncated = copyWithSeal(pristine, dir.resolve("truncated.jsa"));
        try (RandomAccessFile f = new RandomAccessFile(truncated.toFile(), "rw")) {
            f.setLength(SIZE / 2);
        }
        assertFalse(ArchiveSeal.isIntact(truncated));
        final Path longer = copyWithSeal(pristine, dir.resolve("longer.jsa"));
        Files.write(longer, new byte[4096], java.nio.file.StandardOpenOption.APPEND);
        assertFalse(ArchiveSeal.isIntact(longer));
        assertTrue(ArchiveSeal.isIntact(copyWithSeal(pristine, dir.resolve("copy.jsa"))), "an undamaged copy");
    }

    @Test
    void aMissingOrMalformedSealIsNotTrusted(@TempDir Path dir) throws Exception {
        final Path pristine = sealedArchive(dir, "pristine");
        final Path noSeal = dir.resolve("noseal.jsa");
        Files.copy(pristine, noSeal);
        assertFalse(ArchiveSeal.isIntact(noSeal), "no seal: its sealing never finished");
        final String seal = Files.readString(ArchiveSeal.sealOf(pristine));
        final String[] malformed = {"", "\n", seal.trim(), seal + "x", " " + seal, seal.replace(" ", "  "),
            "0" + seal, "-1 " + seal.substring(seal.indexOf(' ') + 1), "x".repeat(100) + "\n"};
        for (int i = 0; i < malformed.length; i++) {
            final String bad = malformed[i];
            final Path archive = dir.resolve("bad" + i + ".jsa");
            Files.copy(pristine, archive);
            Files.writeString(ArchiveSeal.sealOf(archive), bad);
            assertFalse(ArchiveSeal.isIntact(archive), "seal '" + bad + "'");
        }
        final Path folderSeal = dir.resolve("folder.jsa");
        Files.copy(pristine, folderSeal);
        Files.createDirectory(ArchiveSeal.sealOf(folderSeal));
        assertFalse(ArchiveSeal.isIntact(folderSeal), "a folder for a seal");
    }

    /** A checked archive replaced by another file (a new dump, or a copy by hand) is checked again. */
    @Test
    void aReplacedArchiveIsCheckedAgain(@TempDir Path dir) throws Exception {
        final Path archive = sealedArchive(dir, "a");
        assertTrue(ArchiveSeal.isIntact(archive));
        final byte[] other = randomBytes(2);
        final Path replacement = Files.write(dir.resolve("replacement"), other);
        Files.move(replacement, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertFalse(ArchiveSeal.isIntact(archive), "another file under the checked name");
    }

    private static Path sealedArchive(Path dir, String name) throws IOException {
        final Path written = Files.write(dir.resolve(name + ".jsa.tmp"), randomBytes(1));
        final Path archive = dir.resolve(name + ".jsa");
        ArchiveSeal.seal(written, archive);
        return archive;
    }

    private static Path copyWithSeal(Path archive, Path copy) throws IOException {
        Files.copy(archive, copy);
        Files.copy(ArchiveSeal.sealOf(archive), ArchiveSeal.sealOf(copy));
        return copy;
    }

    private static byte[] randomBytes(long seed) {
        final byte[] bytes = new byte[SIZE];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
