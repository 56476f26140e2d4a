package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An open that takes its reference and then fails to map the data (here a header damaged meanwhile) gives the
 * reference back. If every other holder released in between, each saw that reference and left the files: the open
 * held the last reference, and gave it back without deleting, so the array stayed, counted by nobody, until a
 * reaper pass (or, in a live owner's folder, until that owner ended).
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper removes the dead owner's array first
class FailedOpenLastReferenceTest {

    @AfterEach
    void noHook() {
        Segments.afterOpenAcquired = null;
    }

    @Test
    void anOpenThatFailsAfterTheOtherHoldersReleasedDeletesTheArray() throws Exception {
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            holder.expect("ready ");
            // the killed creator's reference is reclaimed by the open below: the holder's is the other one
            final Descriptor d = ArrayAgent.heldAfterItsCreatorWasKilled(holder, "FLOAT64 1000").descriptor();
            final Path data = d.path();
            final Path ref = Segments.refPathFor(data);
            try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
                f.write("NOTNPY".getBytes(StandardCharsets.US_ASCII)); // the open's map of the data refuses it
            }
            Segments.afterOpenAcquired = () -> {
                Segments.afterOpenAcquired = null;
                try {
                    holder.send("release 1"); // sees the open's reference: leaves the files
                    assertEquals("ok", holder.readLine());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            assertThrows(InvalidDescriptorException.class, () -> SharedArray.open(d));
            assertFalse(java.nio.file.Files.exists(data) || java.nio.file.Files.exists(ref),
                "the failed open held the last reference: the array's files go with it");
        }
    }
}
