package dev.sharray;

import java.time.Instant;
import java.util.Optional;

/**
 * A process named by (pid, start time): pids are reused, the pair is not. Start times are milliseconds
 * since the epoch as {@link ProcessHandle.Info#startInstant()} reports them, which every JVM on the host
 * derives the same way from {@code /proc}.
 */
final class ProcessIdentity {
    static final long PID = ProcessHandle.current().pid();
    static final long START_MILLIS = startMillis(ProcessHandle.current());

    private ProcessIdentity() {
    }

    private static long startMillis(ProcessHandle handle) {
        return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /**
     * @param pid process id
     * @param startMillis start time recorded for it, or 0 when unknown
     * @return false only when the process is certainly gone: no such pid, or the pid now belongs to a
     *     process started at another time
     */
    static boolean isAlive(long pid, long startMillis) {
        if (pid == PID) {
            return startMillis == 0 || startMillis == START_MILLIS;
        }
        if (pid <= 0) {
            return false;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        if (startMillis == 0) {
            return true;
        }
        long actual = startMillis(handle.get());
        // tolerate rounding differences between readers of the same jiffies
        return actual == 0 || Math.abs(actual - startMillis) < 20;
    }
}
