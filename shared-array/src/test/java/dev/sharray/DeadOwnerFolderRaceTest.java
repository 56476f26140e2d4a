package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reaper removes the folder of a dead owner when no live process holds an array in it. It judged an array
 * it could not delete as not held: when a live process took a reference between the reaper's check for live
 * holders and its own attempt to delete (the attempt then fails, as it must), or when a live process was in
 * the middle of a deletion that a holder's reference makes it undo. The folder was then deleted with the
 * array in it, under a live holder: the file was unlinked (no other process could open the array any more)
 * while that holder still used it.
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead processes here first
class DeadOwnerFolderRaceTest {

    @AfterEach
    void clearHooks() {
        Reaper.beforeDelete = null;
        RefCountFile.beforeAccess = null;
    }

    @Test
    void anOpenBetweenTheReapersHolderCheckAndItsDeleteKeepsTheArrayAndItsFolder() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of());
             ChildJvm opener = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            owner.expect("ready ");
            opener.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 1000");
            final Path data = d.path();
            owner.kill9(); // its folder and its one array, whose only (dead) holder it was, await the reaper

            // the reaper found no live holder; the opener takes its reference right then
            final String[] id = new String[1];
            Reaper.beforeDelete = ref -> {
                if (ref.getFileName().equals(Segments.refPathFor(data).getFileName())) {
                    Reaper.beforeDelete = null;
                    try {
                        id[0] = ArrayAgent.open(opener, d);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
            SharedArrays.reap();

            assertTrue(id[0] != null, "the opener opened the array in the reaper's window");
            assertHeldAndIntact(opener, new Held(d, id[0]));
        }
    }

    @Test
    void anArrayALiveDeleterIsAboutToGiveBackToItsHolderKeepsItsFolder() throws Exception {
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final Held held = arrayOfAKilledOwnerHeldBy(holder);
            final Path data = held.data();
            // a live process (init stands for it) saw a total of 0 just before the holder's reference and moved the
            // state to DELETING: it rereads the total, sees the holder and reverts to LIVE. A pass meanwhile:
            RefSlots.writeDeletion(Segments.refPathFor(data), 1, ProcessIdentity.startOf(1));

            SharedArrays.reap();

            assertTrue(Files.exists(data), "the folder of the dead owner was deleted with the array a live process holds");
            RefSlots.writeState(Segments.refPathFor(data), RefCountFile.LIVE); // the deleter reverts: state, then word
            RefSlots.writeDeleter(Segments.refPathFor(data), 0, 0);
            assertHeldAndIntact(holder, held);
        }
    }

    @Test
    void aReferenceFileThatCannotBeReadNowKeepsItsFolder() throws Exception {
        assertUnjudgedArrayKeepsItsFolder(true);
    }

    @Test
    void aReferenceFileThatCannotBeMappedNowKeepsItsFolder() throws Exception {
        assertUnjudgedArrayKeepsItsFolder(false);
    }

    /**
     * A reference file that is there but fails to read or map (EMFILE, ENOMEM, EIO stand-ins) says nothing about
     * its holders: it was judged unheld, and the dead owner's folder went with an array a live process held.
     */
    private static void assertUnjudgedArrayKeepsItsFolder(boolean failTheRead) throws Exception {
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            // the killed owner's slot, still counting its reference, makes a pass read the file and then map it
            final Held held = arrayOfAKilledOwnerHeldBy(holder);
            final Path data = held.data();
            final Path ref = Segments.refPathFor(data);
            final int[] accesses = {0};
            RefCountFile.beforeAccess = path -> {
                if (path.equals(ref) && ++accesses[0] == (failTheRead ? 1 : 2)) {
                    throw new java.io.UncheckedIOException(new java.io.IOException("Too many open files"));
                }
            };

            SharedArrays.reap();

            RefCountFile.beforeAccess = null;
            assertEquals(failTheRead ? 1 : 2, accesses[0], "the pass read the reference file, then mapped it");
            assertHeldAndIntact(holder, held);
        }
    }

    /** An array a child holds: its descriptor and the child's handle id. */
    private record Held(Descriptor descriptor, String id) {
        Path data() {
            return descriptor.path();
        }
    }

    /** A new owner creates an array, {@code holder} opens it, and the owner is killed. */
    private static Held arrayOfAKilledOwnerHeldBy(ChildJvm holder) throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            final Descriptor d = ArrayAgent.create(owner, "FLOAT64 1000");
            final String id = ArrayAgent.open(holder, d);
            owner.kill9();
            return new Held(d, id);
        }
    }

    /** The holder's array still has its files, opens here, and shows what the holder writes. */
    private static void assertHeldAndIntact(ChildJvm holder, Held held) throws Exception {
        final String id = held.id();
        final Path data = held.data();
        assertTrue(Files.exists(data), "the data file of an array a live process holds was deleted");
        assertTrue(Files.exists(Segments.refPathFor(data)), "its refcount file was deleted");
        holder.send("set " + id + " 7 5");
        assertEquals("ok", holder.readLine());
        try (SharedArray a = SharedArray.open(held.descriptor())) {
            assertEquals(7.0, a.getDouble(5), "the holder and this process share the array");
        }
        holder.send("release " + id);
        assertEquals("ok", holder.readLine());
        SharedArrays.reap();
        assertTrue(!Files.exists(data) && !Files.exists(data.getParent()), "once released, the array and its folder go");
    }
}
