package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * create asks a folder's file system for its type and free space with one {@code statfs(2)}
 * ({@link Posix#fileSystemOf}) instead of {@code Files.getFileStore}, whose mount-table walk cost more than the rest
 * of a small create. Both must tell the same: a wrong field offset in the struct would pass tmpfs off as a disk (no
 * memory check) or report a full disk.
 */
class FileSystemSpaceTest {
    @Test
    void statfsAgreesWithTheFileStoreOnTypeAndFreeSpace(@TempDir Path disk) throws Exception {
        for (Path dir : new Path[] {disk, Path.of("/dev/shm"), Path.of("/proc")}) {
            if (!Files.isDirectory(dir)) {
                continue; // /dev/shm is part of the Linux machines this runs on; /proc too
            }
            FileStore store = Files.getFileStore(dir);
            Posix.FileSystemSpace fs = Posix.fileSystemOf(dir.toString());
            assertNotNull(fs, dir.toString());
            assertEquals(store.type().equals("tmpfs"), fs.type() == Posix.TMPFS_MAGIC, dir + " is " + store.type());
            long expected = store.getUsableSpace();
            // others write to these file systems meanwhile: equal within 64 MiB
            assertTrue(Math.abs(fs.usableBytes() - expected) <= 64L << 20,
                dir + ": statfs says " + fs.usableBytes() + " usable bytes, the FileStore " + expected);
            assertEquals(fs.usableBytes(), Math.max(0, TempFolders.usableSpace(dir)), 64L << 20, dir.toString());
        }
        assertTrue(Files.getFileStore(Path.of("/dev/shm")).type().equals("tmpfs"), "this test's premise: /dev/shm is a tmpfs");
    }

    @Test
    void aPathThatIsGoneHasNoFileSystem(@TempDir Path temp) {
        assertNull(Posix.fileSystemOf(temp.resolve("gone").toString()));
        assertEquals(-1, TempFolders.usableSpace(temp.resolve("gone")), "unknown, not a full disk");
    }

    @Test
    void onlyATmpfsIsCheckedForMemory(@TempDir Path disk) {
        assertEquals(Long.MAX_VALUE, TempFolders.memoryRoom(disk), "a disk's files are not memory");
        long shm = TempFolders.memoryRoom(Path.of("/dev/shm"));
        assertTrue(shm > 0 && shm < Long.MAX_VALUE, "a tmpfs is checked against the memory left: " + shm);
    }
}
