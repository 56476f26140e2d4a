package dev.sharray.pool;

import java.util.List;

/**
 * The worker JVM running a task died before answering (killed, crashed, exited). Only the task
 * it was running fails with it; the pool replaces the worker and keeps going. A task the worker had
 * not started (queued behind the running one, or sent to it as it died, before it read it) runs on
 * another worker instead, the latter once only: a task whose message ends a second worker before
 * being read fails with this exception.
 */
public final class WorkerCrashedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int workerId;
    private final long pid;
    private final int exitCode;
    private final List<String> lastStderrLines;

    /**
     * @param workerId        the pool's number for the worker
     * @param pid             the worker's process id
     * @param exitCode        its exit code as reported by {@link Process#exitValue()} (128 + n when killed by signal n)
     * @param lastStderrLines the last lines the worker wrote to its standard error
     */
    public WorkerCrashedException(int workerId, long pid, int exitCode, List<String> lastStderrLines) {
        super(describe(workerId, pid, exitCode, lastStderrLines));
        this.workerId = workerId;
        this.pid = pid;
        this.exitCode = exitCode;
        this.lastStderrLines = List.copyOf(lastStderrLines);
    }

    /** @return the pool's number for the worker */
    public int workerId() {
        return workerId;
    }

    /** @return the worker's process id */
    public long pid() {
        return pid;
    }

    /** @return the exit code (128 + signal number when killed by a signal) */
    public int exitCode() {
        return exitCode;
    }

    /** @return the signal that killed the worker, or 0 when it exited by itself */
    public int signal() {
        return exitCode > 128 && exitCode < 128 + 65 ? exitCode - 128 : 0;
    }

    /** @return the last lines of the worker's standard error, oldest first */
    public List<String> lastStderrLines() {
        return lastStderrLines;
    }

    private static String describe(int workerId, long pid, int exitCode, List<String> lines) {
        final StringBuilder sb = new StringBuilder("worker ").append(workerId).append(" (pid ").append(pid).append(") died: ");
        if (exitCode > 128 && exitCode < 128 + 65) {
            sb.append("killed by signal ").append(exitCode - 128).append(signalName(exitCode - 128));
        } else {
            sb.append("exit code ").append(exitCode);
        }
        if (lines.isEmpty()) {
            sb.append("; no stderr output");
        } else {
            sb.append("; last stderr lines:");
            for (String line : lines) {
                sb.append("\n  ").append(line);
            }
        }
        return sb.toString();
    }

    private static String signalName(int signal) {
        switch (signal) {
            case 9: return " (SIGKILL)";
            case 15: return " (SIGTERM)";
            case 11: return " (SIGSEGV)";
            case 6: return " (SIGABRT)";
            case 7: return " (SIGBUS)";
            case 2: return " (SIGINT)";
            default: return "";
        }
    }
}
