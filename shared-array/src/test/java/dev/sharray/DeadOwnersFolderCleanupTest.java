package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What is left in a dead owner's folder while others hold its arrays. What creates killed midway leave in a dead owner's folder (a data file without its reference file; a reference
 * file without its magic, and its data file) while a live process holds another array there. A pass kept the
 * folder for that array, and the leftovers with it, after that array's last release too: they went only with the
 * whole folder, at some later pass. A leftover data file can be as large as the array was to be (RAM on a tmpfs).
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead owner's folder first
class DeadOwnersFolderCleanupTest {

    @Test
    void aPassDeletesKilledCreatesInADeadOwnersFolderItKeepsForAHeldArray() throws Exception {
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final ArrayAgent.Held held = ArrayAgent.heldAfterItsCreatorWasKilled(holder, "FLOAT64 1000");
            holder.send("set " + held.holderId() + " 4 2");
            assertEquals("ok", holder.readLine());
            final Path folder = held.descriptor().path().getParent();
            // killed after its data file was made, before its reference file
            final Path dataOnly = Files.write(folder.resolve("a90-0badc0de.npy"), new byte[1 << 20]);
            // killed after its reference file was written whole, before its magic (the header's last word)
            final Path refNoMagic = Files.write(folder.resolve("a91-0badc0de.ref"), new byte[RefCountFile.FILE_SIZE]);
            final Path itsData = Files.write(folder.resolve("a91-0badc0de.npy"), new byte[4096]);
            // killed right after creating its reference file
            final Path emptyRef = Files.createFile(folder.resolve("a92-0badc0de.ref"));

            final ReapReport dry = SharedArrays.reapDryRun();
            final ReapReport real = SharedArrays.reap();
            assertEquals(mine(dry, folder), mine(real, folder), "the dry run said otherwise than the real pass did");
            for (Path leftover : List.of(dataOnly, refNoMagic, itsData, emptyRef)) {
                assertFalse(Files.exists(leftover), leftover + " was kept");
            }
            assertTrue(mine(real, folder).arraysDeleted().containsAll(List.of(dataOnly, itsData)), real.toString());
            assertTrue(Files.exists(held.descriptor().path()) && Files.exists(Segments.refPathFor(held.descriptor().path())),
                "the held array was deleted");
            holder.send("get 1 2");
            assertEquals("value 4.0", holder.readLine(), "the holder's array is intact");

            holder.send("release 1"); // its last release: the dead owner's folder, now empty, goes with it
            assertEquals("ok", holder.readLine());
            assertFalse(Files.exists(folder), "the dead owner's folder outlived its last array");
        }
    }

    /** An exit hook that deletes a dead owner's last array (held, never released) removes its folder, as a release does. */
    @Test
    void anExitThatDeletesADeadOwnersLastArrayRemovesItsFolder() throws Exception {
        final Path folder;
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            final ArrayAgent.Held held = ArrayAgent.heldAfterItsCreatorWasKilled(holder, "FLOAT64 1000");
            folder = held.descriptor().path().getParent();
            holder.send("exit");
            assertEquals(0, holder.finish());
            assertFalse(Files.exists(held.descriptor().path()), "the exit hook kept the array");
        }
        assertFalse(Files.exists(folder), "the dead owner's empty folder outlived its last holder's exit");
    }

    /** @return the part of {@code report} under {@code folder} (other test JVMs' dead processes may be reaped too) */
    private static ReapReport mine(ReapReport report, Path folder) {
        return new ReapReport(report.foldersRemoved().stream().filter(p -> p.startsWith(folder)).toList(),
            report.arraysDeleted().stream().filter(p -> p.startsWith(folder)).sorted().toList(), 0, 0);
    }
}
