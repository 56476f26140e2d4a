package dev.sharray.cli;

import java.nio.file.Path;
import picocli.CommandLine;

/**
 * Entry point of the {@code sharray} command. Exit codes: 0 success, 1 failure, 2 usage error. A failure
 * prints one line on stderr; {@code --verbose} adds the stack trace.
 */
public final class Main {
    /** Exit code of a successful run. */
    public static final int OK = 0;
    /** Exit code of a failed run (bad data, I/O error, damaged shards...). */
    public static final int FAILURE = 1;
    /** Exit code of a command line picocli or a command rejected. */
    public static final int USAGE = 2;

    private Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        int code = run(args);
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    /**
     * Runs the command line without exiting (for embedding).
     *
     * @param args command-line arguments
     * @return the exit code
     */
    public static int run(String... args) {
        CommandLine cl = commandLine();
        return cl.execute(args);
    }

    /** @return the configured picocli command line */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SharrayCommand());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? USAGE : FAILURE);
        cl.setParameterExceptionHandler(new UsageErrorHandler());
        cl.setExecutionExceptionHandler(new FailureHandler());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Path.class, Main::path); // every command's FILE, DIR, -o and any later path option
        return cl;
    }

    /**
     * Converts a path argument. An empty one is a usage error: {@code Path.of("")} is the current directory, so
     * {@code -o ""} (an unset variable, say) wrote shards into it and {@code ec verify ""} checked it.
     */
    static Path path(String arg) {
        if (arg.isBlank()) {
            throw new CommandLine.TypeConversionException("a path must not be empty" + (arg.isEmpty() ? "" : " or blank"));
        }
        return Path.of(arg);
    }
}
