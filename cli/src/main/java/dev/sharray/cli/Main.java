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
        // a PrintStream keeps its write errors to itself: "sharray ls > /dev/full" lost the listing and exited 0
        if (System.out.checkError()) {
            System.err.println("sharray: cannot write to standard output: the output is lost or incomplete");
            code = code == OK ? FAILURE : code;
        }
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
        final CommandLine cl;
        try {
            cl = commandLine();
        } catch (Error e) { // the heap running out while picocli builds its model, say
            return failed(e);
        }
        return run(cl, args);
    }

    /** Runs {@code args} on {@code cl}; an Error is one line too (picocli gives only Exceptions to the FailureHandler). */
    static int run(CommandLine cl, String... args) {
        try {
            return cl.execute(args);
        } catch (Error e) {
            return failed(e);
        }
    }

    /** An Error as the FailureHandler shows an exception: before, an OutOfMemoryError left a raw stack trace. */
    private static int failed(Error e) {
        if (dev.sharray.SharedArrays.jvmExiting() && !Ui.verbose()) {
            return FAILURE; // the exit's doing, as in FailureHandler
        }
        if (Ui.verbose()) {
            e.printStackTrace(System.err);
        }
        System.err.println("sharray: " + ErrorMessages.describe(e));
        return FAILURE;
    }

    /** @return the configured picocli command line */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SharrayCommand());
        cl.setExitCodeExceptionMapper(t -> t instanceof CommandLine.ParameterException ? USAGE : FAILURE);
        cl.setParameterExceptionHandler(new UsageErrorHandler());
        cl.setExecutionExceptionHandler(new FailureHandler());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.registerConverter(Path.class, Main::path); // every command's FILE, DIR, -o and any later path option
        shareVersion(cl, cl.getCommandSpec().version());
        return cl;
    }

    /** Every subcommand's {@code -V} prints the tool's version: picocli does not pass it down, and they printed nothing. */
    private static void shareVersion(CommandLine cl, String[] version) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            sub.getCommandSpec().version(version);
            shareVersion(sub, version);
        }
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
