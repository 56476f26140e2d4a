package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SharedArrays#listAll()} (and {@code sharray ls}) names every array file it cannot list, with the reason:
 * {@link SharedArrays#list()} skipped an array whose data or reference file was unreadable, damaged or missing
 * without a word, so a user looking for what fills /dev/shm was not shown it.
 */
@ExtendWith(PrivateRoot.class)
class ListingTest {

    @AfterEach
    void clearHook() {
        RefCountFile.beforeAccess = null;
    }

    @Test
    void arraysThatCannotBeListedAreNamedWithTheReasonBesideTheOthers() throws Exception {
        try (SharedArray intact = SharedArray.create(DType.FLOAT64, 10);
             SharedArray badHeader = SharedArray.create(DType.FLOAT64, 10);
             SharedArray corruptRef = SharedArray.create(DType.FLOAT64, 10);
             SharedArray unreadableRef = SharedArray.create(DType.FLOAT64, 10);
             SharedArray missingData = SharedArray.create(DType.FLOAT64, 10)) {
            try (FileChannel ch = FileChannel.open(badHeader.path(), StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap("GARBAGE!".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), 0);
            }
            RefSlots.writeState(Segments.refPathFor(corruptRef.path()), 9);
            Files.delete(missingData.path());
            final Path unreadable = Segments.refPathFor(unreadableRef.path());
            RefCountFile.beforeAccess = p -> {
                if (p.equals(unreadable)) {
                    throw new java.io.UncheckedIOException(new java.io.IOException("Input/output error"));
                }
            };
            // an array of a process in another pid namespace (a container sharing the root): its pids name no one here
            final Path foreign = Files.createDirectory(intact.path().getParent().resolveSibling(
                "h-n" + (ProcessIdentity.PID_NAMESPACE + 1) + "-1-t2-abcdef12"));
            Files.copy(intact.path(), foreign.resolve("a1-00000000.npy"));
            Files.copy(Segments.refPathFor(intact.path()), foreign.resolve("a1-00000000.ref"));

            final ArrayListing listing = SharedArrays.listAll();
            final Path root = intact.path().getParent().getParent();
            assertEquals(List.of(intact.path()), listing.arrays().stream().map(ArrayInfo::path)
                .filter(p -> p.startsWith(root)).toList(), listing.toString());
            final Map<Path, String> why = listing.unlisted().stream().filter(u -> u.path().startsWith(root))
                .collect(Collectors.toMap(ArrayListing.Unlisted::path, ArrayListing.Unlisted::reason));
            assertContains(why.get(badHeader.path()), "its data file is not a readable .npy file", "bad magic");
            assertContains(why.get(corruptRef.path()), "its reference file is corrupt", "unknown state 9");
            assertContains(why.get(unreadableRef.path()), "its reference file cannot be read", "Input/output error");
            assertContains(why.get(missingData.path()), "its data file is missing");
            if (ProcessIdentity.PID_NAMESPACE != 0) {
                assertContains(why.get(foreign.resolve("a1-00000000.npy")), "another pid namespace");
            }
            assertEquals(ProcessIdentity.PID_NAMESPACE != 0 ? 5 : 4, why.size(), why.toString());
            assertEquals(listing.arrays().stream().filter(a -> a.path().startsWith(root)).toList(),
                SharedArrays.list().stream().filter(a -> a.path().startsWith(root)).toList(),
                "list() is the listing's arrays"); // of this root: other test JVMs' arrays elsewhere come and go
        }
    }

    private static void assertContains(String reason, String... parts) {
        assertTrue(reason != null, "the array is not among those that cannot be listed");
        for (String part : parts) {
            assertTrue(reason.contains(part), reason);
        }
    }
}
