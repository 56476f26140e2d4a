package dev.sharray;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * A process named by (pid, start time): pids are reused, the pair is not. The start time is the kernel's
 * {@code starttime} from {@code /proc/<pid>/stat} (clock ticks since boot): exact, identical for every
 * reader, and one small file read to check, which keeps liveness checks on the open/release path cheap.
 * Where {@code /proc} is unavailable, {@link ProcessHandle} start instants (milliseconds) are used.
 */
final class ProcessIdentity {
    private static final boolean PROC = Files.isReadable(Path.of("/proc/self/stat"));
    static final long PID = ProcessHandle.current().pid();
    static final long START = startOf(PID);
    /**
     * The inode of this process's pid namespace ({@code /proc/self/ns/pid}), or 0 when it cannot be read. A pid and
     * a start time name a process within one pid namespace only: two containers that share a root (a Kubernetes
     * pod's {@code /dev/shm}, {@code docker --ipc=host}) each see the other's pids as gone or as other processes.
     */
    static final long PID_NAMESPACE = pidNamespace();
    /** The inode of the initial pid namespace, the host's: a constant of the kernel ({@code PROC_PID_INIT_INO}). */
    static final long INIT_PID_NAMESPACE = 0xEFFFFFFCL;
    /** How long a verified (pid, start) pair is trusted while /proc/pid exists: reading stat costs ~10 us. */
    private static final long TRUST_NANOS = 1_000_000_000L;
    private static final java.util.concurrent.ConcurrentHashMap<Long, long[]> VERIFIED = new java.util.concurrent.ConcurrentHashMap<>();
    /** Fewest verified pairs at which expired ones are swept out. */
    private static final int SWEEP_MIN = 64;
    /** When expired pairs were last swept out: at most once per trust period, so a sweep's cost is spread thin. */
    private static volatile long lastSweep = System.nanoTime() - TRUST_NANOS;

    private ProcessIdentity() {
    }

    /** @return the inode of this process's pid namespace, from the link {@code /proc/self/ns/pid} ("pid:[N]"), or 0 */
    private static long pidNamespace() {
        try {
            final String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            if (link.startsWith("pid:[") && link.endsWith("]")) {
                return Long.parseLong(link, 5, link.length() - 1, 10);
            }
        } catch (IOException | RuntimeException e) {
            // no /proc, or no access to it: pid namespaces cannot be told apart, as before
        }
        return 0;
    }

    /** @return the start time of {@code pid}, or 0 if it is not running, a zombie, or unreadable */
    static long startOf(long pid) {
        return Math.max(0, readStart(pid));
    }

    /**
     * @return the start time of {@code pid}; 0 when it is certainly not running (no such process, or a zombie); -1
     *     when {@code /proc/<pid>/stat} is there but cannot be read or understood now (this process is out of file
     *     descriptors or memory, say), which says nothing about that process
     */
    private static long readStart(long pid) {
        if (PROC) {
            try {
                String stat = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/stat")), StandardCharsets.US_ASCII);
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if (fields[0].equals("Z") || fields[0].equals("X")) {
                    return 0; // a zombie has exited: its mappings and references are gone
                }
                return Long.parseLong(fields[19]); // field 22 of stat; fields[0] is field 3
            } catch (NoSuchFileException e) {
                return 0;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        return h.flatMap(p -> p.info().startInstant()).map(Instant::toEpochMilli).orElse(0L);
    }

    /**
     * Forgets every verified pair, so that the next check of each process reads its start time: where a holder that
     * died within the trust period (a zombie its parent has not waited for yet keeps its {@code /proc/<pid>}) must
     * not count, as at this process's exit, the last chance it has to delete what it held last. Also a test hook.
     */
    static void forgetVerified() {
        VERIFIED.clear();
    }

    /**
     * Drops the pairs verified longer than {@link #TRUST_NANOS} ago, which are never trusted again: most belong to
     * processes that ended (a pool's replaced workers), whose pids nothing checks any more, one entry each for
     * as long as this process lived.
     */
    private static void sweepExpired(long now) {
        lastSweep = now;
        VERIFIED.values().removeIf(v -> now - v[1] >= TRUST_NANOS);
    }

    /** @return how many verified pairs are kept (for tests) */
    static int verifiedCount() {
        return VERIFIED.size();
    }

    /**
     * @param pid process id
     * @param start start time recorded for it, or 0 when unknown
     * @return false only when the process is certainly gone: no such pid, or the pid now belongs to a
     *     process started at another time
     */
    static boolean isAlive(long pid, long start) {
        return isAlive(pid, start, -1L);
    }

    /**
     * As {@link #isAlive(long, long)}, where only the bits of the start time in {@code mask} were recorded (a
     * reference file packs a pid and part of its start time into one word: {@link ProcessWords}).
     *
     * @param startBits the recorded start time's bits in {@code mask}, or 0 when unknown (then the pid alone counts)
     */
    static boolean isAlive(long pid, long startBits, long mask) {
        if (pid == PID) {
            return startBits == 0 || (START & mask) == startBits;
        }
        if (pid <= 0) {
            return false;
        }
        if (!PROC) {
            long actual = startOf(pid);
            return actual == 0 ? ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                : startBits == 0 || (actual & mask) == startBits;
        }
        if (Files.notExists(Path.of("/proc/" + pid))) {
            return false; // certainly gone (one system call; kill(pid, 0) would load JNA into every worker)
        }
        long now = System.nanoTime();
        long[] verified = VERIFIED.get(pid);
        if (verified != null && (verified[0] & mask) == startBits && now - verified[1] < TRUST_NANOS) {
            return true; // the same process was verified moments ago and its pid still exists
        }
        long actual = readStart(pid);
        if (actual < 0) {
            // it cannot be told now: judged dead, a live holder's references were reclaimed and its array deleted
            // under it (by a release in a process out of file descriptors). Alive is safe: a later check judges it.
            return true;
        }
        if (actual == 0) {
            VERIFIED.remove(pid);
            return false;
        }
        if ((actual & mask) == startBits) {
            VERIFIED.put(pid, new long[] {actual, now});
            if (now - lastSweep >= TRUST_NANOS && VERIFIED.size() > SWEEP_MIN) {
                sweepExpired(now);
            }
        }
        return startBits == 0 || (actual & mask) == startBits;
    }
}
