package dev.sharray;

/**
 * A descriptor or {@code .npy} header is malformed, inconsistent or points outside its file. The
 * message names the offending field; no memory was touched.
 */
public class InvalidDescriptorException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String field;

    /**
     * @param field the field that is wrong, e.g. {@code "shape"}
     * @param message what is wrong with it
     */
    public InvalidDescriptorException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** @return the name of the offending field */
    public String field() {
        return field;
    }
}
