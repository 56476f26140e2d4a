package dev.sharray.cli;

import picocli.CommandLine;

/** Turns an exception from a command into one clear line on stderr (the stack trace with --verbose). */
final class FailureHandler implements CommandLine.IExecutionExceptionHandler {
    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parsed) {
        if (ex instanceof CommandLine.ParameterException pe) {
            return new UsageErrorHandler().handleParseException(pe, parsed.originalArgs().toArray(new String[0]));
        }
        if (dev.sharray.SharedArrays.jvmExiting() && !Ui.verbose()) {
            return Main.FAILURE; // a Ctrl-C or SIGTERM stopped the work: the JVM exits with 130 or 143, and says no more
        }
        if (Ui.verbose()) {
            ex.printStackTrace(System.err);
        }
        System.err.println("sharray: " + ErrorMessages.describe(ex));
        return ex instanceof CliException ce ? ce.exitCode() : Main.FAILURE;
    }
}
