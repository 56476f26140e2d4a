package dev.sharray.reducers;

/**
 * Bytes read from a queue are not a valid encoding: truncated, an unknown tag, a length out of range,
 * a class that is not allowed to cross, or nesting too deep. Thrown before any value is built from
 * the offending bytes, so hostile or corrupted input never gets further than the decoder.
 */
public class MalformedDataException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong and where
     */
    public MalformedDataException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and where
     * @param cause   the underlying failure
     */
    public MalformedDataException(String message, Throwable cause) {
        super(message, cause);
    }
}
