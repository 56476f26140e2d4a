package dev.sharray.pool;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The worker JVM running a task died before answering (killed, crashed, exited). Only the task
 * it was running fails with it; the pool replaces the worker and keeps going. A task the worker had
 * not started (queued behind the running one, or sent to it as it died, before it read it) runs on
 * another worker instead, the latter once only: a task whose message ends a second worker before
 * being read fails with this exception. When the worker's JVM aborted on a fatal error (a SIGSEGV in native code,
 * native memory exhausted), the message also gives that error and its report file: without them an abort reads
 * as a bare SIGABRT or exit code 1.
 */
public final class WorkerCrashedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int workerId;
    private final long pid;
    private final int exitCode;
    private final List<String> lastStderrLines;
    private final String jvmFatalError;
    /** A string: the exception must stay serializable, and a {@link Path} is not. */
    private final String errorReport;

    /**
     * @param workerId        the pool's number for the worker
     * @param pid             the worker's process id
     * @param exitCode        its exit code as reported by {@link Process#exitValue()} (128 + n when killed by signal n)
     * @param lastStderrLines the last lines the worker wrote to its standard error
     */
    public WorkerCrashedException(int workerId, long pid, int exitCode, List<String> lastStderrLines) {
        this(workerId, pid, exitCode, lastStderrLines, null, null);
    }

    /**
     * @param workerId        the pool's number for the worker
     * @param pid             the worker's process id
     * @param exitCode        its exit code as reported by {@link Process#exitValue()} (128 + n when killed by signal n)
     * @param lastStderrLines the last lines the worker wrote to its standard error
     * @param jvmFatalError   what the worker's JVM reported as its fatal error, or null when it reported none
     * @param errorReport     the error report file ({@code hs_err_pid<pid>.log}) it wrote, or null
     */
    public WorkerCrashedException(int workerId, long pid, int exitCode, List<String> lastStderrLines, String jvmFatalError,
                                  Path errorReport) {
        super(describe(workerId, pid, exitCode, lastStderrLines, jvmFatalError, errorReport));
        this.workerId = workerId;
        this.pid = pid;
        this.exitCode = exitCode;
        this.lastStderrLines = List.copyOf(lastStderrLines);
        this.jvmFatalError = jvmFatalError;
        this.errorReport = errorReport == null ? null : errorReport.toString();
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

    /**
     * @return what the worker's JVM reported before it aborted (a crash in native code or in {@code Unsafe}
     *         access, or native memory exhausted), on one line: the signal or error, and the problematic frame
     */
    public Optional<String> jvmFatalError() {
        return Optional.ofNullable(jvmFatalError);
    }

    /** @return the error report file the worker's JVM wrote as it aborted ({@code hs_err_pid<pid>.log}), if it did */
    public Optional<Path> errorReport() {
        return Optional.ofNullable(errorReport).map(Path::of);
    }

    private static String describe(int workerId, long pid, int exitCode, List<String> lines, String fatalError,
                                   Path report) {
        final StringBuilder sb = new StringBuilder("worker ").append(workerId).append(" (pid ").append(pid).append(") died: ");
        if (exitCode > 128 && exitCode < 128 + 65) {
            sb.append("killed by signal ").append(exitCode - 128).append(signalName(exitCode - 128));
        } else {
            sb.append("exit code ").append(exitCode);
        }
        if (fatalError != null) {
            // a JVM that hits a fatal error aborts itself: SIGABRT alone would hide the cause
            sb.append(" after a JVM fatal error: ").append(fatalError);
        }
        if (report != null) {
            sb.append(" (error report ").append(report).append(')');
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
