package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retained mappings: reused by a later open, never a reference, returned once the file is deleted. */
class RetainedMappingsTest {
    /** @return the descriptor of a 1000-element FLOAT64 array that {@code owner}, a fresh agent, creates and holds */
    private static Descriptor arrayCreatedBy(ChildJvm owner) throws Exception {
        owner.expect("ready ");
        owner.send("create FLOAT64 1000");
        return Descriptor.fromBytes(HexFormat.of().parseHex(owner.expect("desc ")));
    }

    @Test
    void aRetainedMappingIsReusedHoldsNoReferenceAndIsTrimmedAfterDeletion() throws Exception {
        SharedArrays.retainMappings(64L << 20);
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            Descriptor d = arrayCreatedBy(owner);
            long address;
            try (SharedArray a = SharedArray.open(d)) {
                a.setDouble(5.5, 10);
                address = a.address();
            }
            assertTrue(SharedArrays.retainedMappingBytes() > 0, "the mapping is retained after the last local release");
            assertEquals(1, SharedArrays.list().stream().filter(i -> i.path().equals(d.path())).findFirst()
                .orElseThrow().totalReferences(), "a retained mapping holds no reference");
            try (SharedArray again = SharedArray.open(d)) {
                assertEquals(address, again.address(), "the same mapping is reused");
                assertEquals(5.5, again.getDouble(10));
                assertEquals(0, SharedArrays.retainedMappingBytes());
            }
            assertEquals(0, owner.finish(), "the owner exits normally and its array is deleted");
            assertFalse(Files.exists(d.path()));
            SharedArrays.trimRetainedMappings();
            assertEquals(0, SharedArrays.retainedMappingBytes(), "the memory of a deleted file is returned");
            // an array whose last reference is ours is deleted and never retained
            SharedArray mine = SharedArray.create(DType.FLOAT64, 1000);
            mine.release();
            assertEquals(0, SharedArrays.retainedMappingBytes());
        } finally {
            SharedArrays.retainMappings(0);
        }
    }

    @Test
    void aRetainedMappingOfAnArrayReleasedEverywhereIsDroppedAndItsOpenRefused() throws Exception {
        SharedArrays.retainMappings(64L << 20);
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            Descriptor d = arrayCreatedBy(owner);
            SharedArray.open(d).release();
            assertTrue(SharedArrays.retainedMappingBytes() > 0);
            owner.send("exit");
            assertEquals(0, owner.finish());
            assertFalse(Files.exists(d.path()));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
            assertTrue(e.getMessage().contains("released by all its holders"), e.getMessage());
            assertEquals(0, SharedArrays.retainedMappingBytes(), "the open found the retained mapping dead and unmapped it");
        } finally {
            SharedArrays.retainMappings(0);
        }
    }

    @Test
    void aDescriptorNamingAUsersOwnFileMappedHereIsStillRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mine.npy");
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 16)) {
            Files.copy(a.path(), file);
        }
        try (SharedArray mine = SharedArray.openNpy(file)) {
            // the reuse of mappings by path serves sharray's own arrays only: a descriptor is checked in full
            InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(mine.descriptor()));
            assertEquals("path", e.field());
        }
    }
}
