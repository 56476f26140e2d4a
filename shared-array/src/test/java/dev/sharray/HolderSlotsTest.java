package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refcount file has {@value RefCountFile#SLOTS} holder slots, one per process. A process that let go of an array
 * gives its slot back, also when it keeps the mapping for reuse (a pool's worker does, task after task): otherwise
 * every process that ever opened the array while alive kept a slot, and once there were as many as slots, no other
 * process could open it.
 */
class HolderSlotsTest {
    @Test
    void aProcessThatReleasedAnArrayGivesItsSlotBackAndClaimsOneWhenItReusesItsMapping(@TempDir Path root)
            throws Exception {
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
             ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + root))) {
            final Path ref = Segments.refPathFor(a.path());
            final long pid = Long.parseLong(child.expect("ready "));
            for (long retainBytes : new long[] {0, 1L << 30}) {
                child.send("retain-mappings " + retainBytes);
                assertEquals("ok", child.readLine());
                for (int round = 0; round < 2; round++) { // with retained mappings, the second open reuses one
                    final String id = ArrayAgent.open(child, a.descriptor());
                    assertTrue(RefSlots.slotOf(ref, pid) >= 0, "a holder has a slot");
                    assertEquals(2, SharedArrays.totalReferences(a));
                    child.send("release " + id);
                    assertEquals("ok", child.readLine());
                    assertEquals(-1, RefSlots.slotOf(ref, pid), "retaining " + retainBytes + ", round " + round
                        + ": a process holding nothing keeps no slot");
                    assertEquals(1, SharedArrays.totalReferences(a));
                }
            }
        }
    }

    @Test
    void moreLiveProcessesThanSlotsOpenAnArrayOneAfterAnother(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 10).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        // every slot but ours (0) and one is a live process that held the array once and holds nothing now
        final long initStart = ProcessIdentity.startOf(1);
        for (int i = 1; i < RefCountFile.SLOTS - 1; i++) {
            RefSlots.write(ref, i, RefSlots.COUNT, 0);
            RefSlots.write(ref, i, RefSlots.START, initStart);
            RefSlots.write(ref, i, RefSlots.PID, 1);
        }
        final List<String> options = List.of("-Dsharray.tempFolder=" + root, "-Dsharray.reaper.disabled=true");
        try (ChildJvm first = ChildJvm.start(ArrayAgent.class, options);
             ChildJvm second = ChildJvm.start(ArrayAgent.class, options)) {
            first.expect("ready ");
            second.expect("ready ");
            first.send("retain-mappings " + (1L << 30)); // as a pool's worker, which keeps the mapping
            assertEquals("ok", first.readLine());
            final String firstId = ArrayAgent.open(first, a.descriptor());
            first.send("release " + firstId);
            assertEquals("ok", first.readLine());

            final String secondId = ArrayAgent.open(second, a.descriptor()); // the 127th process to open it, the 126 before it all alive
            second.send("set " + secondId + " 7 3");
            assertEquals("ok", second.readLine());
            assertEquals(7.0, a.getDouble(3));
            second.send("release " + secondId);
            assertEquals("ok", second.readLine());
        }
        a.release();
        assertFalse(Files.exists(data), "idle holders hold nothing: our release was the last");
    }
}
