package dev.sharray;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The liveness cache keeps what it may still trust, not every process it ever verified: a long-running parent
 * verifies each of its workers (releasing an array a worker holds does), and replaced workers' pids are never
 * checked again, so their entries stayed for the parent's lifetime, one per crashed or timed-out worker.
 */
class ProcessIdentityTest {
    private static final int PROCESSES = 100;

    @Test
    void processesVerifiedOnceAndEndedDoNotStayInTheCache() throws Exception {
        final List<Process> children = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                children.add(new ProcessBuilder("sleep", "60").start());
            }
            for (Process p : children) {
                assertTrue(ProcessIdentity.isAlive(p.pid(), ProcessIdentity.startOf(p.pid())));
            }
            // not before + PROCESSES: a sweep during this loop may drop what earlier tests verified over a second ago
            assertTrue(ProcessIdentity.verifiedCount() >= PROCESSES, ProcessIdentity.verifiedCount() + " kept");
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
            }
            for (Process p : children) {
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
        // past the trust period every entry is useless; the next verification sweeps them out
        Thread.sleep(1_100);
        final Process last = new ProcessBuilder("sleep", "60").start();
        try {
            assertTrue(ProcessIdentity.isAlive(last.pid(), ProcessIdentity.startOf(last.pid())));
            final int kept = ProcessIdentity.verifiedCount();
            assertTrue(kept < PROCESSES / 2, kept + " verified processes kept, " + PROCESSES + " of them ended");
            for (Process p : children) {
                assertFalse(ProcessIdentity.isAlive(p.pid(), 1), "ended: " + p.pid());
            }
        } finally {
            last.destroyForcibly();
            last.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A process that has exited but that its parent has not waited for yet (a zombie: the parent is busy, or is
     * a shell that exec'd another program) has let go of its mappings and references: it is judged dead, as one
     * whose pid is gone, although its /proc entry and start time are still there.
     */
    @Test
    void anExitedProcessItsParentHasNotWaitedForIsDead() throws Exception {
        // sh starts a short-lived child, then becomes sleep, which never waits for it: the child stays a zombie
        final Process parent = new ProcessBuilder("sh", "-c", "sleep 0.2 & echo $!; exec sleep 30").start();
        try {
            final long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(
                parent.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII)).readLine().trim());
            final java.nio.file.Path stat = java.nio.file.Path.of("/proc/" + zombie + "/stat");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String[] fields = {""};
            while (System.nanoTime() < deadline) {
                final String text = java.nio.file.Files.readString(stat);
                fields = text.substring(text.lastIndexOf(')') + 2).split(" "); // fields[0] is field 3, the state
                if (fields[0].equals("Z")) {
                    break;
                }
                Thread.onSpinWait();
            }
            assertTrue(fields[0].equals("Z"), "the child became a zombie, state " + fields[0]);
            final long start = Long.parseLong(fields[19]); // field 22: its start time, still there
            assertTrue(start != 0);
            ProcessIdentity.forgetVerified();
            assertFalse(ProcessIdentity.isAlive(zombie, start), "a zombie is dead");
            assertFalse(ProcessIdentity.isAlive(zombie, 0), "a zombie is dead, whatever its start time");
        } finally {
            parent.destroyForcibly();
            parent.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
