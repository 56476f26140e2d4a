package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A reference file in a dead owner's folder that holds what no sharray process writes (here an unknown state
 * word): {@link RefCountFile#open} refuses it, so a pass never changes it. The real pass judged such an array
 * unheld, and deleted the folder under a live process that had mapped it before and still counted its reference
 * there; the dry run went on with its corrupt copy and judged it held, so it reported no folder where the real
 * pass then removed one. Both now keep the folder while a live process counts references in the file, and remove
 * it, alike, once none does.
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead owner's folder first
class CorruptReferenceFileReapTest {

    @Test
    void aCorruptReferenceFileKeepsItsFolderWhileALiveHolderCountsInItAndTheDryRunAgrees() throws Exception {
        assertKeptWhileHeldAndThenRemoved(ref -> RefSlots.writeState(ref, 9)); // neither LIVE, DELETING nor DELETED
    }

    /**
     * A reference file grown past its length by something else: open refuses it, and a copy was not even read (of
     * another size: "being created"), so a pass removed the dead owner's folder under a live holder, which still
     * used the array through its mapping of the file's first 64 KiB.
     */
    @Test
    void aReferenceFileGrownPastItsLengthKeepsItsFolderWhileALiveHolderCountsInIt() throws Exception {
        assertKeptWhileHeldAndThenRemoved(ref -> {
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(ref.toFile(), "rw")) {
                f.setLength(2L * RefCountFile.FILE_SIZE);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /**
     * Cut short to its first page (header and the first 126 slots, the live holder's among them), a reference file
     * was not read at all ("being created"), and a pass deleted the folder under the holder, as for a longer one.
     */
    @Test
    void aReferenceFileCutShortToItsFirstPageKeepsItsFolderWhileALiveHolderCountsInIt() throws Exception {
        assertKeptWhileHeldAndThenRemoved(ref -> {
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(ref.toFile(), "rw")) {
                f.setLength(4096);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static void assertKeptWhileHeldAndThenRemoved(java.util.function.Consumer<Path> corrupt) throws Exception {
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final ArrayAgent.Held held = ArrayAgent.heldAfterItsCreatorWasKilled(holder, "FLOAT64 1000");
            final Descriptor d = held.descriptor();
            holder.send("set " + held.holderId() + " 4 2");
            assertEquals("ok", holder.readLine());
            final Path data = d.path();
            final Path folder = data.getParent();
            corrupt.accept(Segments.refPathFor(data));

            final ReapReport dryHeld = mine(SharedArrays.reapDryRun(), folder);
            final ReapReport realHeld = mine(SharedArrays.reap(), folder);
            assertEquals(dryHeld, realHeld, "the dry run said otherwise than the real pass did");
            assertTrue(Files.exists(data) && Files.exists(Segments.refPathFor(data)),
                "the pass deleted the folder of an array a live process holds: " + realHeld);
            holder.send("get 1 2");
            assertEquals("value 4.0", holder.readLine(), "the holder's array is intact");

            holder.send("release 1"); // may not delete a file in an unknown state; the folder then awaits a pass
            assertEquals("ok", holder.readLine());
            final ReapReport dryFree = mine(SharedArrays.reapDryRun(), folder);
            assertEquals(dryFree, mine(SharedArrays.reap(), folder), "the dry run said otherwise than the real pass did");
            assertTrue(!Files.exists(folder), "no live holder is left: the folder goes");
        }
    }

    @Test
    void aSlotsInUseWordOpenRefusesIsJudgedAlikeByTheDryRunAndTheRealPass() throws Exception {
        final Path data;
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            data = ArrayAgent.create(owner, "FLOAT64 1000").path();
            owner.kill9();
        }
        RefSlots.writeSlotsInUse(Segments.refPathFor(data), RefCountFile.INITIAL_SLOTS + 1); // not 126 + 128 k
        final Path folder = data.getParent();
        // the dry run judged its copy, which did not look corrupt, and reported the array deleted; the real pass's
        // open refused the file, and removed it with its folder only
        final ReapReport dry = mine(SharedArrays.reapDryRun(), folder);
        assertEquals(dry, mine(SharedArrays.reap(), folder), "the dry run said otherwise than the real pass did");
        assertEquals(List.of(folder), dry.foldersRemoved());
        assertTrue(!Files.exists(folder));
    }

    /** @return the part of {@code report} under {@code folder} (other test JVMs' dead processes may be reaped too) */
    private static ReapReport mine(ReapReport report, Path folder) {
        return new ReapReport(report.foldersRemoved().stream().filter(p -> p.startsWith(folder)).toList(),
            report.arraysDeleted().stream().filter(p -> p.startsWith(folder)).toList(), 0, 0);
    }
}
