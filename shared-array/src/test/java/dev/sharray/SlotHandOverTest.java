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
 * A reclaimer (any process that opens an array, releases it last, or reaps) reads a slot's pid, then its count and
 * start, judges the slot dead when that pid does not run with that start, and takes the slot by a CAS on the pid
 * alone. Since processes give their slots back when they let go of an array, a slot changes hands while a reclaimer
 * looks at it: its holder X gave it back, Y claimed it (the reclaimer read Y's start: "X does not run with it"),
 * gave it back, and X claimed it again and took a reference, all before the reclaimer's CAS on pid X, which then
 * succeeded. The reclaimer dropped X's live reference and freed its slot: the array could be deleted under X, and
 * X's release went negative or took a reference off the next claimer of that slot.
 */
class SlotHandOverTest {
    @AfterEach
    void noHooks() {
        RefCountFile.betweenSlotReads = null;
        RefCountFile.beforeReclaimCas = null;
    }

    @Test
    void aSlotThatChangedHandsAndCameBackToItsLiveHolderIsNotReclaimed(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        final List<String> options = List.of("-Dsharray.reaper.disabled=true");
        // Y starts once X runs, so that their start times (clock ticks) differ
        try (ChildJvm x = ChildJvm.start(ArrayAgent.class, options)) {
            final long xPid = Long.parseLong(x.expect("ready "));
            try (ChildJvm y = ChildJvm.start(ArrayAgent.class, options)) {
                final long yPid = Long.parseLong(y.expect("ready "));
                x.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
                final String id = x.expect("id ");
                final int slot = slotOf(ref, xPid);
                final long xStart = RefSlots.read(ref, slot, RefSlots.START);
                final long yStart = ProcessIdentity.startOf(yPid);
                assertTrue(xStart != 0 && yStart != 0 && xStart != yStart, xStart + " " + yStart);
                assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));

                // between the reclaimer's reads of the count and of the start: X gives the slot back, Y claims it
                RefCountFile.betweenSlotReads = () -> {
                    RefCountFile.betweenSlotReads = null;
                    giveBack(ref, slot);
                    claim(ref, slot, yPid, yStart);
                };
                // between its judgement (pid X with Y's start: not running) and its CAS: Y gives it back, X claims it again
                RefCountFile.beforeReclaimCas = () -> {
                    RefCountFile.beforeReclaimCas = null;
                    giveBack(ref, slot);
                    claim(ref, slot, xPid, xStart);
                };
                final RefCountFile refs = RefCountFile.open(ref);
                try {
                    assertEquals(0, refs.reclaimDead(), "a live holder's reference was reclaimed");
                } finally {
                    refs.unmap();
                }

                assertEquals(xPid, RefSlots.read(ref, slot, RefSlots.PID), "the live holder's slot was freed");
                assertEquals(xStart, RefSlots.read(ref, slot, RefSlots.START));
                assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));
                a.release(); // ours: X still holds it
                assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
                x.send("release " + id);
                assertEquals("ok", x.readLine());
                assertFalse(Files.exists(data), "the holder's release deletes it");
            }
        }
    }

    @Test
    void aSlotItsHolderGaveBackAndIsClaimingAgainIsNotJudgedCorrupt(@TempDir Path root) throws Exception {
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 100).folder(root).create();
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        try (ChildJvm x = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            final long xPid = Long.parseLong(x.expect("ready "));
            x.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = x.expect("id ");
            final int slot = slotOf(ref, xPid);
            final long xStart = RefSlots.read(ref, slot, RefSlots.START);
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));

            // the reclaimer reads X's count (1); X releases, gives the slot back and claims it again (a worker that
            // opens the same array task after task): its pid is back, its start not yet. The reclaimer reads start
            // 0 with count 1, "references without a start time", and judges the slot corrupt.
            RefCountFile.betweenSlotReads = () -> {
                RefCountFile.betweenSlotReads = null;
                giveBack(ref, slot);
                RefSlots.write(ref, slot, RefSlots.PID, xPid);
                RefSlots.write(ref, slot, RefSlots.COUNT, 0);
            };
            final RefCountFile refs = RefCountFile.open(ref);
            final long reclaimed;
            try {
                reclaimed = refs.reclaimDead();
            } finally {
                refs.unmap();
            }
            // X's claim completes: its start, then its first reference
            RefSlots.write(ref, slot, RefSlots.START, xStart);
            RefSlots.write(ref, slot, RefSlots.COUNT, 1);

            assertEquals(0, reclaimed, "a live holder's claim in progress was reclaimed");
            assertEquals(xPid, RefSlots.read(ref, slot, RefSlots.PID), "the live holder's slot was freed");
            a.release(); // ours: X still holds it
            assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
            x.send("release " + id);
            assertEquals("ok", x.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
        }
    }

    /** As {@link RefCountFile#freeSlot}: the start first, then the pid. */
    private static void giveBack(Path ref, int slot) {
        RefSlots.write(ref, slot, RefSlots.COUNT, 0);
        RefSlots.write(ref, slot, RefSlots.START, 0);
        RefSlots.write(ref, slot, RefSlots.PID, 0);
    }

    /** As {@link RefCountFile#claimSlot} and a first {@link RefCountFile#tryAcquire}: pid, start, reference. */
    private static void claim(Path ref, int slot, long pid, long start) {
        RefSlots.write(ref, slot, RefSlots.PID, pid);
        RefSlots.write(ref, slot, RefSlots.COUNT, 0);
        RefSlots.write(ref, slot, RefSlots.START, start);
        RefSlots.write(ref, slot, RefSlots.COUNT, 1);
    }

    private static int slotOf(Path ref, long pid) {
        final int slot = RefSlots.slotOf(ref, pid);
        assertTrue(slot >= 0, "no slot of " + pid);
        return slot;
    }
}
