package dev.sharray;

import java.nio.file.Path;

/**
 * A descriptor or {@code .npy} header is malformed, inconsistent or points outside its file. The
 * message names the offending field, after the file for a file's header; no memory was touched.
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

    /**
     * The same refusal of {@code file}'s header, its message naming the file first: a header's refusal alone
     * ("descr: unsupported NumPy dtype ...") does not say which of a caller's files it is about.
     */
    InvalidDescriptorException(Path file, InvalidDescriptorException refusal) {
        super(file + ": " + refusal.getMessage(), refusal);
        this.field = refusal.field;
    }

    /** @return the name of the offending field */
    public String field() {
        return field;
    }
}
