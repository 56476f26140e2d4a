package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The descriptor of a user's own {@code .npy} (opened with {@code openNpy}) opens only where its folder is allowed.
 * Before, the refusal ended at "... or an allowed folder": it named no way to allow one, and said nothing of the
 * receiving processes, such as a pool's workers, which do not share the sender's {@code SharedArrays.allowFolder}.
 */
class UserFileDescriptorTest {
    @Test
    void theRefusalSaysHowAndWhereToAllowTheFolder(@TempDir Path dir) throws Exception {
        final Path file = dir.resolve("mine.npy");
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 3)) {
            a.setDouble(2.5, 1);
            Files.copy(a.path(), file); // a valid .npy outside the sharray folders
        }
        try (SharedArray mine = SharedArray.openNpy(file)) {
            final Descriptor d = mine.descriptor();
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
            assertEquals("path", e.field());
            assertTrue(e.getMessage().endsWith(" or an allowed folder: each process that opens it must allow its folder"
                + " (SharedArrays.allowFolder, -Dsharray.allowedFolders or SHARRAY_ALLOWED_FOLDERS; a pool's workers allow"
                + " what their parent allowed when the pool was built)"),
                e.getMessage());
            SharedArrays.allowFolder(dir); // as the message says: then it opens
            try (SharedArray again = SharedArray.open(d)) {
                assertEquals(2.5, again.getDouble(1));
            }
        }
    }
}
