package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that reclaims dead holders' slots (on a release, an open, a reaper pass) decides from two reads of a
 * slot: its start time and its count. It read the start first. A claimer in another process stores its pid (CAS),
 * then its start, then (after its own pass over the slots) adds its first reference: a reclaimer that read the
 * start just before it was stored (0) and the count just after the reference (1) judged the slot corrupt
 * ("references counted without a start time") and freed it, dropping a live holder's reference. The array was
 * then deleted under that holder, whose release went negative, and whose freed slot the next claimer reused.
 */
class ClaimInProgressTest {
    @AfterEach
    void noHook() {
        RefCountFile.betweenSlotReads = null;
    }

    @Test
    void aSlotWhoseClaimCompletesBetweenTheReclaimersReadsStaysItsHolders(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            final long pid = Long.parseLong(holder.expect("ready "));
            holder.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = holder.expect("id ");
            final int slot = RefSlots.slotOf(ref, pid);
            assertTrue(slot >= 0, "the holder has a slot");
            final long start = RefSlots.read(ref, slot, RefSlots.START);
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));
            // the slot as the holder's claim left it an instant after its CAS: its pid, no start yet, no reference
            RefSlots.write(ref, slot, RefSlots.START, 0);
            RefSlots.write(ref, slot, RefSlots.COUNT, 0);
            // and between the reclaimer's two reads of it, the claim completes: start, then the first reference
            RefCountFile.betweenSlotReads = () -> {
                RefCountFile.betweenSlotReads = null;
                RefSlots.write(ref, slot, RefSlots.START, start);
                RefSlots.write(ref, slot, RefSlots.COUNT, 1);
            };

            a.release(); // our last reference: this release checks for dead holders before it deletes

            assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
            assertEquals(pid, RefSlots.read(ref, slot, RefSlots.PID), "the live holder's slot was reclaimed");
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));
            holder.send("release " + id);
            assertEquals("ok", holder.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
        }
    }
    /**
     * A claimer stores its pid (CAS) before its start, so an instant after its CAS the slot shows its pid next to
     * whatever start the slot had when it was freed. The releaser that freed it clears the start before its pid:
     * a reclaimer then sees the claimer's pid with no start (a claim in progress, left alone). Were the previous
     * holder's start left there, the reclaimer would judge the new claimer, whose start differs, dead, and free the
     * slot under it: its first reference would then count in a free slot, and the array be deleted under it.
     */
    @Test
    void aClaimInProgressOfASlotFreedByAnotherHolderIsNotReclaimed(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            holder.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = holder.expect("id ");
            final int slot = RefSlots.slotOf(ref, ProcessIdentity.PID);
            assertTrue(slot >= 0, "this process has a slot");
            a.release(); // the holder keeps the array; our slot is freed
            assertEquals(0, RefSlots.read(ref, slot, RefSlots.PID), "the slot was freed");
            // pid 1 (alive) claims the freed slot: its CAS landed, its start is not stored yet
            RefSlots.write(ref, slot, RefSlots.PID, 1);

            final RefCountFile refs = RefCountFile.open(ref);
            try {
                refs.reclaimDead();
            } finally {
                refs.unmap();
            }

            assertEquals(1, RefSlots.read(ref, slot, RefSlots.PID), "a live process's claim in progress was reclaimed");
            RefSlots.write(ref, slot, RefSlots.PID, 0); // the claim given up, as if it never happened
            holder.send("release " + id);
            assertEquals("ok", holder.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
        }
    }
}
