package dev.sharray.reducers;

/**
 * A value cannot be written: no reducer handles its type, or a reducer failed. Thrown on the sending
 * side, before anything reaches the queue.
 */
public class ReducerException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what could not be written and how to fix it
     */
    public ReducerException(String message) {
        super(message);
    }

    /**
     * @param message what could not be written
     * @param cause   the underlying failure
     */
    public ReducerException(String message, Throwable cause) {
        super(message, cause);
    }
}
