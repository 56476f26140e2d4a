package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference file's magic, read rather than mapped, decides both an open's refusal and a killed create's leftover. */
class ReferenceFileMagicTest {

    @Test
    void aFileWithoutTheMagicIsUnfinishedAndRefusedAndARealOneIsNeither(@TempDir Path dir) throws Exception {
        final Path empty = Files.createFile(dir.resolve("a1-0.ref"));
        final Path shortFile = Files.write(dir.resolve("a2-0.ref"), new byte[] {0x53, 0x52, 0x45}); // 3 of 4 bytes
        final Path zeros = Files.write(dir.resolve("a3-0.ref"), new byte[RefCountFile.FILE_SIZE]);
        for (Path p : new Path[] {empty, shortFile, zeros}) {
            assertTrue(RefCountFile.isUnfinished(p), p.toString());
        }
        final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> RefCountFile.open(zeros));
        assertTrue(e.getMessage().contains("is not a sharray reference file"), e.getMessage());

        try (SharedArray a = SharedArray.create(DType.INT8, 16)) {
            assertFalse(RefCountFile.isUnfinished(Segments.refPathFor(a.path())));
        }
        assertFalse(RefCountFile.isUnfinished(dir.resolve("gone.ref")), "a file that is not there is not judged");
    }
}
