package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Ctrl-C to a process group ends a parent and the pool workers holding its array at once: the parent's exit found
 * its folder still holding the array, the workers' last releases a moment later found the parent still alive (in its
 * exit), and nobody removed the emptied folder until another process's reaper pass (signals review 47, S2). The
 * exit now marks such a folder, and the last release removes it though the owner is still exiting.
 */
@ExtendWith(PrivateRoot.class)
class ExitingOwnersFolderTest {

    @Test
    void theLastReleaseOfAnExitingOwnersArrayRemovesItsFolder() throws Exception {
        final Path go = Files.createTempFile("sharray-owner-may-end", ".flag");
        Files.delete(go);
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 1000");
            final Path folder = d.path().getParent();
            final SharedArray held = SharedArray.open(d);
            try {
                owner.send("exit-slowly " + go);
                for (int i = 0; i < 1000 && SharedArrays.totalReferences(held) > 1; i++) {
                    Thread.sleep(10);
                }
                assertEquals(1, SharedArrays.totalReferences(held), "the owner's exit let go of the array");
                // then it tries to remove its folder, and marks it: give it a second
                final Path mark = folder.resolve(Segments.OWNER_EXITED);
                for (int i = 0; i < 100 && !Files.exists(mark); i++) {
                    Thread.sleep(10);
                }
                assertTrue(owner.process().isAlive(), "the owner is still in its exit");
            } finally {
                held.release(); // the last release, while the owner exits
            }
            assertFalse(Files.exists(d.path()), "the array went with its last release");
            assertFalse(Files.exists(folder), "the owner's emptied folder went with it");
            assertTrue(owner.process().isAlive(), "removed while the owner was still exiting");
            Files.createFile(go);
            assertEquals(0, owner.finish());
        } finally {
            Files.deleteIfExists(go);
        }
    }

    @Test
    void anExitWithNothingHeldLeavesNoFolderAndNoMark() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 1000");
            owner.send("exit");
            assertEquals(0, owner.finish());
            assertFalse(Files.exists(d.path().getParent()), "the folder went at exit");
        }
    }
}
