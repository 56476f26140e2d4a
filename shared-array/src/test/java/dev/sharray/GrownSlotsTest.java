package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One array held by more processes at once than the first page of its reference file has slots for (126): a pool
 * with a worker per core does that on a machine with more cores, in a {@code mapChunks} over one array. Before, the
 * 127th process's open failed; now it allocates a page of slots more, and every reader of the file (deletion,
 * reclaim, the reaper's copy) sees the holders there.
 *
 * <p>The first page is filled with slots of pid 1 (init: alive, from the start time the file records) holding
 * nothing, as processes in the middle of a claim do: they keep their slots and count no reference.
 */
@ExtendWith(PrivateRoot.class) // the reaper case kills the owner: no other test JVM's reaper may act first
class GrownSlotsTest {
    private static final List<String> NO_REAPER = List.of("-Dsharray.reaper.disabled=true");

    @Test
    void aHolderBeyondTheFirstPageOfSlotsKeepsTheArrayAndItsReleaseDeletesIt() throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 10);
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        RefSlots.fillWithIdleLiveHolders(ref, 1, RefCountFile.INITIAL_SLOTS);
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, NO_REAPER)) {
            final long pid = Long.parseLong(child.expect("ready "));
            final String id = ArrayAgent.open(child, a.descriptor());
            assertEquals(RefCountFile.INITIAL_SLOTS, RefSlots.slotOf(ref, pid), "the 127th holder's slot opens a page");
            assertEquals(RefCountFile.INITIAL_SLOTS + 128, RefSlots.slotsInUse(ref));
            assertEquals(2, SharedArrays.totalReferences(a), "the total counts the new page");
            child.send("set " + id + " 7 3");
            assertEquals("ok", child.readLine());
            assertEquals(7.0, a.getDouble(3));

            a.release();
            assertTrue(Files.exists(data), "our release was not the last: the holder in the new page keeps the array");
            child.send("release " + id);
            assertEquals("ok", child.readLine());
            assertFalse(Files.exists(data), "the holder in the new page released last and deleted the array");
        }
    }

    @Test
    void processesThatOpenAtOnceWhenThePageIsFullAddOnePageAndClaimDistinctSlots() throws Exception {
        final int children = 4;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            final Path ref = Segments.refPathFor(a.path());
            RefSlots.fillWithIdleLiveHolders(ref, 1, RefCountFile.INITIAL_SLOTS);
            final String hex = HexFormat.of().formatHex(a.descriptor().toBytes());
            final List<ChildJvm> started = new java.util.ArrayList<>();
            try {
                final long[] pids = new long[children];
                for (int c = 0; c < children; c++) {
                    started.add(ChildJvm.start(ArrayAgent.class, NO_REAPER));
                    pids[c] = Long.parseLong(started.get(c).expect("ready "));
                }
                for (ChildJvm child : started) { // all asked before any answers: their claims race
                    child.send("open " + hex);
                }
                final java.util.Set<Integer> slots = new java.util.HashSet<>();
                for (int c = 0; c < children; c++) {
                    final String answer = started.get(c).readLine();
                    assertTrue(answer.startsWith("id "), answer);
                    final int slot = RefSlots.slotOf(ref, pids[c]);
                    assertTrue(slot >= RefCountFile.INITIAL_SLOTS, "child " + c + " has slot " + slot);
                    slots.add(slot);
                }
                assertEquals(children, slots.size(), "one slot each: " + slots);
                assertEquals(RefCountFile.INITIAL_SLOTS + 128, RefSlots.slotsInUse(ref), "growers that lost the race"
                    + " to publish a page use it: one page more, not one per grower");
                assertEquals(1 + children, SharedArrays.totalReferences(a));
            } finally {
                for (ChildJvm child : started) {
                    child.close();
                }
            }
        }
    }

    @Test
    void aReaperKeepsADeadOwnersArrayThatAHolderBeyondTheFirstPageHolds() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, NO_REAPER);
             ChildJvm holder = ChildJvm.start(ArrayAgent.class, NO_REAPER)) {
            owner.expect("ready ");
            final long holderPid = Long.parseLong(holder.expect("ready "));
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 1000");
            final Path data = d.path();
            final Path ref = Segments.refPathFor(data);
            RefSlots.fillWithIdleLiveHolders(ref, 1, RefCountFile.INITIAL_SLOTS);
            final String id = ArrayAgent.open(holder, d);
            assertEquals(RefCountFile.INITIAL_SLOTS, RefSlots.slotOf(ref, holderPid));
            owner.kill9();

            SharedArrays.reap(); // reads a copy of the file: the live holder is in the page after the first
            assertTrue(Files.exists(data) && Files.exists(ref), "the live holder beyond the first page keeps the folder");

            holder.send("release " + id);
            assertEquals("ok", holder.readLine());
            assertFalse(Files.exists(data), "the last holder's release deleted the array");
            SharedArrays.reap();
            assertFalse(Files.exists(data.getParent()), "the dead owner's folder goes once nothing is held");
        }
    }

    @Test
    void aKilledHolderBeyondTheFirstPageIsListedAndFoundByReapProcess() throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 10);
        final Path data = a.path();
        RefSlots.fillWithIdleLiveHolders(Segments.refPathFor(data), 1, RefCountFile.INITIAL_SLOTS);
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, NO_REAPER)) {
            final long pid = Long.parseLong(holder.expect("ready "));
            ArrayAgent.open(holder, a.descriptor());
            // list() and reapProcess read a copy of the file, not a mapping: the copy must reach the new page
            final ArrayInfo info = SharedArrays.list().stream().filter(i -> i.path().equals(data)).findFirst().orElseThrow();
            assertEquals(java.util.Map.of(ProcessIdentity.PID, 1L, pid, 1L), info.holders());
            a.release();
            holder.kill9();
            SharedArrays.reapProcess(pid);
            assertFalse(Files.exists(data), "the killed holder was the last: its references dropped, the array deleted");
        }
    }

    @ParameterizedTest(name = "grown before: {0}")
    @ValueSource(booleans = {true, false})
    void anArrayReleasedEverywhereWhileWeMapItsGrownFileIsGoneNotAnIoError(boolean grownBefore) throws Exception {
        // grown before: open() allocates the pages in use; not grown: our claim finds the page full and grows it.
        // Either way the file is deleted after we mapped it, as the last holder's release may do at any moment.
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, NO_REAPER)) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 10");
            final Path ref = Segments.refPathFor(d.path());
            RefSlots.fillWithIdleLiveHolders(ref, 1, RefCountFile.INITIAL_SLOTS);
            if (grownBefore) {
                RefSlots.write(ref, RefCountFile.INITIAL_SLOTS + 127, RefSlots.COUNT, 0); // allocates the page
                RefSlots.writeSlotsInUse(ref, RefCountFile.INITIAL_SLOTS + 128);
            }
            RefCountFile.afterMapped = path -> {
                try {
                    Files.delete(path);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            try {
                final IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
                assertTrue(e.getMessage().startsWith("the array was released: its reference file "), e.getMessage());
            } finally {
                RefCountFile.afterMapped = null;
            }
            owner.kill9(); // its array has no .ref left to release; the private root goes after the test
        }
    }

    @Test
    void whenEverySlotIsTakenByALiveProcessTheNextOpenSaysSoAndChangesNothing() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10);
             ChildJvm child = ChildJvm.start(ArrayAgent.class, NO_REAPER)) {
            final Path ref = Segments.refPathFor(a.path());
            RefSlots.fillWithIdleLiveHolders(ref, 1, RefCountFile.SLOTS);
            RefSlots.writeSlotsInUse(ref, RefCountFile.SLOTS);
            final long pid = Long.parseLong(child.expect("ready "));
            child.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String answer = child.readLine();
            assertTrue(answer.startsWith("error IllegalStateException: all " + RefCountFile.SLOTS + " holder slots of ")
                && answer.endsWith("at most " + RefCountFile.SLOTS + " processes can hold one array at once"), answer);
            assertEquals(-1, RefSlots.slotOf(ref, pid));
            assertEquals(1, SharedArrays.totalReferences(a));
            assertEquals(RefCountFile.SLOTS, RefSlots.slotsInUse(ref));
        }
    }

    @Test
    void aFileWhoseSlotsInUseNoProcessWritesIsRefusedAsCorrupt() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            final Path ref = Segments.refPathFor(a.path());
            for (int corrupt : new int[] {0, RefCountFile.INITIAL_SLOTS - 1, RefCountFile.INITIAL_SLOTS + 1,
                RefCountFile.SLOTS + 128, Integer.MAX_VALUE, -1}) {
                RefSlots.writeSlotsInUse(ref, corrupt);
                final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class,
                    () -> RefCountFile.open(ref).unmap());
                assertTrue(e.getMessage().contains(corrupt + " slots in use"), e.getMessage());
            }
            RefSlots.writeSlotsInUse(ref, RefCountFile.INITIAL_SLOTS + 128);
            RefCountFile.open(ref).unmap(); // a page more: valid, and allocated by the open
        }
    }
}
