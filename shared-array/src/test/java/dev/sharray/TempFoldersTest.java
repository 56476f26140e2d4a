package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-user folder under a shared root is used only when it is a real directory owned by this process's
 * user: a symbolic link or another user's folder planted there is refused, and nothing is written into it.
 */
class TempFoldersTest {
    @TempDir
    Path temp;

    @Test
    void aSymbolicLinkInPlaceOfTheUserFolderIsRefused() throws Exception {
        Path root = Files.createDirectory(temp.resolve("root-link"));
        Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
        Files.createSymbolicLink(root.resolve(TempFolders.userFolderName()), elsewhere);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("is not a directory"), e.getMessage());
        assertEquals(List.of(), list(elsewhere), "nothing was created through the link");
    }

    @Test
    void anotherUsersFolderIsRefused() throws Exception {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        Path root = Files.createDirectory(temp.resolve("root-owner"));
        Path userDir = Files.createDirectory(root.resolve(TempFolders.userFolderName()));
        Files.setAttribute(userDir, "unix:uid", 4321);
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> SharedArray.builder(DType.FLOAT64, 4).folder(root).create());
        assertTrue(e.getMessage().contains("belongs to uid 4321"), e.getMessage());
        assertEquals(List.of(), list(userDir), "nothing was created in the other user's folder");
        Files.setAttribute(userDir, "unix:uid", (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        try (SharedArray ok = SharedArray.builder(DType.FLOAT64, 4).folder(root).create()) {
            assertTrue(ok.path().startsWith(userDir.toRealPath()), ok.path().toString());
        }
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }
}
