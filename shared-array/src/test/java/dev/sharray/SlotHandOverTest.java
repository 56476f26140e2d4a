package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
    private static final int SLOTS_OFFSET = 64;
    private static final int SLOT_SIZE = 32;

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
        try (ChildJvm x = ChildJvm.start(ArrayAgent.class, options);
             ChildJvm y = ChildJvm.start(ArrayAgent.class, options)) {
            final long xPid = Long.parseLong(x.expect("ready "));
            final long yPid = Long.parseLong(y.expect("ready "));
            x.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = x.expect("id ");
            final int slot = slotOf(ref, xPid);
            final long xStart = read(ref, slot, 8);
            final long yStart = ProcessIdentity.startOf(yPid);
            assertTrue(xStart != 0 && yStart != 0 && xStart != yStart);
            assertEquals(1, read(ref, slot, 16));

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

            assertEquals(xPid, read(ref, slot, 0), "the live holder's slot was freed");
            assertEquals(xStart, read(ref, slot, 8));
            assertEquals(1, read(ref, slot, 16));
            a.release(); // ours: X still holds it
            assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
            x.send("release " + id);
            assertEquals("ok", x.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
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
            final long xStart = read(ref, slot, 8);
            assertEquals(1, read(ref, slot, 16));

            // the reclaimer reads X's count (1); X releases, gives the slot back and claims it again (a worker that
            // opens the same array task after task): its pid is back, its start not yet. The reclaimer reads start
            // 0 with count 1, "references without a start time", and judges the slot corrupt.
            RefCountFile.betweenSlotReads = () -> {
                RefCountFile.betweenSlotReads = null;
                giveBack(ref, slot);
                write(ref, slot, 0, xPid);
                write(ref, slot, 16, 0);
            };
            final RefCountFile refs = RefCountFile.open(ref);
            final long reclaimed;
            try {
                reclaimed = refs.reclaimDead();
            } finally {
                refs.unmap();
            }
            // X's claim completes: its start, then its first reference
            write(ref, slot, 8, xStart);
            write(ref, slot, 16, 1);

            assertEquals(0, reclaimed, "a live holder's claim in progress was reclaimed");
            assertEquals(xPid, read(ref, slot, 0), "the live holder's slot was freed");
            a.release(); // ours: X still holds it
            assertTrue(Files.exists(data) && Files.exists(ref), "the array was deleted under its live holder");
            x.send("release " + id);
            assertEquals("ok", x.readLine());
            assertFalse(Files.exists(data), "the holder's release deletes it");
        }
    }

    /** As {@link RefCountFile#freeSlot}: the start first, then the pid. */
    private static void giveBack(Path ref, int slot) {
        write(ref, slot, 16, 0);
        write(ref, slot, 8, 0);
        write(ref, slot, 0, 0);
    }

    /** As {@link RefCountFile#claimSlot} and a first {@link RefCountFile#tryAcquire}: pid, start, reference. */
    private static void claim(Path ref, int slot, long pid, long start) {
        write(ref, slot, 0, pid);
        write(ref, slot, 16, 0);
        write(ref, slot, 8, start);
        write(ref, slot, 16, 1);
    }

    private static int slotOf(Path ref, long pid) {
        for (int i = 0; i < RefCountFile.SLOTS; i++) {
            if (read(ref, i, 0) == pid) {
                return i;
            }
        }
        throw new AssertionError("no slot of " + pid);
    }

    private static long read(Path ref, int slot, int field) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            ch.read(b, SLOTS_OFFSET + (long) slot * SLOT_SIZE + field);
            return b.getLong(0);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void write(Path ref, int slot, int field, long value) {
        try (FileChannel ch = FileChannel.open(ref, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value),
                SLOTS_OFFSET + (long) slot * SLOT_SIZE + field);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
