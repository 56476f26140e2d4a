package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process killed while deleting an array (between the refcount state DELETING and DELETED, i.e. in its
 * unlinks) left the files in the owner's folder for as long as the owner lived: no reaper finished a
 * deletion. Here the deletion is finished by the next reaper pass, or by {@code reapProcess} of the killed
 * process, unless a holder turns out to keep the array.
 */
@ExtendWith(PrivateRoot.class) // another JVM's reaper pass would finish the deletions these tests leave for later
class AbandonedDeletionTest {

    @Test
    void aDeletionWhoseDeleterWasKilledMidwayIsFinishedByTheReaper() throws Exception {
        final Descriptor d = abandoned(ChildJvm.endedProcess());
        final Path data = d.path();
        final Path ref = Segments.refPathFor(data);
        assertTrue(Files.exists(data) && Files.exists(ref), "the abandoned deletion left both files");
        assertThrows(IllegalStateException.class, () -> SharedArray.open(d), "an abandoned deletion is not opened");

        final ReapReport report = SharedArrays.reap();

        assertTrue(report.arraysDeleted().contains(data) || !Files.exists(data), report.toString());
        assertFalse(Files.exists(data), "the reaper finished the deletion: data file");
        assertFalse(Files.exists(ref), "the reaper finished the deletion: refcount file");
    }

    @Test
    void theLastReleaseFinishesADeletionWhoseDeleterWasKilledMidway() throws Exception {
        final long[] deleter = ChildJvm.endedProcess();
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        final Path ref = Segments.refPathFor(a.path());
        // the deleter saw a total of 0 (a moment when ours was 0), named itself, moved the state and was killed
        RefSlots.writeDeletion(ref, deleter[0], deleter[1]);

        a.release(); // the total is 0 again: this release takes the dead deleter's word over

        assertFalse(Files.exists(a.path()), "the release finished the deletion: data file");
        assertFalse(Files.exists(ref), "the release finished the deletion: refcount file");
    }

    @Test
    void reapProcessFinishesOnlyTheDeletionsThatProcessBeganAndNoneWhoseDeleterLives() throws Exception {
        final long[] first = ChildJvm.endedProcess();
        final long[] second = ChildJvm.endedProcess();
        final long[] alive = {1, ProcessIdentity.startOf(1)}; // init: a deleter that is still at work
        assertTrue(alive[1] != 0, "pid 1's start time is readable");
        final Path x = abandoned(first).path();
        final Path y = abandoned(second).path();
        final Path z = abandoned(alive).path();

        SharedArrays.reapProcess(first[0]);
        assertFalse(Files.exists(x), "the first process's deletion is finished");
        assertTrue(Files.exists(y), "the second process's deletion waits for its own reapProcess (or a reap)");

        SharedArrays.reapProcess(second[0]);
        SharedArrays.reap();
        assertFalse(Files.exists(y));
        assertTrue(Files.exists(z) && Files.exists(Segments.refPathFor(z)), "a live deleter's deletion is its own");

        writeDeletion(Segments.refPathFor(z), first); // now abandoned: cleaned up by the next pass
        SharedArrays.reap();
        assertFalse(Files.exists(z));
    }

    @Test
    void aHolderThatTookItsReferenceJustBeforeTheKilledDeletersCasKeepsTheArray() throws Exception {
        final long[] deleter = ChildJvm.endedProcess();
        final SharedArray a = SharedArray.create(DType.FLOAT64, 1000);
        a.setDouble(42.0, 999);
        final Path ref = Segments.refPathFor(a.path());
        // the deleter saw a total of 0, CASed to DELETING and was killed before it reread the total, which our
        // reference (taken just before its CAS) would have made it revert
        writeDeletion(ref, deleter);

        SharedArrays.reap();

        assertTrue(Files.exists(a.path()), "a holder keeps the array");
        assertEquals(42.0, a.getDouble(999));
        try (SharedArray again = SharedArray.open(a.descriptor())) {
            assertEquals(42.0, again.getDouble(999), "the array is LIVE again: it opens");
        }
        a.release();
        assertFalse(Files.exists(a.path()), "and its last release deletes it as usual");
        assertFalse(Files.exists(ref));
    }

    @Test
    void aLastHolderKilledAtAnyInstantOfItsReleaseLeavesNoFileOnceItsProcessIsReaped() throws Exception {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final long releaseNanos = lastReleaseInAChild(-1); // kills land across the whole release, and a bit after
        for (int round = 0; round < 12; round++) {
            lastReleaseInAChild(Math.floorMod(random.nextLong(), releaseNanos * 3 / 2), seed, round);
        }
    }

    /**
     * A child opens a new 256 MiB array, this process releases it, the child releases it (deleting it) and is killed
     * {@code killAfterNanos} after being told to, then reaped as the worker pool reaps a worker it saw end.
     *
     * @return how long the child took to release and answer, when not killed ({@code killAfterNanos < 0})
     */
    private static long lastReleaseInAChild(long killAfterNanos, long... seedAndRound) throws Exception {
        final SharedArray a = SharedArray.create(DType.FLOAT64, 32L << 20); // unlinking 256 MiB takes ms
        final Path data = a.path();
        final Path ref = Segments.refPathFor(data);
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of())) {
            holder.expect("ready ");
            holder.send("open " + HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String id = holder.expect("id ");
            a.release(); // the child is now the last holder: its release deletes
            final long t0 = System.nanoTime();
            holder.send("release " + id);
            if (killAfterNanos < 0) {
                assertEquals("ok", holder.readLine());
                return System.nanoTime() - t0;
            }
            Thread.sleep(killAfterNanos / 1_000_000, (int) (killAfterNanos % 1_000_000));
            holder.kill9();
            SharedArrays.reapProcess(holder.pid());
            final String where = "round " + seedAndRound[1] + ", killed " + killAfterNanos / 1000
                + " us after the release was sent (seed " + seedAndRound[0] + ")";
            assertFalse(Files.exists(data), "data file left, " + where);
            assertFalse(Files.exists(ref), "refcount file left, " + where);
            return 0;
        }
    }


    /**
     * @return the descriptor of a new array whose deletion {@code deleter} began and did not finish, in the folder of
     *     a killed process that held it last (so that no release of ours takes the deletion over)
     */
    private static Descriptor abandoned(long[] deleter) throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            owner.expect("ready ");
            owner.send("create INT32 10");
            final String line = owner.readLine();
            assertTrue(line.startsWith("desc "), line);
            owner.kill9();
            final Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(line.substring(5)));
            writeDeletion(Segments.refPathFor(d.path()), deleter);
            assertTrue(Files.exists(d.path()));
            return d;
        }
    }

    /** Writes state DELETING and the deleter's identity into {@code ref}, as a deleter does right after its CAS. */
    private static void writeDeletion(Path ref, long[] deleter) {
        RefSlots.writeDeletion(ref, deleter[0], deleter[1]);
    }
}
