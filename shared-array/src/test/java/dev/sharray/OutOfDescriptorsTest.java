package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A process that cannot read {@code /proc/<pid>/stat} now (out of file descriptors, EMFILE) must not judge that
 * process dead. It did: the start time read as 0, "not running", so a release in a process out of descriptors
 * reclaimed the references of every other live holder and deleted the array under them.
 */
@ExtendWith(PrivateRoot.class)
class OutOfDescriptorsTest {

    @Test
    void aReleaseOutOfFileDescriptorsKeepsAnArrayAnotherLiveProcessHolds() throws Exception {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 100);
             ChildJvm child = ChildJvm.startWrapped(List.of("sh", "-c", "ulimit -n 1024 && exec \"$@\"", "sh"),
                 FdStarvedRelease.class, List.of("-Dsharray.reaper.disabled=true"))) {
            a.setDouble(5, 3);
            child.send(HexFormat.of().formatHex(a.descriptor().toBytes()));
            final String outcome = child.readLine();
            assertTrue(outcome.startsWith("released (after "), outcome);
            assertTrue(Files.exists(a.path()) && Files.exists(Segments.refPathFor(a.path())),
                "a release in a process out of file descriptors deleted an array this live process holds");
            assertEquals(1, SharedArrays.totalReferences(a), "our reference was reclaimed as a dead process's");
            try (SharedArray again = SharedArray.open(a.descriptor())) {
                assertEquals(5.0, again.getDouble(3));
            }
            assertEquals(0, child.finish());
        }
    }

    /**
     * A create out of file descriptors fails saying so, and leaves no file. It threw InsufficientSpaceException, "0 bytes
     * are free", with the disk nearly empty: the file store could not be looked up without a descriptor, and its
     * unknown free space counted as 0. The process's first release, out of descriptors too, frees its array: it
     * failed with NoClassDefFoundError when its classes were first loaded then (from a class path folder, a file
     * per class). The empty memory file that released ranges are mapped to, which it could not make, is made
     * later: it was tried once, and a process out of descriptors then unmapped at once for good.
     */
    @Test
    void aCreateOutOfFileDescriptorsSaysSoNotThatTheDiskIsFullAndAReleaseStillWorks() throws Exception {
        try (ChildJvm child = ChildJvm.startWrapped(List.of("sh", "-c", "ulimit -n 256 && exec \"$@\"", "sh"),
                FdStarvedCreate.class, List.of("-Dsharray.reaper.disabled=true"))) {
            final String outcome = child.expect("create ");
            assertTrue(outcome.startsWith("java.io.UncheckedIOException: cannot create an array in ")
                && outcome.contains("Too many open files"), outcome);
            // the process's first release, out of descriptors: nothing it needs may be loaded or made only then
            assertEquals("release ok", child.readLine());
            assertEquals("files 0", child.readLine(), "the failed create or the release left files");
            assertEquals("created", child.readLine());
            assertEquals("reserving true", child.readLine(), "a memory file not made while out of descriptors is never made");
            assertEquals(0, child.finish());
        }
    }
}
