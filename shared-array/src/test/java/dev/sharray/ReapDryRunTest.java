package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SharedArrays#reapDryRun()} tells what {@link SharedArrays#reap()} then does, and changes nothing: not a
 * reference file (it judges private copies), not a file or folder.
 */
@ExtendWith(PrivateRoot.class)
class ReapDryRunTest {
    @Test
    void aDeadHoldersReferenceIsReportedAndLeftForTheRealPass() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 100)) {
            final Path ref = Segments.refPathFor(a.path());
            try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
                child.expect("ready");
                ArrayAgent.open(child, a.descriptor());
                child.kill9();
            }
            assertEquals(2, SharedArrays.totalReferences(a));
            final byte[] before = Files.readAllBytes(ref);
            final ReapReport dry = SharedArrays.reapDryRun();
            assertEquals(new ReapReport(List.of(), List.of(), 1, 0), dry);
            assertArrayEquals(before, Files.readAllBytes(ref), "the dry run wrote to the reference file");
            assertEquals(2, SharedArrays.totalReferences(a));
            assertEquals(dry, SharedArrays.reap());
            assertEquals(1, SharedArrays.totalReferences(a));
            assertEquals(new ReapReport(List.of(), List.of(), 0, 0), SharedArrays.reapDryRun());
        }
    }

    @Test
    void reapProcessRefusesWhatIsNotAProcessId() {
        // 0 is "no process" in a reference file's words: a pass for it mapped every array without a deleter
        for (long pid : new long[] {0, -1, Long.MIN_VALUE}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SharedArrays.reapProcess(pid));
            assertEquals("not a process id: " + pid, e.getMessage());
        }
    }

    @Test
    void aDeadOwnersFolderAndArrayAreReportedAsTheRealPassRemovesThem() throws Exception {
        final Path data;
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
            child.expect("ready");
            data = ArrayAgent.create(child, "FLOAT64 1000 3").path();
            Files.write(data.resolveSibling("pool-1.ring"), new byte[5000]); // a file of no array
            child.kill9();
        }
        final Path folder = data.getParent();
        final ReapReport dry = SharedArrays.reapDryRun();
        assertEquals(List.of(folder), dry.foldersRemoved());
        assertEquals(List.of(data), dry.arraysDeleted());
        assertTrue(dry.bytesFreed() > 24_000 + 5000, dry.toString());
        assertTrue(Files.exists(data) && Files.exists(Segments.refPathFor(data))
            && Files.exists(data.resolveSibling("pool-1.ring")), "the dry run deleted a file");
        assertEquals(dry, SharedArrays.reap(), "the real pass did otherwise");
        assertTrue(!Files.exists(folder));
    }
}
