package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Listing and reaping on an interrupted thread. Both read reference and data files through channels that an
 * interrupt closes: {@code list()} left every array out ({@code listAll()} called each one's reference file
 * unreadable: "ClosedByInterruptException"), and a reap judged every array it could not read as held, freeing
 * nothing a dead process left. They wait for nobody: they now do their work, and the interrupt stays set.
 */
@ExtendWith(PrivateRoot.class)
class InterruptedMaintenanceTest {

    @AfterEach
    void clear() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedThreadListsTheArrays() {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 100)) {
            Thread.currentThread().interrupt();
            final ArrayListing listing = SharedArrays.listAll();
            assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
            // other processes of this user may have arrays under the default roots: only this one's is looked at
            assertTrue(listing.unlisted().stream().noneMatch(u -> u.path().equals(a.path())), listing.toString());
            assertTrue(listing.arrays().stream().anyMatch(i -> i.path().equals(a.path())), listing.toString());
        }
    }

    @Test
    void anInterruptedThreadReapsADeadProcesssReferenceAndArray() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 100)) {
            final long pid;
            final Descriptor childs;
            try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
                child.expect("ready");
                ArrayAgent.open(child, a.descriptor());
                childs = ArrayAgent.create(child, "FLOAT64 10");
                pid = child.pid();
                child.kill9();
            }
            Thread.currentThread().interrupt();
            // a dry run looks at every root, where other processes of this user may have left something too
            final ReapReport dry = SharedArrays.reapDryRun();
            assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
            assertTrue(dry.arraysDeleted().contains(childs.path()), dry.toString());
            final ReapReport real = SharedArrays.reapProcess(pid);
            assertTrue(Thread.currentThread().isInterrupted());
            assertEquals(List.of(childs.path()), real.arraysDeleted());
            assertEquals(2, real.referencesReclaimed(), real.toString()); // on this array, and on its own
            assertEquals(1, SharedArrays.totalReferences(a));
            assertFalse(Files.exists(childs.path().getParent()), "the dead process's folder is removed");
        }
    }
}
