package dev.sharray.pool;

/**
 * An exception thrown by a task in a worker, rebuilt in the caller's JVM: it keeps the remote
 * exception's class name ({@link #remoteClassName()}), message and stack trace, and its cause chain
 * as further {@code RemoteTaskException}s. The remote class need not exist in the caller's JVM.
 *
 * <p>What crosses is text: the exception's fields and suppressed exceptions do not (catch and rethrow in the task
 * with a message that says what you need). A cause chain of more than 8 exceptions keeps its first 6, then one whose
 * {@link #remoteClassName()} is {@code "..."} and whose message says how many were left out, then its root cause; a
 * cycle of causes ends where it comes back. Each stack trace keeps its first 1024 frames.
 *
 * <p>It prints as this class, then the remote one ({@code dev.sharray.pool.RemoteTaskException:
 * java.lang.NumberFormatException: For input string: "abc"}), so a log names the class to catch.
 */
public final class RemoteTaskException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String remoteClassName;
    private final String remoteMessage;

    /**
     * @param remoteClassName binary name of the exception's class in the worker
     * @param remoteMessage   its message, possibly {@code null}
     * @param stackTrace      its stack trace as seen in the worker
     * @param cause           its rebuilt cause, possibly {@code null}
     */
    public RemoteTaskException(String remoteClassName, String remoteMessage, StackTraceElement[] stackTrace,
                               RemoteTaskException cause) {
        super(remoteMessage == null ? remoteClassName : remoteClassName + ": " + remoteMessage, cause, true, true);
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
        setStackTrace(stackTrace);
    }

    /** @return the binary class name of the exception thrown in the worker */
    public String remoteClassName() {
        return remoteClassName;
    }

    /** @return the message of the exception thrown in the worker, possibly {@code null} */
    public String remoteMessage() {
        return remoteMessage;
    }
}
