package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A process that takes a role in a reference file (the array's deleter, the reclaimer of a dead holder's slot)
 * names itself in the word it CASes, so that when it dies at any instant after that CAS, the next process that
 * looks judges it dead and finishes its work. Before, a deleter killed between its CAS and naming itself left
 * the array DELETING for ever, and a reclaimer killed under its anonymous mark left the slot, and the dead
 * holder's references in it, for ever: the files stayed until their owner's folder was reaped, or, in a live
 * owner's folder, as long as the owner lived. The children here die inside the window, at the instruction after
 * the CAS (Runtime.halt from a test hook: no shutdown hook, no release, as kill -9).
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead processes here first
class KilledInRoleTest {

    @Test
    void aDeleterKilledRightAfterNamingItselfIsTakenOverWhenItsProcessIsReaped() throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        try (ChildJvm deleter = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            deleter.expect("ready ");
            final String id = ArrayAgent.open(deleter, a.descriptor());
            a.release(); // the child is the last holder: its release deletes
            deleter.send("halt-at deleter");
            assertEquals("ok", deleter.readLine());
            deleter.send("release " + id);
            assertDied(deleter);

            assertTrue(Files.exists(a.path()) && Files.exists(ref), "the deleter died before it deleted");
            assertEquals(RefCountFile.LIVE, RefSlots.readState(ref), "it died before it moved the state");

            SharedArrays.reapProcess(deleter.pid()); // what a pool runs when it sees a worker end
        }
        assertFalse(Files.exists(a.path()), "the dead deleter's deletion was finished: data file");
        assertFalse(Files.exists(ref), "and refcount file");
    }

    /**
     * The last holder gave its slot back before it tried to delete: killed in between (here, as its release reclaims
     * a dead holder's slot first), it left a live array that counted nothing and named it nowhere, which
     * {@code reapProcess} of its pid did not find (only a full reaper pass did; the owner's exit hook neither).
     */
    @Test
    void aLastHolderKilledBeforeItsDeleteEndedIsFoundByReapProcess() throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        try (ChildJvm last = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"));
             ChildJvm earlier = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            last.expect("ready ");
            earlier.expect("ready ");
            final String id = ArrayAgent.open(last, a.descriptor());
            ArrayAgent.open(earlier, a.descriptor()); // after last's open, which reclaims the dead
            earlier.send("exit"); // its exit hook drops its count: a dead slot at 0, which the last release reclaims
            assertTrue(earlier.process().waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, earlier.process().exitValue());
            a.release();
            last.send("halt-at judge");
            assertEquals("ok", last.readLine());
            last.send("release " + id);
            assertDied(last);
            assertTrue(Files.exists(a.path()) && Files.exists(ref), "it died before it deleted");

            SharedArrays.reapProcess(last.pid());
        }
        assertFalse(Files.exists(a.path()), "reapProcess of the killed last holder deleted the array: data file");
        assertFalse(Files.exists(ref), "and refcount file");
    }

    @Test
    void aReclaimerKilledUnderItsMarkIsTakenOverAndTheDeadHoldersReferenceDropped() throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        final long holderPid;
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            ArrayAgent.open(holder, a.descriptor());
            holderPid = holder.pid();
            holder.kill9(); // a dead holder: its slot counts 1 until a process reclaims it
        }
        final int slot = RefSlots.slotOf(ref, holderPid);
        try (ChildJvm reclaimer = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            reclaimer.expect("ready ");
            reclaimer.send("halt-at reclaim");
            assertEquals("ok", reclaimer.readLine());
            reclaimer.send("reap");
            assertDied(reclaimer);
            final long mark = RefSlots.read(ref, slot, RefSlots.PID);
            assertTrue(ProcessWords.isReclaimMark(mark) && ProcessWords.reclaimerOf(mark) == reclaimer.pid()
                && ProcessWords.holderOf(mark) == holderPid, "the reclaimer died with its mark on the slot: " + mark);
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT), "still counting the dead holder's reference");
        }

        SharedArrays.reap();

        assertEquals(0, RefSlots.read(ref, slot, RefSlots.PID), "the dead reclaimer's reclaim was taken over");
        assertEquals(0, RefSlots.read(ref, slot, RefSlots.COUNT));
        a.release();
        assertFalse(Files.exists(a.path()), "without the dead holder's reference, our last release deletes");
    }

    @Test
    void aLiveHoldersSlotMarkedByAReclaimerThatDiedIsGivenBackToIt() throws Exception {
        final long[] deadReclaimer = ChildJvm.endedProcess();
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final String id = ArrayAgent.open(holder, a.descriptor());
            final int slot = RefSlots.slotOf(ref, holder.pid());
            // a reclaimer judged the slot from an earlier tenure, CASed its mark over it and was killed
            RefSlots.write(ref, slot, RefSlots.PID, ProcessWords.reclaimMark(deadReclaimer[0], deadReclaimer[1], holder.pid()));

            SharedArrays.reap();

            assertEquals(holder.pid(), RefSlots.read(ref, slot, RefSlots.PID), "the slot is its live holder's again");
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT), "with its reference");
            holder.send("set " + id + " 3 7");
            assertEquals("ok", holder.readLine());
            assertEquals(3.0, a.getDouble(7), "the holder still shares the array");
            holder.send("release " + id);
            assertEquals("ok", holder.readLine());
        }
        a.release();
        assertFalse(Files.exists(a.path()), "the last release deletes");
    }

    @Test
    void aSlotGivenBackWithoutAStartIsItsHoldersOnItsNextOpen() throws Exception {
        final long[] deadReclaimer = ChildJvm.endedProcess();
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final String first = ArrayAgent.open(holder, a.descriptor());
            final int slot = RefSlots.slotOf(ref, holder.pid());
            // the holder gave its slot back (start time 0 first) just as a reclaimer marked it, and the reclaimer died:
            // the holder's CAS of its pid to 0 fails, and it stops waiting for the mark to go
            RefSlots.write(ref, slot, RefSlots.START, 0);
            RefSlots.write(ref, slot, RefSlots.PID, ProcessWords.reclaimMark(deadReclaimer[0], deadReclaimer[1], holder.pid()));
            holder.send("release " + first);
            assertEquals("ok", holder.readLine());
            SharedArrays.reap(); // takes the dead reclaimer's work over: the holder lives, so the slot is given back
            assertEquals(holder.pid(), RefSlots.read(ref, slot, RefSlots.PID));
            assertEquals(0, RefSlots.read(ref, slot, RefSlots.START), "as a claim in progress, which no reclaimer frees");

            final String second = ArrayAgent.open(holder, a.descriptor());

            assertEquals(1, RefSlots.slotsOf(ref, holder.pid()), "the holder took its old slot again, not a second one");
            assertEquals(1, RefSlots.read(ref, slot, RefSlots.COUNT));
            assertEquals(ProcessIdentity.startOf(holder.pid()), RefSlots.read(ref, slot, RefSlots.START));
            holder.send("release " + second);
            assertEquals("ok", holder.readLine());
        }
        a.release();
        assertFalse(Files.exists(a.path()), "the last release deletes");
    }

    private static void assertDied(ChildJvm child) throws Exception {
        assertTrue(child.process().waitFor(30, TimeUnit.SECONDS), "the child ended");
        assertEquals(137, child.process().exitValue(), "the child halted inside its role");
    }

    /**
     * A slot with this process's pid but another start time is an earlier process's that had this pid (pids are
     * reused) and is dead: opening the array here reclaims it, as any other dead holder's, instead of taking this
     * process for its holder.
     */
    @Test
    void aSlotOfAnEarlierProcessWithThisPidIsReclaimedWhenThisProcessOpensTheArray() throws Exception {
        assertTrue(ProcessIdentity.START > 1, "this process's start time is readable");
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 10");
            final Path ref = Segments.refPathFor(d.path());
            final int earlier = RefSlots.slotOf(ref, 0);
            assertTrue(earlier >= 0, "a free slot");
            RefSlots.write(ref, earlier, RefSlots.COUNT, 1);
            RefSlots.write(ref, earlier, RefSlots.START, ProcessIdentity.START - 1);
            RefSlots.write(ref, earlier, RefSlots.PID, ProcessIdentity.PID);

            try (SharedArray a = SharedArray.open(d)) {
                assertEquals(1, RefSlots.slotsOf(ref, ProcessIdentity.PID), "one slot of this pid: this process's");
                assertEquals(ProcessIdentity.START, RefSlots.read(ref, RefSlots.slotOf(ref, ProcessIdentity.PID),
                    RefSlots.START));
                assertEquals(1, RefSlots.read(ref, RefSlots.slotOf(ref, ProcessIdentity.PID), RefSlots.COUNT));
            }
            assertEquals(0, RefSlots.slotsOf(ref, ProcessIdentity.PID), "the earlier process's reference was reclaimed");
        }
    }
}
