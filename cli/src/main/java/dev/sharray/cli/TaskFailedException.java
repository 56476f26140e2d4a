package dev.sharray.cli;

/** A parallel task threw a checked exception; the cause is that exception. */
public final class TaskFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param cause what the task threw */
    public TaskFailedException(Throwable cause) {
        super(cause.getMessage(), cause);
    }
}
