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
 * A holder killed with {@code kill -9} whose parent has not waited for it yet (a zombie: a Python driver, a busy
 * shell, a container's init that reaps late) keeps its {@code /proc/<pid>}. The last other holder, exiting within a
 * second of having verified it alive, trusted that check and kept the array: its files and the dead owner's folder
 * stayed until some later reaper pass. The exit hook now checks every holder afresh.
 */
@ExtendWith(PrivateRoot.class) // no other test JVM's reaper acts on the dead owner's folder first
class ZombieHolderAtExitTest {
    /** Runs the java command as a child that this Python process waits for only when it gets SIGTERM. */
    private static final List<String> WAITS_LATE = List.of("python3", "-c",
        "import signal, subprocess, sys; p = subprocess.Popen(sys.argv[1:]);"
            + " signal.signal(signal.SIGTERM, lambda *a: (p.wait(), sys.exit(0))); signal.pause()");

    @Test
    void theLastHolderExitingRightAfterItsOtherHolderBecameAZombieDeletesTheArray() throws Exception {
        try (ChildJvm creator = ChildJvm.startWrapped(WAITS_LATE, ArrayAgent.class, List.of());
             ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.reaper.disabled=true"))) {
            final long creatorPid = Long.parseLong(creator.expect("ready "));
            holder.expect("ready ");
            final Descriptor d = ArrayAgent.create(creator, "FLOAT64 1000");
            ArrayAgent.open(holder, d); // checks that the creator lives: trusted for a second

            ProcessHandle.of(creatorPid).orElseThrow().destroyForcibly();
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (!isZombie(creatorPid)) {
                assertTrue(System.nanoTime() < deadline, "the creator did not become a zombie");
                Thread.sleep(1);
            }
            holder.send("exit");
            assertEquals(0, holder.finish());

            assertFalse(Files.exists(d.path()), "the last live holder's exit kept the array of a zombie holder");
            assertFalse(Files.exists(d.path().getParent()), "the dead owner's folder was kept");
            creator.process().destroy(); // the wrapper now waits for the zombie, which leaves no process behind
            assertTrue(creator.process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
            assertFalse(Files.exists(Path.of("/proc/" + creatorPid)), "the zombie was left");
        }
    }

    private static boolean isZombie(long pid) throws Exception {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    }
}
