package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * At {@code System.exit} the exit hook drops all of the process's references, but the application's other threads
 * keep running while hooks run. Their releases then found a count of 0 and threw {@code IllegalStateException:
 * reference count ... would go negative}; and a handle taken and given back after the hook brought the count to 0
 * again, so that release unmapped the data and refcount files while other handles were still in use: reads through
 * them faulted ({@code InternalError}), and the next release's atomic decrement on the unmapped refcount file
 * killed the JVM with SIGBUS (in {@code Unsafe_CompareAndSetLong}, VM code, where HotSpot does not turn the fault
 * into an error). A chaos run saw the exceptions and faults in agents that exited while working. Now a release
 * after the hook neither throws nor unmaps: the dying process keeps its mappings. A create after the hook said
 * "0 bytes are free" (the hook had removed the folder); it now says the JVM is exiting.
 */
class ExitWhileThreadsRunTest {

    @Test
    void releasesAfterTheExitHookDoNotThrowAndDoNotUnmapWhatOtherHandlesUse() throws Exception {
        for (boolean heldElsewhere : new boolean[] {false, true}) {
            try (ChildJvm child = ChildJvm.start(ExitHookRacer.class, List.of())) {
                final Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(child.expect("desc ")));
                final Path data = d.path();
                // held elsewhere: the hook keeps the array, so a handle taken after it gets a reference
                final SharedArray mine = heldElsewhere ? SharedArray.open(d) : null;
                child.send("go");
                assertEquals("ok", child.readLine(), heldElsewhere ? "array held by another process" : "array held only there");
                assertEquals(0, child.finish());
                if (mine != null) {
                    assertEquals(1.5, mine.getDouble(7));
                    assertTrue(Files.exists(data));
                    mine.release();
                }
                assertFalse(Files.exists(data), "deleted once its last holder let go");
            }
        }
    }

    /**
     * A last release that had closed its array when the JVM began to exit: the hook no longer saw the array among the
     * open ones and returned, and the JVM halted the releasing thread before its deletion. The files stayed until
     * another process's reaper pass. The hook now waits for such releases as it does for creates.
     */
    @Test
    void anExitWaitsForALastReleaseUnderWay() throws Exception {
        try (ChildJvm child = ChildJvm.start(ReleaseAtExitRacer.class, List.of())) {
            final Path data = Path.of(child.expect("path "));
            assertEquals(0, child.finish());
            assertFalse(Files.exists(data), "the release under way at exit left the array");
            assertFalse(Files.exists(Segments.refPathFor(data)), "the release under way at exit left its reference file");
            assertFalse(Files.exists(data.getParent()), "the exiting process's folder stayed");
        }
    }
}
