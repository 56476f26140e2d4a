package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Something other than a regular file under a reference file's name ({@code <name>.ref}), which sharray never makes
 * there. A FIFO blocked every read of it: the reaper of any process's first create or open, a listing, a reap. A
 * directory made the reaper judge its dead owner's folder "maybe held", so the folder stayed for good. A symbolic
 * link was followed, so an open mapped, and wrote its slot into, a file outside every sharray folder.
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead owner's folder first
class ForeignReferenceFilesTest {

    @Test
    void aFifoUnderAReferenceFilesNameBlocksNeitherAListingNorAReapAndGoesWithItsDeadOwnersFolder() throws Exception {
        final Path folder = deadOwnersFolder();
        final Path fifo = folder.resolve("a900-0000beef.ref");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        Files.writeString(folder.resolve("a900-0000beef.npy"), "not an array");
        try {
            assertRefusedAndReaped(folder, "a special file (FIFO, socket or device)");
        } finally {
            if (Files.exists(fifo)) {
                new RandomAccessFile(fifo.toFile(), "rw").close(); // a writer frees a reader blocked before the fix
            }
        }
    }

    @Test
    void aDirectoryUnderAReferenceFilesNameDoesNotKeepItsDeadOwnersFolder() throws Exception {
        final Path folder = deadOwnersFolder();
        Files.createDirectory(folder.resolve("a900-0000beef.ref"));
        Files.writeString(folder.resolve("a900-0000beef.npy"), "not an array");
        assertRefusedAndReaped(folder, "a directory");
    }

    @Test
    void aReferenceFileThatIsALinkOutOfTheFolderIsRefusedAndNotWritten() throws Exception {
        final Path outside = Files.createTempDirectory("sharray-outside");
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 16)) {
            final Path folder = a.path().getParent();
            final Path target = Files.copy(Segments.refPathFor(a.path()), outside.resolve("outside.ref"));
            final byte[] before = Files.readAllBytes(target);
            final Path data = Files.copy(a.path(), folder.resolve("a901-0000beef.npy"));
            Files.createSymbolicLink(Segments.refPathFor(data), target);
            try {
                final Descriptor d = new Descriptor(data, a.descriptor().offset(), a.shape(), a.strides(),
                    DType.FLOAT64, java.nio.ByteOrder.LITTLE_ENDIAN);
                final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class,
                    () -> SharedArray.open(d).close());
                assertEquals("refcount", e.field());
                assertTrue(e.getMessage().contains("is a symbolic link, not a reference file"), e.getMessage());
                assertArrayEquals(before, Files.readAllBytes(target), "the file outside was written");
                assertTrue(Files.readAllLines(Path.of("/proc/self/maps")).stream()
                    .noneMatch(line -> line.endsWith(target.toString())), "the file outside was mapped");
            } finally {
                Files.delete(Segments.refPathFor(data));
                Files.delete(data);
            }
        } finally {
            Reaper.deleteTree(outside);
        }
    }

    /** Lists and reaps (each bounded: before the fix a FIFO blocked them for good), then checks what they did. */
    private static void assertRefusedAndReaped(Path folder, String kind) {
        final ArrayListing listing = assertTimeoutPreemptively(Duration.ofSeconds(60), SharedArrays::listAll,
            "the listing blocked");
        final List<ArrayListing.Unlisted> mine = listing.unlisted().stream()
            .filter(u -> u.path().startsWith(folder)).toList();
        assertEquals(1, mine.size(), listing.toString());
        assertTrue(mine.get(0).reason().startsWith("its reference file is " + kind + ", which sharray never makes"),
            mine.get(0).reason());
        final ReapReport report = assertTimeoutPreemptively(Duration.ofSeconds(60), SharedArrays::reap,
            "the reap blocked");
        assertTrue(report.foldersRemoved().contains(folder), report.toString());
        assertTrue(Files.notExists(folder), "the dead owner's folder is removed");
    }

    /** @return a new folder of a dead owner (pid 1 did not start at tick 1) under this test's private root */
    private static Path deadOwnersFolder() throws Exception {
        final Path user = Path.of(System.getProperty("sharray.tempFolder")).resolve(TempFolders.userFolderName());
        Files.createDirectories(user, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return Files.createDirectory(user.resolve("host-1-t1-0000abcd"));
    }
}
