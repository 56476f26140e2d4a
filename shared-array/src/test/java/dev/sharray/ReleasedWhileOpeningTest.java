package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@code open} of a descriptor whose array's last holder (in another process) deletes it while the open runs
 * must say the array was released ({@link IllegalStateException}), as it does when the file is already gone when
 * the open begins. Deleted between the open's path resolution and its file check, it was refused as a malformed
 * descriptor instead: {@code InvalidDescriptorException: path: ... is not a regular file}, which a caller that
 * handles "released" (a worker opening a task's array) does not expect. A chaos run of agents opening each
 * other's arrays hit it about once a minute.
 */
class ReleasedWhileOpeningTest {

    @AfterEach
    void noHook() {
        SharedArray.afterResolve = null;
    }

    @Test
    void anArrayDeletedRightAfterItsPathResolvedIsReportedReleased() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            owner.send("create FLOAT64 100");
            final Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(owner.expect("desc ")));
            final Path data = d.path();
            SharedArray.afterResolve = real -> {
                SharedArray.afterResolve = null;
                try {
                    owner.kill9(); // its last holder: the array goes with its process's reap
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                SharedArrays.reapProcess(owner.pid());
                assertFalse(Files.exists(data), "the array is deleted while the open runs");
            };

            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> SharedArray.open(d));
            assertTrue(e.getMessage().contains("released"), e.getMessage());
        }
    }
}
