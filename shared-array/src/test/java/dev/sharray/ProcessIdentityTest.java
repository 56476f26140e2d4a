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
}
