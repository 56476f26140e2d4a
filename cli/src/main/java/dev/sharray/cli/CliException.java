package dev.sharray.cli;

/** A failure the user can act on; its message is printed as is, on one line. */
public class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    /** @param message what went wrong, for the user */
    public CliException(String message) {
        this(message, null);
    }

    /**
     * @param message what went wrong, for the user
     * @param cause   the underlying exception (shown with --verbose)
     */
    public CliException(String message, Throwable cause) {
        super(message, cause);
        this.exitCode = Main.FAILURE;
    }

    /** @return the process exit code for this failure */
    public int exitCode() {
        return exitCode;
    }
}
