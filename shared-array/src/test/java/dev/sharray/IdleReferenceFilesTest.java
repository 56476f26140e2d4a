package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reference file of an array another process holds stays mapped after this process's last release, for the next
 * open of that array; it holds no reference, is taken back only for the same file, and is unmapped once the array is
 * deleted. Mappings are read from {@code /proc/self/maps}.
 */
class IdleReferenceFilesTest {
    /** @return how many mappings of {@code file} this process has (an unlinked file's too) */
    private static long mappingsOf(Path file) throws Exception {
        final String name = file.toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
            .filter(l -> l.endsWith(" " + name) || l.endsWith(" " + name + " (deleted)")).count();
    }

    private static Descriptor arrayCreatedBy(ChildJvm owner) throws Exception {
        owner.expect("ready ");
        return ArrayAgent.create(owner, "FLOAT64 16");
    }

    @Test
    void aReopenTakesBackTheReferenceFileMappingOfTheLastRelease() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            final Descriptor d = arrayCreatedBy(owner);
            final Path ref = Segments.refPathFor(d.path());
            SharedArray.open(d).release();
            assertEquals(1, mappingsOf(ref), "the .ref mapping is kept after the last release here");
            assertEquals(0, mappingsOf(d.path()), "the data mapping is not");
            assertEquals(1, SharedArrays.list().stream().filter(i -> i.path().equals(d.path())).findFirst()
                .orElseThrow().totalReferences(), "a kept .ref mapping holds no reference");
            try (SharedArray again = SharedArray.open(d)) {
                assertEquals(1, mappingsOf(ref), "the reopen maps no second one");
                again.setDouble(4.5, 3);
                assertEquals(2, again.segmentTotalReferences());
            }
            assertEquals(1, mappingsOf(ref));
            assertEquals(0, owner.finish(), "the owner exits normally and its array is deleted: the kept mapping"
                + " keeps nothing alive");
            assertFalse(Files.exists(d.path()));
            assertFalse(Files.exists(ref));
            // the next open or release of any shared array here unmaps the kept mapping of the deleted array
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
            assertTrue(e.getMessage().contains("released by all its holders"), e.getMessage());
            try (ChildJvm other = ChildJvm.start(ArrayAgent.class, List.of())) {
                SharedArray.open(arrayCreatedBy(other)).release();
            }
            assertEquals(0, mappingsOf(ref), "the unlinked .ref is no longer mapped");
        }
    }

    /**
     * A release that deletes its own array, and {@link SharedArrays#trimRetainedMappings()}, drop the kept mapping of an
     * array deleted since, as an open does (review 51: only opens and releases that kept a mapping did, and the
     * reference file of a pool's dropped result stayed mapped after the pool's close).
     */
    @Test
    void aKeptMappingOfADeletedArrayGoesAtACreateAndReleaseOrATrim() throws Exception {
        for (boolean trim : new boolean[] {false, true}) {
            try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
                final Descriptor d = arrayCreatedBy(owner);
                final Path ref = Segments.refPathFor(d.path());
                SharedArray.open(d).release();
                assertEquals(1, mappingsOf(ref), "kept after the last release here");
                assertEquals(0, owner.finish());
                assertFalse(Files.exists(ref), "the owner deleted its array");
                if (trim) {
                    SharedArrays.trimRetainedMappings();
                } else {
                    SharedArray.create(DType.FLOAT64, 1).release(); // deletes its own array
                }
                assertEquals(0, mappingsOf(ref), "the unlinked .ref is no longer mapped (trim: " + trim + ")");
            }
        }
    }

    @Test
    void aReferenceFileReplacedSinceIsMappedAfresh() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            final Descriptor d = arrayCreatedBy(owner);
            final Path ref = Segments.refPathFor(d.path());
            SharedArray.open(d).release();
            assertEquals(1, mappingsOf(ref));
            // another file under the same name (same bytes, another inode): the kept mapping is not of it
            final Path copy = ref.resolveSibling("copy.tmp");
            Files.copy(ref, copy);
            Files.move(copy, ref, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            try (SharedArray a = SharedArray.open(d)) {
                final RefCountFile now = RefCountFile.readCopy(ref, java.nio.ByteBuffer.allocateDirect(RefCountFile.FILE_SIZE));
                assertTrue(now.hasSlotOf(ProcessIdentity.PID), "the reference is counted in the file the path names now");
                assertEquals(1, now.holders().getOrDefault(ProcessIdentity.PID, 0L));
                assertEquals(1, mappingsOf(ref), "the mapping of the replaced file was dropped");
            }
            assertEquals(0, owner.finish());
        }
    }

    @Test
    void atMostMaxAreKept() throws Exception {
        final List<Path> refs = new ArrayList<>();
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            for (int i = 0; i <= IdleReferenceFiles.MAX; i++) {
                final Descriptor d = ArrayAgent.create(owner, "FLOAT64 4");
                refs.add(Segments.refPathFor(d.path()));
                SharedArray.open(d).release();
            }
            assertTrue(IdleReferenceFiles.size() <= IdleReferenceFiles.MAX);
            assertEquals(0, mappingsOf(refs.get(0)), "the least recently released went first");
            assertEquals(1, mappingsOf(refs.get(refs.size() - 1)));
            assertEquals(0, owner.finish());
        }
    }
}
