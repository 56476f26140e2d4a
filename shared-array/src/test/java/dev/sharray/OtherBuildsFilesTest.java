package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Processes of two sharray builds may share a machine (an older service beside a newer one). A reaper read a
 * reference file of another version as "not ours" and removed its dead owner's folder with an array that a live
 * process of the other build held: a worker pool's reaper of this build did so to an array an older build's
 * process held, in a test run beside such a process. Another build's file is never changed here: the previous
 * versions' holders are judged by their slots, which they laid out as this one does in its first page; any other
 * version is left to its own build.
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead processes here first
class OtherBuildsFilesTest {
    private static final int FREE_SLOT = 7;

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aPreviousVersionsArrayALiveProcessHoldsKeepsItsDeadOwnersFolder(int version) throws Exception {
        final Path data = arrayOfADeadOwner();
        final Path ref = Segments.refPathFor(data);
        RefSlots.makeEarlierVersion(ref, version);
        holdAsAnotherBuild(ref, ProcessIdentity.PID, ProcessIdentity.START); // this process stands for the holder

        SharedArrays.reap();
        assertTrue(Files.exists(data) && Files.exists(ref), "a live holder of the previous version keeps the folder");
        assertTrue(SharedArrays.list().stream().noneMatch(a -> a.path().equals(data)), "list() shows only its own version");

        holdAsAnotherBuild(ref, 0, 0); // the holder let go: only the dead owner's slot counts now
        SharedArrays.reap();
        assertFalse(Files.exists(data.getParent()), "with no live holder, the folder goes: no leak across an upgrade");
    }

    @Test
    void anUnknownVersionsArrayKeepsItsDeadOwnersFolder() throws Exception {
        final Path data = arrayOfADeadOwner();
        final Path ref = Segments.refPathFor(data);
        RefSlots.writeVersion(ref, RefCountFile.VERSION + 1); // a newer build: its slots may mean anything

        SharedArrays.reap();
        assertTrue(Files.exists(data) && Files.exists(ref), "left to its own build's reaper");

        RefSlots.writeVersion(ref, RefCountFile.VERSION);
        SharedArrays.reap();
        assertFalse(Files.exists(data.getParent()), "as a file of this version, reaped");
    }

    /** @return the data file of a new array whose owner, its only holder, was killed */
    private static Path arrayOfADeadOwner() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            owner.expect("ready ");
            final Path data = ArrayAgent.create(owner, "FLOAT64 1000").path();
            owner.kill9();
            return data;
        }
    }

    /** Writes a holder slot with one reference, or frees it ({@code pid} 0), as another build's process would. */
    private static void holdAsAnotherBuild(Path ref, long pid, long start) {
        RefSlots.write(ref, FREE_SLOT, RefSlots.START, start);
        RefSlots.write(ref, FREE_SLOT, RefSlots.COUNT, pid == 0 ? 0 : 1);
        RefSlots.write(ref, FREE_SLOT, RefSlots.PID, pid);
    }
}
